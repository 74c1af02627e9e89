import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, type FileHandle } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Duplex, PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract, type Header } from 'tar-stream';
import { ServiceError } from '../../shared/base/errors';
import { reasonInWords } from '../store/json-file-store';
import { FileRefused, openRegularFile, safeRelative } from './safe-path';

/**
 * A speech model as sherpa-onnx publishes it (`.tar.bz2`, `.tar.gz`/`.tgz`, `.tar`), unpacked into a folder of its own then
 * imported (speech-models.ts). Untrusted: files and folders only, under the target, within `maxEntries`, `maxFileBytes` and
 * `maxTotalBytes` counted as written; decompression never runs ahead of the writes (bzip2 as a child process).
 * Decision: docs/architecture.md#unpacking-speech-model-archives
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

/** The program `.tar.bz2` archives are decompressed with (a test may name another). */
export const bzip2Program = { command: 'bzip2' };

interface Decompressor {
  stream: Duplex | Transform | PassThrough;
  /** Settles when the decompressor has finished; rejects with why it failed. */
  finished: Promise<void>;
  stop(): void;
}

function bzip2(): Decompressor {
  const child = spawn(bzip2Program.command, ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  let stderr = '';
  /** Stopped by us (the unpacking failed for another reason): its end is not a failure of its own. */
  let stopping = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 2000) stderr += chunk;
  });
  const finished = new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? invalid(
              `Unpacking a .tar.bz2 archive needs the bzip2 program, which this computer does not have: unpack the archive yourself (7-Zip does it) and import the folder inside.`,
            )
          : error,
      ),
    );
    // 'exit' rather than 'close': a stdio stream destroyed by the pipeline may never report its own close.
    // stderr is read to its end first (a finished process's pipe ends at once).
    child.once('exit', (code, signal) => {
      // SIGPIPE: what it was writing to went away (the tar stream failed first, and says why).
      if (code === 0 || stopping || signal === 'SIGPIPE') resolve();
      else {
        const say = () => {
          // bzip2's first line says it ("bzip2: Compressed file ends unexpectedly;"), the rest is advice for its own command line.
          const first = stderr
            .split('\n')
            .map((line) =>
              line
                .replace(/^bzip2:\s*/, '')
                .replace(/[;:.]\s*$/, '')
                .trim(),
            )
            .find((line) => line !== '');
          reject(new Error(signal ? `bzip2 was stopped (${signal})` : `bzip2: ${first?.slice(0, 200) ?? `exit code ${code}`}`));
        };
        if (child.stderr.readableEnded || child.stderr.destroyed) return say();
        const late = setTimeout(say, 200);
        child.stderr.once('close', () => {
          clearTimeout(late);
          say();
        });
      }
    });
  });
  // Nothing waits on `finished` before the pipeline has settled; a rejection is not unhandled meanwhile.
  finished.catch(() => undefined);
  return {
    stream: Duplex.from({ writable: child.stdin, readable: child.stdout }),
    finished,
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.kill();
    },
  };
}

function decompressor(archive: string): Decompressor {
  const lower = archive.toLowerCase();
  if (lower.endsWith('.tar.bz2') || lower.endsWith('.tbz2')) return bzip2();
  const stream = lower.endsWith('.tar.gz') || lower.endsWith('.tgz') ? createGunzip() : new PassThrough();
  return { stream, finished: Promise.resolve(), stop: () => undefined };
}

/**
 * Unpacks `archive` into `into` (created, mode 0700) and returns the model's folder: the archive's one
 * top-level folder when that is all it holds, else `into` itself.
 */
export async function unpackModelArchive(archive: string, into: string, limits: UnpackLimits, onProgress: (progress: UnpackProgress) => void): Promise<string> {
  // Opened once, without following a link or waiting on a FIFO, and checked on the handle: what is
  // unpacked is the file that was checked (safe-path.ts). Its size is not capped here: the unpacking's
  // own limits bound what is read from it.
  const { handle, info } = await openRegularFile(archive).catch((error: unknown) => {
    if (error instanceof FileRefused && error.reason === 'link')
      throw new ServiceError('speech_model_symlink', `${archive} is a symbolic link: choose the archive itself.`, '/path');
    if (error instanceof FileRefused)
      throw invalid(
        `${archive} cannot be read (${error.message}): choose a sherpa-onnx model archive (${modelArchiveSuffixes.join(', ')}) or the folder it unpacks to.`,
      );
    throw invalid(`${archive} cannot be read: ${reasonInWords(error)}.`);
  });
  try {
    return await unpackFrom(handle, info.size, archive, into, limits, onProgress);
  } finally {
    await handle.close();
  }
}

