import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ServiceError } from '../../shared/ipc/errors';
import type { Notices } from '../store/notices';
import type { SpeechImportProgress, SpeechModelInfo } from '../../shared/speech/ipc-schemas';
import type { RecognizerModel, RecognizerModelKind } from '../../shared/speech/recognizer-protocol';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { Logger } from '../platform/logger';
import { JsonFileStore, reasonInWords } from '../store/json-file-store';
import { SpeechEngineError } from './bounded-process';
import { isModelArchive, modelArchiveSuffixes, unpackModelArchive } from './model-archive';
import { RecognizerClient, type RecognizerLauncher } from './recognizer-client';
import type { Recognizer } from './speech-service';

/**
 * The speech model the user imported (#17, Settings → Speech). AgentDesk ships no model: the user
 * chooses a sherpa-onnx model folder, main checks it has the files of a kind it loads, copies them into
 * `speech-models/<id>/` in the user-data folder with progress (sha256 of each file taken while
 * copying), and has a fresh recognizer process load the copy. Only a model that loaded replaces the one
 * in use (recorded in `speech-model.json`); a wrong folder or a model that does not load leaves the
 * previous one as it was. At every later process start the files are hashed again and a file that
 * changed since the import is refused.
 *
 * Kinds (sherpa-onnx's own file names):
 * - a streaming zipformer transducer: `encoder….onnx`, `decoder….onnx`, `joiner….onnx`, `tokens.txt`;
 * - Whisper: `…encoder….onnx`, `…decoder….onnx`, `…tokens.txt` (no joiner).
 * Where a folder has both a model and its `.int8.onnx` quantisation, the int8 one is taken.
 *
 * What is copied is exactly what was checked: entries are read with lstat and a symbolic link in the
 * folder is refused (`speech_model_symlink`: a link to /etc/passwd named tokens.txt would otherwise be
 * copied into the user-data folder); each file is opened without following links (O_NOFOLLOW), must be
 * the same file (device, inode) of the same size and time as when checked, is read up to that size and
 * no further, and is checked again after the copy. A file that changed in between (grew, shrank, was
 * replaced) is refused (`speech_model_changed`) rather than copied up to its checked size: a cut-off
 * copy of a file still being written is a model that was never checked, where a refusal costs one retry.
 *
 * Languages: from `agentdesk-model.json` in the folder (`{"name"?, "languages"?: ["cs", …]}`) when it is
 * there, else from the folder's name (sherpa-onnx names its folders `…-zipformer-en-…`, `…-whisper-tiny.en`);
 * a multilingual Whisper is `mul`.
 */

export const maxModelFileBytes = 2 * 1024 ** 3;
export const maxModelBytes = 4 * 1024 ** 3;
export const maxTokensBytes = 16 * 1024 ** 2;
export const modelManifestName = 'agentdesk-model.json';
/** sherpa-onnx's archives hold a handful of files (a model, its int8 twin, tokens, test WAVs, a README). */
export const maxArchiveEntries = 1000;

/** `…/sherpa-onnx-whisper-tiny.en.tar.bz2` → `sherpa-onnx-whisper-tiny.en`. */
export function archiveBaseName(path: string): string {
  const name = basename(path);
  const suffix = modelArchiveSuffixes.find((candidate) => name.toLowerCase().endsWith(candidate)) ?? '';
  return name.slice(0, name.length - suffix.length);
}

const knownLanguages = new Set(
  'af ar bg bn ca cs da de el en es et fa fi fr he hi hr hu id it ja ko lt lv ms nl no pl pt ro ru sk sl sr sv sw ta th tr uk ur vi yue zh'.split(' '),
);
const languageTag = z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/);
const folderManifestSchema = z.strictObject({ name: z.string().min(1).max(200).optional(), languages: z.array(languageTag).min(1).max(100).optional() });

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const roleSchema = z.enum(['encoder', 'decoder', 'joiner', 'tokens']);
type Role = z.infer<typeof roleSchema>;
const importedModelSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  name: z.string().max(200),
  kind: z.enum(['transducer', 'whisper']),
  languages: z.array(z.string().max(35)).max(100),
  importedAt: z.string().max(40),
  files: z.array(z.strictObject({ role: roleSchema, file: z.string().min(1).max(255), bytes: z.number().int().nonnegative(), sha256: sha256Hex })).min(3).max(4),
});
type ImportedModel = z.infer<typeof importedModelSchema>;
const modelFileSchema = z.strictObject({ schemaVersion: z.literal(1), model: importedModelSchema.optional() });
export const speechModelFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };
export const speechModelFileName = 'speech-model.json';

