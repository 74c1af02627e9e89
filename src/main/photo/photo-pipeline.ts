import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { jpegFrameSize, observationJpegProblems } from './jpeg-markers';
import { PhotoError } from './photo-errors';
import { quantScale, searchQuality, typicalSlope, type QualityTrial } from './quality-search';

export { PhotoError, photoErrorCodes, type PhotoErrorCode } from './photo-errors';

/**
 * Camera frames and image files → the photo observation of the AgentCall extension (spec
 * "Security, photos, and exact object lookup"): image/jpeg, strict base64, ≤ 61,440 bytes,
 * ≤ 1,024 px on either side, no metadata, byteCount/sha256/pixelWidth/pixelHeight derived from the
 * final bytes and checked by decoding them again.
 *
 * Decode once (sharp: auto-orient by EXIF, fit inside 1024×1024 without enlarging, flatten alpha
 * on white, convert to sRGB with the embedded ICC profile, applied after the shrink) to raw RGB,
 * then encode only that small image for each quality try (see quality-search.ts); a picture too
 * detailed for the budget at quality 40 is made smaller instead. Input formats: JPEG, PNG, WebP and
 * raw RGBA frames, told apart by their bytes; a file may claim at most 50 MP. Nothing here logs,
 * writes files or keeps the input.
 */

export const photoLimits = {
  /** The observation's budget (spec): decoded JPEG bytes. */
  maxJpegBytes: 61_440,
  /** The observation's longest side (spec). */
  maxSide: 1024,
  /** Files larger than this are refused before decoding. */
  maxFileBytes: 24 * 1024 * 1024,
  /** Pixels a file may claim (width × height): ~50 MP, about 5× below sharp's default of 268 MP. */
  maxInputPixels: 50_000_000,
  /** A camera frame's sides (checked before sharp sees it). */
  maxFrameSide: 4096,
  /** Highest JPEG quality tried: above 95 bytes grow fast for no visible gain. */
  maxQuality: 95,
  /** Below this, a smaller picture looks better than a blockier one: downscale instead. */
  minQuality: 40,
  /** First guess when there is no previous photo. */
  defaultStartQuality: 75,
  /** Encodes allowed per image size, and downscale rounds before giving up. */
  maxEncodesPerSize: 8,
  maxDownscales: 3,
  /** Never downscale below this longest side. */
  minSide: 64,
  /** CPU bound for one decode (sharp's own timeout). */
  decodeTimeoutSeconds: 20,
} as const;

export type PhotoInput =
  | { kind: 'file'; bytes: Uint8Array }
  /** Raw RGBA pixels, row by row, as a canvas's getImageData gives them (sRGB). */
  | { kind: 'frame'; rgba: Uint8Array; width: number; height: number };

export interface ProcessedPhoto {
  mimeType: 'image/jpeg';
  /** The final JPEG: the bytes that byteCount and sha256 describe. */
  jpeg: Uint8Array;
  /** Strict base64 (RFC 4648 alphabet, padded, no line breaks) of `jpeg`. */
  base64: string;
  byteCount: number;
  /** Lowercase hex SHA-256 of `jpeg`. */
  sha256: string;
  pixelWidth: number;
  pixelHeight: number;
  /** The JPEG quality used (the highest that fitted). */
  quality: number;
  /** How many JPEG encodes it took (the final verification decode is not counted). */
  encodes: number;
}

export interface ProcessOptions {
  /** Quality to try first, e.g. the previous photo's; default photoLimits.defaultStartQuality. */
  startQuality?: number;
  /** A tighter budget than the spec's 61,440 bytes (a stricter receiver; tests). Never larger. */
  maxJpegBytes?: number;
}

type SupportedFormat = 'jpeg' | 'png' | 'webp';

/**
 * One per session: remembers the last photo's quality as the next photo's first guess, and
 * processes one picture at a time (bounds memory when several arrive at once).
 */
export class PhotoPipeline {
  private lastQuality: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  /** The quality the next photo starts from. */
  get predictedQuality(): number {
    return this.lastQuality ?? photoLimits.defaultStartQuality;
  }

