import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, opendir, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ServiceError } from '../../shared/base/errors';
import type { Notices } from '../store/notices';
import { primaryLanguage, type SpeechImportProgress, type SpeechModelInfo, type SpeechPurpose } from '../../shared/speech/ipc-schemas';
import type { EngineModel, EngineModelKind } from '../../shared/speech/engine-protocol';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { Logger } from '../platform/logger';
import { JsonFileStore, reasonInWords } from '../store/json-file-store';
import { SpeechEngineError } from './bounded-process';
import { isModelArchive, modelArchiveSuffixes, unpackModelArchive } from './model-archive';
import { SpeechEngineClient, type SpeechEngineLauncher } from './engine-client';
import { onnxMetadata } from './onnx-metadata';
import { FileRefused, maxModelPathChars, openRegularFile, readRegularFile, safeRelative, sizeInWords, whyUnreadable } from './safe-path';
import type { Recognizer, Voice } from './speech-service';

/**
 * The speech models the user imported (#17, Settings → Speech): one recognizer and one voice, copied from a sherpa-onnx folder
 * into `speech-models/<id>/` and hashed; only a model that loaded replaces the one in use. Security: symbolic links are
 * refused, each file must be the one checked (device, inode, size, time), a file that changed is refused, and every start
 * hashes the copy again. Decision: docs/architecture.md#importing-speech-models
 */

export const maxModelFileBytes = 2 * 1024 ** 3;
export const maxModelBytes = 4 * 1024 ** 3;
export const maxTokensBytes = 16 * 1024 ** 2;
export const modelManifestName = 'agentdesk-model.json';
const maxManifestBytes = 64 * 1024;
/** sherpa-onnx's archives hold a handful of files (a model, its int8 twin, tokens, test WAVs, a README); a voice's espeak-ng-data adds about 500. */
export const maxArchiveEntries = 4000;
/** The folder a Piper voice phonemises with, and its file espeak-ng reads first. */
export const voiceDataDirName = 'espeak-ng-data';
/** espeak-ng-data holds about 500 files and 13–20 MB; these limits leave room and stop a folder of anything. */
export const maxVoiceDataFiles = 3000;
export const maxVoiceDataBytes = 512 * 1024 ** 2;
const maxVoiceDataDepth = 8;

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
/** A recognizer's encoder, decoder, joiner and tokens; a voice's model, tokens and data (its espeak-ng-data files). */
const roleSchema = z.enum(['encoder', 'decoder', 'joiner', 'tokens', 'model', 'data']);
type Role = z.infer<typeof roleSchema>;
/** A file's path in the model's folder: `/`-separated, relative, nothing Windows reads otherwise (safe-path.ts, the one rule). */
const relativeFile = z
  .string()
  .min(1)
  .max(maxModelPathChars)
  .refine((path) => safeRelative(path) === path, 'a relative path inside the model folder');
const importedModelSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  name: z.string().max(200),
  kind: z.enum(['transducer', 'whisper', 'voice']),
  languages: z.array(z.string().max(35)).max(100),
  importedAt: z.string().max(40),
  files: z
    .array(z.strictObject({ role: roleSchema, file: relativeFile, bytes: z.number().int().nonnegative(), sha256: sha256Hex }))
    .min(3)
    .max(maxVoiceDataFiles + 2),
});
type ImportedModel = z.infer<typeof importedModelSchema>;
/** Version 2 added `voice` (an imported Piper voice); version 1 held the recognizer alone as `model`. */
const modelFileSchema = z.strictObject({ schemaVersion: z.literal(2), model: importedModelSchema.optional(), voice: importedModelSchema.optional() });
type ModelFile = z.infer<typeof modelFileSchema>;
export const speechModelFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 2, migrations: { 1: (document) => document } };
export const speechModelFileName = 'speech-model.json';

/** What a model kind is for. */
export function purposeOf(kind: ImportedModel['kind']): SpeechPurpose {
  return kind === 'voice' ? 'voice' : 'recognition';
}

/** Which file on disk was checked: the import copies only that file, unchanged. */
interface CheckedFile {
  dev: number;
  ino: number;
  mtimeMs: number;
}

/** A folder's model as found: which file plays which role (a path under the folder), and what it is called. */
export interface FoundModel {
  kind: EngineModelKind;
  name: string;
  languages: string[];
  /** Where `languages` came from: a voice's own metadata, read from the checked copy, goes before its folder's name. */
  languagesFrom: 'manifest' | 'name';
  files: { role: Role; file: string; bytes: number; checked: CheckedFile }[];
}

