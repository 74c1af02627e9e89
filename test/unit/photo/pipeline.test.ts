import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { markerName, observationJpegProblems, readJpegSegments } from '../../../src/main/photo/jpeg-markers';
import { PhotoError, PhotoPipeline, photoLimits, processImage, verifyObservationJpeg, type ProcessedPhoto } from '../../../src/main/photo/photo-pipeline';
import {
  cameraJpeg,
  exifSegment,
  insertAfterSoi,
  markerCounts,
  markerSrgb,
  patchSrgb,
  photoLikeJpeg,
  photoLikeRgb,
  photoLikeRgba,
  rgbaOf,
  secretXmp,
} from './fixtures';

async function pixel(jpeg: Uint8Array, x: number, y: number): Promise<number[]> {
  return [...(await sharp(Buffer.from(jpeg)).extract({ left: x, top: y, width: 1, height: 1 }).raw().toBuffer())];
}

async function regionMean(jpeg: Uint8Array, left: number, top: number, size: number): Promise<number[]> {
  const data = await sharp(Buffer.from(jpeg)).extract({ left, top, width: size, height: size }).raw().toBuffer();
  const sums = [0, 0, 0];
  for (let i = 0; i < data.length; i++) sums[i % 3]! += data[i]!;
  return sums.map((sum) => Math.round(sum / (size * size)));
}

function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}

function expectClose(actual: number[], expected: readonly number[], tolerance: number) {
  actual.forEach((value, index) =>
    expect(Math.abs(value - expected[index]!), `channel ${index}: ${actual.join(',')} vs ${expected.join(',')}`).toBeLessThanOrEqual(tolerance),
  );
}

/** What every photo observation must satisfy, checked independently of the pipeline's own checks. */
async function expectObservation(photo: ProcessedPhoto) {
  expect(photo.mimeType).toBe('image/jpeg');
  expect(photo.byteCount).toBe(photo.jpeg.length);
  expect(photo.byteCount).toBeLessThanOrEqual(61_440);
  expect(photo.sha256).toBe(createHash('sha256').update(photo.jpeg).digest('hex'));
  expect(photo.base64).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
  expect(Buffer.from(photo.base64, 'base64').equals(Buffer.from(photo.jpeg))).toBe(true);
  const metadata = await sharp(Buffer.from(photo.jpeg)).metadata();
  expect(metadata.format).toBe('jpeg');
  expect([metadata.width, metadata.height]).toEqual([photo.pixelWidth, photo.pixelHeight]);
  expect(Math.max(photo.pixelWidth, photo.pixelHeight)).toBeLessThanOrEqual(1024);
  expect(metadata.isProgressive).toBe(false);
  for (const key of ['exif', 'icc', 'xmp', 'iptc', 'tifftagPhotoshop'] as const) expect(metadata[key], key).toBeUndefined();
  expect(metadata.hasProfile).toBe(false);
  expect(metadata.orientation).toBeUndefined();
  // Only SOI, DQT, SOF0 (baseline), DHT, SOS and EOI.
  const names = readJpegSegments(photo.jpeg).map((segment) => markerName(segment.marker));
  expect(new Set(names)).toEqual(new Set(['SOI', 'DQT', 'SOF0', 'DHT', 'SOS', 'EOI']));
  expect(names[0]).toBe('SOI');
  expect(names.at(-1)).toBe('EOI');
  // A raw byte scan, not trusting the segment walk: no APPn, no COM, one SOI (no embedded thumbnail).
  expect(markerCounts(photo.jpeg)).toEqual({ app: 0, com: 0, soi: 1 });
}

