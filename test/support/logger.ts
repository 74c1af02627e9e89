import type { Logger } from '../../src/main/platform/logger';

/** A logger that keeps its lines, so tests can check what was (and was not) logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (area: string, message: string, error?: unknown) =>
    void lines.push(`${level} [${area}] ${message}${error instanceof Error ? `: ${error.message}` : ''}`);
  return { lines, info: push('INFO'), warn: push('WARN'), error: push('ERROR') };
}
