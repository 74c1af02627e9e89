import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcResult } from '../../../shared/ipc/errors';

/**
 * What the photo screens need from main. Written out here until the contract has the `photo.*`
 * methods; `window.agentdesk` (AgentDeskApi) satisfies it as soon as it does, so callers pass `api`.
 *
 * Pixels and files cross as base64 inside JSON (the web shell's IPC is a JSON WebSocket), at most
 * 24 MiB decoded. A camera frame is drawn at most 2048 px on its long side, so it stays far below.
 */
export type PhotoStageRequest = { kind: 'file'; bytesBase64: string } | { kind: 'frame'; width: number; height: number; rgbaBase64: string };

export interface StagedPhotoView {
  /** Opaque: main holds the photo under it until sent, discarded, expired or the session ends. */
  photoId: string;
  /** `data:image/jpeg;base64,…` of the processed JPEG (exactly what would be sent). */
  preview: string;
  byteCount: number;
  pixelWidth: number;
  pixelHeight: number;
}

export interface PhotoCaptureApi {
  media: Pick<AgentDeskApi['media'], 'arm' | 'disarm'>;
  photo: {
    stage(request: PhotoStageRequest): Promise<IpcResult<StagedPhotoView>>;
    discard(request: { photoId: string }): Promise<IpcResult<{ discarded: boolean }>>;
  };
}

/** Decoded bytes the renderer may send in one request (the contract's bound). */
export const maxPhotoRequestBytes = 24 * 1024 * 1024;
/** Longest side a camera frame is drawn at before its pixels are read. */
export const maxFrameSide = 2048;

/** Uint8Array.prototype.toBase64 (Chromium 140+, so Electron 45 and the browsers the web shell is tested in). */
interface WithToBase64 {
  toBase64?: (this: Uint8Array) => string;
}

/**
 * Bytes → standard, padded base64. Natively where the engine has it (a 1280 × 720 frame: about
 * ten times faster than building a binary string for btoa); otherwise in chunks, because
 * String.fromCharCode on 24 MB at once overflows the call stack.
 */
export function bytesToBase64(bytes: Uint8Array | Uint8ClampedArray): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const native = (Uint8Array.prototype as WithToBase64).toBase64;
  if (typeof native === 'function') return native.call(view);
  const chunk = 0x8000;
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += chunk) parts.push(String.fromCharCode(...bytes.subarray(at, at + chunk)));
  return btoa(parts.join(''));
}

/** The preview data URL from main → a Blob, so it can be shown from an object URL that is revoked later. */
export function jpegDataUrlToBlob(dataUrl: string): Blob | undefined {
  const prefix = 'data:image/jpeg;base64,';
  if (!dataUrl.startsWith(prefix)) return undefined;
  let binary: string;
  try {
    binary = atob(dataUrl.slice(prefix.length));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type: 'image/jpeg' });
}
