import { describe, expect, it } from 'vitest';
import { searchQuality } from '../../../src/main/photo/quality-search';

/** A size curve like JPEG's on photos: ln(size) linear in ln(quantisation scale), with a little jitter. */
function curve(sizeAt75: number, slope: number, jitter = 0): (quality: number) => number {
  const scale = (q: number) => (q < 50 ? 5000 / q : Math.max(1, 200 - 2 * q));
  return (q) => Math.round(sizeAt75 * Math.pow(scale(q) / 50, slope) * (1 + jitter * Math.sin(q * 12.9898)));
}

const options = { maxBytes: 61_440, minQuality: 40, maxQuality: 95, maxEncodes: 12 };

describe('searchQuality', () => {
  it('always finds the highest fitting quality, from any start, on many curves', async () => {
    let searches = 0;
    for (const sizeAt75 of [20_000, 45_000, 60_000, 75_000, 110_000, 150_000]) {
      for (const slope of [-0.5, -0.7, -1.1]) {
        for (const jitter of [0, 0.01]) {
          const size = curve(sizeAt75, slope, jitter);
          let best = 0;
          for (let q = 40; q <= 95; q++) if (size(q) <= 61_440) best = q;
          for (const startQuality of [40, 55, 75, 90, 95]) {
            const result = await searchQuality(async (q) => new Uint8Array(size(q)), { ...options, startQuality });
            expect(result.best?.quality ?? 0, `size@75 ${sizeAt75}, slope ${slope}, start ${startQuality}`).toBe(best);
            expect(new Set(result.trials.map((trial) => trial.quality)).size).toBe(result.trials.length);
            searches++;
          }
        }
      }
    }
    expect(searches).toBe(180);
  });

  it('two encodes when the start is right, one when the maximum fits', async () => {
    const size = curve(60_000, -0.7);
    let best = 0;
    for (let q = 40; q <= 95; q++) if (size(q) <= 61_440) best = q;
    expect((await searchQuality(async (q) => new Uint8Array(size(q)), { ...options, startQuality: best })).trials).toHaveLength(2);
    const tiny = curve(5_000, -0.7);
    expect((await searchQuality(async (q) => new Uint8Array(tiny(q)), { ...options, startQuality: 95 })).trials).toHaveLength(1);
  });

  it('reports the size at the minimum quality when nothing fits', async () => {
    const huge = curve(400_000, -0.7);
    const result = await searchQuality(async (q) => new Uint8Array(huge(q)), { ...options, startQuality: 75 });
    expect(result.best).toBeUndefined();
    expect(result.sizeAtMinQuality).toBe(huge(40));
    expect(result.trials.length).toBeLessThanOrEqual(3);
  });

  it('speculate: the first try encodes the start and the quality above it together, later tries one at a time, same answers', async () => {
    for (const sizeAt75 of [20_000, 60_000, 110_000]) {
      for (const startQuality of [40, 64, 75, 94, 95]) {
        const size = curve(sizeAt75, -0.7, 0.01);
        let best = 0;
        for (let q = 40; q <= 95; q++) if (size(q) <= 61_440) best = q;
        let inFlight = 0;
        const batches: number[][] = [];
        const result = await searchQuality(
          async (q) => {
            if (inFlight === 0) batches.push([]);
            batches.at(-1)!.push(q);
            inFlight++;
            await new Promise((resolve) => setTimeout(resolve, 1));
            inFlight--;
            return new Uint8Array(size(q));
          },
          { ...options, startQuality, speculate: true },
        );
        const label = `size@75 ${sizeAt75}, start ${startQuality}`;
        expect(result.best?.quality ?? 0, label).toBe(best);
        expect(batches[0], label).toEqual(startQuality < 95 ? [startQuality, startQuality + 1] : [95]);
        for (const later of batches.slice(1)) expect(later, label).toHaveLength(1);
        expect(new Set(result.trials.map((trial) => trial.quality)).size).toBe(result.trials.length);
      }
    }
  });

  it('speculate: a right start is settled by its first pair of encodes', async () => {
    const size = curve(60_000, -0.7);
    let best = 0;
    for (let q = 40; q <= 95; q++) if (size(q) <= 61_440) best = q;
    const result = await searchQuality(async (q) => new Uint8Array(size(q)), { ...options, startQuality: best, speculate: true });
    expect(result.trials.map((trial) => trial.quality)).toEqual([best, best + 1]);
  });
});
