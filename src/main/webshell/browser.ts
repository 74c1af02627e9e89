import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Chromium builds to try, in order; CHROMIUM_PATH wins. */
const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH && existsSync(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
  return candidates.find((path) => existsSync(path));
}

/** Flags that keep a Chromium on a closed network quiet and start it as an app window. */
export function chromiumAppArgs(url: string, profileDir: string): string[] {
  const args = [
    `--app=${url}`,
    `--user-data-dir=${profileDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--window-size=1280,800',
  ];
  // Chromium refuses to start as root without this (containers, kiosks run as root).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}

/** Opens the web shell in Chromium's app mode with a profile of its own under the user-data folder. */
export function openInChromium(chromium: string, url: string, userDataDir: string): ChildProcess {
  return spawn(chromium, chromiumAppArgs(url, join(userDataDir, 'webshell-chromium')), { stdio: 'ignore' });
}

/** The web shell's "system browser" for external links. */
export function openWithSystemBrowser(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
