import { useCallback, useMemo, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { PhotoCaptureApi } from '../../../screens/photo/photo-api';

/** At most this many previews wait for Send, and this many thumbnails of sent photos are kept. */
const maxStaged = 8;
const maxThumbnails = 32;
const jpegPrefix = 'data:image/jpeg;base64,';

export interface PhotoThumbnails {
  /** The API for PhotoDialog: the same calls, but the screen keeps each staged preview until it is sent or discarded. */
  photoApi: PhotoCaptureApi;
  /** The user pressed Send on this photo: its preview becomes the thumbnail of the observation that carries it. */
  sent: (photoId: string) => void;
  /** The thumbnail of a sent photo, found by the SHA-256 the session reports (so it is exactly that photo). */
  thumbnail: (sha256: string) => string | undefined;
  /** The session ended: every preview and thumbnail is dropped. */
  clear: () => void;
}

/**
 * Thumbnails of sent photos for the transcript. The session's observation carries only the
 * photo's size and SHA-256, never its bytes; the preview PhotoDialog got from `photo.stage` is the
 * processed JPEG that is sent, so its hash finds it again. Nothing is kept beyond the session.
 */
export function usePhotoThumbnails(api: AgentDeskApi): PhotoThumbnails {
  const staged = useRef(new Map<string, string>());
  const [thumbnails, setThumbnails] = useState<ReadonlyMap<string, string>>(new Map());
  const generation = useRef(0);

  const photoApi = useMemo<PhotoCaptureApi>(
    () => ({
      media: api.media,
      photo: {
        stage: async (request) => {
          const result = await api.photo.stage(request);
          if (result.ok) {
            const map = staged.current;
            map.set(result.value.photoId, result.value.preview);
            while (map.size > maxStaged) map.delete(map.keys().next().value as string);
          }
          return result;
        },
        discard: (request) => {
          staged.current.delete(request.photoId);
          return api.photo.discard(request);
        },
      },
    }),
    [api],
  );

  const sent = useCallback((photoId: string) => {
    const preview = staged.current.get(photoId);
    staged.current.delete(photoId);
    if (preview === undefined || !preview.startsWith(jpegPrefix)) return;
    const mine = generation.current;
    void sha256OfBase64(preview.slice(jpegPrefix.length)).then((hash) => {
      if (hash === undefined || generation.current !== mine) return;
      setThumbnails((current) => {
        const next = new Map(current);
        next.set(hash, preview);
        while (next.size > maxThumbnails) next.delete(next.keys().next().value as string);
        return next;
      });
    });
  }, []);

  const thumbnail = useCallback((sha256: string) => thumbnails.get(sha256), [thumbnails]);

  const clear = useCallback(() => {
    generation.current += 1;
    staged.current.clear();
    setThumbnails((current) => (current.size === 0 ? current : new Map()));
  }, []);

  return { photoApi, sent, thumbnail, clear };
}

async function sha256OfBase64(base64: string): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
