import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The files under a folder of the repository that are the project's own, as repository paths: what
 * installs and runs put there is left out (node_modules anywhere, e.g. the test peers' in test/peers,
 * whose packages cite their own docs and sections).
 */
export function repositoryFilesUnder(folder: string): string[] {
  return readdirSync(join(repositoryRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split(sep).some((segment) => segment === 'node_modules' || segment === 'test-results'));
}
