import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonFileStore, type StoreFs } from '../../../src/main/store/json-file-store';
import { ServiceError } from '../../../src/shared/base/errors';
import type { SavedFileFormat } from '../../../src/shared/storage/saved-file-format';
import { chattrUnavailable, tmpfsUnavailable, useFaultyFolders } from '../../support/faulty-folders';
import { useTempDirs } from '../../support/temp-dir';

const schema = z.strictObject({ schemaVersion: z.literal(1), count: z.number().int() });
const format: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };
const defaults = () => ({ schemaVersion: 1 as const, count: 0 });
const tempDir = useTempDirs();
const faulty = useFaultyFolders();

const storeAt = (path: string, fs?: StoreFs) => new JsonFileStore(path, schema, defaults, format, fs ? { fs } : {});

/** What a rejected save answers: the stable code and the message. */
async function saveFailure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return { code: (error as ServiceError).code, message: (error as ServiceError).message };
}

describe('JsonFileStore', () => {
  it('starts from the defaults when there is no file yet', async () => {
    const store = storeAt(join(await tempDir(), 'x.json'));
    expect(await store.load()).toEqual({ value: { schemaVersion: 1, count: 0 } });
  });

  it('saves and loads back, leaving no temporary files and a file only the user can read', async () => {
    const dir = await tempDir();
    const store = storeAt(join(dir, 'x.json'));
    await store.save({ schemaVersion: 1, count: 7 });
    expect((await storeAt(join(dir, 'x.json')).load()).value).toEqual({ schemaVersion: 1, count: 7 });
    expect(await readdir(dir)).toEqual(['x.json']);
    expect((await stat(join(dir, 'x.json'))).mode & 0o077).toBe(0);
  });

  it('serializes concurrent saves: the last one wins and the file is always whole JSON', async () => {
    const dir = await tempDir();
    const store = storeAt(join(dir, 'x.json'));
    await Promise.all(Array.from({ length: 25 }, (_, count) => store.save({ schemaVersion: 1, count })));
    expect(JSON.parse(await readFile(join(dir, 'x.json'), 'utf8'))).toEqual({ schemaVersion: 1, count: 24 });
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it.each([
    ['not JSON', '{"schemaVersion": 1, "count": 3', 'not valid JSON'],
    ['the wrong shape', '{"schemaVersion": 1, "count": "three"}', 'count'],
    ['an unknown field', '{"schemaVersion": 1, "count": 3, "evil": true}', 'Unrecognized key'],
    ['no version', '{"count": 3}', 'no schemaVersion'],
    ['a version that is not a number', '{"schemaVersion": "1", "count": 3}', 'not a version number'],
    ['a version older than any this app reads', '{"schemaVersion": 0, "count": 3}', 'older than this AgentDesk can read'],
  ])('moves a file with %s aside, explains it, and continues with defaults', async (_label, content, problem) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), content);
    const { value, notice, readOnly } = await storeAt(join(dir, 'x.json')).load();
    expect(value).toEqual({ schemaVersion: 1, count: 0 });
    expect(notice?.message).toContain(problem);
    expect(notice?.message).toContain('moved to');
    expect(notice).toMatchObject({
      code: 'file_moved_aside',
      params: { file: 'x.json', aside: expect.stringContaining('x.json.corrupt-') },
      detail: expect.stringContaining(problem),
    });
    expect(readOnly).toBeUndefined();
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^x\.json\.corrupt-/);
    expect(await readFile(join(dir, files[0]!), 'utf8')).toBe(content);
  });

  // Found by `npm run fuzz` (files.savedFiles): the aside name had only millisecond resolution, so a
  // second bad file moved aside in the same millisecond replaced the first copy.
  it('keeps every copy when bad files are moved aside in quick succession', async () => {
    const dir = await tempDir();
    const contents = ['{"count": 1', '{"count": 2', '{"count": 3'];
    for (const content of contents) {
      await writeFile(join(dir, 'x.json'), content);
      expect((await storeAt(join(dir, 'x.json')).load()).notice).toBeDefined();
    }
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(3);
    expect((await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).sort()).toEqual(contents);
  });

  // Found by `npm run fuzz` (files.savedFiles): zod's message quotes an unknown key whole, so a long
  // key made a notice longer than app.info's notices allow (1,000 characters): app.info then failed.
  it('keeps the notice short whatever the file holds', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), JSON.stringify({ schemaVersion: 1, count: 1, ['b'.repeat(5_000)]: true }));
    const { notice } = await storeAt(join(dir, 'x.json')).load();
    expect(notice?.message).toContain('Unrecognized key');
    expect(notice!.message.length).toBeLessThanOrEqual(1_000);
  });

  it('refuses to save a value outside the schema, keeping the old file', async () => {
    const dir = await tempDir();
    const store = storeAt(join(dir, 'x.json'));
    await store.save({ schemaVersion: 1, count: 1 });
    await expect(store.save({ schemaVersion: 1, count: 1.5 })).rejects.toThrow();
    expect(JSON.parse(await readFile(join(dir, 'x.json'), 'utf8'))).toEqual({ schemaVersion: 1, count: 1 });
  });
});

