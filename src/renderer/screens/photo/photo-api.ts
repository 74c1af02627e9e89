import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcResult } from '../../../shared/base/errors';

/**
 * What the photo screens need from main. Written out here until the contract has the `photo.*`
 * methods; `window.agentdesk` (AgentDeskApi) satisfies it as soon as it does, so callers pass `api`.
 *
 * Pixels and files cross as bytes (the contract's `ipcBytes`: structured clone in Electron, a binary
 * frame in the web shell), at most 24 MiB. A camera frame is drawn at most 2048 px on its long
 * side, so it stays far below.
 */
export type PhotoStageRequest = { kind: 'file'; bytes: Uint8Array } | { kind: 'frame'; width: number; height: number; rgba: Uint8Array };

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

/** Bytes the renderer may send in one request (the contract's bound). */
export const maxPhotoRequestBytes = 24 * 1024 * 1024;
/** Longest side a camera frame is drawn at before its pixels are read. */
export const maxFrameSide = 2048;

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