const invalid = (message: string) => new ServiceError('speech_model_invalid', message);
const changed = (file: string, how: string) =>
  new ServiceError('speech_model_changed', `${file} changed while it was being imported (${how}); import the model again once nothing writes to its folder.`);

const kindsInWords =
  'a streaming transducer needs encoder, decoder and joiner .onnx files and tokens.txt; Whisper needs encoder and decoder .onnx files and a tokens file; a Piper voice needs its .onnx, tokens.txt and espeak-ng-data folder';
const symlinkRefusal = (links: string[]) => {
  links.sort();
  return new ServiceError(
    'speech_model_symlink',
    `The model folder has a symbolic link (${links.slice(0, 4).join(', ')}${links.length > 4 ? ` and ${links.length - 4} more` : ''}); AgentDesk imports only real files: put the files themselves in the folder.`,
  );
};

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
  const folders = new Set<string>();
  const links: string[] = [];
  for (const name of entries) {
    // lstat: a symbolic link is seen as one, never as the file it points to.
    const info = await lstat(join(folder, name)).catch(() => undefined);
    if (info?.isSymbolicLink()) links.push(name);
    else if (info?.isFile()) {
      sizes.set(name, info.size);
      checked.set(name, { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs });
    } else if (info?.isDirectory()) folders.add(name);
  }
  if (links.length > 0) throw symlinkRefusal(links);
  const names = [...sizes.keys()].sort();
  // Kinds, by sherpa-onnx's own file names: a transducer has encoder, decoder and joiner .onnx files and tokens.txt; Whisper
  // has no joiner; a Piper voice has one other .onnx, tokens.txt and the espeak-ng-data folder (copied and hashed whole).
  const onnx = names.filter((name) => name.toLowerCase().endsWith('.onnx'));
  const recognizerParts = onnx.filter((name) => /encoder|decoder|joiner/i.test(name));
  if (recognizerParts.length === 0 && (onnx.length > 0 || folders.has(voiceDataDirName))) {
    return findVoice(folder, nameHint, { names, onnx, sizes, checked, hasData: folders.has(voiceDataDirName) });
  }
  const pick = (role: Role): string | undefined => {
    const candidates = onnx.filter((name) => name.toLowerCase().includes(role));
    const int8 = candidates.filter((name) => name.toLowerCase().endsWith('.int8.onnx'));
    const chosen = int8.length > 0 ? int8 : candidates;
    if (chosen.length > 1) throw invalid(`The folder has more than one ${role} file (${chosen.join(', ')}): keep one model per folder.`);
    return chosen[0];
  };
  const tokensFiles = names.filter((name) => name.toLowerCase().endsWith('tokens.txt'));
  const [encoder, decoder, joiner] = [pick('encoder'), pick('decoder'), pick('joiner')];
  const kind: EngineModelKind = joiner !== undefined ? 'transducer' : 'whisper';
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
  checkFiles(files);
  const folderName = nameHint ?? basename(resolve(folder));
  const manifest = await readFolderManifest(folder, sizes.has(modelManifestName));
  return { kind, name: (manifest?.name ?? folderName).slice(0, 200), ...modelLanguages(manifest?.languages, folderName, kind), files };
}

/** Languages: from agentdesk-model.json (`{"name"?, "languages"?: ["cs", …]}`) when it is there, else from the folder's name (a multilingual Whisper is `mul`). */
function modelLanguages(fromManifest: string[] | undefined, folderName: string, kind: EngineModelKind): Pick<FoundModel, 'languages' | 'languagesFrom'> {
  return fromManifest ? { languages: fromManifest, languagesFrom: 'manifest' } : { languages: languagesFromName(folderName, kind), languagesFrom: 'name' };
}

/**
 * The checks every imported file passes, whatever the kind: a path AgentDesk can keep (safe-path.ts),
 * not empty, each file and all of them within their limits.
 */
