import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import packageJson from '../../../package.json';
import { createLogger } from '../platform/logger';
import { LogRing, ringLogger } from '../platform/log-ring';
import { resolveUserDataDir } from '../platform/paths';
import { startAppServicesUnderPolicy } from '../app/start-under-policy';
import { chromiumSandbox, findChromium, openInChromium, openWithSystemBrowser, userNamespacesAvailable, writeLaunchFile } from './browser';
import { defaultLaunchCodeTtlMs, startWebShell } from './server';
import { PageWatchdog } from './page-watchdog';
import type { Readable, Writable } from 'node:stream';

/**
 * The web shell: the main services under plain Node, the app page on 127.0.0.1, and (with --open)
 * the page in Chromium's app mode. Used by `npm start` where the Electron binary is missing, and by
 * the end-to-end tests. The first line on stdout is the launch URL (it works once); with --open the
 * browser gets it through a file only this user can read, and the line is the shell's address.
 */
const usage = `Usage: node out/main/webshell.js [--open] [--port N] [--user-data DIR] [--policy FILE] [--kiosk]
  --open            open the app in Chromium (app mode); stop when that window closes;
                    a crashed page is reloaded, in kiosk mode a hung one too
                    (AGENTDESK_CHROMIUM_FLAGS adds Chromium flags)
  --port N          listen on 127.0.0.1:N (default: a free port)
  --user-data DIR   settings and agents folder (default: the app's user-data folder)
  --policy FILE     the device policy to use instead of the system location's
  --kiosk           a kiosk: a device policy that cannot be used shows its error screen
                    (without --kiosk, and without "kiosk": true in it, AgentDesk refuses to start)`;

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        open: { type: 'boolean' },
        port: { type: 'string' },
        'user-data': { type: 'string' },
        policy: { type: 'string' },
        kiosk: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) return void process.stdout.write(`${usage}\n`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be a whole number from 0 to 65535, not "${values.port}".\n`);
    process.exit(2);
  }

  // The recent log for diagnostics hears the web shell's own lines too.
  const logRing = new LogRing();
  const log = ringLogger(createLogger({ level: process.env.AGENTDESK_LOG === 'silent' ? 'silent' : 'info' }), logRing);
  const userDataDir = values['user-data'] ?? resolveUserDataDir();
  // The device policy (issue #18) comes first: one that cannot be used runs nothing.
  const started = await startAppServicesUnderPolicy(
    { userDataDir, shell: 'web', version: packageJson.version, openExternal: openWithSystemBrowser, log, logRing },
    { policyFile: values.policy, kiosk: values.kiosk === true },
  );
  if ('refused' in started) {
    process.stderr.write(`${started.refused}\n`);
    process.exit(1);
  }
  const { services } = started;
  if (started.policy.state === 'failed') process.stderr.write(`${started.policy.message}\nKiosk mode: the page shows this and nothing else runs.\n`);
  const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
  const shell = await startWebShell({ rendererDir, services, log, port });
  let removeLaunchFile: () => Promise<void> = async () => undefined;
  let closeBrowser: () => void = () => undefined;
  // Stopping the shell closes the Chromium it started (no browser outlives the app's services).
  const stop = () => {
    closeBrowser();
    void Promise.all([shell.close(), services.dispose(), removeLaunchFile()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const chromium = values.open ? findChromium() : undefined;
  if (!chromium) {
    process.stdout.write(`${shell.launchUrl}\n`);
    if (values.open)
      process.stderr.write(
        `No Chromium found (install it with: sudo apt-get install chromium). Open the URL above in Chromium or Chrome (it works once, for ${defaultLaunchCodeTtlMs / 60_000} minutes).\n`,
      );
    return;
  }
  process.stdout.write(`AgentDesk web shell on ${shell.origin}, opening it in Chromium\n`);
  const launchFile = await writeLaunchFile(shell.launchUrl);
  removeLaunchFile = launchFile.remove;
  const removeSoon = setTimeout(() => void launchFile.remove(), defaultLaunchCodeTtlMs);
  removeSoon.unref();
  void shell.launched.then(() => launchFile.remove());
  const sandbox = chromiumSandbox(process.getuid?.(), userNamespacesAvailable());
  if (sandbox.notice) process.stderr.write(`${sandbox.notice}\n`);
  const browser = openInChromium(chromium, launchFile.url, userDataDir, sandbox, started.kiosk);
  closeBrowser = () => {
    if (browser.exitCode === null) browser.kill('SIGTERM');
  };
  // A crashed or hung page is reloaded (onto the kiosk's start screen) within a few seconds.
  const [toBrowser, fromBrowser] = [browser.stdio[3], browser.stdio[4]];
  if (toBrowser && fromBrowser && 'write' in toBrowser && 'on' in fromBrowser) {
    // A hung page is reloaded only on a kiosk: on a desk, a page busy for a moment on a loaded machine is left alone.
    const watchdog = new PageWatchdog({
      toBrowser: toBrowser as Writable,
      fromBrowser: fromBrowser as Readable,
      origin: shell.origin,
      log,
      ...(started.kiosk ? {} : { hangMs: false as const }),
      onRecovered: ({ why, ms }) => log.info('webshell', `page ${why}: reloaded in ${ms} ms`),
    });
    browser.once('exit', () => watchdog.close());
  }
  browser.once('exit', stop);
  browser.once('error', (error) => log.error('webshell', 'Chromium could not be started', error));
}

void main().catch((error: unknown) => {
  process.stderr.write(`AgentDesk web shell could not start: ${(error as Error).message}\n`);
  process.exit(1);
});
