import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = readFileSync(new URL('../../../src/renderer/styles/chat/account.css', import.meta.url), 'utf8');

function rule(selector: string): string {
  const start = css.indexOf(`${selector} {`);
  expect(start, `${selector} has a rule`).toBeGreaterThanOrEqual(0);
  return css.slice(start, css.indexOf('}', start));
}

describe('usage meter track (#15)', () => {
  it('draws a visible track, so a meter at 0 does not look empty in either theme', () => {
    // Theme tokens only: light and dark both define --color-border (a control edge) and --color-bg.
    expect(rule('.meter__bar')).toMatch(/border:\s*1px solid var\(--color-border\)/);
    expect(rule('.meter__bar')).toMatch(/appearance:\s*none/);
    expect(rule('.meter__bar::-webkit-progress-bar')).toMatch(/background:\s*var\(--color-/);
    expect(rule('.meter__bar::-webkit-progress-value')).toMatch(/background:\s*var\(--chat-accent\)/);
  });
});