function checkFiles(files: readonly { role: Role; file: string; bytes: number }[]): void {
  let total = 0;
  for (const { role, file, bytes } of files) {
    if (safeRelative(file) !== file)
      throw invalid(
        `${file.slice(0, 200)} has a name AgentDesk cannot keep on every system (a character such as : or \\, a trailing dot or space, a device name, or a path over ${maxModelPathChars} characters); rename it.`,
      );
    if (role === 'data') {
      total += bytes;
      continue;
    }
    const limit = limitOf(role);
    if (bytes === 0) throw invalid(`${file} is empty.`);
    if (bytes > limit)
      throw invalid(`${file} is ${sizeInWords(bytes)}; a model's ${role === 'tokens' ? 'tokens file' : 'file'} may be at most ${sizeInWords(limit)}.`);
    total += bytes;
  }
  if (total > maxModelBytes) throw invalid(`The model is ${sizeInWords(total)}; at most ${sizeInWords(maxModelBytes)} can be imported.`);
}

/** The most one file of `role` may hold. */
function limitOf(role: Role): number {
  return role === 'tokens' ? maxTokensBytes : role === 'data' ? maxVoiceDataBytes : maxModelFileBytes;
}

/** A Piper voice's folder (see findModel): its model, tokens.txt and espeak-ng-data tree. */
async function findVoice(
  folder: string,
  nameHint: string | undefined,
  top: { names: string[]; onnx: string[]; sizes: Map<string, number>; checked: Map<string, CheckedFile>; hasData: boolean },
): Promise<FoundModel> {
  // A voice and its int8 quantisation: the full one (int8 is audibly worse, and a voice is small).
  const full = top.onnx.filter((name) => !name.toLowerCase().endsWith('.int8.onnx'));
  const candidates = full.length > 0 ? full : top.onnx;
  if (candidates.length > 1) throw invalid(`The folder has more than one voice model (${candidates.join(', ')}): keep one voice per folder.`);
  const model = candidates[0];
  const tokens = top.names.find((name) => name.toLowerCase() === 'tokens.txt');
  const missing = [...(model ? [] : ['its .onnx file']), ...(tokens ? [] : ['tokens.txt']), ...(top.hasData ? [] : [`its ${voiceDataDirName} folder`])];
  if (missing.length > 0) {
    const lexicon = top.names.some((name) => name.toLowerCase() === 'lexicon.txt');
    throw invalid(
      lexicon && !top.hasData
        ? `This voice spells its words with a lexicon (lexicon.txt) instead of ${voiceDataDirName}; AgentDesk speaks with Piper voices (vits-piper-… in sherpa-onnx's releases).`
        : `This folder holds no speech model AgentDesk can load: ${missing.join(', ')} missing (${kindsInWords}).`,
    );
  }
  const files: FoundModel['files'] = [
    { role: 'model', file: model!, bytes: top.sizes.get(model!)!, checked: top.checked.get(model!)! },
    { role: 'tokens', file: tokens!, bytes: top.sizes.get(tokens!)!, checked: top.checked.get(tokens!)! },
  ];
  const data = await walkVoiceData(folder);
  if (!data.some((file) => file.file === `${voiceDataDirName}/phontab`)) {
    throw invalid(
      `${voiceDataDirName} in the folder is not espeak-ng's data (it has no phontab): use the folder as sherpa-onnx's vits-piper-… archive holds it.`,
    );
  }
  files.push(...data);
  checkFiles(files);
  const folderName = nameHint ?? basename(resolve(folder));
  const manifest = await readFolderManifest(folder, top.sizes.has(modelManifestName));
  return { kind: 'voice', name: (manifest?.name ?? folderName).slice(0, 200), ...modelLanguages(manifest?.languages, folderName, 'voice'), files };
}

/**
 * Piper's own metadata says which espeak-ng voice it phonemises with ("en-us", "cs"): its language, read
 * from the checked copy in AgentDesk's folder (never from the source, which could change meanwhile).
 */
async function voiceLanguageFromModel(modelFile: string): Promise<string | undefined> {
  const espeakVoice = (await onnxMetadata(modelFile).catch(() => undefined))?.get('voice');
  return espeakVoice && /^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/i.test(espeakVoice) ? primaryLanguage(espeakVoice) : undefined;
}

