import * as fs from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readSavedDocument, type SavedFileFormat } from '../../shared/storage/saved-file-format';
import { logRingLimits, type LogRing } from '../platform/log-ring';
import { JsonFileStore, reasonInWords } from './json-file-store';

/**
 * `recent-log.json`: the app's recent log (the ring of log-ring.ts, entries already redacted) saved
 * in the user-data folder a moment after each entry, so `agentdesk diagnostics` on the same machine
 * carries it too, also after the app stopped or crashed. Saving it never makes a notice (a notice is
 * logged, which would save again): a failed save is only remembered.
 */
export const recentLogFileName = 'recent-log.json';
/** `recent-log.json`: version 1 since it was added. */
export const recentLogFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };

const entrySchema = z.strictObject({
  at: z.string().max(40),
  level: z.enum(['info', 'warn', 'error']),
  area: z.string().max(logRingLimits.areaChars),
  message: z.string().max(logRingLimits.messageChars),
});
export const recentLogFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  savedAt: z.string().max(40),
  entries: z.array(entrySchema).max(logRingLimits.capacity),
});
export type RecentLogFile = z.infer<typeof recentLogFileSchema>;

/**
 * Saves `ring` to recent-log.json in `userDataDir`, `delayMs` after an entry (entries in between go
 * in the same save). The file is loaded first only for the store's rules: a file from a newer
 * AgentDesk is never overwritten, a damaged one is moved aside; what it held is not taken back.
 */
export async function persistRecentLog(ring: LogRing, userDataDir: string, options: { delayMs?: number; now?: () => Date } = {}) {
  // Never creates the user-data folder (a run whose folder is gone or cannot be made saves nothing, silently).
  const store = new JsonFileStore(
    join(userDataDir, recentLogFileName),
    recentLogFileSchema,
    () => ({ schemaVersion: 1 as const, savedAt: '', entries: [] }),
    recentLogFileFormat,
    {
      fs: { readFile: fs.readFile, open: fs.open, rename: fs.rename, rm: fs.rm, mkdir: async () => undefined },
    },
  );
  await store.load();
  const now = options.now ?? (() => new Date());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> = Promise.resolve();
  let lastProblem: string | undefined;
  const save = () => {
    timer = undefined;
    saving = saving
      .then(() => store.save({ schemaVersion: 1, savedAt: now().toISOString(), entries: ring.list() }))
      .then(
        () => void (lastProblem = undefined),
        (error: unknown) => void (lastProblem = reasonInWords(error)),
      );
    return saving;
  };
  const off = ring.onPush(() => {
    if (timer !== undefined) return;
    timer = setTimeout(() => void save(), options.delayMs ?? 2000);
    timer.unref?.();
  });
  return {
    /** Saves what is waiting now (at dispose), and stops saving. */
    async flush(): Promise<void> {
      off();
      if (timer !== undefined) {
        clearTimeout(timer);
        await save();
      }
      await saving;
    },
    problem: () => lastProblem,
  };
}

/** Reads recent-log.json for `agentdesk diagnostics` without changing it; what it cannot read is said in words. */
export async function readRecentLog(userDataDir: string): Promise<{ file: string } & ({ log: RecentLogFile } | { problem: string })> {
  const file = join(userDataDir, recentLogFileName);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return {
      file,
      problem: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no recent log saved yet (AgentDesk has not run as this user)' : reasonInWords(error),
    };
  }
  const read = readSavedDocument(text, recentLogFileFormat);
  if (read.kind === 'damaged') return { file, problem: `damaged: ${read.problem}` };
  if (read.kind === 'newer') return { file, problem: `written by a newer AgentDesk (version ${read.version})` };
  const parsed = recentLogFileSchema.safeParse(read.document);
  return parsed.success ? { file, log: parsed.data } : { file, problem: 'not a recent log this AgentDesk reads' };
}
