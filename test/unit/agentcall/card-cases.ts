import { readFileSync } from 'node:fs';

/** One row of test/fixtures/agentcall-cards/cases.json. */
export interface CardCase {
  name: string;
  note?: string;
  /** The validation option (default false). */
  allowLocalHttp?: boolean;
  expect: CardExpectation;
  /** What to expect under the development setting, when it differs from `expect`. */
  expectDev?: CardExpectation;
  /** A subset of the normalized AgentCallCard the valid case must produce. */
  expectCard?: Record<string, unknown>;
  card: unknown;
}

export interface CardExpectation {
  ok: boolean;
  kind: 'agentcall' | 'a2a' | 'unknown';
  /** Sorted, unique problem codes (warnings included). */
  codes: string[];
}

export const cardCases: CardCase[] = (
  JSON.parse(readFileSync(new URL('../../fixtures/agentcall-cards/cases.json', import.meta.url), 'utf8')) as { cases: CardCase[] }
).cases;

/** Sorted unique codes of a problem list, to compare with a case's `codes`. */
export const codesOf = (problems: readonly { code: string }[]): string[] => [...new Set(problems.map((problem) => problem.code))].sort();