/** Every file of a voice's espeak-ng-data, read with lstat (a link anywhere in it is refused), within the limits. */
export async function walkVoiceData(folder: string): Promise<FoundModel['files']> {
  const files: FoundModel['files'] = [];
  const links: string[] = [];
  let total = 0;
  /** Files and folders seen: a tree of empty folders is stopped too. */
  let entriesSeen = 0;
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > maxVoiceDataDepth) throw invalid(`${relative} is nested more than ${maxVoiceDataDepth} folders deep; espeak-ng's data is not.`);
    // Read one entry at a time (opendir), counted as it comes: a folder of a million names stops at the limit.
    const entries: string[] = [];
    try {
      for await (const entry of await opendir(join(folder, ...relative.split('/')))) {
        if (++entriesSeen > maxVoiceDataFiles)
          throw invalid(`${voiceDataDirName} has more than ${maxVoiceDataFiles} files and folders; espeak-ng's data has about 500.`);
        entries.push(entry.name);
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw invalid(`The folder ${relative} cannot be read (${reasonInWords(error)}).`);
    }
    for (const name of entries.sort()) {
      const path = `${relative}/${name}`;
      const info = await lstat(join(folder, ...path.split('/'))).catch(() => undefined);
      if (info?.isSymbolicLink()) links.push(path);
      else if (info?.isDirectory()) await walk(path, depth + 1);
      else if (info?.isFile()) {
        total += info.size;
        files.push({ role: 'data', file: path, bytes: info.size, checked: { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs } });
        if (total > maxVoiceDataBytes) throw invalid(`${voiceDataDirName} holds more than ${sizeInWords(maxVoiceDataBytes)}; espeak-ng's data is about 20 MB.`);
      }
    }
  };
  await walk(voiceDataDirName, 1);
  if (links.length > 0) throw symlinkRefusal(links);
  return files;
}

