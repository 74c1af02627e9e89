import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the web shell session in Chromium, beside a server on another port of 127.0.0.1', () => {
  it('that server receives nothing of the session, and a cookie it plants does not disconnect the page', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-session-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const port = new URL(shell.launchUrl).port;
    // Another local user's page, which the same browser visits (a link, a redirect from any site).
    const seen: { url?: string; headers: IncomingHttpHeaders }[] = [];
    const other = createServer((request, response) => {
      seen.push({ url: request.url, headers: request.headers });
      // On /plant it sets the cookie the shell once used (cookies ignore ports; Path=/ipc is the shell's socket).
      const plant =
        request.url === '/plant' ? { 'Set-Cookie': [`agentdesk-session-${port}=planted; Path=/ipc`, `agentdesk-session-${port}=planted; Path=/`] } : {};
      response.writeHead(200, { 'Content-Type': 'text/html', ...plant });
      response.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const elsewhere = await app.page.context().newPage();
    try {
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      for (const path of ['/', '/ipc']) await elsewhere.goto(`${otherOrigin}${path}`);
      // The other port's own storage of this tab holds nothing of the shell's either.
      expect(await elsewhere.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
      // Whatever a cookie of the shell's would reach (the browser asks for /favicon.ico too).
      const beforePlanting = [...seen];
      expect(beforePlanting.map(({ url }) => url)).toEqual(expect.arrayContaining(['/', '/ipc']));
      for (const { url, headers } of beforePlanting) expect(headers.cookie, url).toBeUndefined();
      await elsewhere.goto(`${otherOrigin}/plant`);
      const secret = await app.page.evaluate(() => Object.values(sessionStorage).join(' '));
      expect(secret).not.toBe('');
      for (const { url, headers } of seen) expect(JSON.stringify(headers), url).not.toContain(secret);
      // The page reloads with the planted cookie in the browser: still connected.
      await app.page.reload();
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      expect(await app.page.getByRole('heading', { name: 'AgentDesk is not connected' }).count()).toBe(0);
      expect(app.problems).toEqual([]);
    } finally {
      await elsewhere.close();
      await app.close();
      await shell.stop();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