/** Which file on disk was checked: the import copies only that file, unchanged. */
interface CheckedFile {
  dev: number;
  ino: number;
  mtimeMs: number;
}

/** A folder's model as found: which file plays which role, and what it is called. */
export interface FoundModel {
  kind: RecognizerModelKind;
  name: string;
  languages: string[];
  files: { role: Role; file: string; bytes: number; checked: CheckedFile }[];
}

const invalid = (message: string) => new ServiceError('speech_model_invalid', message);
const changed = (file: string, how: string) =>
  new ServiceError('speech_model_changed', `${file} changed while it was being imported (${how}); import the model again once nothing writes to its folder.`);
/** Opens without following a symbolic link (where the system has the flag; Windows does not). */
const noFollow = fsConstants.O_NOFOLLOW ?? 0;

const kindsInWords =
  'a streaming transducer needs encoder, decoder and joiner .onnx files and tokens.txt; Whisper needs encoder and decoder .onnx files and a tokens file';

/** Reads a folder and says which sherpa-onnx model it holds, or throws `speech_model_invalid` saying why not. */
export async function findModel(folder: string, nameHint?: string): Promise<FoundModel> {
  let entries: string[];
  try {
    if (!(await stat(folder)).isDirectory()) throw invalid(`${folder} is not a folder: choose the folder that holds the model's files.`);
    entries = await readdir(folder);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw invalid(`The folder ${folder} cannot be read (${reasonInWords(error)}).`);
  }
  const sizes = new Map<string, number>();
  const checked = new Map<string, CheckedFile>();
  const links: string[] = [];
  for (const name of entries) {
    // lstat: a symbolic link is seen as one, never as the file it points to.
    const info = await lstat(join(folder, name)).catch(() => undefined);
    if (info?.isSymbolicLink()) links.push(name);
    else if (info?.isFile()) {
      sizes.set(name, info.size);
      checked.set(name, { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs });
    }
  }
  if (links.length > 0) {
    links.sort();
    throw new ServiceError(
      'speech_model_symlink',
      `The model folder has a symbolic link (${links.slice(0, 4).join(', ')}${links.length > 4 ? ` and ${links.length - 4} more` : ''}); AgentDesk imports only real files: put the files themselves in the folder.`,
    );
  }
  const names = [...sizes.keys()].sort();
  const onnx = names.filter((name) => name.toLowerCase().endsWith('.onnx'));
  const pick = (role: Role): string | undefined => {
    const candidates = onnx.filter((name) => name.toLowerCase().includes(role));
    const int8 = candidates.filter((name) => name.toLowerCase().endsWith('.int8.onnx'));
    const chosen = int8.length > 0 ? int8 : candidates;
    if (chosen.length > 1) throw invalid(`The folder has more than one ${role} file (${chosen.join(', ')}): keep one model per folder.`);
    return chosen[0];
  };
  const tokensFiles = names.filter((name) => name.toLowerCase().endsWith('tokens.txt'));
  const [encoder, decoder, joiner] = [pick('encoder'), pick('decoder'), pick('joiner')];
  const kind: RecognizerModelKind = joiner !== undefined ? 'transducer' : 'whisper';
  const missing = [
    ...(encoder ? [] : ['an encoder .onnx file']),
    ...(decoder ? [] : ['a decoder .onnx file']),
    ...(tokensFiles.length === 0 ? ['a tokens file (tokens.txt)'] : []),
  ];
  if (missing.length > 0) {
    const seen = names.length === 0 ? 'it is empty' : `it has ${names.slice(0, 8).join(', ')}${names.length > 8 ? ` and ${names.length - 8} more` : ''}`;
    throw invalid(`This folder holds no speech model AgentDesk can load: ${missing.join(', ')} missing (${kindsInWords}); ${seen}.`);
  }
  if (tokensFiles.length > 1) throw invalid(`The folder has more than one tokens file (${tokensFiles.join(', ')}): keep one model per folder.`);
  const files = [
    { role: 'encoder' as const, file: encoder! },
    { role: 'decoder' as const, file: decoder! },
    ...(joiner ? [{ role: 'joiner' as const, file: joiner }] : []),
    { role: 'tokens' as const, file: tokensFiles[0]! },
  ].map((entry) => ({ ...entry, bytes: sizes.get(entry.file)!, checked: checked.get(entry.file)! }));
  let total = 0;
  for (const { role, file, bytes } of files) {
    const limit = role === 'tokens' ? maxTokensBytes : maxModelFileBytes;
    if (bytes === 0) throw invalid(`${file} is empty.`);
    if (bytes > limit) throw invalid(`${file} is ${megabytes(bytes)}; a model's ${role === 'tokens' ? 'tokens file' : 'file'} may be at most ${megabytes(limit)}.`);
    total += bytes;
  }
  if (total > maxModelBytes) throw invalid(`The model is ${megabytes(total)}; at most ${megabytes(maxModelBytes)} can be imported.`);
  const folderName = nameHint ?? basename(resolve(folder));
  const manifest = await readFolderManifest(folder, sizes.has(modelManifestName));
  return { kind, name: manifest?.name ?? folderName, languages: manifest?.languages ?? languagesFromName(folderName, kind), files };
}

