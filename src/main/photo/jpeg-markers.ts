/**
 * A small reader for the marker structure of a JPEG file: enough to prove that a photo carries no
 * metadata segment (APPn, COM) and is baseline, without trusting the encoder that wrote it.
 */

export interface JpegSegment {
  /** The marker's second byte, for example 0xc0 for SOF0. */
  marker: number;
  /** Offset of the 0xFF that starts the marker. */
  offset: number;
  /** Length of the segment's payload including its two length bytes (0 for SOI, EOI, RSTn). */
  length: number;
}

export const jpegMarkers = {
  SOI: 0xd8,
  EOI: 0xd9,
  SOS: 0xda,
  DQT: 0xdb,
  DHT: 0xc4,
  DRI: 0xdd,
  SOF0: 0xc0,
  COM: 0xfe,
  APP0: 0xe0,
  APP15: 0xef,
} as const;

/** The segments a stripped baseline JPEG may hold, and nothing else. */
const allowedInObservation = new Set<number>([
  jpegMarkers.SOI,
  jpegMarkers.DQT,
  jpegMarkers.SOF0,
  jpegMarkers.DHT,
  jpegMarkers.DRI,
  jpegMarkers.SOS,
  jpegMarkers.EOI,
]);

export function markerName(marker: number): string {
  if (marker >= jpegMarkers.APP0 && marker <= jpegMarkers.APP15) return `APP${marker - jpegMarkers.APP0}`;
  if (marker >= 0xd0 && marker <= 0xd7) return `RST${marker - 0xd0}`;
  const names: Record<number, string> = {
    0xd8: 'SOI',
    0xd9: 'EOI',
    0xda: 'SOS',
    0xdb: 'DQT',
    0xc4: 'DHT',
    0xdd: 'DRI',
    0xfe: 'COM',
    0xc0: 'SOF0',
    0xc1: 'SOF1',
    0xc2: 'SOF2',
    0xc3: 'SOF3',
    0xcc: 'DAC',
  };
  return names[marker] ?? `0xFF${marker.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Every marker segment in file order, including those after the first scan (a progressive file
 * has several SOS segments; EOI ends the list). Throws on a structure that is not a JPEG.
 */
export function readJpegSegments(bytes: Uint8Array): JpegSegment[] {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== jpegMarkers.SOI) throw new Error('not a JPEG: no SOI marker');
  const segments: JpegSegment[] = [{ marker: jpegMarkers.SOI, offset: 0, length: 0 }];
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) throw new Error(`not a JPEG: expected a marker at byte ${at}`);
    // Fill bytes (0xFF 0xFF …) may precede a marker.
    while (at + 1 < bytes.length && bytes[at + 1] === 0xff) at++;
    if (at + 1 >= bytes.length) throw new Error('not a JPEG: truncated marker');
    const marker = bytes[at + 1]!;
    if (marker === jpegMarkers.EOI) {
      segments.push({ marker, offset: at, length: 0 });
      return segments;
    }
    if (at + 3 >= bytes.length) throw new Error('not a JPEG: truncated segment length');
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (length < 2 || at + 2 + length > bytes.length) throw new Error(`not a JPEG: segment ${markerName(marker)} runs past the end`);
    segments.push({ marker, offset: at, length });
    at += 2 + length;
    if (marker === jpegMarkers.SOS) at = skipEntropyCodedData(bytes, at);
  }
  throw new Error('not a JPEG: no EOI marker');
}

/** Skips scan data up to the next marker that is neither a stuffed 0x00 nor a restart marker. */
function skipEntropyCodedData(bytes: Uint8Array, from: number): number {
  let at = from;
  while (at + 1 < bytes.length) {
    if (bytes[at] === 0xff) {
      const next = bytes[at + 1]!;
      if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return at;
    }
    at++;
  }
  return bytes.length;
}

/**
 * Problems that keep a JPEG from being a photo observation: anything but a single-scan baseline
 * image made of SOI, DQT, SOF0, DHT, (DRI), SOS and EOI. An empty list means the structure is fine.
 */
export function observationJpegProblems(bytes: Uint8Array): string[] {
  let segments: JpegSegment[];
  try {
    segments = readJpegSegments(bytes);
  } catch (error) {
    return [(error as Error).message];
  }
  const problems: string[] = [];
  for (const segment of segments) {
    if (!allowedInObservation.has(segment.marker)) problems.push(`unexpected ${markerName(segment.marker)} segment`);
  }
  const count = (marker: number) => segments.filter((segment) => segment.marker === marker).length;
  if (count(jpegMarkers.SOF0) !== 1) problems.push('not exactly one baseline frame (SOF0)');
  if (count(jpegMarkers.SOS) !== 1) problems.push('not exactly one scan');
  if (segments.at(-1)?.marker !== jpegMarkers.EOI) problems.push('no EOI at the end');
  else if (segments.at(-1)!.offset + 2 !== bytes.length) problems.push('bytes after EOI');
  return problems;
}

/** Width and height from the SOF0 segment (what a decoder will use). */
export function jpegFrameSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  let segments: JpegSegment[];
  try {
    segments = readJpegSegments(bytes);
  } catch {
    return undefined;
  }
  const frame = segments.find((segment) => segment.marker === jpegMarkers.SOF0);
  if (!frame || frame.length < 8) return undefined;
  const at = frame.offset + 4;
  return { height: (bytes[at + 1]! << 8) | bytes[at + 2]!, width: (bytes[at + 3]! << 8) | bytes[at + 4]! };
}
