import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { pngChunk } from '../../../src/main/platform/png-chunks';

/**
 * Real images for the photo tests and the benchmark, made on the spot: photo-like pixels from a
 * seeded generator (so sizes and qualities are reproducible), JPEG/PNG/WebP/GIF/TIFF from sharp,
 * and the bits sharp cannot write (an EXIF thumbnail, IPTC, comments, forged headers) by hand.
 */

/** mulberry32: a small seeded PRNG. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PhotoLikeOptions {
  seed?: number;
  /** Weight of the finest noise layer: 0 is smooth, 1 is a busy scene (foliage, gravel). */
  detail?: number;
}

/**
 * Raw RGB pixels that compress like a photo: smooth shading plus noise at several scales (a 1/f-ish
 * spectrum), from a seed. Not a picture of anything, but JPEG sizes behave as on camera photos.
 */
export async function photoLikeRgb(width: number, height: number, options: PhotoLikeOptions = {}): Promise<Buffer> {
  const random = seededRandom(options.seed ?? 1);
  const detail = options.detail ?? 0.4;
  const longSide = Math.max(width, height);
  // Cells of noise sized against the long side (a picture looks alike at any resolution): colour
  // only in the coarse layers, fine texture and sensor-like grain in brightness only, as in photos.
  const layers: { data: Buffer; weight: number; channels: 1 | 3 }[] = [];
  for (const [cells, weight, channels] of [
    [6, 0.45, 3],
    [6, 0.8, 1],
    [40, 0.25, 3],
    [40, 0.6, 1],
    [250, 0.3 * detail, 1],
    [longSide / 1.2, 0.04 + 0.06 * detail, 1],
  ] as const) {
    const w = Math.max(2, Math.round((cells * width) / longSide));
    const h = Math.max(2, Math.round((cells * height) / longSide));
    const noise = Buffer.alloc(w * h * channels);
    for (let i = 0; i < noise.length; i++) noise[i] = Math.floor(random() * 256);
    const data = await sharp(noise, { raw: { width: w, height: h, channels } })
      .resize(width, height, { fit: 'fill', kernel: 'cubic' })
      .toColourspace(channels === 1 ? 'b-w' : 'srgb')
      .raw()
      .toBuffer();
    if (data.length !== width * height * channels) throw new Error('unexpected noise layout');
    layers.push({ data, weight, channels });
  }
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0, i = 0; y < height; y++) {
    const shade = 40 * (y / height - 0.5);
    for (let x = 0; x < width; x++) {
      const pixel = y * width + x;
      for (let channel = 0; channel < 3; channel++, i++) {
        let value = 128 + shade;
        for (const layer of layers) value += (layer.data[layer.channels === 3 ? i : pixel]! - 128) * layer.weight;
        out[i] = value < 0 ? 0 : value > 255 ? 255 : value;
      }
    }
  }
  return out;
}

export async function photoLikeJpeg(width: number, height: number, options: PhotoLikeOptions & { quality?: number } = {}): Promise<Buffer> {
  const raw = await photoLikeRgb(width, height, options);
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: options.quality ?? 90 })
    .toBuffer();
}

/** A camera frame as a canvas gives it: RGBA, alpha 255. */
export async function photoLikeRgba(width: number, height: number, options: PhotoLikeOptions = {}): Promise<Uint8Array> {
  return rgbaOf(await photoLikeRgb(width, height, options));
}

/** Opaque RGBA from packed RGB, as a canvas's getImageData would give it. */
export function rgbaOf(rgb: Uint8Array): Uint8Array {
  const rgba = new Uint8Array((rgb.length / 3) * 4);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    rgba[j] = rgb[i]!;
    rgba[j + 1] = rgb[i + 1]!;
    rgba[j + 2] = rgb[i + 2]!;
    rgba[j + 3] = 255;
  }
  return rgba;
}

// --- JPEG segments written by hand --------------------------------------------------------------