async function readFolderManifest(folder: string, present: boolean): Promise<z.infer<typeof folderManifestSchema> | undefined> {
  if (!present) return undefined;
  let document: unknown;
  try {
    const text = await readFile(join(folder, modelManifestName), 'utf8');
    if (text.length > 64 * 1024) throw new Error('it is larger than 64 KB');
    document = JSON.parse(text);
  } catch (error) {
    throw invalid(`${modelManifestName} in the folder cannot be read (${reasonInWords(error)}).`);
  }
  const parsed = folderManifestSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${modelManifestName} in the folder is not valid: ${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

/** `sherpa-onnx-streaming-zipformer-en-2023-06-26` → en; `…-bilingual-zh-en-…` → zh, en; `sherpa-onnx-whisper-tiny.en` → en; other Whisper → mul. */
export function languagesFromName(name: string, kind: RecognizerModelKind): string[] {
  const parts = name.toLowerCase().split(/[-_.\s]+/);
  const found = [...new Set(parts.filter((part) => knownLanguages.has(part)))];
  if (kind === 'whisper') return found.length > 0 ? found : ['mul'];
  return found;
}

function megabytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1024 ** 2))} MB`;
}

/** The files of an imported model as the recognizer process loads them. */
function recognizerModel(dir: string, model: ImportedModel): RecognizerModel {
  const path = (role: Role) => join(dir, model.files.find((file) => file.role === role)?.file ?? '');
  if (model.kind === 'transducer') return { kind: 'transducer', encoder: path('encoder'), decoder: path('decoder'), joiner: path('joiner'), tokens: path('tokens') };
  // Whisper knows languages by their primary subtag ("cs", not "cs-CZ"); any other code ends its decoding.
  const single = model.languages.length === 1 && model.languages[0] !== 'mul' ? model.languages[0]!.split('-')[0]!.toLowerCase() : '';
  return { kind: 'whisper', encoder: path('encoder'), decoder: path('decoder'), tokens: path('tokens'), language: single };
}

/** Opens a checked model file for the copy: not through a link, and still the same file of the same size and time. */
async function openChecked(path: string, file: FoundModel['files'][number]): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | noFollow);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new ServiceError('speech_model_symlink', `${file.file} became a symbolic link after the folder was checked; AgentDesk imports only real files.`);
    }
    throw changed(file.file, `it cannot be opened: ${reasonInWords(error)}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.dev !== file.checked.dev || info.ino !== file.checked.ino) throw changed(file.file, 'another file is there now');
    if (info.size !== file.bytes) throw changed(file.file, `it was ${file.bytes} bytes when checked and is ${info.size} bytes now`);
    if (info.mtimeMs !== file.checked.mtimeMs) throw changed(file.file, 'it was written to');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export interface SpeechModelsOptions {
  userDataDir: string;
  log: Logger;
  notices: Notices;
  /** The recognizer process launcher (Electron: a utilityProcess; default: a Node child). */
  launcher?: RecognizerLauncher;
}

interface Current {
  model: ImportedModel;
  dir: string;
  client: RecognizerClient;
}

/** Progress is reported at most this often while copying (and always at each file's end). */
const progressEveryBytes = 4 * 1024 * 1024;

export class SpeechModels {
  private current: Current | undefined;
  private importing = false;

