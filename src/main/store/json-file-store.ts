import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';
import { ServiceError } from '../../shared/base/errors';
import type { Notice } from '../../shared/ipc/notices';
import { readSavedDocument, type SavedFileFormat } from '../../shared/storage/saved-file-format';

/** The file operations the store uses; tests replace one to simulate a failing disk. */
export interface StoreFs {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  open(
    path: string,
    flags: string,
    mode: number,
  ): Promise<{ writeFile(text: string, encoding: 'utf8'): Promise<void>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<unknown>;
  rm(path: string, options: { force: true }): Promise<void>;
}

const nodeFs: StoreFs = fs;

export interface JsonFileStoreOptions {
  /** How the file is named in messages (default: its file name), e.g. `agui-threads/<id>.json`. */
  label?: string;
  fs?: StoreFs;
}

export interface LoadResult<T> {
  value: T;
  /** For the user: the file was damaged and moved aside, is from a newer AgentDesk, or could not be read. */
  notice?: Notice;
  /** True when this session must not change the file (see `JsonFileStore`); every save is refused. */
  readOnly?: boolean;
  /** True when `value` is the file's content (else: defaults, or a newer file read as best it could be). */
  fromFile?: boolean;
  /** The file's version when it was older and was migrated (it is rewritten at the next save). */
  migratedFrom?: number;
}

/**
 * One JSON document in the user-data folder, in a versioned format (`SavedFileFormat`).
 * - Load reads the version, migrates an older document to the current version (pure migrations,
 *   beside the schema) and validates it against the schema. A file that is not JSON, has no usable
 *   version or does not match is moved aside (`<name>.corrupt-<time>-<random>`) and the defaults are used,
 *   with a notice for the user. Never a crash, never a silent reset.
 * - A file written by a newer AgentDesk (a version above `format.current`) is not moved aside and
 *   never overwritten: the store is read-only for this session (saves fail with `save_failed`) and
 *   holds, in memory, what this version can read of it (the document, if it still matches this
 *   version's schema), else the defaults; the notice says which. The same holds for a file that
 *   cannot be read or moved aside (permissions, a disk error).
 * - A migrated file is written in the current version at the next save, not at load.
 * - Save writes a temporary file in the same folder, flushes it to disk, then renames it over the
 *   old one, so a crash or power loss leaves either the old or the new document, never half of one.
 *   A failed save (disk full, read-only folder …) removes the temporary file, leaves the old file as
 *   it was and rejects with `save_failed`, naming the file and the reason in words.
 * - Saves are serialized: the last one wins and none interleave.
 */
export class JsonFileStore<S extends z.ZodType> {
  private queue: Promise<void> = Promise.resolve();
  private readonly fs: StoreFs;
  /** Why saving is refused this session (the load notice), when it is. */
  private readOnlyReason: string | undefined;
  readonly label: string;

  constructor(
    readonly path: string,
    private readonly schema: S,
    private readonly defaults: () => z.output<S>,
    readonly format: SavedFileFormat,
    options: JsonFileStoreOptions = {},
  ) {
    this.fs = options.fs ?? nodeFs;
    this.label = options.label ?? basename(path);
  }

  get readOnly(): boolean {
    return this.readOnlyReason !== undefined;
  }