export function segment(marker: number, payload: Uint8Array): Buffer {
  if (payload.length + 2 > 0xffff) throw new Error('segment too long');
  const head = Buffer.alloc(4);
  head[0] = 0xff;
  head[1] = marker;
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** Puts segments right after SOI (where EXIF and friends live). */
export function insertAfterSoi(jpeg: Uint8Array, segments: Uint8Array[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** Drops every APP1 segment (sharp's own EXIF) from a JPEG's header. */
export function withoutApp1(jpeg: Uint8Array): Buffer {
  const parts: Uint8Array[] = [jpeg.subarray(0, 2)];
  let at = 2;
  while (at < jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!;
    if (marker === 0xda) break;
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    if (marker !== 0xe1) parts.push(jpeg.subarray(at, at + 2 + length));
    at += 2 + length;
  }
  parts.push(jpeg.subarray(at));
  return Buffer.concat(parts);
}

export function commentSegment(text: string): Buffer {
  return segment(0xfe, Buffer.from(text, 'latin1'));
}

/** APP13 "Photoshop 3.0" with an IPTC caption (record 2, dataset 120). */
export function iptcSegment(caption: string): Buffer {
  const text = Buffer.from(caption, 'latin1');
  const iptc = Buffer.concat([Buffer.from([0x1c, 0x02, 0x78, text.length >> 8, text.length & 0xff]), text]);
  const padded = iptc.length % 2 === 1 ? Buffer.concat([iptc, Buffer.alloc(1)]) : iptc;
  const resource = Buffer.alloc(12);
  resource.write('8BIM', 0, 'latin1');
  resource.writeUInt16BE(0x0404, 4);
  // Empty Pascal name (length byte + pad byte), then the data length.
  resource.writeUInt32BE(iptc.length, 8);
  return segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource, padded]));
}

interface IfdEntry {
  tag: number;
  type: 1 | 2 | 3 | 4 | 5;
  /** ASCII text, SHORT/LONG numbers, or RATIONAL [numerator, denominator] pairs. */
  value: string | number[] | [number, number][];
}

/**
 * An APP1 EXIF segment (little-endian TIFF) with IFD0 (Make, Model, Orientation), the GPS IFD
 * (latitude/longitude of the Prague castle) and, when given, IFD1 with a JPEG thumbnail — the part
 * sharp's withExif cannot write.
 */
export function exifSegment(options: { orientation: number; gps?: boolean; thumbnail?: Uint8Array; make?: string }): Buffer {
  const ifd0: IfdEntry[] = [
    { tag: 0x010f, type: 2, value: options.make ?? 'AgentDesk Test Camera' },
    { tag: 0x0110, type: 2, value: 'Model 6' },
    { tag: 0x0112, type: 3, value: [options.orientation] },
  ];
  const gps: IfdEntry[] = [
    { tag: 0x0000, type: 1, value: [2, 3, 0, 0] },
    { tag: 0x0001, type: 2, value: 'N' },
    {
      tag: 0x0002,
      type: 5,
      value: [
        [50, 1],
        [5, 1],
        [2_520, 100],
      ],
    },
    { tag: 0x0003, type: 2, value: 'E' },
    {
      tag: 0x0004,
      type: 5,
      value: [
        [14, 1],
        [24, 1],
        [1_380, 100],
      ],
    },
  ];
  // Layout: header (8) | IFD0 | GPS IFD | IFD1 | data area | thumbnail.
  const ifdSize = (entries: number) => 2 + entries * 12 + 4;
  const ifd0Count = ifd0.length + (options.gps ? 1 : 0);
  const ifd1Count = options.thumbnail ? 3 : 0;
  const ifd0At = 8;
  const gpsAt = ifd0At + ifdSize(ifd0Count);
  const ifd1At = gpsAt + (options.gps ? ifdSize(gps.length) : 0);
  let dataAt = ifd1At + (options.thumbnail ? ifdSize(ifd1Count) : 0);
  const data: Buffer[] = [];
  const dataStart = dataAt;

  const typeSize: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8 };
  const encodeValue = (entry: IfdEntry): Buffer => {
    if (entry.type === 2) return Buffer.from(`${entry.value as string}\0`, 'latin1');
    const values = entry.value as number[] | [number, number][];
    const size = typeSize[entry.type]!;
    const out = Buffer.alloc(values.length * size);
    values.forEach((value, index) => {
      if (entry.type === 5) {
        const [numerator, denominator] = value as [number, number];
        out.writeUInt32LE(numerator, index * 8);
        out.writeUInt32LE(denominator, index * 8 + 4);
      } else if (entry.type === 3) out.writeUInt16LE(value as number, index * 2);
      else if (entry.type === 4) out.writeUInt32LE(value as number, index * 4);
      else out.writeUInt8(value as number, index);
    });
    return out;
  };
  const writeIfd = (entries: IfdEntry[], next: number): Buffer => {
    const sorted = [...entries].sort((x, y) => x.tag - y.tag);
    const out = Buffer.alloc(ifdSize(sorted.length));
    out.writeUInt16LE(sorted.length, 0);
    sorted.forEach((entry, index) => {
      const at = 2 + index * 12;
      const bytes = encodeValue(entry);
      out.writeUInt16LE(entry.tag, at);
      out.writeUInt16LE(entry.type, at + 2);
      out.writeUInt32LE(entry.type === 2 ? bytes.length : bytes.length / typeSize[entry.type]!, at + 4);
      if (bytes.length <= 4) bytes.copy(out, at + 8);
      else {
        out.writeUInt32LE(dataAt, at + 8);
        data.push(bytes);
        dataAt += bytes.length + (bytes.length % 2);
        if (bytes.length % 2) data.push(Buffer.alloc(1));
      }
    });
    out.writeUInt32LE(next, 2 + sorted.length * 12);
    return out;
  };

  const ifd0Entries = options.gps ? [...ifd0, { tag: 0x8825, type: 4 as const, value: [gpsAt] }] : ifd0;
  const parts = [writeIfd(ifd0Entries, options.thumbnail ? ifd1At : 0)];
  if (options.gps) parts.push(writeIfd(gps, 0));
  if (options.thumbnail) {
    // The thumbnail goes after the data area; its offset is known once the other values are placed.
    const thumbnailPlaceholder: IfdEntry[] = [
      { tag: 0x0103, type: 3, value: [6] },
      { tag: 0x0201, type: 4, value: [0] },
      { tag: 0x0202, type: 4, value: [options.thumbnail.length] },
    ];
    const ifd1 = writeIfd(thumbnailPlaceholder, 0);
    parts.push(ifd1);
    const thumbnailAt = dataAt;
    // Entry 1 (0x0201, sorted second) holds the offset.
    ifd1.writeUInt32LE(thumbnailAt, 2 + 12 + 8);
  }
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]);
  const tiff = Buffer.concat([header, ...parts, ...data, ...(options.thumbnail ? [Buffer.from(options.thumbnail)] : [])]);
  if (dataStart !== header.length + parts.reduce((sum, part) => sum + part.length, 0)) throw new Error('EXIF layout mismatch');
  return segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]));
}

