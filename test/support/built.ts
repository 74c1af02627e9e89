import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The worktree root, and the built files the tests over the build read. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
export const mainEntry = join(root, 'out/main/index.js');
export const preloadEntry = join(root, 'out/preload/index.cjs');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** A missing or older build is built first (npx electron-vite build); a failed build fails, loudly. */
export function ensureBuilt(): void {
  const sources = Math.max(newestSource(join(root, 'src')), statSync(join(root, 'electron.vite.config.ts')).mtimeMs);
  const built = [mainEntry, preloadEntry].map((path) => (existsSync(path) ? statSync(path).mtimeMs : 0));
  if (built.every((time) => time >= sources)) return;
  try {
    execFileSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'pipe', timeout: 240_000 });
  } catch (error) {
    const output = (error as { stderr?: Buffer; stdout?: Buffer }).stderr?.toString() || (error as { stdout?: Buffer }).stdout?.toString() || String(error);
    throw new Error(`out/main and out/preload are missing or older than src/, and \`npx electron-vite build\` failed:\n${output}`, { cause: error });
  }
}
