import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { root } from './built';

/**
 * The files under a folder of the repository that are the project's own, as repository paths: what
 * installs and runs put there is left out (node_modules anywhere, e.g. the test peers' in test/peers,
 * whose packages cite their own docs and sections).
 */
export function repositoryFilesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split(sep).some((segment) => segment === 'node_modules' || segment === 'test-results'));
}
