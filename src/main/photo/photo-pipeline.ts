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
 * then encode only that small image for each quality try (see quality-search.ts); while the
 * previous photo's quality keeps being the answer, the first try encodes it and the quality above
 * it at once (the proof that it is the highest comes with it). A camera frame's first try resizes
 * and encodes in one pass, so its small image is written out only when more tries need it. Each
 * try that fits is verified while the next one encodes. A picture too detailed for the budget at
 * quality 40 is made smaller instead. Input formats: JPEG, PNG, WebP and raw RGBA
 * frames, told apart by their bytes; a file may claim at most 50 MP. Nothing here logs, writes
 * files or keeps the input; libvips' operation cache is off, so it keeps nothing either.
 */

sharp.cache(false);

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
  /**
   * Encode the start quality and the one above it at once (see quality-search.ts): two encodes in
   * flight instead of one after the other, when the start is likely right. Default false.
   */
  speculate?: boolean;
}

type SupportedFormat = 'jpeg' | 'png' | 'webp';

/**
 * One per session: remembers the last photo's quality as the next photo's first guess, and
 * processes one picture at a time (bounds memory when several arrive at once). While guesses hit
 * (the last photo's answer was its first guess: retakes, a camera on one scene), it encodes the
 * guess and the quality above it at once; after a miss it goes one encode at a time, which needs
 * fewer encodes when each photo differs.
 */
export class PhotoPipeline {
  private lastQuality: number | undefined;
  private lastGuessHit = false;
  private queue: Promise<unknown> = Promise.resolve();

  /** The quality the next photo starts from. */
  get predictedQuality(): number {
    return this.lastQuality ?? photoLimits.defaultStartQuality;
  }

