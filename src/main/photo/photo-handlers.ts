import { ServiceError } from '../../shared/base/errors';
import type { HandlerTable } from '../ipc/handler-table';
import { PhotoError } from './photo-errors';
import type { PhotoService } from './photo-service';

/** `photo.*`: pictures staged in main for an AgentCall observation. */
export function photoHandlers({ photos }: { photos: PhotoService }): HandlerTable<'photo'> {
  /** A refused picture is the user's to fix: `invalid_image` with the pipeline's message (never bytes, never sharp's text). */
  const photoCall = async <T>(field: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PhotoError) throw new ServiceError('invalid_image', error.message, field);
      throw error;
    }
  };
  return {
    'photo.stage': (request) => photoCall(request.kind === 'file' ? '/bytes' : '/rgba', () => photos.stageRequest(request)),
    'photo.discard': ({ photoId }) => ({ discarded: photos.discard(photoId) }),
  };
}