describe('JsonFileStore: versions', () => {
  // Version 1 was `{ schemaVersion: 1, n }`, version 2 renamed it to `count`, version 3 added `unit`.
  const v3 = z.strictObject({ schemaVersion: z.literal(3), count: z.number().int(), unit: z.string() });
  const v3Format: SavedFileFormat = {
    versionField: 'schemaVersion',
    current: 3,
    migrations: {
      1: ({ n, ...rest }) => ({ ...rest, count: n }),
      2: (document) => ({ ...document, unit: 'pieces' }),
    },
  };
  const v3Store = (path: string) => new JsonFileStore(path, v3, () => ({ schemaVersion: 3 as const, count: 0, unit: 'none' }), v3Format);

  it('migrates an older file at load, leaves the file as it was until the next save, then writes the current version', async () => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    const old = '{ "schemaVersion": 1, "n": 5 }\n';
    await writeFile(path, old);
    const store = v3Store(path);
    expect(await store.load()).toEqual({ value: { schemaVersion: 3, count: 5, unit: 'pieces' }, fromFile: true, migratedFrom: 1 });
    expect(await readFile(path, 'utf8')).toBe(old);
    await store.save({ schemaVersion: 3, count: 6, unit: 'pieces' });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ schemaVersion: 3, count: 6, unit: 'pieces' });
    expect(await v3Store(path).load()).toEqual({ value: { schemaVersion: 3, count: 6, unit: 'pieces' }, fromFile: true });
  });

  it('moves aside a file that a migration cannot turn into a valid current one', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), '{ "schemaVersion": 2, "n": 5 }');
    const { value, notice } = await v3Store(join(dir, 'x.json')).load();
    expect(value).toEqual({ schemaVersion: 3, count: 0, unit: 'none' });
    expect(notice?.message).toMatch(/^x\.json could not be read \(count: .*\)\. It was moved to .*x\.json\.corrupt-/);
  });

  it('leaves a newer AgentDesk’s file untouched and read-only, reading it as this version where it still fits', async () => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    const newer = '{ "schemaVersion": 2, "count": 9 }';
    await writeFile(path, newer);
    const store = storeAt(path);
    const loaded = await store.load();
    expect(loaded).toEqual({
      value: { schemaVersion: 1, count: 9 },
      readOnly: true,
      notice: {
        code: 'file_newer_read',
        params: { file: 'x.json', version: '2', current: '1' },
        message: 'x.json was written by a newer AgentDesk (version 2); this version reads it as version 1, and will not change it.',
      },
    });
    expect(store.readOnly).toBe(true);
    expect(await saveFailure(store.save({ schemaVersion: 1, count: 10 }))).toEqual({ code: 'save_failed', message: loaded.notice?.message });
    expect(await readFile(path, 'utf8')).toBe(newer);
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it('uses the defaults for a newer file it cannot read, and still never touches it', async () => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    const newer = '{ "schemaVersion": 7, "tally": { "count": 9 } }';
    await writeFile(path, newer);
    const store = storeAt(path);
    const loaded = await store.load();
    expect(loaded.value).toEqual({ schemaVersion: 1, count: 0 });
    expect(loaded.notice).toEqual({
      code: 'file_newer_defaults',
      params: { file: 'x.json', version: '7' },
      message: 'x.json was written by a newer AgentDesk (version 7); this version cannot read it and uses the defaults, and will not change it.',
    });
    expect((await saveFailure(store.save({ schemaVersion: 1, count: 1 }))).code).toBe('save_failed');
    expect(await readFile(path, 'utf8')).toBe(newer);
    expect(await readdir(dir)).toEqual(['x.json']);
  });
});

