import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ServiceError } from '../../shared/base/errors';
import type { GuardedResponse } from '../net/guarded-fetch';
import { isFileSystemError, reasonInWords } from '../store/json-file-store';

/** Asks where to save a download (Electron's save dialog; the web shell's Downloads folder). Undefined: the user cancelled. */
export type ChooseDownloadPath = (suggestedName: string) => Promise<string | undefined>;

/** Bidi controls (ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI): removed, so "invoice\u202Efdp.exe" cannot pose as "invoiceexe.pdf". */
const bidiControls = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** C0, DEL, C1, the line and paragraph separators and what Windows forbids in a name: each becomes "_". */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029<>:"|?*]/g;

/** A file name a server suggested, made safe: no folders, no control or bidi characters, bounded, never empty or hidden. */
export function safeFileName(name: string): string {
  const cleaned = basename(name.replace(bidiControls, '').replace(/\\/g, '/')).replace(unsafeCharacters, '_').replace(/^\.+/, '').trim().slice(0, 200);
  return cleaned === '' ? 'download' : cleaned;
}

/** The first free `name`, `name (1)`, `name (2)` … in `folder` (for the web shell, which has no dialog). */
export async function uniquePath(folder: string, name: string): Promise<string> {
  const extension = extname(name);
  const stem = name.slice(0, name.length - extension.length);
  for (let n = 0; n < 1000; n++) {
    const candidate = join(folder, n === 0 ? name : `${stem} (${n})${extension}`);
    try {
      await stat(candidate);
    } catch {
      return candidate;
    }
  }
  throw new ServiceError('internal', 'No free file name was found in the Downloads folder.');
}

/** A file-system failure (disk full, read-only folder …) as `save_failed` naming the file and why; other failures as they are. */
function notSaved(path: string, error: unknown): unknown {
  if (!isFileSystemError(error)) return error;
  return new ServiceError('save_failed', `${basename(path)} could not be saved in ${dirname(path)}: ${reasonInWords(error)}. Nothing was left behind.`);
}

/**
 * Streams a response body to `path`: into a temporary file beside it, renamed into place only when
 * complete, so a failed or cancelled download never leaves half a file under the real name.
 */
export async function saveResponse(
  response: GuardedResponse,
  path: string,
  maxBytes: number,
  onProgress: (received: number, total?: number) => void,
): Promise<number> {
  const declared = Number(response.headers['content-length']);
  const total = Number.isFinite(declared) && declared >= 0 ? declared : undefined;
  if (total !== undefined && total > maxBytes) {
    response.cancel();
    throw new ServiceError('protocol_error', `The file is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB.`);
  }
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
  const file = await open(temporary, 'wx', 0o600).catch((error: unknown) => {
    response.cancel();
    throw notSaved(path, error);
  });
  let received = 0;
  let reported = 0;
  try {
    for await (const chunk of response.stream()) {
      received += chunk.byteLength;
      if (received > maxBytes) {
        response.cancel();
        throw new ServiceError('protocol_error', `The file is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB.`);
      }
      await file.write(chunk);
      if (received - reported >= 256 * 1024) {
        reported = received;
        onProgress(received, total);
      }
    }
    await file.sync();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw notSaved(path, error);
  }
  try {
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw notSaved(path, error);
  }
  onProgress(received, total);
  return received;
}
