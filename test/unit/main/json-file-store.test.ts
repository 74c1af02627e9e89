import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonFileStore } from '../../../src/main/services/json-file-store';
import { useTempDirs } from '../../support/temp-dir';

const schema = z.strictObject({ count: z.number().int() });
const tempDir = useTempDirs();

describe('JsonFileStore', () => {
  it('starts from the defaults when there is no file yet', async () => {
    const store = new JsonFileStore(join(await tempDir(), 'x.json'), schema, () => ({ count: 0 }));
    expect(await store.load()).toEqual({ value: { count: 0 } });
  });

  it('saves and loads back, leaving no temporary files and a file only the user can read', async () => {
    const dir = await tempDir();
    const store = new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 }));
    await store.save({ count: 7 });
    expect((await new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 })).load()).value).toEqual({ count: 7 });
    expect(await readdir(dir)).toEqual(['x.json']);
    expect((await stat(join(dir, 'x.json'))).mode & 0o077).toBe(0);
  });

  it('serializes concurrent saves: the last one wins and the file is always whole JSON', async () => {
    const dir = await tempDir();
    const store = new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 }));
    await Promise.all(Array.from({ length: 25 }, (_, count) => store.save({ count })));
    expect(JSON.parse(await readFile(join(dir, 'x.json'), 'utf8'))).toEqual({ count: 24 });
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it.each([
    ['not JSON', '{"count": 3', 'not valid JSON'],
    ['the wrong shape', '{"count": "three"}', 'count'],
    ['an unknown field', '{"count": 3, "evil": true}', 'Unrecognized key'],
  ])('moves a file with %s aside, explains it, and continues with defaults', async (_label, content, problem) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), content);
    const { value, notice } = await new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 })).load();
    expect(value).toEqual({ count: 0 });
    expect(notice).toContain(problem);
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
      expect((await new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 })).load()).notice).toBeDefined();
    }
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(3);
    expect((await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).sort()).toEqual(contents);
  });

  // Found by `npm run fuzz` (files.savedFiles): zod's message quotes an unknown key whole, so a long
  // key made a notice longer than app.info's notices allow (1,000 characters): app.info then failed.
  it('keeps the notice short whatever the file holds', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), JSON.stringify({ count: 1, ['b'.repeat(5_000)]: true }));
    const { notice } = await new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 })).load();
    expect(notice).toContain('Unrecognized key');
    expect(notice!.length).toBeLessThanOrEqual(1_000);
  });

  it('refuses to save a value outside the schema, keeping the old file', async () => {
    const dir = await tempDir();
    const store = new JsonFileStore(join(dir, 'x.json'), schema, () => ({ count: 0 }));
    await store.save({ count: 1 });
    await expect(store.save({ count: 1.5 })).rejects.toThrow();
    expect(JSON.parse(await readFile(join(dir, 'x.json'), 'utf8'))).toEqual({ count: 1 });
  });
});
