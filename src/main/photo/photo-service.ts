import { randomBytes } from 'node:crypto';
import type { Logger } from '../platform/logger';
import { PhotoError } from './photo-errors';
import { PhotoPipeline, photoLimits, type PhotoInput, type ProcessedPhoto } from './photo-pipeline';

/**
 * Processed photos waiting for the user's Send (or Retake/Discard), held in main by an opaque
 * random id: the renderer gets a preview and the facts, never a handle on the bytes it could keep.
 *
 * Ephemeral by construction (spec: images are session input, excluded from diagnostics; end,
 * cancel and failure release retained buffers):
 * - `take(id)` hands a photo out once and forgets it; `discard(id)`, expiry (10 min) and
 *   `discardAll()` (session end or failure, app shutdown) zero the JPEG bytes and forget them;
 * - at most 4 photos are staged; staging a fifth releases the oldest;
 * - the original file or frame is zeroed as soon as it is processed (or refused);
 * - nothing is written to disk, and the log gets ids, sizes and error codes only.
 */

/** What the renderer sends (the contract's `photo.stage` request): the file's or frame's bytes as they are. */
export type PhotoStageRequest = { kind: 'file'; bytes: Uint8Array } | { kind: 'frame'; width: number; height: number; rgba: Uint8Array };

export interface StagedPhoto {
  photoId: string;
  /** `data:image/jpeg;base64,…` of the processed JPEG: exactly the bytes that would be sent. */
  preview: string;
  byteCount: number;
  pixelWidth: number;
  pixelHeight: number;
}

export const photoServiceLimits = {
  maxStaged: 4,
  ttlMs: 10 * 60 * 1000,
  /** Request bytes (file or RGBA frame) that cross IPC: 24 MiB. */
  maxRequestBytes: 24 * 1024 * 1024,
} as const;

interface Entry {
  photo: ProcessedPhoto;
  stagedAt: number;
  timer: ReturnType<typeof setTimeout>;
}

export interface PhotoServiceOptions {
  log: Logger;
  /** One pipeline per session (it remembers the last quality); default: a new one. */
  pipeline?: PhotoPipeline;
  maxStaged?: number;
  ttlMs?: number;
  now?: () => number;
}

export class PhotoService {
  private readonly entries = new Map<string, Entry>();
  private readonly pipeline: PhotoPipeline;
  private readonly maxStaged: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(options: PhotoServiceOptions) {
    this.log = options.log;
    this.pipeline = options.pipeline ?? new PhotoPipeline();
    this.maxStaged = options.maxStaged ?? photoServiceLimits.maxStaged;
    this.ttlMs = options.ttlMs ?? photoServiceLimits.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /** The IPC entry point: decodes the request strictly, then `stage`. */
  stageRequest(request: PhotoStageRequest): Promise<StagedPhoto> {
    return this.stage(photoInputFromRequest(request));
  }

  /** Processes a file or frame and holds the result until taken, discarded or expired. Throws PhotoError. */
  async stage(input: PhotoInput): Promise<StagedPhoto> {
    let photo: ProcessedPhoto;
    try {
      photo = await this.pipeline.process(input);
    } catch (error) {
      this.log.info('photo', `refused a ${input.kind} (${error instanceof PhotoError ? error.code : 'internal error'})`);
      throw error;
    } finally {
      // The original is no longer needed, whatever happened.
      if (input.kind === 'file') input.bytes.fill(0);
      else input.rgba.fill(0);
    }
    const photoId = randomBytes(16).toString('base64url');
    while (this.entries.size >= this.maxStaged) {
      const oldest = this.entries.keys().next().value as string;
      this.release(oldest, 'replaced by a newer photo');
    }
    const timer = setTimeout(() => this.release(photoId, 'expired'), this.ttlMs);
    timer.unref?.();
    this.entries.set(photoId, { photo, stagedAt: this.now(), timer });
    this.log.info(
      'photo',
      `staged ${photoId}: ${photo.pixelWidth}×${photo.pixelHeight}, ${photo.byteCount} bytes, quality ${photo.quality}, ${photo.encodes} encodes`,
    );
    return {
      photoId,
      preview: `data:image/jpeg;base64,${photo.base64}`,
      byteCount: photo.byteCount,
      pixelWidth: photo.pixelWidth,
      pixelHeight: photo.pixelHeight,
    };
  }

  /** The staged photo without taking it (to check an observation before it is sent); undefined if gone or expired. */
  peek(photoId: string): ProcessedPhoto | undefined {
    const entry = this.entries.get(photoId);
    if (!entry || this.now() - entry.stagedAt > this.ttlMs) return undefined;
    return entry.photo;
  }

  /** Hands the photo out once (for the observation being sent) and forgets it; undefined if gone. */
  take(photoId: string): ProcessedPhoto | undefined {
    const entry = this.entries.get(photoId);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.entries.delete(photoId);
    if (this.now() - entry.stagedAt > this.ttlMs) {
      entry.photo.jpeg.fill(0);
      return undefined;
    }
    this.log.info('photo', `taken ${photoId}`);
    return entry.photo;
  }

  /** Retake, Discard, closing the capture: forgets the photo. True when there was one. */
  discard(photoId: string): boolean {
    return this.release(photoId, 'discarded');
  }

  /** Session end or failure, app shutdown: forgets every staged photo. */
  discardAll(): number {
    const ids = [...this.entries.keys()];
    for (const id of ids) this.release(id, 'session ended');
    return ids.length;
  }

  /** For a diagnostics report: ids, sizes and ages, never bytes or hashes. */
  diagnostics(): { staged: { photoId: string; byteCount: number; pixelWidth: number; pixelHeight: number; ageMs: number }[] } {
    const now = this.now();
    return {
      staged: [...this.entries].map(([photoId, { photo, stagedAt }]) => ({
        photoId,
        byteCount: photo.byteCount,
        pixelWidth: photo.pixelWidth,
        pixelHeight: photo.pixelHeight,
        ageMs: now - stagedAt,
      })),
    };
  }

  get size(): number {
    return this.entries.size;
  }

  private release(photoId: string, why: string): boolean {
    const entry = this.entries.get(photoId);
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.entries.delete(photoId);
    entry.photo.jpeg.fill(0);
    this.log.info('photo', `released ${photoId} (${why})`);
    return true;
  }
}

/** The IPC request → pipeline input, with its own checks (the contract's schema is the first gate). */
export function photoInputFromRequest(request: PhotoStageRequest): PhotoInput {
  const bytes = request.kind === 'file' ? request.bytes : request.rgba;
  if (bytes.byteLength > photoServiceLimits.maxRequestBytes) {
    throw new PhotoError(
      request.kind === 'file' ? 'file_too_large' : 'frame_size_mismatch',
      `The picture is larger than ${photoServiceLimits.maxRequestBytes / (1024 * 1024)} MB.`,
    );
  }
  if (request.kind === 'file') return { kind: 'file', bytes };
  return { kind: 'frame', rgba: bytes, width: request.width, height: request.height };
}

export { photoLimits };
