import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/main/platform/logger';

function capture() {
  const lines: string[] = [];
  return { lines, log: createLogger({ write: (line) => lines.push(line) }) };
}

describe('the app log', () => {
  it('writes every entry as one line: control characters in the message, area or error are escaped', () => {
    const { lines, log } = capture();
    log.warn('ipc', 'ignored a call on agentdesk:x\n2026-01-01T00:00:00.000Z INFO [auth] signed in\r\u0085\u2028');
    log.error('net\u001b[31m', 'failed', new Error('server said\nINFO forged'));
    log.info('a', 'tab\tand nul\u0000 and del\u007f');
    expect(lines).toHaveLength(3);
    // eslint-disable-next-line no-control-regex -- no control character may be left
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(lines[0]).toMatch(/ WARN \[ipc\] ignored a call on agentdesk:x\\u000a2026-01-01T00:00:00\.000Z INFO \[auth\] signed in\\u000d\\u0085\\u2028$/);
    expect(lines[1]).toMatch(/ ERROR \[net\\u001b\[31m\] failed: Error: server said\\u000aINFO forged$/);
    expect(lines[2]).toContain('tab\\u0009and nul\\u0000 and del\\u007f');
  });

  it('leaves ordinary text alone (accents, emoji, backslashes)', () => {
    const { lines, log } = capture();
    log.info('photo', 'Žluťoučký kůň 🐎 C:\\Users\\me');
    expect(lines[0]).toMatch(/ INFO \[photo\] Žluťoučký kůň 🐎 C:\\Users\\me$/);
  });
});