export const secretXmp =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Secret Photographer</rdf:li></rdf:Seq></dc:creator>' +
  '</rdf:Description></rdf:RDF></x:xmpmeta>';

/** The sRGB colour of the big patch in the middle of the camera fixture. */
export const patchSrgb = [200, 60, 40] as const;
/** The sRGB colour of the block in the stored image's top-left corner (top-right once rotated). */
export const markerSrgb = [20, 40, 230] as const;

/**
 * A phone-camera JPEG: 4000×3000 stored pixels with EXIF orientation 6 (shown 3000×4000, portrait),
 * GPS position, an embedded thumbnail, a Display P3 ICC profile (pixels really converted to P3),
 * XMP, IPTC and a comment. Photo-like texture, a solid patch in the middle and a solid marker
 * block in the stored top-left corner.
 */
export async function cameraJpeg(options: { width?: number; height?: number; seed?: number } = {}): Promise<Buffer> {
  const width = options.width ?? 4000;
  const height = options.height ?? 3000;
  const raw = await photoLikeRgb(width, height, { seed: options.seed ?? 7, detail: 0.35 });
  const fill = (x0: number, y0: number, w: number, h: number, colour: readonly number[]) => {
    for (let y = y0; y < y0 + h; y++) {
      for (let x = x0; x < x0 + w; x++) {
        const i = (y * width + x) * 3;
        raw[i] = colour[0]!;
        raw[i + 1] = colour[1]!;
        raw[i + 2] = colour[2]!;
      }
    }
  };
  const block = Math.round(width / 8);
  fill(0, 0, block, block, markerSrgb);
  fill(Math.round(width / 2 - block), Math.round(height / 2 - block), block * 2, block * 2, patchSrgb);
  const thumbnail = await sharp(raw, { raw: { width, height, channels: 3 } })
    .resize(160, 120)
    .jpeg({ quality: 70 })
    .toBuffer();
  const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
    .withIccProfile('p3')
    .withXmp(secretXmp)
    .jpeg({ quality: 90 })
    .toBuffer();
  return insertAfterSoi(withoutApp1Exif(jpeg), [
    exifSegment({ orientation: 6, gps: true, thumbnail }),
    iptcSegment('Secret caption'),
    commentSegment('Secret comment'),
  ]);
}

