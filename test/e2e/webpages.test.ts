import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell } from './support/app';

/**
 * The AgentMesh UI links 0.1 §11 worked example in Chromium through the web shell: an AgentCall
 * agent on 127.0.0.1 whose card carries the example's UI links extension, added through the UI
 * with the development setting on. The card names a WebSocket endpoint nobody serves, so the
 * session fails to open: the "Web pages" panel stands on its own. The system browser is a script
 * on PATH that records what it was asked to open.
 */

const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const workedExample = JSON.parse(await readFile(new URL('../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8')) as {
  capabilities: { extensions: Record<string, unknown>[] };
} & Record<string, unknown>;

/** The worked example's card with the AgentCall extension beside its UI links, so the app opens the AgentCall screen. */
function cardFor(origin: string) {
  return {
    ...workedExample,
    capabilities: {
      extensions: [
        {
          uri: 'https://agentcall.smartycode.com/ext/agentcall-agui/0.1',
          required: false,
          params: {
            schemaVersion: '0.1',
            agui: { url: `${origin}/agui`, transport: 'websocket', session: { resume: false, replay: false } },
            voice: { owner: 'client' },
            physicalObservations: { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] },
          },
        },
        ...workedExample.capabilities.extensions,
      ],
    },
  };
}

/** Serves the card at /.well-known/agent-card.json on 127.0.0.1 and records every path asked for. */
async function serveCard(): Promise<{ url: string; host: string; paths: string[] }> {
  const paths: string[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    if (request.url === '/.well-known/agent-card.json') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(cardFor(origin)));
    } else {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end('{}');
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return { url: `${origin}/`, host: `127.0.0.1:${port}`, paths };
}

/** A stand-in for xdg-open (the web shell's system browser) that appends each URL to a file. */
async function fakeBrowser(dir: string): Promise<{ env: Record<string, string>; opened: () => Promise<string[]> }> {
  const bin = join(dir, 'bin');
  const log = join(dir, 'opened.txt');
  await mkdir(bin);
  await writeFile(log, '');
  for (const name of ['xdg-open', 'open']) {
    await writeFile(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
    await chmod(join(bin, name), 0o755);
  }
  return {
    env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    opened: async () => (await readFile(log, 'utf8')).split('\n').filter((line) => line !== ''),
  };
}

describe('the worked example’s web pages in Chromium', () => {
  it('shows the client and public pages, hides the operator page until asked, flags other sites, and opens a page only after its URL is shown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-webpages-'));
    dirs.push(dir);
    const userData = join(dir, 'user-data');
    const browser = await fakeBrowser(dir);
    const agent = await serveCard();

    const shell = await startShell(userData, { env: browser.env });
    const app = await openApp(shell);
    const { page } = app;
    try {
      // The development setting, then the agent by its address.
      await page.getByRole('button', { name: 'Settings' }).click();
      const allowHttp = page.getByRole('checkbox', { name: /Allow http:\/\/ to this computer/ });
      await allowHttp.check();
      await page.getByRole('button', { name: 'Back' }).first().click();
      await page.getByRole('textbox', { name: 'Agent address' }).fill(agent.url);
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByText('Found: “Larkfield Payroll”, an assistant for objects and photos').waitFor();
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('button', { name: `Open ${agent.host}` }).click();

      // The AgentCall screen: the session cannot open (no WebSocket here), the pages are in its Details anyway.
      await page.getByText(/Could not connect to/).waitFor();
      await page.locator('.conversation-header').getByRole('button', { name: 'Details' }).click();
      const toggle = page.getByRole('button', { name: 'Web pages (2)' });
      await toggle.click();
      const panel = page.getByRole('region', { name: 'Web pages from the agent’s card' });
      const item = (label: string) => panel.getByRole('listitem').filter({ has: page.getByRole('button', { name: label, exact: true }) });

      const reports = item('Payroll reports');
      await reports.getByText('Download completed payroll runs and filings for your account.').waitFor();
      for (const label of ['for clients', 'sign-in required', 'reports']) await reports.getByText(label, { exact: true }).waitFor();
      const status = item('Service status');
      for (const label of ['public', 'open', 'status']) await status.getByText(label, { exact: true }).waitFor();
      // The card came from 127.0.0.1: every page is on another site than the card, each flagged with its host.
      await reports.getByText('other site: agent.larkfield.example', { exact: true }).waitFor();
      await status.getByText('other site: status.larkfield.example', { exact: true }).waitFor();

      // The operator page: not shown by default, and not hidden from someone who asks.
      expect(await panel.getByRole('button', { name: 'Operations dashboard' }).count()).toBe(0);
      await panel.getByRole('button', { name: 'Show operator pages (1)' }).click();
      const ops = item('Operations dashboard');
      for (const label of ['for the operator', 'sign-in required', 'dashboard', 'other site: agent.larkfield.example'])
        await ops.getByText(label, { exact: true }).waitFor();

      // Nothing listed is a page link, an embed or a frame, and nothing was fetched but the card.
      expect(await page.locator('main a[href*="larkfield"], iframe, embed, object').count()).toBe(0);

      // A click shows the full URL; only "Open in browser" hands it to the system browser.
      await status.getByRole('button', { name: 'Service status', exact: true }).click();
      const confirm = page.getByRole('group', { name: 'Open Service status?' });
      await confirm.getByText('https://status.larkfield.example/', { exact: true }).waitFor();
      await app.screenshot('webpages-worked-example');
      expect(await browser.opened()).toEqual([]);
      expect(app.frames.some((frame) => frame.includes('external.open'))).toBe(false);

      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      await reports.getByRole('button', { name: 'Payroll reports', exact: true }).click();
      await page.getByRole('group', { name: 'Open Payroll reports?' }).getByRole('button', { name: 'Open in browser' }).click();
      await page.getByRole('group', { name: 'Open Payroll reports?' }).waitFor({ state: 'detached' });
      await expect.poll(() => browser.opened(), { timeout: 10_000 }).toEqual(['https://agent.larkfield.example/reports']);

      expect(agent.paths.filter((path) => path !== '/.well-known/agent-card.json' && path !== '/agui' && path !== '/.well-known/talkie.json')).toEqual([]);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
