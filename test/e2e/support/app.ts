import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { webShellSessionFragment, webShellSessionStorageKey } from '../../../src/shared/ipc/web-shell-protocol';

const root = fileURLToPath(new URL('../../..', import.meta.url));
export const screenshotDir = `${root}test-results/screenshots`;

/** Debian's Chromium, with the flags these tests need (no sandbox, fake media devices, WebRTC on loopback). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  // WebRTC between the page and a peer on 127.0.0.1 (the demo's voice provider), remote audio played without a click.
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--autoplay-policy=no-user-gesture-required',
];

let browser: Browser | undefined;

export async function sharedBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not installed at ${chromiumPath} (npm test installs it when run as root).`);
  browser ??= await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

export interface RunningShell {
  launchUrl: string;
  process: ChildProcess;
  /** Everything the shell wrote to stdout and stderr so far (its log). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the built web shell (out/main/webshell.js) as `npm start` would, on a given user-data folder. */
export async function startShell(userDataDir: string, options: { env?: Record<string, string>; args?: string[] } = {}): Promise<RunningShell> {
  const entry = `${root}out/main/webshell.js`;
  if (!existsSync(entry)) throw new Error('out/main/webshell.js is missing: run `npm run build` (npm test does it).');
  const child = spawn(process.execPath, [entry, '--user-data', userDataDir, ...(options.args ?? [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const launchUrl = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the web shell exited with ${code}: ${stderr}`)));
  });
  return {
    launchUrl,
    process: child,
    output: () => stdout + stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface AppPage {
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
  /** Every WebSocket frame the page sent or received (the web shell's IPC), as text. */
  frames: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Opens the app page of a running shell in a fresh browser context (1280×800 unless told). */
export async function openApp(
  shell: RunningShell,
  viewport = { width: 1280, height: 800 },
  options: { beforeLoad?: (page: Page) => Promise<void> } = {},
): Promise<AppPage> {
  const context = await (await sharedBrowser()).newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  const frames: string[] = [];
  page.on('websocket', (socket) => {
    const record = (frame: { payload: string | Buffer }) => frames.push(typeof frame.payload === 'string' ? frame.payload : frame.payload.toString('latin1'));
    socket.on('framesent', record);
    socket.on('framereceived', record);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.exposeFunction('__reportCspViolation', (text: string) => problems.push(`CSP: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event: SecurityPolicyViolationEvent) =>
      (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  await options.beforeLoad?.(page);
  await page.goto(shell.launchUrl);
  return {
    page,
    problems,
    frames,
    screenshot: async (name) => {
      await mkdir(screenshotDir, { recursive: true });
      const path = `${screenshotDir}/${name}.png`;
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => context.close(),
  };
}

/**
 * The address that brings another tab into this page's session, as the browser's Duplicate does (it
 * copies the tab's sessionStorage, where the session secret lives): a new tab at the plain address has none.
 */
export async function sessionUrl(page: Page): Promise<string> {
  const secret = await page.evaluate((key) => sessionStorage.getItem(key), webShellSessionStorageKey);
  if (!secret) throw new Error('this page has no web shell session');
  return `${new URL(page.url()).origin}/#${webShellSessionFragment}=${secret}`;
}

/**
 * Runs one step of a test; when it fails, keeps a screenshot (`<name>.png`) and puts the page's text
 * in the error, so a failure seen only on a loaded CI machine says what the page showed.
 */
export async function explainFailure<T>(page: Page, name: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await mkdir(screenshotDir, { recursive: true }).catch(() => undefined);
    await page.screenshot({ path: `${screenshotDir}/${name}.png` }).catch(() => undefined);
    const shown = await page
      .locator('body')
      .innerText()
      .catch(() => '(page text unavailable)');
    throw new Error(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}; the page showed: ${shown.slice(0, 1500)}`, {
      cause: error,
    });
  }
}

/**
 * Waits until the conversation's newest entry is fully in view in its scrolling region (the region
 * follows new content while the reader is at the end); fails after 3 s with where it stopped.
 */
export async function waitForNewestMessageInView(page: Page): Promise<void> {
  const measure = () => {
    const region = document.querySelector('[role="log"][aria-label="Conversation"], [role="region"][aria-label="Messages"]');
    const items = region?.querySelectorAll('.transcript__item');
    const last = items?.[items.length - 1];
    if (!region || !last) return { ok: false, hiddenBelow: Number.NaN };
    const hiddenBelow = last.getBoundingClientRect().bottom - region.getBoundingClientRect().bottom;
    return { ok: hiddenBelow <= 1, hiddenBelow };
  };
  try {
    await page.waitForFunction(
      () => {
        const region = document.querySelector('[role="log"][aria-label="Conversation"], [role="region"][aria-label="Messages"]');
        const items = region?.querySelectorAll('.transcript__item');
        const last = items?.[items.length - 1];
        return !!region && !!last && last.getBoundingClientRect().bottom - region.getBoundingClientRect().bottom <= 1;
      },
      undefined,
      { timeout: 3_000 },
    );
  } catch {
    const { hiddenBelow } = await page.evaluate(measure);
    throw new Error(`the newest message is not in view: ${hiddenBelow.toFixed(0)} px of it are below the visible part of the transcript`);
  }
}
