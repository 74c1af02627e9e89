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
