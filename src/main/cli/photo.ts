import { readFile, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PhotoError } from '../photo/photo-errors';
import { processImage, photoLimits } from '../photo/photo-pipeline';
import { exitCodes, type Io } from './output';

/**
 * `agentdesk photo <file> [--json] [--out PATH]`: runs the app's photo pipeline on an image file
 * and prints what the observation would carry (byteCount, sha256, pixelWidth, pixelHeight) and how
 * it was found (quality, encodes). `--out` writes the JPEG. Exit 0 done, 1 the picture was refused
 * (the message says why), 2 usage, or the file cannot be read or written.
 */
export async function photo(file: string, options: { json: boolean; out?: string | undefined }, io: Io): Promise<number> {
  const problem = (code: string, message: string, exit: number) => {
    if (options.json) io.out(JSON.stringify({ ok: false, code, message }));
    else io.err(message);
    return exit;
  };
  if (options.out !== undefined && resolve(options.out) === resolve(file)) {
    return problem('usage', '--out must not be the input file.', exitCodes.usage);
  }
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (!info.isFile()) return problem('unreadable', `${file} is not a file.`, exitCodes.usage);
    // Refuse before reading a huge file into memory (same limit as the app).
    if (info.size > photoLimits.maxFileBytes) {
      return problem('file_too_large', `The file is larger than ${photoLimits.maxFileBytes / (1024 * 1024)} MB. Choose a smaller picture.`, exitCodes.rejected);
    }
    bytes = await readFile(file);
  } catch (error) {
    return problem('unreadable', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, exitCodes.usage);
  }

  let result;
  try {
    result = await processImage({ kind: 'file', bytes });
  } catch (error) {
    if (error instanceof PhotoError) return problem(error.code, error.message, exitCodes.rejected);
    throw error;
  }
  const { byteCount, sha256, pixelWidth, pixelHeight, quality, encodes } = result;
  if (options.out !== undefined) {
    try {
      await writeFile(options.out, result.jpeg, { mode: 0o600 });
    } catch (error) {
      return problem('unwritable', `Cannot write ${options.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, exitCodes.usage);
    }
  }
  if (options.json) {
    io.out(JSON.stringify({ byteCount, sha256, pixelWidth, pixelHeight, quality, encodes }));
  } else {
    io.out(
      `${pixelWidth}×${pixelHeight} JPEG, ${byteCount} bytes (limit ${photoLimits.maxJpegBytes}), quality ${quality}, ${encodes} ${encodes === 1 ? 'encode' : 'encodes'}`,
    );
    io.out(`sha256 ${sha256}`);
    if (options.out !== undefined) io.out(`written to ${options.out}`);
  }
  return exitCodes.ok;
}