async function readFolderManifest(folder: string, present: boolean): Promise<z.infer<typeof folderManifestSchema> | undefined> {
  if (!present) return undefined;
  let text: string;
  try {
    // Checked with lstat when the folder was read, and again on the handle: a FIFO or a huge file swapped in since is refused, not waited on or read whole.
    text = (await readRegularFile(join(folder, modelManifestName), maxManifestBytes)).toString('utf8');
  } catch (error) {
    throw invalid(`${modelManifestName} in the folder cannot be read (${whyUnreadable(error)}).`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw invalid(`${modelManifestName} in the folder is not valid: it is not JSON.`);
  }
  const parsed = folderManifestSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${modelManifestName} in the folder is not valid: ${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

/** `sherpa-onnx-streaming-zipformer-en-2023-06-26` → en; `…-bilingual-zh-en-…` → zh, en; `sherpa-onnx-whisper-tiny.en` → en; other Whisper → mul. */
export function languagesFromName(name: string, kind: EngineModelKind): string[] {
  const parts = name.toLowerCase().split(/[-_.\s]+/);
  const found = [...new Set(parts.filter((part) => knownLanguages.has(part)))];
  if (kind === 'whisper') return found.length > 0 ? found : ['mul'];
  return found;
}

/** The files of an imported model as its engine process loads them. */
function engineModel(dir: string, model: ImportedModel): EngineModel {
  const path = (role: Role) => join(dir, model.files.find((file) => file.role === role)?.file ?? '');
  if (model.kind === 'voice') return { kind: 'voice', model: path('model'), tokens: path('tokens'), dataDir: join(dir, voiceDataDirName) };
  if (model.kind === 'transducer')
    return { kind: 'transducer', encoder: path('encoder'), decoder: path('decoder'), joiner: path('joiner'), tokens: path('tokens') };
  // Whisper knows languages by their primary subtag ("cs", not "cs-CZ"); any other code ends its decoding.
  const single = model.languages.length === 1 && model.languages[0] !== 'mul' ? primaryLanguage(model.languages[0]!) : '';
  return { kind: 'whisper', encoder: path('encoder'), decoder: path('decoder'), tokens: path('tokens'), language: single };
}

/** Opens a checked model file for the copy: not through a link, and still the same file of the same size and time. */
async function openChecked(path: string, file: FoundModel['files'][number]): Promise<FileHandle> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(path, limitOf(file.role));
  } catch (error) {
    if (error instanceof FileRefused && error.reason === 'link') {
      throw new ServiceError('speech_model_symlink', `${file.file} became a symbolic link after the folder was checked; AgentDesk imports only real files.`);
    }
    if (error instanceof FileRefused) throw changed(file.file, error.message);
    throw changed(file.file, `it cannot be opened: ${reasonInWords(error)}`);
  }
  const { handle, info } = opened;
  try {
    if (info.dev !== file.checked.dev || info.ino !== file.checked.ino) throw changed(file.file, 'another file is there now');
    if (info.size !== file.bytes) throw changed(file.file, `it was ${file.bytes} bytes when checked and is ${info.size} bytes now`);
    if (info.mtimeMs !== file.checked.mtimeMs) throw changed(file.file, 'it was written to');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The sha256 of an imported file, read as the import reads (safe-path.ts) and no further than its size when opened. */
async function sha256Of(path: string, role: Role): Promise<string> {
  const { handle, info } = await openRegularFile(path, limitOf(role));
  try {
    const hash = createHash('sha256');
    if (info.size > 0) await pipeline(handle.createReadStream({ start: 0, end: info.size - 1, autoClose: false }), hash);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

export interface SpeechModelsOptions {
  userDataDir: string;
  log: Logger;
  notices: Notices;
  /** The speech engine process launcher (Electron: a utilityProcess; default: a Node child). */
  launcher?: SpeechEngineLauncher;
}

interface Current {
  model: ImportedModel;
  dir: string;
  client: SpeechEngineClient;
}

/** Progress is reported at most this often while copying (and always at each file's end). */
const progressEveryBytes = 4 * 1024 * 1024;

export class SpeechModels {
  /** The model in use for each purpose. */
  private readonly slots: Partial<Record<SpeechPurpose, Current>> = {};
  /** An import or a removal is under way: main takes one change at a time (each saves both slots). */
  private changing = false;

  private constructor(
    private readonly options: SpeechModelsOptions,
    private readonly store: JsonFileStore<typeof modelFileSchema>,
  ) {}

  static async open(options: SpeechModelsOptions): Promise<SpeechModels> {
    const store = new JsonFileStore(
      join(options.userDataDir, speechModelFileName),
      modelFileSchema,
      () => ({ schemaVersion: 2 as const }),
      speechModelFileFormat,
    );
    const models = new SpeechModels(options, store);
    const loaded = await store.load();
    if (loaded.notice) options.notices.push(loaded.notice);
    // Each record in the slot its kind is for (a hand-edited file cannot put a voice where the recognizer goes).
    for (const model of [loaded.value.model, loaded.value.voice]) if (model) models.slots[purposeOf(model.kind)] ??= models.use(model, true);
    // Only when the file said what is in use (or there is none yet): a file that could not be read, is
    // from a newer AgentDesk or was moved aside as damaged names folders this session cannot see.
    if (loaded.notice === undefined) await models.sweep(new Set(Object.values(models.slots).map((current) => current.model.id)));
    // The voice is started now, in the background (its files hashed, its process started, the voice loaded:
    // about a second), so the first answer of the session is not the one that waits. A failure here counts
    // as a failed start and is reported at the first call. The recognizer, larger, starts at its first utterance.
    void models.slots.voice?.client.load().catch(() => undefined);
    return models;
  }

  /**
   * What an import cut short by a crash or a forced quit left behind: an archive's unpacked copy
   * (`<id>.unpack`) or a model folder no saved record names. Nothing here is the user's own.
   */
  private async sweep(keep: ReadonlySet<string>): Promise<void> {
    const entries = await readdir(this.modelsDir).catch(() => [] as string[]);
    for (const entry of entries) {
      if (keep.has(entry) || !/^[0-9a-f]{16}(\.unpack)?$/.test(entry)) continue;
      await rm(join(this.modelsDir, entry), { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) =>
        this.options.log.warn('speech', `a speech model folder left by an import that did not finish could not be removed: ${reasonInWords(error)}`),
      );
    }
  }

  private get modelsDir(): string {
    return join(this.options.userDataDir, 'speech-models');
  }

  /** The imported model of `purpose` as the status shows it. */
  info(purpose: SpeechPurpose = 'recognition'): SpeechModelInfo | undefined {
    const model = this.slots[purpose]?.model;
    return model && { name: model.name, languages: model.languages, kind: model.kind, importedAt: model.importedAt };
  }

  /** The recognizer SpeechService uses: the imported model in its process, if one is imported. */
  recognizer(): Recognizer | undefined {
    const current = this.slots.recognition;
    if (!current) return undefined;
    return {
      engine: 'sherpa-onnx',
      model: { name: current.model.name, languages: current.model.languages },
      stt: current.client,
      refusal: () => current.client.refusal,
    };
  }

  /** The imported voice SpeechService speaks with, in its process, if one is imported. */
  voice(): Voice | undefined {
    const current = this.slots.voice;
    if (!current) return undefined;
    return { model: { name: current.model.name, languages: current.model.languages }, tts: current.client, refusal: () => current.client.refusal };
  }

  private save(slots: Partial<Record<SpeechPurpose, ImportedModel | undefined>>): Promise<void> {
    const next = { recognition: this.slots.recognition?.model, voice: this.slots.voice?.model, ...slots };
    const file: ModelFile = { schemaVersion: 2, ...(next.recognition ? { model: next.recognition } : {}), ...(next.voice ? { voice: next.voice } : {}) };
    return this.store.save(file);
  }

  private use(model: ImportedModel, verifyFirst: boolean): Current {
    const dir = join(this.modelsDir, model.id);
    let verify = verifyFirst;
    const client = new SpeechEngineClient({
      model: engineModel(dir, model),
      log: this.options.log,
      ...(this.options.launcher ? { launcher: this.options.launcher } : {}),
      beforeStart: async () => {
        // The import hashed the files as it copied them; every later start hashes them again.
        if (!verify) {
          verify = true;
          return;
        }
        if (model.kind === 'voice') await this.sameVoiceData(dir, model);
        for (const file of model.files) {
          const actual = await sha256Of(join(dir, file.file), file.role).catch((error: unknown) => {
            throw new SpeechEngineError(
              'failed',
              `the speech model could not be loaded: its file ${file.file} cannot be read (${whyUnreadable(error)}); import the model again`,
            );
          });
          if (actual !== file.sha256) {
            throw new SpeechEngineError(
              'failed',
              `the speech model could not be loaded: its file ${file.file} changed since it was imported (sha256 ${actual.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…); import the model again`,
            );
          }
        }
      },
    });
    return { model, dir, client };
  }

  /** sherpa-onnx reads the whole espeak-ng-data folder: a file added to it since the import is refused like a changed one. */
  private async sameVoiceData(dir: string, model: ImportedModel): Promise<void> {
    const recorded = new Set(model.files.filter((file) => file.role === 'data').map((file) => file.file));
    const now = await walkVoiceData(dir).catch((error: unknown) => {
      throw new SpeechEngineError(
        'failed',
        `the voice could not be loaded: its ${voiceDataDirName} folder cannot be read (${error instanceof Error ? error.message : String(error)}); import the voice again`,
      );
    });
    const added = now.find((file) => !recorded.has(file.file));
    if (added)
      throw new SpeechEngineError(
        'failed',
        `the voice could not be loaded: ${added.file} was added to its folder since it was imported; import the voice again`,
      );
  }

  /**
   * Imports the model in `folder` for `purpose`: checks, copies (progress), loads it in a new engine
   * process, and only then makes it the one in use. Throws `speech_model_invalid` with why (also for a
   * model of the other purpose); the previous model stays.
   */
  async importModel(path: string, onProgress: (progress: SpeechImportProgress) => void, purpose: SpeechPurpose = 'recognition'): Promise<SpeechModelInfo> {
    if (this.changing) throw new ServiceError('invalid_request', 'A speech model is already being imported or removed; wait for it to finish.');
    this.changing = true;
    const id = randomBytes(8).toString('hex');
    const dir = join(this.modelsDir, id);
    // An archive is unpacked beside the models first (same disk, removed after the import whatever happens).
    const unpacked = join(this.modelsDir, `${id}.unpack`);
    try {
      let folder = path;
      let nameHint: string | undefined;
      if (
        isModelArchive(path) &&
        !(await lstat(path).then(
          (info) => info.isDirectory(),
          () => false,
        ))
      ) {
        onProgress({ phase: 'unpacking', bytesDone: 0, bytesTotal: 0 });
        folder = await unpackModelArchive(
          path,
          unpacked,
          { maxEntries: maxArchiveEntries, maxFileBytes: maxModelFileBytes, maxTotalBytes: maxModelBytes },
          (progress) => onProgress({ phase: 'unpacking', ...progress }),
        );
        // Named after the archive when it holds no folder of its own (the name says the model's languages).
        if (folder === unpacked) nameHint = archiveBaseName(path);
      }
      const found = await findModel(folder, nameHint);
      if (purposeOf(found.kind) !== purpose) {
        throw invalid(
          purpose === 'voice'
            ? 'This folder holds a speech recognition model, not a voice: import it under Speech recognition.'
            : 'This folder holds a voice (text to speech), not a speech recognition model: import it under Speech synthesis.',
        );
      }
      const total = found.files.reduce((sum, file) => sum + file.bytes, 0);
      let done = 0;
      onProgress({ phase: 'copying', bytesDone: 0, bytesTotal: total });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const files: ImportedModel['files'] = [];
      // Counted across files: a voice's data is hundreds of small files.
      let sinceReport = 0;
      for (const file of found.files) {
        const hash = createHash('sha256');
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            done += chunk.length;
            sinceReport += chunk.length;
            if (sinceReport >= progressEveryBytes) {
              sinceReport = 0;
              onProgress({ phase: 'copying', bytesDone: done, bytesTotal: total, file: file.file.slice(-255) });
            }
            callback(null, chunk);
          },
        });
        // An archive main unpacked itself is moved, not copied (same disk: no second copy of gigabytes),
        // then read once for its sha256 like any other; the checks below hold the same (a move keeps the
        // file's identity and time).
        const own = folder === unpacked || folder.startsWith(`${unpacked}${sep}`);
        if (file.file.includes('/')) await mkdir(dirname(join(dir, file.file)), { recursive: true, mode: 0o700 });
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
            await pipeline(
              reading,
              counter,
              own ? new Writable({ write: (_chunk, _encoding, callback) => callback() }) : createWriteStream(join(dir, file.file), { mode: 0o600 }),
            );
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
        // At each model file's end; a voice's hundreds of small data files report by the 4 MB rule alone.
        if (file.role !== 'data') onProgress({ phase: 'copying', bytesDone: done, bytesTotal: total, file: file.file });
        files.push({ role: file.role, file: file.file, bytes: file.bytes, sha256: hash.digest('hex') });
      }
      onProgress({ phase: 'verifying', bytesDone: total, bytesTotal: total });
      let languages = found.languages;
      if (found.kind === 'voice' && found.languagesFrom !== 'manifest') {
        const spoken = await voiceLanguageFromModel(join(dir, files.find((file) => file.role === 'model')!.file));
        if (spoken !== undefined) languages = [spoken];
        if (languages.length === 0) {
          throw invalid(
            `AgentDesk cannot tell which language this voice speaks (its metadata names no espeak-ng voice, and its folder's name no language): say it in ${modelManifestName} in the folder, e.g. {"languages": ["en"]}.`,
          );
        }
      }
      const model: ImportedModel = { id, name: found.name, kind: found.kind, languages, importedAt: new Date().toISOString(), files };
      const next = this.use(model, false);
      try {
        await next.client.load();
      } catch (error) {
        next.client.close();
        const why = error instanceof Error ? error.message.replace(/^the speech model could not be loaded: /, '').replace(/\.+$/, '') : String(error);
        throw invalid(`The speech model could not be loaded: ${why}. The model in use before stays.`);
      }
      try {
        await this.save({ [purpose]: model });
      } catch (error) {
        next.client.close();
        throw error;
      }
      const previous = this.slots[purpose];
      this.slots[purpose] = next;
      if (previous) this.discard(previous);
      this.options.log.info('speech', `speech ${purpose === 'voice' ? 'voice' : 'model'} imported: ${model.name} (${model.kind}, ${sizeInWords(total)})`);
      return this.info(purpose)!;
    } catch (error) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    } finally {
      await rm(unpacked, { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) =>
        this.options.log.warn('speech', `an unpacked speech model archive could not be removed: ${reasonInWords(error)}`),
      );
      this.changing = false;
    }
  }

  /** Stops the model's process and deletes the imported model of `purpose`; nothing to remove is not an error. */
  async removeModel(purpose: SpeechPurpose = 'recognition'): Promise<void> {
    if (this.changing) throw new ServiceError('invalid_request', 'A speech model is being imported or removed; remove it once that has finished.');
    const current = this.slots[purpose];
    if (!current) return;
    this.changing = true;
    try {
      await this.save({ [purpose]: undefined });
      delete this.slots[purpose];
      this.discard(current);
    } finally {
      this.changing = false;
    }
  }

  private discard(old: Current): void {
    old.client.close();
    // The process may still hold the files open for a moment; removing them is safe on POSIX and retried on Windows.
    void rm(old.dir, { recursive: true, force: true, maxRetries: 5 }).catch((error: unknown) =>
      this.options.log.warn('speech', `an old speech model's folder could not be removed: ${reasonInWords(error)}`),
    );
  }

  dispose(): void {
    for (const current of Object.values(this.slots)) current.client.close();
  }
}
