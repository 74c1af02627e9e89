import { createHash, timingSafeEqual } from 'node:crypto';
import sharp from 'sharp';
import { limits, type ObservationImage } from '../../../shared/agentcall/protocol';

/**
 * The demo agent's check of an observation's photo before it uses it ("Security, photos, and exact
 * object lookup": the receiver verifies byte count, hash and the actual JPEG dimensions; JSON
 * Schema alone does not). Independent of AgentDesk's own photo pipeline on purpose: the demo
 * plays the other side and must catch what a faulty client sends.
 *
 * Reasons never contain image bytes; only sizes the server measured itself.
 */

export type ImageCheck = { ok: true; byteCount: number; pixelWidth: number; pixelHeight: number } | { ok: false; reason: string };

/** Decoding is bounded to the largest image the spec allows (1024 × 1024). */
const maxPixels = limits.imageSide * limits.imageSide;

export async function verifyObservationImage(image: ObservationImage): Promise<ImageCheck> {
  if (image.mediaType !== 'image/jpeg') return { ok: false, reason: 'only image/jpeg is accepted' };
  // Strict base64: the schema checks the alphabet and padding; the round trip rejects non-canonical
  // trailing bits, which Buffer.from would silently drop.
  const bytes = Buffer.from(image.data, 'base64');
  try {
    if (bytes.toString('base64') !== image.data) return { ok: false, reason: 'the data is not strict base64' };
    if (bytes.length === 0 || bytes.length > limits.imageBytes)
      return { ok: false, reason: `the photo must be 1 to ${limits.imageBytes} bytes, it is ${bytes.length}` };
    if (bytes.length !== image.byteCount) return { ok: false, reason: `byteCount says ${image.byteCount} but the data has ${bytes.length} bytes` };
    const digest = createHash('sha256').update(bytes).digest();
    if (!timingSafeEqual(digest, Buffer.from(image.sha256, 'hex'))) return { ok: false, reason: 'the sha256 does not match the data' };

    let width: number;
    let height: number;
    try {
      const decoder = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true });
      const metadata = await decoder.metadata();
      if (metadata.format !== 'jpeg') return { ok: false, reason: 'the data is not a JPEG' };
      // Decode it whole (bounded): a header can claim any size, and truncated data must not pass.
      const { info } = await decoder.raw().toBuffer({ resolveWithObject: true });
      if (info.width !== metadata.width || info.height !== metadata.height) return { ok: false, reason: 'the JPEG header and its pixels disagree' };
      width = info.width;
      height = info.height;
    } catch {
      return { ok: false, reason: 'the JPEG could not be decoded (malformed, or larger than 1024 × 1024)' };
    }
    if (width > limits.imageSide || height > limits.imageSide)
      return { ok: false, reason: `the JPEG is ${width}×${height}, larger than ${limits.imageSide} on a side` };
    if (width !== image.pixelWidth || height !== image.pixelHeight) {
      return { ok: false, reason: `the JPEG is ${width}×${height}, not the declared ${image.pixelWidth}×${image.pixelHeight}` };
    }
    return { ok: true, byteCount: bytes.length, pixelWidth: width, pixelHeight: height };
  } finally {
    // The photo is ephemeral: nothing of it outlives the check.
    bytes.fill(0);
  }
}