/** Removes an EXIF APP1 (keeps the XMP APP1). */
function withoutApp1Exif(jpeg: Uint8Array): Buffer {
  const parts: Uint8Array[] = [jpeg.subarray(0, 2)];
  let at = 2;
  while (at < jpeg.length && jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    const isExif = jpeg[at + 1] === 0xe1 && Buffer.from(jpeg.subarray(at + 4, at + 10)).toString('latin1') === 'Exif\0\0';
    if (!isExif) parts.push(jpeg.subarray(at, at + 2 + length));
    at += 2 + length;
  }
  parts.push(jpeg.subarray(at));
  return Buffer.concat(parts);
}

// --- forged and foreign files ------------------------------------------------------------------

/**
 * A decompression bomb: a PNG of a few hundred bytes whose IHDR (valid CRC) claims width × height
 * RGB pixels, followed by a little real compressed data (a few black rows) and IEND.
 */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = Buffer.alloc(4 * (1 + Math.min(width, 4096) * 3));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small real JPEG whose SOF0 is patched to claim width × height. */
export async function jpegClaiming(width: number, height: number): Promise<Buffer> {
  const jpeg = Buffer.from(
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer(),
  );
  let at = 2;
  while (jpeg[at + 1] !== 0xc0) at += 2 + jpeg.readUInt16BE(at + 2);
  jpeg.writeUInt16BE(height, at + 5);
  jpeg.writeUInt16BE(width, at + 7);
  return jpeg;
}

/** A 2×2 24-bit BMP (sharp cannot write BMP). */
export function tinyBmp(): Buffer {
  const pixels = Buffer.alloc(16, 0x80);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + pixels.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(2, 18);
  header.writeInt32LE(2, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(pixels.length, 34);
  return Buffer.concat([header, pixels]);
}

export const tinySvg = Buffer.from(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><rect width="100%" height="100%" fill="red"/></svg>',
);

/** Counts of the metadata-bearing markers and of SOI in a byte string (a thumbnail adds an SOI). */
export function markerCounts(bytes: Uint8Array): { app: number; com: number; soi: number } {
  let app = 0;
  let com = 0;
  let soi = 0;
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 0xff) continue;
    const next = bytes[i + 1]!;
    if (next >= 0xe0 && next <= 0xef) app++;
    else if (next === 0xfe) com++;
    else if (next === 0xd8) soi++;
  }
  return { app, com, soi };
}