  process(input: PhotoInput, options: ProcessOptions = {}): Promise<ProcessedPhoto> {
    const run = this.queue.then(async () => {
      const startQuality = options.startQuality ?? this.predictedQuality;
      const photo = await processImage(input, { speculate: this.lastGuessHit, ...options, startQuality });
      this.lastQuality = photo.quality;
      this.lastGuessHit = photo.quality === startQuality;
      return photo;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export async function processImage(input: PhotoInput, options: ProcessOptions = {}): Promise<ProcessedPhoto> {
  const speculate = options.speculate ?? false;
  const small = input.kind === 'file' ? smallFromRaw(await decodeFile(input.bytes)) : smallFromFrame(input, speculate ? 2 : 1);
  const budget = Math.min(photoLimits.maxJpegBytes, options.maxJpegBytes ?? photoLimits.maxJpegBytes);
  const encoded = await encodeWithinBudget(small, options.startQuality ?? photoLimits.defaultStartQuality, budget, speculate);
  return finish(encoded);
}

interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

/** One encode's output, with the size it was encoded at. */
interface Encoded {
  bytes: Buffer;
  width: number;
  height: number;
}

/**
 * The picture at observation size, as quality tries need it: `encode` gives the JPEG at a quality,
 * `raw` the pixels (to make it smaller still). Both give the same pixels: a frame's fused
 * resize-and-encode writes exactly the bytes that encoding its resized pixels would.
 */
interface SmallImage {
  encode(quality: number): Promise<Encoded>;
  raw(): Promise<RawImage>;
}

function smallFromRaw(image: RawImage): SmallImage {
  return {
    encode: async (quality) => ({ bytes: await encodeJpeg(image, quality), width: image.width, height: image.height }),
    raw: async () => image,
  };
}

/**
 * A frame's first try (or first pair of tries) resizes and encodes in one pass each: no resized
 * copy is written out between them, which costs about as much as an encode. The resized pixels are
 * made once, and only if more tries or a downscale need them.
 */
function smallFromFrame(frame: { rgba: Uint8Array; width: number; height: number }, fusedTries: number): SmallImage {
  checkFrame(frame);
  let fusedLeft = fusedTries;
  let raw: Promise<RawImage> | undefined;
  const small: SmallImage = {
    raw: () => (raw ??= decodeFrame(frame)),
    encode: async (quality) => {
      if (fusedLeft > 0 && !raw) {
        fusedLeft--;
        try {
          const { data, info } = await frameToSmall(frame).jpeg(jpegOptions(quality)).toBuffer({ resolveWithObject: true });
          return { bytes: data, width: info.width, height: info.height };
        } catch (error) {
          throw decodeError(error);
        }
      }
      return smallFromRaw(await small.raw()).encode(quality);
    },
  };
  return small;
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

function checkFrame({ width, height, rgba }: { rgba: Uint8Array; width: number; height: number }): void {
  if (rgba.length === 0) throw new PhotoError('empty_input', 'The camera frame is empty.');
  const side = (value: number) => Number.isInteger(value) && value >= 1 && value <= photoLimits.maxFrameSide;
  if (!side(width) || !side(height)) {
    throw new PhotoError('frame_size_mismatch', `A camera frame must be 1 to ${photoLimits.maxFrameSide} pixels on each side.`);
  }
  if (rgba.length !== width * height * 4) throw new PhotoError('frame_size_mismatch', 'The camera frame does not match its stated size.');
}

/**
 * A checked frame, flattened on white and fitted inside 1024 × 1024 (sharp flattens before it
 * resizes: three channels to resample, and no alpha to premultiply). Frames are sRGB already.
 */
function frameToSmall({ width, height, rgba }: { rgba: Uint8Array; width: number; height: number }): Sharp {
  return sharp(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { raw: { width, height, channels: 4 } })
    .flatten({ background: '#ffffff' })
    .resize(photoLimits.maxSide, photoLimits.maxSide, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .removeAlpha();
}

/** Frame → small raw RGB. */
async function decodeFrame(frame: { rgba: Uint8Array; width: number; height: number }): Promise<RawImage> {
  try {
    const { data, info } = await frameToSmall(frame).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.length !== info.width * info.height * 3) throw new Error(`unexpected raw layout (${info.channels} channels)`);
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw decodeError(error);
  }
}

/**
 * Baseline, 4:2:0, optimised Huffman tables, none of mozjpeg's slower extras: the same settings for
 * every try, so sizes are comparable and the answer is exact.
 */
function jpegOptions(quality: number) {
  return { quality, progressive: false, optimiseCoding: true, chromaSubsampling: '4:2:0', mozjpeg: false, trellisQuantisation: false } as const;
}

function encodeJpeg(image: RawImage, quality: number): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .jpeg(jpegOptions(quality))
    .toBuffer();
}

interface WithinBudget extends Encoded {
  quality: number;
  encodes: number;
  /** The verification of `bytes`, started as soon as they fitted (it overlaps the next try's encode). */
  verified: Promise<VerifiedJpeg>;
}

/** Highest quality that fits; when even minQuality does not, a smaller picture, up to maxDownscales times. */
async function encodeWithinBudget(first: SmallImage, startQuality: number, budget: number, speculate: boolean): Promise<WithinBudget> {
  let image = first;
  let start = startQuality;
  let encodes = 0;
  for (let round = 0; round <= photoLimits.maxDownscales; round++) {
    const current = image;
    // Every try that fits is verified at once, on the other core while the try above it encodes;
    // only the winner's verification is awaited (the others are left to finish, their errors unseen).
    const tries = new Map<Uint8Array, { encoded: Encoded; verified: Promise<VerifiedJpeg> }>();
    const result = await searchQuality(
      async (quality) => {
        const encoded = await current.encode(quality);
        if (encoded.bytes.length <= budget) {
          const verified = verifyObservationJpeg(encoded.bytes);
          verified.catch(() => undefined);
          tries.set(encoded.bytes, { encoded, verified });
        }
        return encoded.bytes;
      },
      {
        maxBytes: budget,
        minQuality: photoLimits.minQuality,
        maxQuality: photoLimits.maxQuality,
        startQuality: start,
        maxEncodes: photoLimits.maxEncodesPerSize,
        speculate: speculate && round === 0,
      },
    );
    encodes += result.trials.length;
    const best = result.best && tries.get(result.best.bytes);
    if (result.best && best) return { ...best.encoded, quality: result.best.quality, encodes, verified: best.verified };
    const raw = await current.raw();
    const plan = planDownscale(result.trials, raw, budget);
    if (!plan) break;
    const { width, height } = plan;
    image = smallFromRaw(await shrink(raw, width, height));
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
async function finish(encoded: WithinBudget): Promise<ProcessedPhoto> {
  const buffer = encoded.bytes;
  const verified = await encoded.verified;
  // The encoder wrote a picture of exactly this size: exactly this size must come back.
  if (verified.pixelWidth !== encoded.width || verified.pixelHeight !== encoded.height) throw new Error('photo verification failed: not the encoded size');
  const photo: ProcessedPhoto = {
    mimeType: 'image/jpeg',
    jpeg: buffer,
    base64: buffer.toString('base64'),
    byteCount: buffer.length,
    sha256: createHash('sha256').update(buffer).digest('hex'),
    pixelWidth: verified.pixelWidth,
    pixelHeight: verified.pixelHeight,
    quality: encoded.quality,
    encodes: encoded.encodes,
  };
  return redactedInLogs(photo);
}

export interface VerifiedJpeg {
  pixelWidth: number;
  pixelHeight: number;
}

/**
 * What a receiver checks before use, applied to our own output: JPEG, sides 1…1024, ≤ 61,440
 * bytes, baseline, no metadata segment, header sizes that agree, and every entropy-coded block
 * decodes without a warning (a short or damaged scan fails). The decode uses libjpeg's DCT scaling
 * (1/8: each block's coefficients are all read, and only their DC term is transformed back), so it
 * checks the whole stream without writing out a full-size copy of the picture.
 * Throws a plain Error (a bug in the pipeline, not the user's picture) when anything is off.
 */
export async function verifyObservationJpeg(jpeg: Uint8Array): Promise<VerifiedJpeg> {
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
  const { width, height } = metadata;
  const side = (value: number | undefined): value is number => value !== undefined && Number.isInteger(value) && value >= 1 && value <= photoLimits.maxSide;
  if (!side(width) || !side(height)) throw fail(`${width}×${height}`);
  if (!header || header.width !== width || header.height !== height) throw fail('the frame header and the decoder disagree on the size');
  // A target below 1/9 of each side makes sharp decode at 1/8 (shrink-on-load); tiny pictures decode whole.
  const { info } = await checked
    .resize(Math.max(1, Math.floor(width / 9)), Math.max(1, Math.floor(height / 9)), { fit: 'fill', kernel: 'nearest' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width < 1 || info.height < 1) throw fail('nothing decoded');
  return { pixelWidth: width, pixelHeight: height };
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
  const text = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, 512))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg')) || text.startsWith('<!doctype svg'))
    return { supported: false, name: 'SVG' };
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
    return new PhotoError(
      'too_many_pixels',
      `The picture is too large to open. AgentDesk opens pictures up to ${photoLimits.maxInputPixels / 1_000_000} megapixels.`,
      { cause: error },
    );
  }
  if (/unsupported image format/i.test(message)) return new PhotoError('unsupported_format', unsupportedMessage(undefined), { cause: error });
  return new PhotoError('corrupt_image', damagedMessage, { cause: error });
}
