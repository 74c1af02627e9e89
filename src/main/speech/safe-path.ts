import { constants as fsConstants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { reasonInWords } from '../store/json-file-store';

/** Windows' reserved device names, with or without an extension. */
const reservedName = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** The longest path of a model's file AgentDesk keeps (in its folder, and in speech-model.json). */
export const maxModelPathChars = 1024;

/**
 * `a/b/c.onnx` → the same, checked: relative, no `..`, no empty or `.` parts after normalising, and no
 * part that Windows would take as something else (`:` streams, `<>"|?*`, control characters, a trailing
 * dot or space, a device name), at most `maxModelPathChars` long. The one rule for a path inside a
 * speech model's folder: an archive's entries, a chosen folder's files, and what speech-model.json says.
 */
export function safeRelative(name: string): string | undefined {
  const normal = posix.normalize(name.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (normal === '' || normal === '.' || normal.startsWith('/') || /^[A-Za-z]:/.test(normal) || normal.length > maxModelPathChars) return undefined;
  const parts = normal.split('/');
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (parts.some((part) => part === '..' || part === '' || /[<>:"|?*\u0000-\u001f]/.test(part) || /[. ]$/.test(part) || reservedName.test(part)))
    return undefined;
  return normal;
}

/** Opens without following a symbolic link, and without waiting on a FIFO or a device (flags Windows lacks are 0 there). */
const safeOpenFlags = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);

/** Why `openRegularFile` refused a file, in everyday words (`it is not a regular file: …`). */
export class FileRefused extends Error {
  constructor(
    readonly reason: 'link' | 'not a file' | 'too large',
    message: string,
  ) {
    super(message);
    this.name = 'FileRefused';
  }
}

/**
 * Opens a file of a folder or archive the user chose, for reading, as what it was checked to be: never
 * through a symbolic link (O_NOFOLLOW), never waiting (O_NONBLOCK: a FIFO swapped in after the folder was
 * read would block a plain open until something writes to it, and the import with it), and then checked
 * on the handle itself (fstat): a regular file of at most `maxBytes` (when given), so a swap after the check is seen.
 * Throws `FileRefused` with why, or the file system's own error (ENOENT, EACCES). The one way the speech
 * import opens what it reads (`readRegularFile` for a small file read whole).
 */
export async function openRegularFile(path: string, maxBytes?: number): Promise<{ handle: FileHandle; info: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, safeOpenFlags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new FileRefused('link', 'it is a symbolic link');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new FileRefused('not a file', `it is not a regular file: ${info.isDirectory() ? 'a folder' : 'a pipe, a device or a socket'}`);
    if (maxBytes !== undefined && info.size > maxBytes)
      throw new FileRefused('too large', `it is ${sizeInWords(info.size)}; it may be at most ${sizeInWords(maxBytes)}`);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A small file read whole (`openRegularFile`'s checks), and never more than `maxBytes` of it even if it grows meanwhile. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  const { handle } = await openRegularFile(path, maxBytes);
  try {
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      // Never more than one byte past the limit: a file that grew past it since the fstat is refused, not cut.
      const chunk = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) throw new FileRefused('too large', `it grew past ${sizeInWords(maxBytes)} while it was read`);
    }
    return Buffer.concat(chunks, length);
  } finally {
    await handle.close();
  }
}

/** Why a file could not be read, in words: `FileRefused`'s own, or the file system's (`permission denied (EACCES)`). */
export function whyUnreadable(error: unknown): string {
  return error instanceof FileRefused ? error.message : reasonInWords(error);
}

/** "64 KB", "16 MB", "1.9 GB". */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
