import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Chromium builds to try, in order; CHROMIUM_PATH wins. */
const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH && existsSync(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
  return candidates.find((path) => existsSync(path));
}

export interface SandboxChoice {
  /** `['--no-sandbox']` where Chromium cannot run sandboxed, else nothing. */
  args: string[];
  /** One line for the user when the sandbox is off, and why. */
  notice?: string;
}

/**
 * Chromium's sandbox stays on wherever it can work. As root Chromium refuses to start sandboxed
 * ("Running as root without --no-sandbox is not supported"), and without unprivileged user
 * namespaces (and Debian's Chromium has no setuid helper) it cannot build one: only then is it
 * started with --no-sandbox, and the user is told.
 */
export function chromiumSandbox(uid: number | undefined, userNamespaces: boolean): SandboxChoice {
  if (uid === 0) {
    return {
      args: ['--no-sandbox'],
      notice:
        "The browser runs without Chromium's sandbox, because AgentDesk runs as root (Chromium refuses to run sandboxed as root). Start it as a normal user to keep the sandbox.",
    };
  }
  if (!userNamespaces) {
    return {
      args: ['--no-sandbox'],
      notice:
        "The browser runs without Chromium's sandbox, because this system does not allow unprivileged user namespaces (see /proc/sys/user/max_user_namespaces).",
    };
  }
  return { args: [] };
}

/** Whether unprivileged user namespaces (what Chromium's sandbox needs) are allowed here (Linux). */
export function userNamespacesAvailable(read: (path: string) => string | undefined = readProc): boolean {
  const max = read('/proc/sys/user/max_user_namespaces');
  if (max !== undefined && Number(max.trim()) === 0) return false;
  // Debian and Ubuntu kernels before 6.x had this switch; absent means allowed.
  return read('/proc/sys/kernel/unprivileged_userns_clone')?.trim() !== '0';
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Flags that keep a Chromium on a closed network quiet and start it as an app window. */
export function chromiumAppArgs(url: string, profileDir: string, sandbox: SandboxChoice = { args: [] }, kiosk = false): string[] {
  return [
    `--app=${url}`,
    // Kiosk mode (device policy): full screen, no browser controls.
    ...(kiosk ? ['--kiosk'] : []),
    `--user-data-dir=${profileDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--window-size=1280,800',
    ...sandbox.args,
  ];
}

/**
 * The launch URL in a file only this user can read (a fresh 0700 folder, a 0600 file): Chromium
 * is started on the file's path, so the one-time code never appears on a command line (`ps` shows
 * every process's to every user). The page forwards at once (a meta refresh replaces its history
 * entry) to the launch URL; remove() deletes it once the code is used.
 */
export async function writeLaunchFile(launchUrl: string): Promise<{ url: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-launch-'));
  const file = join(dir, 'open.html');
  const escaped = launchUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  await writeFile(
    file,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${escaped}"><title>AgentDesk</title>\n`,
    { mode: 0o600 },
  );
  return { url: pathToFileURL(file).href, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Extra Chromium flags for diagnostics and tests (space-separated), e.g. `--headless --remote-debugging-port=9333`. */
export const chromiumFlagsEnv = 'AGENTDESK_CHROMIUM_FLAGS';

/**
 * Opens the web shell in Chromium's app mode with a profile of its own under the user-data folder,
 * with the DevTools protocol on a pipe (fds 3 and 4) for main's page watchdog (page-watchdog.ts).
 */
export function openInChromium(
  chromium: string,
  url: string,
  userDataDir: string,
  sandbox: SandboxChoice,
  kiosk = false,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const extra = (env[chromiumFlagsEnv] ?? '').split(' ').filter((flag) => flag.startsWith('--'));
  const args = chromiumAppArgs(url, join(userDataDir, 'webshell-chromium'), sandbox, kiosk);
  // The URL (--app=…) stays first; the pipe and any extra flags go after it.
  return spawn(chromium, [...args, '--remote-debugging-pipe', ...extra], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
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
