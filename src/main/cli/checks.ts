import { TalkieError } from '../talkie/talkie-client';
import type { Io } from './output';

/**
 * The checks of `agentdesk conformance` (Talkie and AgentCall): one line per check as it finishes,
 * `PASS`, `FAIL`, `SKIP` (with the reason) or `WARN` (allowed by the spec, but worth a look), then a
 * summary line; with --json one object `{ok, …, checks}` instead. Only a FAIL makes the run fail.
 */
export interface CheckResult {
  name: string;
  ok: boolean;
  skipped?: boolean;
  /** ok, but worth a look: counted apart, never fails the run. */
  warning?: boolean;
  detail: string;
}

export function checkStatus(result: CheckResult): 'PASS' | 'FAIL' | 'SKIP' | 'WARN' {
  if (result.skipped) return 'SKIP';
  if (!result.ok) return 'FAIL';
  return result.warning ? 'WARN' : 'PASS';
}

export interface CheckReport {
  readonly results: CheckResult[];
  report(result: CheckResult): void;
  /** Prints the summary (or the JSON object with `extra` after `ok`); true when no check failed. */
  finish(extra?: Record<string, unknown>): boolean;
}

export function checkReport(io: Io, json: boolean): CheckReport {
  const results: CheckResult[] = [];
  return {
    results,
    report(result) {
      results.push(result);
      if (!json) io.out(`${checkStatus(result)} ${result.name}: ${result.detail}`);
    },
    finish(extra = {}) {
      const ok = results.every((result) => result.ok || result.skipped);
      if (json) {
        io.out(JSON.stringify({ ok, ...extra, checks: results }));
        return ok;
      }
      const count = (status: ReturnType<typeof checkStatus>) => results.filter((result) => checkStatus(result) === status).length;
      const skipped = count('SKIP');
      const warnings = count('WARN');
      io.out(
        `${count('PASS')} passed, ${count('FAIL')} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${warnings > 0 ? `, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}` : ''}`,
      );
      return ok;
    },
  };
}

/** A failed expectation: its message is the check's FAIL detail. */
export class CheckFailed extends Error {}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** The server's refusal of a request (a TalkieError), or undefined when it answered 2xx. */
export async function refusal(request: () => Promise<unknown>): Promise<TalkieError | undefined> {
  try {
    await request();
    return undefined;
  } catch (error) {
    if (error instanceof TalkieError) return error;
    throw error;
  }
}