  process(input: PhotoInput, options: ProcessOptions = {}): Promise<ProcessedPhoto> {
    const run = this.queue.then(async () => {
      const photo = await processImage(input, { ...options, startQuality: options.startQuality ?? this.predictedQuality });
      this.lastQuality = photo.quality;
      return photo;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export async function processImage(input: PhotoInput, options: ProcessOptions = {}): Promise<ProcessedPhoto> {
  const small = input.kind === 'file' ? await decodeFile(input.bytes) : await decodeFrame(input);
  const budget = Math.min(photoLimits.maxJpegBytes, options.maxJpegBytes ?? photoLimits.maxJpegBytes);
  const encoded = await encodeWithinBudget(small, options.startQuality ?? photoLimits.defaultStartQuality, budget);
  return finish(encoded.bytes, encoded.quality, encoded.encodes, encoded.image);
}

interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

const sharpOptions = { limitInputPixels: photoLimits.maxInputPixels, failOn: 'warning', sequentialRead: true } as const;

/** File → small raw RGB. The format is checked from the bytes (never a name or MIME type). */
async function decodeFile(bytes: Uint8Array): Promise<RawImage> {
  if (bytes.length === 0) throw new PhotoError('empty_input', 'The file is empty.');
  if (bytes.length > photoLimits.maxFileBytes) {
    throw new PhotoError('file_too_large', `The file is larger than ${photoLimits.maxFileBytes / (1024 * 1024)} MB. Choose a smaller picture.`);
  }
  const sniffed = sniffFormat(bytes);
  if (sniffed.supported === false) throw new PhotoError('unsupported_format', unsupportedMessage(sniffed.name));
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let metadata: Metadata;
  try {
    // Headers only: no pixel limit here, so a refusal can say what the picture claims.
    metadata = await sharp(input, { ...sharpOptions, limitInputPixels: false }).metadata();
  } catch (error) {
    throw decodeError(error);
  }
  if (metadata.format !== sniffed.format) throw new PhotoError('corrupt_image', damagedMessage);
  const { width, height } = metadata;
  if (!width || !height) throw new PhotoError('corrupt_image', damagedMessage);
  if (width * height > photoLimits.maxInputPixels) throw tooManyPixels(width, height);
  try {
    const shrink = (image: Sharp) =>
      image
        .timeout({ seconds: photoLimits.decodeTimeoutSeconds })
        .autoOrient()
        .resize(photoLimits.maxSide, photoLimits.maxSide, { fit: 'inside', withoutEnlargement: true });
    let small: Sharp;
    if (metadata.hasProfile) {
      // sharp converts an embedded profile to sRGB right after loading, at load size (2000×1500
      // for a 12 MP JPEG): half the decode time. Shrink first with the profile carried along
      // unapplied (an uncompressed TIFF in memory), then convert the small image.
      const carried = await shrink(sharp(input, { ...sharpOptions, ignoreIcc: true }))
        .keepIccProfile()
        .tiff({ compression: 'none' })
        .toBuffer();
      small = sharp(carried, { failOn: 'warning' });
    } else {
      small = shrink(sharp(input, sharpOptions));
    }
    const { data, info } = await small
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.length !== info.width * info.height * 3) throw new Error(`unexpected raw layout (${info.channels} channels)`);
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw decodeError(error);
  }
}

/** Frame → small raw RGB. The frame's size is checked before sharp sees a byte. */
async function decodeFrame(frame: { rgba: Uint8Array; width: number; height: number }): Promise<RawImage> {
  const { width, height, rgba } = frame;
  if (rgba.length === 0) throw new PhotoError('empty_input', 'The camera frame is empty.');
  const side = (value: number) => Number.isInteger(value) && value >= 1 && value <= photoLimits.maxFrameSide;
  if (!side(width) || !side(height)) {
    throw new PhotoError('frame_size_mismatch', `A camera frame must be 1 to ${photoLimits.maxFrameSide} pixels on each side.`);
  }
  if (rgba.length !== width * height * 4) throw new PhotoError('frame_size_mismatch', 'The camera frame does not match its stated size.');
  const input = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  try {
    const { data, info } = await sharp(input, { raw: { width, height, channels: 4 } })
      .resize(photoLimits.maxSide, photoLimits.maxSide, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw decodeError(error);
  }
}

function encodeJpeg(image: RawImage, quality: number): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .jpeg({ quality, progressive: false, optimiseCoding: true, chromaSubsampling: '4:2:0', mozjpeg: false, trellisQuantisation: false })
    .toBuffer();
}

/** Highest quality that fits; when even minQuality does not, a smaller picture, up to maxDownscales times. */
async function encodeWithinBudget(first: RawImage, startQuality: number, budget: number): Promise<{ bytes: Uint8Array; quality: number; encodes: number; image: RawImage }> {
  let image = first;
  let start = startQuality;
  let encodes = 0;
  for (let round = 0; round <= photoLimits.maxDownscales; round++) {
    const current = image;
    const result = await searchQuality((quality) => encodeJpeg(current, quality), {
      maxBytes: budget,
      minQuality: photoLimits.minQuality,
      maxQuality: photoLimits.maxQuality,
      startQuality: start,
      maxEncodes: photoLimits.maxEncodesPerSize,
    });
    encodes += result.trials.length;
    if (result.best) return { bytes: result.best.bytes, quality: result.best.quality, encodes, image: current };
    const plan = planDownscale(result.trials, current, budget);
    if (!plan) break;
    const { width, height } = plan;
    image = await shrink(current, width, height);
    start = downscaleTargetQuality;
  }
  throw new PhotoError(
    'too_large_after_compression',
    `This picture has too much fine detail to fit the photo size limit (${budget} bytes), even smaller and at low quality.`,
  );
}

/** After a downscale, aim for this quality (a little above the minimum, so one downscale usually does). */
const downscaleTargetQuality = photoLimits.minQuality + 5;

/**
 * How small to make a picture whose minQuality encode missed the budget: bytes scale about with
 * the pixel count, and the trials' slope predicts the size at downscaleTargetQuality.
 */
function planDownscale(trials: QualityTrial[], image: RawImage, budget: number): { width: number; height: number } | undefined {
  const atMin = trials.find((trial) => trial.quality === photoLimits.minQuality) ?? trials.reduce((a, b) => (a.size < b.size ? a : b));
  const other = trials.filter((trial) => trial.quality !== atMin.quality).sort((a, b) => a.quality - b.quality)[0];
  let slope = typicalSlope;
  if (other) {
    const measured = (Math.log(other.size) - Math.log(atMin.size)) / (Math.log(quantScale(other.quality)) - Math.log(quantScale(atMin.quality)));
    if (Number.isFinite(measured) && measured < -0.2 && measured > -2) slope = measured;
  }
  const predicted = atMin.size * Math.pow(quantScale(downscaleTargetQuality) / quantScale(atMin.quality), slope);
  const factor = Math.min(0.9, Math.sqrt((budget * 0.95) / predicted));
  const width = Math.max(1, Math.floor(image.width * factor));
  const height = Math.max(1, Math.floor(image.height * factor));
  return Math.max(width, height) < photoLimits.minSide ? undefined : { width, height };
}

async function shrink(image: RawImage, width: number, height: number): Promise<RawImage> {
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Derive the observation's facts from the final bytes, and check them by decoding those bytes again. */
async function finish(jpeg: Uint8Array, quality: number, encodes: number, source: RawImage): Promise<ProcessedPhoto> {
  const buffer = Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  const verified = await verifyObservationJpeg(buffer);
  // The encoder was handed the (possibly downscaled) raw image: exactly its size must come back.
  if (verified.pixelWidth !== source.width || verified.pixelHeight !== source.height) throw new Error('photo verification failed: not the encoded size');
  const photo: ProcessedPhoto = {
    mimeType: 'image/jpeg',
    jpeg: buffer,
    base64: buffer.toString('base64'),
    byteCount: buffer.length,
    sha256: createHash('sha256').update(buffer).digest('hex'),
    pixelWidth: verified.pixelWidth,
    pixelHeight: verified.pixelHeight,
    quality,
    encodes,
  };
  return redactedInLogs(photo);
}

/**
 * What a receiver checks before use, applied to our own output: JPEG, sides 1…1024, ≤ 61,440
 * bytes, baseline, no metadata segment, and it decodes to the size its header claims.
 * Throws a plain Error (a bug in the pipeline, not the user's picture) when anything is off.
 */
export async function verifyObservationJpeg(jpeg: Uint8Array): Promise<{ pixelWidth: number; pixelHeight: number }> {
  const fail = (why: string) => new Error(`photo verification failed: ${why}`);
  if (jpeg.length === 0 || jpeg.length > photoLimits.maxJpegBytes) throw fail(`${jpeg.length} bytes`);
  const problems = observationJpegProblems(jpeg);
  if (problems.length > 0) throw fail(problems.join(', '));
  const header = jpegFrameSize(jpeg);
  const input = Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  const checked = sharp(input, { limitInputPixels: photoLimits.maxSide * photoLimits.maxSide, failOn: 'warning' });
  const metadata = await checked.metadata();
  if (metadata.format !== 'jpeg') throw fail(`format ${metadata.format}`);
  if (metadata.exif || metadata.icc || metadata.xmp || metadata.iptc || metadata.hasProfile || metadata.comments?.length) throw fail('metadata present');
  if (metadata.isProgressive) throw fail('progressive');
  const { info } = await checked.raw().toBuffer({ resolveWithObject: true });
  const side = (value: number) => Number.isInteger(value) && value >= 1 && value <= photoLimits.maxSide;
  if (!side(info.width) || !side(info.height)) throw fail(`${info.width}×${info.height}`);
  if (!header || header.width !== info.width || header.height !== info.height || metadata.width !== info.width || metadata.height !== info.height) {
    throw fail('header and decoded size differ');
  }
  return { pixelWidth: info.width, pixelHeight: info.height };
}

/** JSON.stringify and util.inspect of a photo show its facts, never its bytes. */
function redactedInLogs(photo: ProcessedPhoto): ProcessedPhoto {
  const summary = () => ({
    mimeType: photo.mimeType,
    byteCount: photo.byteCount,
    pixelWidth: photo.pixelWidth,
    pixelHeight: photo.pixelHeight,
    quality: photo.quality,
    encodes: photo.encodes,
    jpeg: '[redacted]',
    base64: '[redacted]',
  });
  Object.defineProperty(photo, 'toJSON', { value: summary, enumerable: false });
  Object.defineProperty(photo, inspect.custom, { value: () => `ProcessedPhoto ${inspect(summary())}`, enumerable: false });
  return photo;
}

// --- input formats -------------------------------------------------------------------------

type Sniffed = { supported: true; format: SupportedFormat } | { supported: false; name: string | undefined };

const ascii = (bytes: Uint8Array, from: number, length: number) => String.fromCharCode(...bytes.subarray(from, from + length));

/** The format from the file's first bytes: JPEG, PNG and WebP pass; everything else is named if known. */
export function sniffFormat(bytes: Uint8Array): Sniffed {
  const starts = (...values: number[]) => values.every((value, index) => bytes[index] === value);
  if (starts(0xff, 0xd8, 0xff)) return { supported: true, format: 'jpeg' };
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { supported: true, format: 'png' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return { supported: true, format: 'webp' };
  const head = ascii(bytes, 0, 12);
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return { supported: false, name: 'GIF' };
  if (head.startsWith('BM')) return { supported: false, name: 'BMP' };
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return { supported: false, name: 'TIFF' };
  if (head.startsWith('%PDF')) return { supported: false, name: 'PDF' };
  if (ascii(bytes, 4, 4) === 'ftyp') {
    const brand = ascii(bytes, 8, 4);
    if (brand.startsWith('avi')) return { supported: false, name: 'AVIF' };
    if (['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return { supported: false, name: 'HEIC' };
  }
  if (starts(0xff, 0x0a) || ascii(bytes, 4, 8) === 'JXL \r\n\x87\n') return { supported: false, name: 'JPEG XL' };
  if (starts(0x00, 0x00, 0x01, 0x00)) return { supported: false, name: 'ICO' };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 512)).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg')) || text.startsWith('<!doctype svg')) return { supported: false, name: 'SVG' };
  return { supported: false, name: undefined };
}

const supportedList = 'JPEG, PNG or WebP';
const damagedMessage = 'The picture is damaged or incomplete and cannot be read.';

function unsupportedMessage(name: string | undefined): string {
  return name
    ? `${name} pictures cannot be used. Choose a ${supportedList} picture.`
    : `This file is not a picture AgentDesk can read. Choose a ${supportedList} picture.`;
}

function tooManyPixels(width: number, height: number): PhotoError {
  const megapixels = Math.round((width * height) / 1_000_000);
  return new PhotoError(
    'too_many_pixels',
    `The picture is too large to open (${width} × ${height} pixels, ${megapixels} megapixels). AgentDesk opens pictures up to ${photoLimits.maxInputPixels / 1_000_000} megapixels.`,
  );
}

/** sharp's failures, as a user-facing PhotoError (sharp's own text stays in `cause`). */
function decodeError(error: unknown): PhotoError {
  if (error instanceof PhotoError) return error;
  const message = error instanceof Error ? error.message : '';
  if (/pixel limit/i.test(message)) {
    return new PhotoError('too_many_pixels', `The picture is too large to open. AgentDesk opens pictures up to ${photoLimits.maxInputPixels / 1_000_000} megapixels.`, { cause: error });
  }
  if (/unsupported image format/i.test(message)) return new PhotoError('unsupported_format', unsupportedMessage(undefined), { cause: error });
  return new PhotoError('corrupt_image', damagedMessage, { cause: error });
}
