import fc from 'fast-check';
import { describe, it } from 'vitest';
import { fuzzTargets } from '../../fuzz/targets';

/**
 * The bounded share of the fuzzing sweep that `npm test` runs: every target of test/fuzz/targets.ts
 * with a small budget and a fresh random seed each time (fast-check prints the seed and the
 * counterexample path of a failure, to replay it with FUZZ_SEED/FUZZ_PATH). The full sweep,
 * with hang detection, is `npm run fuzz`.
 */
describe('fuzz targets (bounded budget)', () => {
  for (const target of fuzzTargets) {
    it(`${target.name} holds on ${target.quickRuns ?? 100} generated inputs`, { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(target.arbitrary, async (input) => target.property(input)),
        { numRuns: target.quickRuns ?? 100 },
      );
    });
  }
});
