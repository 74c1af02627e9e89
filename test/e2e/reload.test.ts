import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Main holds exactly what the composer shows (its debounced ui.saveDraft was answered). */
async function draftSaved(page: Page) {
  await page.locator('textarea[data-composer="true"][data-draft-saved="true"]').waitFor();
}

/** The demo chat as it must look after the reload: the thread, the pending action's buttons, the draft. */
async function expectRestored(page: Page, draft: string) {
  await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
  const transcript = page.getByRole('region', { name: 'Messages' });
  await transcript.getByText('talkie-test:action', { exact: true }).waitFor();
  await page.getByRole('button', { name: /^Confirm: / }).waitFor();
  await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe(draft);
}

describe('the web shell page reloads or its renderer crashes: the state comes back from main', () => {
  it('a pending action and a draft in the demo chat survive page.reload() and a crash of the renderer process of the tab', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-reload-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Open demo' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      await message.fill('talkie-test:action');
      await message.press('Enter');
      await page.getByRole('button', { name: /^Confirm: / }).waitFor();
      const draft = 'A note I am still writing\nwith a second line';
      await message.fill(draft);
      await draftSaved(page);

      await page.reload();
      await expectRestored(page, draft);

      expect(app.problems).toEqual([]);

      // The renderer process of the tab crashes (CDP Page.crash, what chrome://crash does). Playwright
      // treats a crashed page as gone for good (page.reload() answers "Page crashed"), so the app is
      // opened again in a new tab of the same browser, as a user would after the crash: whatever the
      // renderer held is lost with its process, and main gives it all back.
      const crashed = page.waitForEvent('crash');
      const cdp = await page.context().newCDPSession(page);
      void cdp.send('Page.crash').catch(() => undefined);
      await crashed;
      const reopened = await page.context().newPage();
      // The launch link works once; the session cookie this browser already holds lets the app's own page in.
      await reopened.goto(new URL('/', shell.launchUrl).href);
      await expectRestored(reopened, draft);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