  async load(): Promise<LoadResult<z.output<S>>> {
    let text: string;
    try {
      text = await this.fs.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { value: this.defaults() };
      const reason = reasonInWords(error);
      return this.keepAway({
        code: 'file_unreadable',
        params: { file: this.label },
        detail: reason,
        message: `${this.label} could not be read (${reason}). Defaults are in use for this session and the file is left as it is.`,
      });
    }
    const read = readSavedDocument(text, this.format);
    let problem: string;
    if (read.kind === 'newer') {
      const field = this.format.versionField;
      const bestEffort = this.schema.safeParse({ ...read.document, [field]: this.format.current });
      const how = bestEffort.success ? `reads it as version ${this.format.current}` : 'cannot read it and uses the defaults';
      const notice: Notice = {
        code: bestEffort.success ? 'file_newer_read' : 'file_newer_defaults',
        params: { file: this.label, version: String(read.version), ...(bestEffort.success ? { current: String(this.format.current) } : {}) },
        message: `${this.label} was written by a newer AgentDesk (version ${read.version}); this version ${how}, and will not change it.`,
      };
      this.readOnlyReason = notice.message;
      return { value: bestEffort.success ? (bestEffort.data as z.output<S>) : this.defaults(), notice, readOnly: true };
    }
    if (read.kind === 'current') {
      const parsed = this.schema.safeParse(read.document);
      if (parsed.success) return { value: parsed.data, fromFile: true, ...(read.fromVersion < this.format.current ? { migratedFrom: read.fromVersion } : {}) };
      const issue = parsed.error.issues[0];
      // Bounded: an issue quotes what the file holds (a long unknown key, say), and notices are short.
      problem = clip(`${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}`, 200);
    } else {
      problem = read.problem;
    }
    // The time, and a random part: two bad files moved aside in the same millisecond keep both copies.
    const aside = `${this.path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    try {
      await this.fs.rename(this.path, aside);
    } catch (error) {
      const reason = reasonInWords(error);
      return this.keepAway({
        code: 'file_not_moved_aside',
        params: { file: this.label },
        detail: `${problem}; ${reason}`,
        message: `${this.label} could not be read (${problem}) and could not be moved aside (${reason}). Defaults are in use for this session and the file is left as it is.`,
      });
    }
    return {
      value: this.defaults(),
      notice: {
        code: 'file_moved_aside',
        params: { file: this.label, aside },
        detail: problem,
        message: `${this.label} could not be read (${problem}). It was moved to ${aside} and defaults are in use.`,
      },
    };
  }

  /**
   * Rejects (and writes nothing) when the value does not match the schema; rejects with a
   * `save_failed` ServiceError when the file cannot be written or this session must not change it.
   */
  async save(value: z.output<S>): Promise<void> {
    const checked = this.schema.parse(value) as z.output<S>;
    if (this.readOnlyReason !== undefined) throw new ServiceError('save_failed', this.readOnlyReason);
    const text = `${JSON.stringify(checked, null, 2)}\n`;
    const write = this.queue.then(() => this.writeAtomically(text));
    this.queue = write.catch(() => undefined);
    await write;
  }

  private keepAway(notice: Notice): LoadResult<z.output<S>> {
    this.readOnlyReason = notice.message;
    return { value: this.defaults(), notice, readOnly: true };
  }

  private async writeAtomically(text: string): Promise<void> {
    const dir = dirname(this.path);
    const temporary = join(dir, `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    let created = false;
    try {
      await this.fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const handle = await this.fs.open(temporary, 'wx', 0o600);
      created = true;
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.fs.rename(temporary, this.path);
    } catch (error) {
      if (created) await this.fs.rm(temporary, { force: true }).catch(() => undefined);
      throw new ServiceError('save_failed', `${this.label} could not be saved in ${dir}: ${reasonInWords(error)}. The saved copy is unchanged.`);
    }
  }
}

const fileSystemWords: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the folder is on a read-only disk',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ENOTDIR: 'part of the folder path is not a folder',
  EISDIR: 'a folder is in the way',
  EEXIST: 'a file is in the way',
  ENOENT: 'the folder does not exist',
  EIO: 'a disk error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EBUSY: 'the file is in use',
};

/** A file-system failure in words, with its code for support (`the disk is full (ENOSPC)`). */
export function reasonInWords(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return `${fileSystemWords[code] ?? 'a file-system error'} (${code})`;
  return 'an unexpected error';
}

/** A failure of the file system (as opposed to, say, the network): one of the codes `reasonInWords` names. */
export function isFileSystemError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(fileSystemWords, code);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
