import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The one conversation log of the agent screen. */
const conversation = (page: Page) => page.getByRole('log', { name: 'Conversation' });

/**
 * Waits until the conversation's newest entry is fully in view in its log (the log follows new
 * content while the reader is at the end); fails after 3 s with where it stopped.
 */
async function waitForNewestInView(page: Page): Promise<void> {
  const hiddenBelow = () =>
    page.evaluate(() => {
      const log = document.querySelector('[role="log"][aria-label="Conversation"]');
      const items = log?.querySelectorAll('.transcript__item');
      const last = items?.[items.length - 1];
      return log && last ? last.getBoundingClientRect().bottom - log.getBoundingClientRect().bottom : Number.NaN;
    });
  try {
    await page.waitForFunction(
      () => {
        const log = document.querySelector('[role="log"][aria-label="Conversation"]');
        const items = log?.querySelectorAll('.transcript__item');
        const last = items?.[items.length - 1];
        return !!log && !!last && last.getBoundingClientRect().bottom - log.getBoundingClientRect().bottom <= 1;
      },
      undefined,
      { timeout: 3_000 },
    );
  } catch {
    throw new Error(`the newest message is not in view: ${(await hiddenBelow()).toFixed(0)} px of it are below the visible part of the conversation`);
  }
}

/** How much of the window's height the Conversation log takes, and whether the page itself scrolls. */
function logShare(page: Page): Promise<{ share: number; logHeight: number; windowHeight: number; documentScrolls: boolean }> {
  return page.evaluate(() => {
    const log = document.querySelector('[role="log"][aria-label="Conversation"]');
    const root = document.scrollingElement ?? document.documentElement;
    const logHeight = log?.getBoundingClientRect().height ?? 0;
    return { share: logHeight / window.innerHeight, logHeight, windowHeight: window.innerHeight, documentScrolls: root.scrollHeight > root.clientHeight + 1 };
  });
}

