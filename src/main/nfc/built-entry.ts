import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * out/main/nfc-reader.js (or another entry of out/main named by `file`: the speech engine process's). Code that asks may itself be bundled into out/main/chunks/, so the main
 * folder is the parent of a `chunks` folder, or the folder itself.
 */
export function builtReaderEntryPath(moduleUrl: string, file = 'nfc-reader.js'): string {
  const here = dirname(fileURLToPath(moduleUrl));
  return join(basename(here) === 'chunks' ? dirname(here) : here, file);
}
