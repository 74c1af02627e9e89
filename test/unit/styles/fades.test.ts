import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = (file: string) => readFileSync(new URL(`../../../src/renderer/styles/${file}`, import.meta.url), 'utf8');

function rule(text: string, selector: string): string {
  const start = text.indexOf(`${selector} {`);
  expect(start, `${selector} has a rule`).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('}', start));
}

describe('text never passes through low contrast while it fades (#15)', () => {
  it('a message time is shown and hidden at once, never half-transparent', () => {
    const chat = css('chat/transcript.css');
    expect(rule(chat, '.item-time')).not.toMatch(/transition/);
    expect(chat).not.toMatch(/\.item-time[^{]*\{[^}]*transition/);
  });
});