describe('JsonFileStore: faults', () => {
  const failing = (code: string, at: keyof StoreFs, real: StoreFs): StoreFs => ({
    ...real,
    [at]: () => Promise.reject(Object.assign(new Error(`${code}: simulated`), { code })),
  });

  it.skipIf(tmpfsUnavailable() !== undefined)(
    'a save on a full disk (a real tiny tmpfs: ENOSPC) keeps the old file, removes the temporary one and says why',
    async () => {
      const disk = await faulty.tinyDisk(16);
      const path = join(disk, 'x.json');
      const store = storeAt(path);
      await store.save({ schemaVersion: 1, count: 1 });
      const before = await readFile(path, 'utf8');
      // Fill what is left, so the next (larger) document no longer fits.
      await writeFile(join(disk, 'filler'), Buffer.alloc(64 * 1024)).catch(() => undefined);
      const failure = await saveFailure(store.save({ schemaVersion: 1, count: 10 ** 15 }));
      expect(failure).toEqual({
        code: 'save_failed',
        message: `x.json could not be saved in ${disk}: the disk is full (ENOSPC). The saved copy is unchanged.`,
      });
      expect(await readFile(path, 'utf8')).toBe(before);
      expect((await readdir(disk)).sort()).toEqual(['filler', 'x.json']);
      // Space again: the next save works.
      await writeFile(join(disk, 'filler'), '');
      await store.save({ schemaVersion: 1, count: 10 ** 15 });
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ schemaVersion: 1, count: 10 ** 15 });
    },
  );

  it.skipIf(tmpfsUnavailable() !== undefined)('a save in a read-only folder (a real read-only mount: EROFS) keeps the old file and says why', async () => {
    const disk = await faulty.tinyDisk(64);
    const path = join(disk, 'x.json');
    const store = storeAt(path);
    await store.save({ schemaVersion: 1, count: 1 });
    faulty.readOnly(disk);
    const failure = await saveFailure(store.save({ schemaVersion: 1, count: 2 }));
    expect(failure.code).toBe('save_failed');
    expect(failure.message).toBe(`x.json could not be saved in ${disk}: the folder is on a read-only disk (EROFS). The saved copy is unchanged.`);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ schemaVersion: 1, count: 1 });
    expect(await readdir(disk)).toEqual(['x.json']);
  });

  it.skipIf(chattrUnavailable() !== undefined)(
    'a save in a folder nobody may write (chattr +i, which stops root too: EPERM) keeps the old file and says why',
    async () => {
      const dir = await tempDir();
      const path = join(dir, 'x.json');
      const store = storeAt(path);
      await store.save({ schemaVersion: 1, count: 1 });
      faulty.immutable(dir);
      const failure = await saveFailure(store.save({ schemaVersion: 1, count: 2 }));
      expect(failure).toEqual({
        code: 'save_failed',
        message: `x.json could not be saved in ${dir}: the operation is not permitted (EPERM). The saved copy is unchanged.`,
      });
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ schemaVersion: 1, count: 1 });
      expect(await readdir(dir)).toEqual(['x.json']);
    },
  );

  it.each([
    ['writing the temporary file', 'open', 'EACCES', 'permission denied (EACCES)'],
    ['replacing the old file', 'rename', 'EROFS', 'the folder is on a read-only disk (EROFS)'],
  ] as const)('a save failing while %s (simulated %s) removes the temporary file and keeps the old one', async (_label, at, code, words) => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    const real = (await import('node:fs/promises')) as unknown as StoreFs;
    await storeAt(path).save({ schemaVersion: 1, count: 1 });
    const store = storeAt(path, failing(code, at, real));
    const failure = await saveFailure(store.save({ schemaVersion: 1, count: 2 }));
    expect(failure).toEqual({ code: 'save_failed', message: `x.json could not be saved in ${dir}: ${words}. The saved copy is unchanged.` });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ schemaVersion: 1, count: 1 });
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it.skipIf(chattrUnavailable() !== undefined)(
    'a damaged file that cannot be moved aside (chattr +i folder) is left as it is, with defaults, read-only and a notice',
    async () => {
      const dir = await tempDir();
      const path = join(dir, 'x.json');
      await writeFile(path, 'not json');
      faulty.immutable(dir);
      const store = storeAt(path);
      const loaded = await store.load();
      expect(loaded).toEqual({
        value: { schemaVersion: 1, count: 0 },
        readOnly: true,
        notice: {
          code: 'file_not_moved_aside',
          params: { file: 'x.json' },
          detail: 'it is not valid JSON; the operation is not permitted (EPERM)',
          message:
            'x.json could not be read (it is not valid JSON) and could not be moved aside (the operation is not permitted (EPERM)). Defaults are in use for this session and the file is left as it is.',
        },
      });
      expect((await saveFailure(store.save({ schemaVersion: 1, count: 1 }))).code).toBe('save_failed');
      expect(await readFile(path, 'utf8')).toBe('not json');
    },
  );

  it('a file that cannot be read (simulated EIO) is left as it is, with defaults, read-only and a notice', async () => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    await writeFile(path, '{ "schemaVersion": 1, "count": 4 }');
    const real = (await import('node:fs/promises')) as unknown as StoreFs;
    const store = storeAt(path, failing('EIO', 'readFile', real));
    const loaded = await store.load();
    expect(loaded).toEqual({
      value: { schemaVersion: 1, count: 0 },
      readOnly: true,
      notice: {
        code: 'file_unreadable',
        params: { file: 'x.json' },
        detail: 'a disk error (EIO)',
        message: 'x.json could not be read (a disk error (EIO)). Defaults are in use for this session and the file is left as it is.',
      },
    });
    expect((await saveFailure(store.save({ schemaVersion: 1, count: 1 }))).code).toBe('save_failed');
    expect(await readFile(path, 'utf8')).toBe('{ "schemaVersion": 1, "count": 4 }');
  });
});

for (const [name, reason] of [
  ['tmpfs', tmpfsUnavailable()],
  ['chattr', chattrUnavailable()],
] as const) {
  if (reason !== undefined) console.warn(`json-file-store.test: the real ${name} fault tests are skipped: ${reason}`);
}
