/**
 * Finds the highest JPEG quality whose output fits a byte budget in few encodes.
 *
 * JPEG size grows monotonically with quality on photos, and ln(size) is close to linear in the
 * logarithm of libjpeg's quantisation scale (5000/q below 50, 200 − 2q from 50 on). So each step
 * fits a line through the two most useful trials (the bracket around the budget when there is
 * one) and jumps to the highest quality that line predicts to fit; with one trial it uses a
 * typical slope. The search stops when quality q fits and q + 1 was tried and does not (or q is
 * the maximum): the answer is exact, not "close enough". Starting from the previous photo's
 * quality usually needs two or three encodes.
 */

export interface QualitySearchOptions {
  /** The byte budget (inclusive). */
  maxBytes: number;
  minQuality: number;
  maxQuality: number;
  /** The first quality to try (clamped to [minQuality, maxQuality]). */
  startQuality: number;
  /** Give up after this many encodes (the best fit so far wins, if any). */
  maxEncodes: number;
  /**
   * The first try also encodes the quality above the start, at once (two encodes in flight): when
   * the start is right (the previous photo's quality, on a camera's next frame), the proof that
   * q + 1 misses arrives with q instead of one encode later. Later tries are one at a time (a pair
   * there would cost an encode more per photo, not less time). Worth it only where encodes run in
   * parallel (sharp's run on the libuv pool), not for an encoder that blocks the thread (jimp).
   */
  speculate?: boolean;
}

export interface QualityTrial {
  quality: number;
  size: number;
}

export interface QualitySearchResult {
  /** The highest quality that fitted, with its bytes; undefined when nothing tried fitted. */
  best?: { quality: number; bytes: Uint8Array };
  /** Every encode, in order. */
  trials: QualityTrial[];
  /** The size at minQuality, when it was tried and did not fit (to plan a downscale). */
  sizeAtMinQuality?: number;
}

/** ln(size) per ln(quantisation scale) near a 60 KB budget at 1024 px (measured −0.5 to −1.2; −0.7 needed fewest encodes). */
export const typicalSlope = -0.7;

/** libjpeg's quality → quantisation table scale (percent). */
export function quantScale(quality: number): number {
  return quality < 50 ? 5000 / quality : Math.max(1, 200 - 2 * quality);
}

function qualityForScale(scale: number): number {
  return scale >= 100 ? 5000 / scale : (200 - scale) / 2;
}

export async function searchQuality(encode: (quality: number) => Promise<Uint8Array>, options: QualitySearchOptions): Promise<QualitySearchResult> {
  const { maxBytes, minQuality, maxQuality } = options;
  const clamp = (quality: number) => Math.min(maxQuality, Math.max(minQuality, Math.round(quality)));
  const trials: QualityTrial[] = [];
  let fit: { quality: number; bytes: Uint8Array } | undefined;
  let quality = clamp(options.startQuality);

  while (trials.length < options.maxEncodes) {
    const batch = [quality];
    if (options.speculate && trials.length === 0 && quality < maxQuality && options.maxEncodes >= 2) batch.push(quality + 1);
    const encoded = await Promise.all(batch.map((q) => encode(q)));
    batch.forEach((q, index) => {
      const bytes = encoded[index]!;
      trials.push({ quality: q, size: bytes.length });
      if (bytes.length <= maxBytes && (!fit || q > fit.quality)) fit = { quality: q, bytes };
    });
    // The lowest miss above the best fit (a non-monotonic curve may also miss below it).
    const miss = trials
      .filter((trial) => trial.size > maxBytes && (!fit || trial.quality > fit.quality))
      .reduce<QualityTrial | undefined>((lowest, trial) => (!lowest || trial.quality < lowest.quality ? trial : lowest), undefined);
    if (fit && (fit.quality === maxQuality || (miss && miss.quality === fit.quality + 1))) break;
    if (!fit && miss && miss.quality === minQuality) break;
    quality = nextQuality(trials, fit ? { quality: fit.quality, size: fit.bytes.length } : undefined, miss, maxBytes, clamp);
  }
  const atMin = trials.find((trial) => trial.quality === minQuality && trial.size > maxBytes);
  return { ...(fit ? { best: fit } : {}), trials, ...(atMin ? { sizeAtMinQuality: atMin.size } : {}) };
}

function nextQuality(
  trials: QualityTrial[],
  fit: QualityTrial | undefined,
  miss: QualityTrial | undefined,
  maxBytes: number,
  clamp: (quality: number) => number,
): number {
  const target = Math.log(maxBytes);
  const point = (trial: QualityTrial) => ({ x: Math.log(quantScale(trial.quality)), y: Math.log(trial.size) });
  let a: { x: number; y: number };
  let slope = typicalSlope;
  if (fit && miss) {
    a = point(fit);
    const b = point(miss);
    if (b.x !== a.x) slope = (b.y - a.y) / (b.x - a.x);
  } else {
    const last = trials.at(-1)!;
    a = point(last);
    // The trial farthest from the last one: neighbours' sizes differ by 2–3 %, too little to read a
    // slope from next to the encoder's own unevenness.
    const previous = trials.reduce<QualityTrial | undefined>(
      (far, trial) => (Math.abs(trial.quality - last.quality) > Math.abs((far?.quality ?? last.quality) - last.quality) ? trial : far),
      undefined,
    );
    if (previous && Math.abs(previous.quality - last.quality) >= 3) {
      const b = point(previous);
      const measured = (b.y - a.y) / (b.x - a.x);
      // A flat or rising segment says nothing useful about where the budget is.
      if (Number.isFinite(measured) && measured < -0.2) slope = measured;
    }
  }
  const predicted = qualityForScale(Math.exp(a.x + (target - a.y) / slope));
  let next = Number.isFinite(predicted) ? Math.floor(predicted) : (fit?.quality ?? 50);
  if (fit && next <= fit.quality) next = fit.quality + 1;
  if (miss && next >= miss.quality) next = miss.quality - 1;
  // Wide brackets: never step less than a quarter of the way in (bounds the worst case).
  if (fit && miss && miss.quality - fit.quality > 8) {
    const quarter = Math.ceil((miss.quality - fit.quality) / 4);
    next = Math.min(Math.max(next, fit.quality + quarter), miss.quality - quarter);
  }
  return clamp(next);
}
