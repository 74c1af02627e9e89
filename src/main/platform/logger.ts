/**
 * The app log: one line per entry on stderr. Callers pass what happened, never payloads:
 * tokens, tag IDs and image bytes are not loggable values (see the README's privacy rules).
 */
export interface Logger {
  info(area: string, message: string): void;
  warn(area: string, message: string, error?: unknown): void;
  error(area: string, message: string, error?: unknown): void;
}

export type LogLevel = 'info' | 'warn' | 'error' | 'silent';

const rank: Record<LogLevel, number> = { info: 0, warn: 1, error: 2, silent: 3 };

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const level = options.level ?? 'info';
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (at: Exclude<LogLevel, 'silent'>, area: string, message: string, error?: unknown) => {
    if (rank[at] < rank[level]) return;
    const reason = error === undefined ? '' : `: ${describeError(error)}`;
    // One entry is one line: whatever a caller passes (a channel name, a server's error text) cannot forge another.
    write(`${new Date().toISOString()} ${at.toUpperCase()} [${escapeControls(area)}] ${escapeControls(message + reason)}`);
  };
  return {
    info: (area, message) => log('info', area, message),
    warn: (area, message, error) => log('warn', area, message, error),
    error: (area, message, error) => log('error', area, message, error),
  };
}

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators, written as `\uXXXX`. */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Only the error's class and message: stack frames stay out of user-visible places. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : 'unknown error';
}