  private constructor(
    private readonly options: SpeechModelsOptions,
    private readonly store: JsonFileStore<typeof modelFileSchema>,
  ) {}

  static async open(options: SpeechModelsOptions): Promise<SpeechModels> {
    const store = new JsonFileStore(join(options.userDataDir, speechModelFileName), modelFileSchema, () => ({ schemaVersion: 1 as const }), speechModelFileFormat);
    const models = new SpeechModels(options, store);
    const loaded = await store.load();
    if (loaded.notice) options.notices.push(loaded.notice);
    if (loaded.value.model) models.current = models.use(loaded.value.model, true);
    await models.sweep(loaded.value.model?.id);
    return models;
  }

  /**
   * What an import cut short by a crash or a forced quit left behind: an archive's unpacked copy
   * (`<id>.unpack`) or a model folder no saved record names. Nothing here is the user's own.
   */
  private async sweep(keep: string | undefined): Promise<void> {
    const entries = await readdir(this.modelsDir).catch(() => [] as string[]);
    for (const entry of entries) {
      if (entry === keep || !/^[0-9a-f]{16}(\.unpack)?$/.test(entry)) continue;
      await rm(join(this.modelsDir, entry), { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) => this.options.log.warn('speech', `a speech model folder left by an import that did not finish could not be removed: ${reasonInWords(error)}`));
    }
  }

  private get modelsDir(): string {
    return join(this.options.userDataDir, 'speech-models');
  }

  /** The imported model as the status shows it. */
  info(): SpeechModelInfo | undefined {
    const model = this.current?.model;
    return model && { name: model.name, languages: model.languages, kind: model.kind, importedAt: model.importedAt };
  }

  /** The recognizer SpeechService uses: the imported model in its process, if one is imported. */
  recognizer(): Recognizer | undefined {
    const current = this.current;
    if (!current) return undefined;
    return {
      engine: 'sherpa-onnx',
      model: { name: current.model.name, languages: current.model.languages },
      stt: current.client,
      refusal: () => current.client.refusal,
    };
  }

  private use(model: ImportedModel, verifyFirst: boolean): Current {
    const dir = join(this.modelsDir, model.id);
    let verify = verifyFirst;
    const client = new RecognizerClient({
      model: recognizerModel(dir, model),
      log: this.options.log,
      ...(this.options.launcher ? { launcher: this.options.launcher } : {}),
      beforeStart: async () => {
        // The import hashed the files as it copied them; every later start hashes them again.
        if (!verify) {
          verify = true;
          return;
        }
        for (const file of model.files) {
          const actual = await sha256Of(join(dir, file.file)).catch((error: unknown) => {
            throw new SpeechEngineError('failed', `the speech model could not be loaded: its file ${file.file} cannot be read (${reasonInWords(error)}); import the model again`);
          });
          if (actual !== file.sha256) {
            throw new SpeechEngineError('failed', `the speech model could not be loaded: its file ${file.file} changed since it was imported (sha256 ${actual.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…); import the model again`);
          }
        }
      },
    });
    return { model, dir, client };
  }

