/** Exit codes shared by every command (documented in the README's CLI section). */
export const exitCodes = { ok: 0, rejected: 1, usage: 2 } as const;

export class UsageError extends Error {}

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

/**
 * What a server or a card wrote, on its way to the terminal: C0 controls except tab and line feed,
 * DEL, C1 controls, bidirectional overrides and isolates are left out (an escape sequence or an
 * override would rewrite what the terminal shows).
 */
// eslint-disable-next-line no-control-regex
export const unsafeForTerminal = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(unsafeForTerminal, '');
}