describe('chatting with the built-in demo agent in Chromium', () => {
  it('echo → card → confirm an action → restart the app → the thread is still there, in its order', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-chat-'));
    dirs.push(userData);

    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      const transcript = conversation(page);

      await message.fill('talkie-test:echo Hello from Chromium <script>alert(1)</script>');
      await message.press('Enter');
      await transcript.getByText('Hello from Chromium <script>alert(1)</script>', { exact: true }).waitFor();
      expect(await page.locator('main script').count()).toBe(0);

      await message.fill('talkie-test:card');
      await message.press('Enter');
      await transcript.getByRole('article', { name: /Alfa/ }).waitFor();

      await message.fill('talkie-test:action');
      await message.press('Enter');
      const confirm = page.getByRole('button', { name: /^Confirm: / });
      await confirm.waitFor();
      await confirm.click();
      // The action's own line says done and its result card arrives (not just any "done" on the page:
      // the first such text in the transcript may be an earlier tool line, off-screen and not painted).
      await explainFailure(page, 'chat-confirm-failed', async () => {
        // A bound, not a timing: this step outlasted Playwright's 30 s once on a machine running four other test suites.
        await transcript
          .getByRole('article', { name: 'Save the test note "talkie-test"' })
          .getByText('Completed', { exact: true })
          .waitFor({ timeout: 60_000 });
        await transcript.getByRole('article', { name: 'Test action done' }).waitFor({ timeout: 60_000 });
      });
      // A message after the action: it must stay after it when the thread is opened again.
      await message.fill('talkie-test:echo After the action');
      await message.press('Enter');
      await transcript.getByText('After the action', { exact: true }).waitFor();
      await waitForNewestInView(page);
      await app.screenshot('chat-demo-1280x800');

      // Scrolled up, the reader stays where they are while a reply streams in; sending shows the end again.
      await message.fill('talkie-test:slow');
      await message.press('Enter');
      await transcript.getByText(/Part 1 of/).waitFor();
      // The reader scrolls up with the wheel (a scroll no one asked for, like focus, would not let go of the end).
      await transcript.hover();
      await page.mouse.wheel(0, -100_000);
      await expect.poll(() => transcript.evaluate((element) => element.scrollTop)).toBe(0);
      await transcript.getByText(/Part 20 of 20\.$/).waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await expect(transcript.evaluate((element) => element.scrollTop)).resolves.toBe(0);
      await message.fill('talkie-test:echo Back to the newest');
      await message.press('Enter');
      await transcript.getByText('Back to the newest', { exact: true }).waitFor();
      await waitForNewestInView(page);

      // Enter while an answer streams queues the message; it goes once the answer ended.
      await message.fill('talkie-test:slow');
      await message.press('Enter');
      await transcript
        .getByText(/Part 1 of/)
        .nth(1)
        .waitFor();
      await message.fill('talkie-test:echo Sent after the slow one');
      await message.press('Enter');
      await transcript.getByText('Waiting: sent when the agent has answered').waitFor();
      await explainFailure(page, 'chat-queued', () => transcript.getByText('Sent after the slow one', { exact: true }).waitFor({ timeout: 60_000 }));
      await transcript.getByText('Waiting: sent when the agent has answered').waitFor({ state: 'detached' });

      // Home and back: the agent opens on its last conversation, not an empty new chat.
      await page.getByRole('navigation', { name: 'AgentDesk' }).getByRole('button', { name: 'AgentDesk' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await transcript.getByText('Sent after the slow one', { exact: true }).waitFor();
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }

    const again = await startShell(userData);
    const reopened = await openApp(again);
    try {
      const { page } = reopened;
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      // Coming back to the agent opens its last conversation (after a restart, its newest thread): no click needed.
      const transcript = conversation(page);
      await explainFailure(page, 'chat-reopened', () => transcript.getByText('Hello from Chromium <script>alert(1)</script>', { exact: true }).waitFor());
      const chats = page.getByRole('navigation', { name: 'Chats' });
      expect(await chats.getByRole('button', { name: /^talkie-test:echo Hello from Chromium/ }).getAttribute('aria-current')).toBe('true');
      // Reopened, the thread keeps its order: the proposed action before the message that came after it.
      await transcript.getByText('After the action', { exact: true }).waitFor();
      const order = await transcript.locator('.transcript__item').evaluateAll((items) => items.map((item) => item.textContent ?? ''));
      const action = order.findIndex((text) => text.includes('Save the test note "talkie-test"'));
      const after = order.findIndex((text) => text.includes('After the action'));
      expect(action).toBeGreaterThanOrEqual(0);
      expect(action).toBeLessThan(after);
      await reopened.screenshot('chat-demo-reopened-1280x800');
      expect(reopened.problems).toEqual([]);
    } finally {
      await reopened.close();
      await again.stop();
    }
  });

  it('the Conversation log fills the height: at least 60 % of a 1280×800 window, 50 % of an 800×600 one', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-chat-geometry-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      // An answer with a tool line and a card, and a proposed action waiting for a decision.
      await message.fill('search contacts');
      await message.press('Enter');
      await conversation(page).getByRole('article').first().waitFor();
      // The tool's line, once it ran, says so (#26: not "✓ Searching contacts…").
      await conversation(page).getByText('Finished searching contacts', { exact: true }).waitFor();
      await message.fill('talkie-test:action');
      await message.press('Enter');
      await page.getByRole('button', { name: /^Confirm: / }).waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();

      const wide = await logShare(page);
      await app.screenshot('talkie-conversation-1280x800');
      expect(wide.documentScrolls).toBe(false);
      expect(wide.share, `the log is ${wide.logHeight.toFixed(0)} px of ${wide.windowHeight} px`).toBeGreaterThanOrEqual(0.6);

      await page.setViewportSize({ width: 800, height: 600 });
      await expect.poll(async () => (await logShare(page)).windowHeight).toBe(600);
      const small = await logShare(page);
      await app.screenshot('talkie-conversation-800x600');
      expect(small.documentScrolls).toBe(false);
      expect(small.share, `the log is ${small.logHeight.toFixed(0)} px of ${small.windowHeight} px`).toBeGreaterThanOrEqual(0.5);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