  /**
   * Imports the model in `folder`: checks, copies (progress), loads it in a new recognizer process, and
   * only then makes it the one in use. Throws `speech_model_invalid` with why; the previous model stays.
   */
  async importModel(path: string, onProgress: (progress: SpeechImportProgress) => void): Promise<SpeechModelInfo> {
    if (this.importing) throw new ServiceError('invalid_request', 'A speech model is already being imported; wait for it to finish.');
    this.importing = true;
    const id = randomBytes(8).toString('hex');
    const dir = join(this.modelsDir, id);
    // An archive is unpacked beside the models first (same disk, removed after the import whatever happens).
    const unpacked = join(this.modelsDir, `${id}.unpack`);
    try {
      let folder = path;
      let nameHint: string | undefined;
      if (isModelArchive(path) && !(await lstat(path).then((info) => info.isDirectory(), () => false))) {
        onProgress({ phase: 'unpacking', bytesDone: 0, bytesTotal: 0 });
        folder = await unpackModelArchive(path, unpacked, { maxEntries: maxArchiveEntries, maxFileBytes: maxModelFileBytes, maxTotalBytes: maxModelBytes }, (progress) => onProgress({ phase: 'unpacking', ...progress }));
        // Named after the archive when it holds no folder of its own (the name says the model's languages).
        if (folder === unpacked) nameHint = archiveBaseName(path);
      }
      const found = await findModel(folder, nameHint);
      const total = found.files.reduce((sum, file) => sum + file.bytes, 0);
      let done = 0;
      onProgress({ phase: 'copying', bytesDone: 0, bytesTotal: total });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const files: ImportedModel['files'] = [];
      for (const file of found.files) {
        const hash = createHash('sha256');
        let sinceReport = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            done += chunk.length;
            sinceReport += chunk.length;
            if (sinceReport >= progressEveryBytes) {
              sinceReport = 0;
              onProgress({ phase: 'copying', bytesDone: done, bytesTotal: total, file: file.file });
            }
            callback(null, chunk);
          },
        });
        // An archive main unpacked itself is moved, not copied (same disk: no second copy of gigabytes),
        // then read once for its sha256 like any other; the checks below hold the same (a move keeps the
        // file's identity and time).
        const own = folder === unpacked || folder.startsWith(`${unpacked}${sep}`);
        if (own) {
          await rename(join(folder, file.file), join(dir, file.file)).catch((error: unknown) => {
            throw new ServiceError('save_failed', `${file.file} could not be moved into AgentDesk's folder (${reasonInWords(error)}).`);
          });
        }
        const source = await openChecked(join(own ? dir : folder, file.file), file);
        const before = done;
        try {
          // Read up to the checked size and no further, however much the file has grown meanwhile.
          const reading = source.createReadStream({ start: 0, end: file.bytes - 1, autoClose: false });
          try {
            await pipeline(reading, counter, own ? new Writable({ write: (_chunk, _encoding, callback) => callback() }) : createWriteStream(join(dir, file.file), { mode: 0o600 }));
          } catch (error) {
            throw new ServiceError('save_failed', `${file.file} could not be copied into AgentDesk's folder (${reasonInWords(error)}).`);
          }
          // Checked again after the copy: a file written to meanwhile is refused, not taken in part.
          const after = await source.stat();
          const copied = done - before;
          if (copied !== file.bytes) throw changed(file.file, `${copied} bytes could be read of the ${file.bytes} checked`);
          if (after.size !== file.bytes) throw changed(file.file, `it was ${file.bytes} bytes when checked and is ${after.size} bytes now`);
          if (after.mtimeMs !== file.checked.mtimeMs) throw changed(file.file, 'it was written to');
        } finally {
          await source.close();
        }
        onProgress({ phase: 'copying', bytesDone: done, bytesTotal: total, file: file.file });
        files.push({ role: file.role, file: file.file, bytes: file.bytes, sha256: hash.digest('hex') });
      }
      onProgress({ phase: 'verifying', bytesDone: total, bytesTotal: total });
      const model: ImportedModel = { id, name: found.name, kind: found.kind, languages: found.languages, importedAt: new Date().toISOString(), files };
      const next = this.use(model, false);
      try {
        await next.client.load();
      } catch (error) {
        next.client.close();
        const why = error instanceof Error ? error.message.replace(/^the speech model could not be loaded: /, '').replace(/\.+$/, '') : String(error);
        throw invalid(`The speech model could not be loaded: ${why}. The model in use before stays.`);
      }
      try {
        await this.store.save({ schemaVersion: 1, model });
      } catch (error) {
        next.client.close();
        throw error;
      }
      const previous = this.current;
      this.current = next;
      if (previous) this.discard(previous);
      this.options.log.info('speech', `speech model imported: ${model.name} (${model.kind}, ${megabytes(total)})`);
      return this.info()!;
    } catch (error) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    } finally {
      await rm(unpacked, { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) => this.options.log.warn('speech', `an unpacked speech model archive could not be removed: ${reasonInWords(error)}`));
      this.importing = false;
    }
  }

  /** Stops the recognizer and deletes the imported model; nothing to remove is not an error. */
  async removeModel(): Promise<void> {
    const current = this.current;
    if (!current) return;
    await this.store.save({ schemaVersion: 1 });
    this.current = undefined;
    this.discard(current);
  }

  private discard(old: Current): void {
    old.client.close();
    // The process may still hold the files open for a moment; removing them is safe on POSIX and retried on Windows.
    void rm(old.dir, { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) => this.options.log.warn('speech', `an old speech model's folder could not be removed: ${reasonInWords(error)}`));
  }

  dispose(): void {
    this.current?.client.close();
  }
}