async function unpackFrom(
  handle: FileHandle,
  bytesTotal: number,
  archive: string,
  into: string,
  limits: UnpackLimits,
  onProgress: (progress: UnpackProgress) => void,
): Promise<string> {
  await mkdir(into, { recursive: true, mode: 0o700 });

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
  /** The entry being written: a failure elsewhere waits for it to settle, so nothing is left open or made after. */
  let inFlight: Promise<void> = Promise.resolve();
  /** Why an entry was refused or could not be written: said rather than what the streams report after it. */
  let entryFailure: unknown;
  const unpacker = tarExtract();
  unpacker.on('entry', (header: Header, body, next) => {
    // A refused entry ends the whole unpacking with its own error (through `next`); the entry's stream
    // is then destroyed with it too, and nothing more is to be heard from it.
    body.on('error', () => undefined);
    inFlight = (async () => {
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
        throw new ServiceError(
          'speech_model_symlink',
          `The archive holds a link (${name}${header.linkname ? ` → ${header.linkname.slice(0, 200)}` : ''}): a speech model's files must be files, so it is refused.`,
          '/path',
        );
      }
      if (header.type === 'directory') {
        await mkdir(join(into, name), { recursive: true, mode: 0o700 });
        made.add(name);
        body.resume();
        return;
      }
      // pax headers and the like are read by tar-stream itself; anything else that is not a file is refused.
      if (header.type !== 'file' && header.type !== 'contiguous-file')
        throw invalid(`The archive holds ${name}, a ${header.type ?? 'special'} entry: a speech model's files must be files.`);
      if ((header.size ?? 0) > limits.maxFileBytes)
        throw invalid(`${name} in the archive is larger than ${limits.maxFileBytes} bytes: it is not a speech model's file.`);
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
          if (fileBytes > limits.maxFileBytes)
            return callback(invalid(`${name} in the archive unpacks to more than ${limits.maxFileBytes} bytes: it is not a speech model's file.`));
          if (written > limits.maxTotalBytes)
            return callback(invalid(`The archive unpacks to more than ${limits.maxTotalBytes} bytes: it is not a speech model.`));
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
      (error: unknown) => {
        entryFailure ??= error;
        next(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

  const decompress = decompressor(archive);
  try {
    const unpacking = pipeline(handle.createReadStream({ autoClose: false }), counter, decompress.stream, unpacker).catch(async (error: unknown) => {
      // A decompressor that failed by itself has ended or ends at once (its words are wanted); one still
      // running after that is stopped (a refusal, a broken tar: it may be blocked writing into a dead pipe).
      await Promise.race([decompress.finished.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 250))]);
      decompress.stop();
      throw error;
    });
    const [piped, decompressed] = await Promise.allSettled([unpacking, decompress.finished]);
    // Our own refusal first (a limit, a link), then the decompressor's own words (bzip2's "data integrity (CRC) error"), then the rest.
    const failure =
      entryFailure ??
      (piped.status === 'rejected' && piped.reason instanceof ServiceError ? piped.reason : undefined) ??
      (decompressed.status === 'rejected' ? decompressed.reason : undefined) ??
      (piped.status === 'rejected' ? piped.reason : undefined);
    if (failure !== undefined) {
      if (failure instanceof ServiceError) throw failure;
      // A file-system error in words; otherwise the decompressor's or the tar parser's own sentence (bzip2's "compressed file ends unexpectedly", tar-stream's "Unexpected end of data").
      const why =
        typeof (failure as NodeJS.ErrnoException).code === 'string' || !(failure instanceof Error) ? reasonInWords(failure) : failure.message.slice(0, 300);
      throw invalid(
        `${archive} could not be unpacked: ${why}. Choose a sherpa-onnx model archive (${modelArchiveSuffixes.join(', ')}) or the folder it unpacks to.`,
      );
    }
  } finally {
    decompress.stop();
    await inFlight.catch(() => undefined);
  }
  onProgress({ bytesDone: bytesTotal, bytesTotal });
  if (entries === 0) throw invalid(`${archive} is an empty archive.`);

  const top = await readdir(into, { withFileTypes: true });
  const only = top.length === 1 ? top[0] : undefined;
  return only?.isDirectory() ? join(into, only.name) : into;
}
