import { describeError, type Logger } from './logger';

/**
 * The recent log that a diagnostics bundle carries: the newest `capacity` entries main logged (its
 * notices, warnings and errors, and what it started), each bounded and redacted as it is kept, so
 * nothing secret reaches the ring even when a caller broke the privacy rule of logger.ts.
 */
export interface LogEntry {
  at: string;
  level: 'info' | 'warn' | 'error';
  area: string;
  message: string;
}

export const logRingLimits = { capacity: 500, messageChars: 1000, areaChars: 40 } as const;

export class LogRing {
  private readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly capacity: number = logRingLimits.capacity,
    private readonly now: () => Date = () => new Date(),
  ) {}

  push(level: LogEntry['level'], area: string, message: string): void {
    this.entries.push({
      at: this.now().toISOString(),
      level,
      area: redactLogText(area).slice(0, logRingLimits.areaChars),
      message: redactLogText(message).slice(0, logRingLimits.messageChars),
    });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const listener of this.listeners) listener();
  }

  /** Called after every entry (the recent-log file saves on it). */
  onPush(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): LogEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}

/** A logger that writes to `inner` and keeps a redacted copy of each entry in `ring`. */
export function ringLogger(inner: Logger, ring: LogRing): Logger {
  const reasonOf = (error: unknown) => (error === undefined ? '' : `: ${describeError(error)}`);
  return {
    info: (area, message) => {
      ring.push('info', area, message);
      inner.info(area, message);
    },
    warn: (area, message, error) => {
      ring.push('warn', area, message + reasonOf(error));
      inner.warn(area, message, error);
    },
    error: (area, message, error) => {
      ring.push('error', area, message + reasonOf(error));
      inner.error(area, message, error);
    },
  };
}

const redactions: readonly [RegExp, string][] = [
  // Authorization headers and bearer tokens.
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, '$1 [redacted]'],
  // key=value and "key": "value" pairs whose key names a secret (OAuth parameters, client secrets, PINs, keys).
  [
    /\b((?:\w+[_-])?(?:token|secret|password|passwd|pin|code|api[_-]?key|device[_-]?key|authorization|cookie)s?(?:[_-]\w+)?)(["']?\s*[:=]\s*["']?)[^\s"'&,;)}\]]+/gi,
    '$1$2[redacted]',
  ],
  // JWTs.
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[redacted jwt]'],
  // data: URLs (image previews) and object references read from tags (urn:agentcall:object:…).
  [/\bdata:[^\s"']+/gi, 'data:[redacted]'],
  [/\burn:[^\s"'<>]+/gi, 'urn:[redacted]'],
  // Card IDs and other byte strings: hex with separators (04:A2:…), long hex runs, long base64 runs.
  [/\b(?:[0-9a-f]{2}[:\- ]){3,}[0-9a-f]{2}\b/gi, '[redacted hex]'],
  [/\b(?:0x)?[0-9a-f]{8,}\b/gi, '[redacted hex]'],
  [/(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{24,}={0,2}/g, '[redacted]'],
  // Standard base64 (with + and /), which the rule above sees as short runs: mixed case and digits, 24 or more (a path breaks at its dots and dashes).
  [/(?=[A-Za-z0-9+/]*\d)(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])[A-Za-z0-9+/]{24,}={0,2}/g, '[redacted]'],
];

/**
 * Removes what must never be in a log kept for diagnostics: tokens, secrets, PINs, JWTs, image
 * data, tag contents and IDs, long opaque strings. Errs on the side of removing too much.
 */
export function redactLogText(text: string): string {
  return redactions.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
}
