import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
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
  const transcript = page.getByRole('log', { name: 'Conversation' });
  await transcript.getByText('talkie-test:action', { exact: true }).waitFor();
  await page.getByRole('button', { name: /^Confirm: / }).waitFor();
  await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe(draft);
}

/**
 * The same, in a tab whose renderer crashed and that was navigated back to the app as the shell's page
 * watchdog (or the tab's own Reload) does: the tab keeps its sessionStorage, so its session. Read through
 * DevTools, because Playwright treats a crashed page as gone for good.
 */
async function expectRestoredAfterCrash(cdp: CDPSession, draft: string) {
  const expression = `(() => {
    const transcript = document.querySelector('[role="log"][aria-label="Conversation"]');
    return {
      heading: document.querySelector('h1')?.textContent ?? '',
      action: (transcript?.textContent ?? '').includes('talkie-test:action'),
      confirm: [...document.querySelectorAll('button')].some((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim().startsWith('Confirm: ')),
      draft: document.querySelector('textarea[name="message"]')?.value ?? null,
    };
  })()`;
  const expected = { heading: 'AgentDesk demo', action: true, confirm: true, draft };
  let seen: unknown;
  for (let tries = 0; tries < 100; tries++) {
    seen = (await cdp.send('Runtime.evaluate', { expression, returnByValue: true })).result.value;
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(seen).toEqual(expected);
}

describe('the web shell page reloads or its renderer crashes: the state comes back from main', () => {
  it('a pending action and a draft in the demo chat survive page.reload() and a crash of the renderer process of the tab', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-reload-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
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

      // The renderer process of the tab crashes (CDP Page.crash, what chrome://crash does) and the tab
      // is navigated back to the app, as the shell's page watchdog does: whatever the renderer held is
      // lost with its process, the tab's session secret is not, and main gives it all back.
      const crashed = page.waitForEvent('crash');
      const cdp = await page.context().newCDPSession(page);
      void cdp.send('Page.crash').catch(() => undefined);
      await crashed;
      await cdp.send('Page.navigate', { url: new URL('/', shell.launchUrl).href });
      await expectRestoredAfterCrash(cdp, draft);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
