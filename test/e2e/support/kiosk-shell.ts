import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { hashAdminPin } from '../../../src/main/policy/admin-pin';
import { chromiumPath, startShell, type RunningShell } from './app';
import { installFakeReader, type FakeReader } from './fake-reader';

/**
 * A kiosk as it runs (issue #18), for test/e2e/kiosk.test.ts and bench/kiosk.ts: `agentdesk demo` as
 * its own server (a locked agent list refuses the in-app demo, so the policy lists the demo's loopback
 * AgentCall and plain AG-UI addresses), the web shell with `--open --policy FILE` starting a headless
 * Chromium itself (its DevTools on the shell's pipe: the page watchdog), and a debugging port on the
 * same Chromium for the test to watch the page.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface KioskShell {
  shell: RunningShell;
  origin: string;
  userData: string;
  /** Every IPC frame the page sent or received since the test attached (the page is reloaded once so that they are seen). */
  frames: string[];
  /** The app's page (a new connection: after a renderer crash the old page object is gone). */
  page(): Promise<Page>;
  /** With `fakeReader`: the page's NFC reader (installed at each page()). */
  reader(): FakeReader;
  /** Drops the connection to Chromium (the next page() connects again). */
  disconnect(): Promise<void>;
  stop(): Promise<void>;
}

export const kioskPin = '2468';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `agentdesk demo`: its stdout's lines (Talkie URL, token, `agentcall <card>`, `agui <endpoint>`, …). */
function startDemo(): Promise<{ child: ChildProcess; agentcall: string; agui: string }> {
  const child = spawn(process.execPath, [join(root, 'out/main/cli.js'), 'demo'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`agentdesk demo exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const agentcall = lines.find((l) => l.startsWith('agentcall '))?.slice('agentcall '.length);
      const agui = lines.find((l) => l.startsWith('agui '))?.slice('agui '.length);
      if (agentcall && agui) resolve({ child, agentcall, agui });
    });
  });
}

export interface KioskShellOptions {
  idleResetSeconds?: number;
  idleAgentHoldSeconds?: number;
  /** The policy's agents instead of the demo's two (Workshop, the start agent, and Runner). */
  agents?: (demo: { agentcall: string; agui: string }) => { list: Record<string, unknown>[]; start?: string };
  /** The policy's `appearance` (default: large text, said; null: none, the kiosk's own default). */
  appearance?: Record<string, string> | null;
  /** A reader the page believes in (support/fake-reader.ts) instead of the machine's. */
  fakeReader?: boolean;
}

export async function startKioskShell(options: KioskShellOptions = {}): Promise<KioskShell> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not installed at ${chromiumPath}`);
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-kiosk-'));
  const userData = join(dir, 'user-data');
  await mkdir(userData, { recursive: true });
  await writeFile(
    join(userData, 'settings.json'),
    JSON.stringify({
      schemaVersion: 2,
      language: 'en',
      appearance: { theme: 'light', textSize: 'normal' },
      developer: { allowLocalHttp: false, allowPastedTokens: false },
    }),
  );
  const demo = await startDemo();
  const policy = join(dir, 'policy.json');
  // The demo's addresses are http:// on 127.0.0.1, which the policy allows for these agents alone (allowInsecureHttp):
  // the development setting stays forced off, as a kiosk's default.
  const agents = options.agents?.(demo) ?? {
    list: [
      { address: demo.agentcall, name: 'Workshop', allowInsecureHttp: true },
      { address: demo.agui, kind: 'agui', name: 'Runner', allowInsecureHttp: true },
    ],
    start: demo.agentcall,
  };
  await writeFile(
    policy,
    JSON.stringify({
      policyVersion: 1,
      kiosk: true,
      agents,
      idleResetSeconds: options.idleResetSeconds ?? 10,
      ...(options.idleAgentHoldSeconds === undefined ? {} : { idleAgentHoldSeconds: options.idleAgentHoldSeconds }),
      admin: { pinHash: await hashAdminPin(kioskPin) },
      ...(options.appearance === null ? {} : { appearance: options.appearance ?? { textSize: 'large' } }),
    }),
  );
  const port = await freePort();
  // A kiosk's screen is wide: headless Chromium's own is 800×600, and the kiosk window fills it (below 1000 px the sidebar is a drawer).
  const flags = [
    '--headless',
    '--disable-gpu',
    '--screen-info={1280x800}',
    `--remote-debugging-port=${port}`,
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    '--no-sandbox',
  ];
  const shell = await startShell(userData, {
    args: ['--open', '--policy', policy],
    env: { AGENTDESK_CHROMIUM_FLAGS: flags.join(' '), CHROMIUM_PATH: chromiumPath },
  });
  const origin = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(shell.launchUrl)?.[1];
  if (!origin) throw new Error(`the shell did not say its address: ${shell.launchUrl}`);
  const frames: string[] = [];
  let browser: Browser | undefined;
  let reader: FakeReader | undefined;

  const page = async (): Promise<Page> => {
    const end = Date.now() + 20_000;
    for (;;) {
      try {
        browser ??= await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
        const found = browser
          .contexts()
          .flatMap((context) => context.pages())
          .find((candidate) => candidate.url().startsWith(origin));
        if (found) {
          found.on('websocket', (socket) => {
            socket.on('framesent', (frame) => frames.push(String(frame.payload)));
            socket.on('framereceived', (frame) => frames.push(typeof frame.payload === 'string' ? frame.payload : frame.payload.toString('latin1')));
          });
          if (options.fakeReader === true) reader = await installFakeReader(found);
          // The page connected before the test attached: a reload lets the test see its IPC frames (a kiosk reloads onto its start screen).
          await found.reload();
          return found;
        }
      } catch (error) {
        if (Date.now() > end) throw error;
      }
      if (Date.now() > end) throw new Error(`no page on ${origin} in the shell's Chromium`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const disconnect = async () => {
    await browser?.close().catch(() => undefined);
    browser = undefined;
  };
  return {
    shell,
    origin,
    userData,
    frames,
    page,
    reader: () => {
      if (!reader) throw new Error('no fake reader: start the kiosk with fakeReader and open its page first');
      return reader;
    },
    disconnect,
    stop: async () => {
      await disconnect();
      await shell.stop();
      demo.child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** The start screen's heading: one agent ("Touch the screen to start") or several ("Touch who you want to talk to"). */
export const startHeadingName = /^Touch (the screen to start|who you want to talk to)$/;

/** The kiosk's start screen, ready to start (the previous session cleared): Start, or the first agent's button, enabled. */
export async function waitForStartScreen(page: Page, timeout = 20_000): Promise<void> {
  await page.getByRole('heading', { level: 1, name: startHeadingName }).waitFor({ timeout });
  await page.locator('.kiosk-start .button--primary:enabled').first().waitFor({ timeout });
}
