import { describe, expect, it } from 'vitest';
import { oldestReadableVersion, readSavedDocument, type SavedFileFormat } from '../../../src/shared/storage/saved-file-format';

// Version 0: files from before versions existed (`{ n }`, or the bare number as text); 1 renamed n to count; 2 added unit.
const format: SavedFileFormat = {
  versionField: 'schemaVersion',
  current: 2,
  migrations: {
    0: ({ n, ...rest }) => ({ ...rest, count: n }),
    1: (document) => {
      if (typeof document.count !== 'number') throw new Error('count is not a number');
      return { ...document, unit: 'pieces' };
    },
  },
  unversioned: { version: 0, fromText: (text) => (/^\s*\d+\s*$/.test(text) && text.trim().length > 0 ? { n: Number(text) } : undefined) },
};

describe('readSavedDocument', () => {
  it.each([
    ['a version-0 file (no version field)', '{ "n": 3 }', 0],
    ['a version-0 file that is not JSON at all', ' 3\n', 0],
    ['a version-1 file', '{ "schemaVersion": 1, "count": 3 }', 1],
    ['a current file', '{ "schemaVersion": 2, "count": 3, "unit": "pieces" }', 2],
  ])('migrates %s step by step to the current version, version field first', (_label, text, fromVersion) => {
    const read = readSavedDocument(text, format);
    expect(read).toEqual({ kind: 'current', document: { schemaVersion: 2, count: 3, unit: 'pieces' }, fromVersion });
    expect(read.kind === 'current' && Object.keys(read.document)[0]).toBe('schemaVersion');
  });

  it('hands a newer version back untouched, without migrating or checking it', () => {
    expect(readSavedDocument('{ "schemaVersion": 9, "whatever": [1] }', format)).toEqual({
      kind: 'newer',
      version: 9,
      document: { schemaVersion: 9, whatever: [1] },
    });
  });

  it.each([
    ['not JSON', 'nope', 'not valid JSON'],
    ['not an object', '[1, 2]', 'not a JSON object'],
    ['a version that is not a whole number', '{ "schemaVersion": 1.5 }', 'not a version number'],
    ['a negative version', '{ "schemaVersion": -1 }', 'not a version number'],
    ['a migration that refuses', '{ "schemaVersion": 1, "count": "3" }', 'could not be updated from version 1 (count is not a number)'],
  ])('calls %s damaged, saying why', (_label, text, problem) => {
    const read = readSavedDocument(text, format);
    expect(read.kind).toBe('damaged');
    expect(read.kind === 'damaged' && read.problem).toContain(problem);
  });

  it('without `unversioned`, a file with no version is damaged; a version below the chain is too old', () => {
    const strict: SavedFileFormat = { versionField: 'v', current: 3, migrations: { 2: (document) => document } };
    expect(oldestReadableVersion(strict)).toBe(2);
    expect(readSavedDocument('{}', strict)).toEqual({ kind: 'damaged', problem: 'it has no v' });
    expect(readSavedDocument('{ "v": 1 }', strict)).toEqual({ kind: 'damaged', problem: 'version 1 is older than this AgentDesk can read (2 to 3)' });
    expect(readSavedDocument('{ "v": 2, "a": 1 }', strict)).toEqual({ kind: 'current', document: { v: 3, a: 1 }, fromVersion: 2 });
  });
});
