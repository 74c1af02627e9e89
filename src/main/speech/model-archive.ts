import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract, type Header } from 'tar-stream';
import unbzip2 from 'unbzip2-stream';
import { ServiceError } from '../../shared/ipc/errors';
import { reasonInWords } from '../store/json-file-store';

/**
 * A speech model as sherpa-onnx publishes it: one archive (`sherpa-onnx-…-zipformer-en-….tar.bz2`,
 * also `.tar.gz`/`.tgz` or a plain `.tar`) holding one folder. Main unpacks it into a folder of its own
 * in the user-data folder, then imports that folder like a chosen one (speech-models.ts).
 *
 * The archive is untrusted input, so unpacking is its own small loop over tar-stream's entries rather
 * than a general extractor: only regular files and folders, each under the target (no absolute path,
 * no `..`), at most `maxEntries` entries, each file at most `maxFileBytes` and all of them together at
 * most `maxTotalBytes` (counted as they are written, whatever the headers say: a decompression bomb
 * stops at the limit). A link of any kind is refused, as in a chosen folder (`speech_model_symlink`);
 * anything else wrong is `speech_model_invalid` with why. Progress is the share of the archive's own
 * bytes read.
 */

export const modelArchiveSuffixes = ['.tar.bz2', '.tbz2', '.tar.gz', '.tgz', '.tar'] as const;

export function isModelArchive(path: string): boolean {
  const lower = path.toLowerCase();
  return modelArchiveSuffixes.some((suffix) => lower.endsWith(suffix));
}

export interface UnpackLimits {
  maxEntries: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export interface UnpackProgress {
  bytesDone: number;
  bytesTotal: number;
}

const invalid = (message: string) => new ServiceError('speech_model_invalid', message, '/path');

function decompressor(archive: string): Transform | PassThrough {
  const lower = archive.toLowerCase();
  if (lower.endsWith('.tar.bz2') || lower.endsWith('.tbz2')) return unbzip2() as unknown as Transform;
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return createGunzip();
  return new PassThrough();
}

/** `a/b/c.onnx` → the same, checked: relative, no `..`, no empty or `.` parts after normalising. */
function safeRelative(name: string): string | undefined {
  const normal = posix.normalize(name.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (normal === '' || normal === '.' || normal.startsWith('/') || /^[A-Za-z]:/.test(normal)) return undefined;
  if (normal.split('/').some((part) => part === '..' || part === '')) return undefined;
  return normal;
}

/**
 * Unpacks `archive` into `into` (created, mode 0700) and returns the model's folder: the archive's one
 * top-level folder when that is all it holds, else `into` itself.
 */
export async function unpackModelArchive(archive: string, into: string, limits: UnpackLimits, onProgress: (progress: UnpackProgress) => void): Promise<string> {
  const info = await lstat(archive).catch((error: unknown) => {
    throw invalid(`${archive} cannot be read: ${reasonInWords(error)}.`);
  });
  if (info.isSymbolicLink()) throw new ServiceError('speech_model_symlink', `${archive} is a symbolic link: choose the archive itself.`, '/path');
  if (!info.isFile()) throw invalid(`${archive} is not a file: choose a sherpa-onnx model archive (${modelArchiveSuffixes.join(', ')}) or the folder it unpacks to.`);
  await mkdir(into, { recursive: true, mode: 0o700 });

  const bytesTotal = info.size;
  let bytesDone = 0;
  let lastReport = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytesDone += chunk.length;
      // About every 1 % (and at the end below), not on every chunk.
      if (bytesDone - lastReport >= Math.max(256 * 1024, bytesTotal / 100)) {
        lastReport = bytesDone;
        onProgress({ bytesDone, bytesTotal });
      }
      callback(null, chunk);
    },
  });

  let entries = 0;
  let written = 0;
  const made = new Set<string>();
  const unpacker = tarExtract();
  unpacker.on('entry', (header: Header, body, next) => {
    // A refused entry ends the whole unpacking with its own error (through `next`); the entry's stream
    // is then destroyed with it too, and nothing more is to be heard from it.
    body.on('error', () => undefined);
    void (async () => {
      entries += 1;
      if (entries > limits.maxEntries) throw invalid(`The archive holds more than ${limits.maxEntries} entries: it is not a speech model.`);
      // `./`, the archive's own root as `tar -C dir .` writes it.
      if (header.type === 'directory' && posix.normalize(header.name) === './') {
        body.resume();
        return;
      }
      const name = safeRelative(header.name);
      if (name === undefined) throw invalid(`The archive has an entry outside its own folder (${JSON.stringify(header.name.slice(0, 200))}): it is refused.`);
      if (header.type === 'symlink' || header.type === 'link') {
        throw new ServiceError('speech_model_symlink', `The archive holds a link (${name}${header.linkname ? ` → ${header.linkname.slice(0, 200)}` : ''}): a speech model's files must be files, so it is refused.`, '/path');
      }
      if (header.type === 'directory') {
        await mkdir(join(into, name), { recursive: true, mode: 0o700 });
        made.add(name);
        body.resume();
        return;
      }
      // pax headers and the like are read by tar-stream itself; anything else that is not a file is refused.
      if (header.type !== 'file' && header.type !== 'contiguous-file') throw invalid(`The archive holds ${name}, a ${header.type ?? 'special'} entry: a speech model's files must be files.`);
      if ((header.size ?? 0) > limits.maxFileBytes) throw invalid(`${name} in the archive is larger than ${limits.maxFileBytes} bytes: it is not a speech model's file.`);
      const parent = posix.dirname(name);
      if (parent !== '.' && !made.has(parent)) {
        await mkdir(join(into, parent), { recursive: true, mode: 0o700 });
        made.add(parent);
      }
      let fileBytes = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          fileBytes += chunk.length;
          written += chunk.length;
          if (fileBytes > limits.maxFileBytes) return callback(invalid(`${name} in the archive unpacks to more than ${limits.maxFileBytes} bytes: it is not a speech model's file.`));
          if (written > limits.maxTotalBytes) return callback(invalid(`The archive unpacks to more than ${limits.maxTotalBytes} bytes: it is not a speech model.`));
          callback(null, chunk);
        },
      });
      // `wx`: an entry named twice is refused rather than written over.
      await pipeline(body, limit, createWriteStream(join(into, name), { mode: 0o600, flags: 'wx' })).catch((error: unknown) => {
        if (error instanceof ServiceError) throw error;
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw invalid(`The archive holds ${name} twice: it is refused.`);
        throw new ServiceError('save_failed', `${name} could not be unpacked into AgentDesk's folder (${reasonInWords(error)}).`);
      });
    })().then(
      () => next(),
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  try {
    await pipeline(createReadStream(archive), counter, decompressor(archive), unpacker);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw invalid(`${archive} could not be unpacked: ${reasonInWords(error)}. Choose a sherpa-onnx model archive (${modelArchiveSuffixes.join(', ')}) or the folder it unpacks to.`);
  }
  onProgress({ bytesDone: bytesTotal, bytesTotal });
  if (entries === 0) throw invalid(`${archive} is an empty archive.`);

  const top = await readdir(into, { withFileTypes: true });
  const only = top.length === 1 ? top[0] : undefined;
  return only?.isDirectory() ? join(into, only.name) : into;
}