describe('a 12 MP phone JPEG with every kind of metadata', () => {
  let input: Buffer;
  let photo: ProcessedPhoto;

  beforeAll(async () => {
    input = await cameraJpeg();
    photo = await processImage({ kind: 'file', bytes: Buffer.from(input) });
  }, 60_000);

  it('the input really carries orientation 6, GPS, a thumbnail, Display P3, XMP, IPTC and a comment', async () => {
    const metadata = await sharp(input).metadata();
    expect([metadata.width, metadata.height, metadata.orientation]).toEqual([4000, 3000, 6]);
    expect(metadata.exif?.toString('latin1')).toContain('AgentDesk Test Camera');
    // GPS IFD pointer (tag 0x8825) and the thumbnail's JPEG inside EXIF.
    expect(metadata.exif!.includes(Buffer.from([0x25, 0x88]))).toBe(true);
    expect(metadata.exif!.includes(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    const p3 = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#777' } })
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    expect(metadata.icc?.equals((await sharp(p3).metadata()).icc!)).toBe(true);
    expect(metadata.xmpAsString).toContain('Secret Photographer');
    expect(metadata.iptc?.toString('latin1')).toContain('Secret caption');
    expect(input.toString('latin1')).toContain('Secret comment');
    expect(markerCounts(input).soi).toBeGreaterThanOrEqual(2);
    // The pixels are stored in P3: the patch is not the sRGB colour it shows.
    const stored = [...(await sharp(input, { ignoreIcc: true }).extract({ left: 2000, top: 1500, width: 1, height: 1 }).raw().toBuffer())];
    expect(Math.abs(stored[0]! - patchSrgb[0])).toBeGreaterThan(8);
  });

  it('comes out as a stripped baseline JPEG within the limits, facts derived from the bytes', async () => {
    await expectObservation(photo);
    const bytes = Buffer.from(photo.jpeg).toString('latin1');
    for (const secret of ['Secret', 'AgentDesk Test Camera', 'Exif', 'http://ns.adobe.com', 'Photoshop', 'ICC_PROFILE', 'lcms', 'JFIF'])
      expect(bytes).not.toContain(secret);
  });

  it('is turned upright by its EXIF orientation before resizing: 3000×4000 shown → 768×1024', async () => {
    expect([photo.pixelWidth, photo.pixelHeight]).toEqual([768, 1024]);
    // Orientation 6 = rotate 90° clockwise: the stored top-left block is now top-right.
    expectClose(await regionMean(photo.jpeg, 768 - 70, 10, 60), markerSrgb, 8);
    // The other corners are texture, nowhere near the marker's colour.
    for (const [x, y] of [
      [10, 10],
      [10, 1024 - 70],
      [768 - 70, 1024 - 70],
    ] as const) {
      expect(distance(await regionMean(photo.jpeg, x, y, 60), markerSrgb), `corner ${x},${y}`).toBeGreaterThan(60);
    }
  });

  it('has sRGB colours: the Display P3 pixels were converted, not relabelled', async () => {
    expectClose(await pixel(photo.jpeg, 384, 512), patchSrgb, 6);
  });

  it('verifies its own output by decoding it again', async () => {
    await expect(verifyObservationJpeg(photo.jpeg)).resolves.toEqual({ pixelWidth: 768, pixelHeight: 1024 });
    // The same check refuses what a receiver must refuse.
    const withExif = insertAfterSoi(photo.jpeg, [exifSegment({ orientation: 1 })]);
    await expect(verifyObservationJpeg(withExif)).rejects.toThrow(/APP1/);
    const progressive = await sharp(Buffer.from(photo.jpeg)).jpeg({ progressive: true, quality: 50 }).toBuffer();
    await expect(verifyObservationJpeg(progressive)).rejects.toThrow(/verification failed/);
    const truncated = Buffer.from(photo.jpeg).subarray(0, photo.jpeg.length - 100);
    await expect(verifyObservationJpeg(truncated)).rejects.toThrow(/verification failed/);
    const big = await sharp({ create: { width: 1100, height: 50, channels: 3, background: '#888' } })
      .jpeg()
      .toBuffer();
    await expect(verifyObservationJpeg(big)).rejects.toThrow(/verification failed/);
  });

  it('verifies by decoding every block: a scan cut short whose markers still look right is refused', async () => {
    // Half of the entropy-coded data, then EOI: the marker walk is satisfied, only decoding the
    // scan (at 1/8 scale, which still reads every block) can tell.
    const jpeg = Buffer.from(photo.jpeg);
    const cut = Buffer.concat([jpeg.subarray(0, Math.floor(jpeg.length / 2)), Buffer.from([0xff, 0xd9])]);
    expect(observationJpegProblems(cut)).toEqual([]);
    await expect(verifyObservationJpeg(cut)).rejects.toThrow();
  });

  it('is not logged or serialized by accident: JSON and inspect show facts, not bytes', async () => {
    const { inspect } = await import('node:util');
    for (const text of [JSON.stringify(photo), inspect(photo), String(inspect({ nested: photo }))]) {
      expect(text).not.toContain(photo.base64.slice(0, 40));
      expect(text).toContain('[redacted]');
    }
  });
});

describe('other inputs', () => {
  it('a PNG with transparency is flattened on white', async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 100, height: 100, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const photo = await processImage({ kind: 'file', bytes: png });
    await expectObservation(photo);
    expect([photo.pixelWidth, photo.pixelHeight]).toEqual([300, 200]);
    expectClose(await pixel(photo.jpeg, 250, 150), [255, 255, 255], 3);
    expectClose(await pixel(photo.jpeg, 50, 50), [255, 0, 0], 12);
  });

  it('a PNG with an ICC profile and alpha, a grayscale JPEG and a WebP are accepted; small pictures are not enlarged', async () => {
    const raw = await photoLikeRgb(500, 400, { seed: 5 });
    const inputs = [
      await sharp(raw, { raw: { width: 500, height: 400, channels: 3 } })
        .ensureAlpha(0.5)
        .withIccProfile('p3')
        .png()
        .toBuffer(),
      await sharp(raw, { raw: { width: 500, height: 400, channels: 3 } })
        .grayscale()
        .jpeg()
        .toBuffer(),
      await sharp(raw, { raw: { width: 500, height: 400, channels: 3 } })
        .webp({ quality: 80 })
        .toBuffer(),
    ];
    for (const bytes of inputs) {
      const photo = await processImage({ kind: 'file', bytes });
      await expectObservation(photo);
      expect([photo.pixelWidth, photo.pixelHeight]).toEqual([500, 400]);
    }
  });

  it('a 1280×720 camera frame (raw RGBA) → 1024×576', async () => {
    const rgba = await photoLikeRgba(1280, 720, { seed: 3, detail: 0.3 });
    const photo = await processImage({ kind: 'frame', rgba, width: 1280, height: 720 });
    await expectObservation(photo);
    expect([photo.pixelWidth, photo.pixelHeight]).toEqual([1024, 576]);
  });

  it('a picture too detailed for 60 KB at 1024 px is made smaller rather than blockier than quality 40', async () => {
    const noisy = Buffer.alloc(1024 * 768 * 3);
    const random = (await import('./fixtures')).seededRandom(9);
    for (let i = 0; i < noisy.length; i++) noisy[i] = Math.floor(random() * 256);
    const png = await sharp(noisy, { raw: { width: 1024, height: 768, channels: 3 } })
      .png()
      .toBuffer();
    const photo = await processImage({ kind: 'file', bytes: png });
    await expectObservation(photo);
    expect(photo.pixelWidth).toBeLessThan(1024);
    expect(photo.pixelWidth / photo.pixelHeight).toBeCloseTo(4 / 3, 1);
    expect(photo.quality).toBeGreaterThanOrEqual(photoLimits.minQuality);
  }, 30_000);

  it('fails clearly when nothing fits even after downscaling (a tighter budget than the spec’s)', async () => {
    const rgba = await photoLikeRgba(800, 600, { seed: 4, detail: 1 });
    const error = await processImage({ kind: 'frame', rgba, width: 800, height: 600 }, { maxJpegBytes: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PhotoError);
    expect((error as PhotoError).code).toBe('too_large_after_compression');
    expect((error as PhotoError).message).toMatch(/too much fine detail/);
  });
});

describe('quality: the highest that fits, in few encodes', () => {
  it('picks the highest quality that fits 61,440 bytes (checked against every quality)', async () => {
    for (const [seed, detail] of [
      [21, 0.1],
      [22, 0.3],
    ] as const) {
      const rgb = await photoLikeRgb(1024, 768, { seed, detail });
      const photo = await processImage({ kind: 'frame', rgba: rgbaOf(rgb), width: 1024, height: 768 });
      expect([photo.pixelWidth, photo.pixelHeight]).toEqual([1024, 768]);
      const size = async (quality: number) =>
        (
          await sharp(rgb, { raw: { width: 1024, height: 768, channels: 3 } })
            .jpeg({ quality, progressive: false, optimiseCoding: true, chromaSubsampling: '4:2:0' })
            .toBuffer()
        ).length;
      expect(await size(photo.quality)).toBe(photo.byteCount);
      expect(photo.byteCount).toBeLessThanOrEqual(61_440);
      if (photo.quality < photoLimits.maxQuality) expect(await size(photo.quality + 1)).toBeGreaterThan(61_440);
    }
  }, 30_000);

  it('a session of camera photos needs a median of ≤ 3 encodes (each starts from the previous quality)', async () => {
    const pipeline = new PhotoPipeline();
    const encodes: number[] = [];
    // Ten shots of one kind of scene (different pictures, similar detail), as in one conversation.
    // Unrelated pictures in a row need about 4 (the first guess is then no better than a default).
    for (let shot = 0; shot < 10; shot++) {
      const jpeg = await photoLikeJpeg(1600, 1200, { seed: 100 + shot, detail: 0.1 + (shot % 3) * 0.05 });
      encodes.push((await pipeline.process({ kind: 'file', bytes: jpeg })).encodes);
    }
    const sorted = [...encodes].sort((a, b) => a - b);
    expect((sorted[4]! + sorted[5]!) / 2, `encodes per photo: ${encodes.join(', ')}`).toBeLessThanOrEqual(3);
    expect(Math.max(...encodes)).toBeLessThanOrEqual(photoLimits.maxEncodesPerSize);
  }, 60_000);

  it('a camera frame again, once its guess hit: the guess and the quality above it at once, and the same bytes', async () => {
    const rgba = await photoLikeRgba(1280, 720, { seed: 12, detail: 0.35 });
    const frame = { kind: 'frame', rgba, width: 1280, height: 720 } as const;
    const pipeline = new PhotoPipeline();
    const photos = [];
    for (let shot = 0; shot < 3; shot++) photos.push(await pipeline.process(frame));
    // The first guess (75) misses; the second starts from the answer and hits, one encode at a time;
    // the third speculates: its pair settles it, and it is the same picture, byte for byte.
    expect(photos.map((photo) => photo.encodes).slice(1)).toEqual([2, 2]);
    expect(new Set(photos.map((photo) => photo.sha256)).size).toBe(1);
    const quality = photos[0]!.quality;
    // The fused resize-and-encode of a frame writes what encoding its resized pixels writes.
    const small = await sharp(Buffer.from(rgba), { raw: { width: 1280, height: 720, channels: 4 } })
      .resize(1024, 1024, { fit: 'inside' })
      .removeAlpha()
      .raw()
      .toBuffer();
    const encode = (q: number) =>
      sharp(small, { raw: { width: 1024, height: 576, channels: 3 } })
        .jpeg({ quality: q, progressive: false, optimiseCoding: true, chromaSubsampling: '4:2:0' })
        .toBuffer();
    expect(
      createHash('sha256')
        .update(await encode(quality))
        .digest('hex'),
    ).toBe(photos[2]!.sha256);
    if (quality < photoLimits.maxQuality) expect((await encode(quality + 1)).length).toBeGreaterThan(61_440);
    // And speculating or not, from any start, the answer is the same.
    const sequential = await processImage(frame, { startQuality: quality, speculate: false });
    expect(sequential.sha256).toBe(photos[2]!.sha256);
  }, 30_000);

  it('the same picture again starts from its quality and needs two encodes (fits, next one does not)', async () => {
    const pipeline = new PhotoPipeline();
    const jpeg = await photoLikeJpeg(1200, 900, { seed: 31, detail: 0.4 });
    const first = await pipeline.process({ kind: 'file', bytes: jpeg });
    expect(pipeline.predictedQuality).toBe(first.quality);
    const second = await pipeline.process({ kind: 'file', bytes: jpeg });
    expect(second.quality).toBe(first.quality);
    expect(second.sha256).toBe(first.sha256);
    expect(second.encodes).toBe(2);
  }, 30_000);
});

it('the fixture XMP is real XMP (so its absence in the output means something)', async () => {
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#777' } })
    .withXmp(secretXmp)
    .jpeg()
    .toBuffer();
  expect((await sharp(jpeg).metadata()).xmpAsString).toContain('Secret Photographer');
});
