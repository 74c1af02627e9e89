import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PhotoError, processImage, sniffFormat, type PhotoErrorCode, type PhotoInput } from '../../../src/main/photo/photo-pipeline';
import { jpegClaiming, photoLikeJpeg, pngClaiming, seededRandom, tinyBmp, tinySvg } from './fixtures';

/** Every refusal is a PhotoError with a code and a sentence for people, and never a crash. */
async function refusal(input: PhotoInput): Promise<PhotoError> {
  const error = await processImage(input).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PhotoError);
  const photoError = error as PhotoError;
  // A sentence for people: no sharp/libvips internals, no bytes.
  expect(photoError.message).toMatch(/^[A-Z].*\.$/);
  expect(photoError.message).not.toMatch(/vips|sharp|VipsJpeg|libpng|Error:/i);
  return photoError;
}

async function expectRefused(bytes: Uint8Array, code: PhotoErrorCode, message?: RegExp) {
  const error = await refusal({ kind: 'file', bytes });
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
}

const randomBytes = (length: number, seed: number) => {
  const random = seededRandom(seed);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
};

describe('bad input is refused with a clear error, quickly and without a crash', () => {
  it('a truncated JPEG (cut in its scan data)', async () => {
    const jpeg = await photoLikeJpeg(800, 600, { seed: 2 });
    await expectRefused(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), 'corrupt_image', /damaged or incomplete/);
    // Cut inside the header, too.
    await expectRefused(jpeg.subarray(0, 100), 'corrupt_image');
  });

  it('a truncated PNG', async () => {
    const png = await sharp(Buffer.from(await photoLikeJpeg(400, 300, { seed: 3 })))
      .png()
      .toBuffer();
    await expectRefused(png.subarray(0, Math.floor(png.length / 2)), 'corrupt_image');
  });

  it('a decompression bomb: a PNG of a few hundred bytes claiming 60000×60000', async () => {
    const bomb = pngClaiming(60_000, 60_000);
    expect(bomb.length).toBeLessThan(1000);
    expect([bomb.readUInt32BE(16), bomb.readUInt32BE(20)]).toEqual([60_000, 60_000]);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    await expectRefused(bomb, 'too_many_pixels', /60000 × 60000 pixels, 3600 megapixels.*up to 50 megapixels/);
    expect(performance.now() - started).toBeLessThan(1000);
    // Nothing was decoded: memory did not grow by anything like the 10 GB the header claims.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('a JPEG whose frame header claims 60000×60000', async () => {
    await expectRefused(await jpegClaiming(60_000, 60_000), 'too_many_pixels', /60000 × 60000 pixels/);
  });

  it('a picture just above the 50 MP limit is refused, one at it is not (only the header is read)', async () => {
    await expectRefused(pngClaiming(10_000, 5_001), 'too_many_pixels');
    // 10000×5000 passes the pixel check; its data is only 4 rows long, so it is then damaged.
    await expectRefused(pngClaiming(10_000, 5_000), 'corrupt_image');
  });

  it('GIF, BMP, TIFF, SVG, HEIC, PDF are refused by name; sharp never sees them', async () => {
    const gif = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#f00' } })
      .gif()
      .toBuffer();
    const tiff = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#f00' } })
      .tiff()
      .toBuffer();
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)]);
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n', 'latin1');
    for (const [bytes, name] of [
      [gif, 'GIF'],
      [tinyBmp(), 'BMP'],
      [tiff, 'TIFF'],
      [tinySvg, 'SVG'],
      [heic, 'HEIC'],
      [pdf, 'PDF'],
    ] as const) {
      await expectRefused(bytes, 'unsupported_format', new RegExp(`^${name} pictures cannot be used\\. Choose a JPEG, PNG or WebP picture\\.$`));
    }
  });

  it('the format comes from the bytes: an SVG with a BOM and whitespace is still SVG', () => {
    expect(sniffFormat(Buffer.from(`\uFEFF \n<svg xmlns="http://www.w3.org/2000/svg"/>`))).toEqual({ supported: false, name: 'SVG' });
    expect(sniffFormat(Buffer.from('hello'))).toEqual({ supported: false, name: undefined });
  });

  it('random bytes', async () => {
    const bytes = randomBytes(50_000, 42);
    expect(bytes[0]).not.toBe(0xff);
    await expectRefused(bytes, 'unsupported_format', /^This file is not a picture AgentDesk can read\./);
  });

  it('random bytes behind a JPEG or PNG signature', async () => {
    await expectRefused(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50_000, 43)]), 'corrupt_image');
    await expectRefused(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(50_000, 44)]), 'corrupt_image');
    await expectRefused(Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), randomBytes(50_000, 45)]), 'corrupt_image');
  });

  it('an empty file and an empty frame', async () => {
    await expectRefused(new Uint8Array(0), 'empty_input', /empty/);
    expect((await refusal({ kind: 'frame', rgba: new Uint8Array(0), width: 0, height: 0 })).code).toBe('empty_input');
  });

  it('a file over 24 MiB is refused before anything reads it', async () => {
    const huge = new Uint8Array(24 * 1024 * 1024 + 1);
    huge.set([0xff, 0xd8, 0xff]);
    await expectRefused(huge, 'file_too_large', /larger than 24 MB/);
  });

  it('a frame whose pixels do not match its size, or that is too large, is refused before sharp', async () => {
    const frame = (width: number, height: number, length: number) => refusal({ kind: 'frame', rgba: new Uint8Array(length), width, height });
    expect((await frame(100, 100, 100 * 100 * 4 - 1)).code).toBe('frame_size_mismatch');
    expect((await frame(100, 100, 100 * 100 * 3)).code).toBe('frame_size_mismatch');
    expect((await frame(4097, 1, 4097 * 4)).code).toBe('frame_size_mismatch');
    expect((await frame(0, 10, 40)).code).toBe('frame_size_mismatch');
    expect((await frame(2.5, 2, 20)).code).toBe('frame_size_mismatch');
    expect((await frame(-2, -2, 16)).code).toBe('frame_size_mismatch');
  });
});
