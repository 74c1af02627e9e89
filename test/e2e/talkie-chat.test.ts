import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, explainFailure, openApp, startShell, waitForNewestMessageInView } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('chatting with the built-in demo agent in Chromium', () => {
  it('echo → card → confirm an action → restart the app → the thread is still there', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-chat-'));
    dirs.push(userData);

    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      const transcript = page.getByRole('region', { name: 'Messages' });

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
        await transcript.getByRole('article', { name: 'Save the test note "talkie-test"' }).getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
        await transcript.getByRole('article', { name: 'Test action done' }).waitFor({ timeout: 60_000 });
      });
      await waitForNewestMessageInView(page);
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
      await waitForNewestMessageInView(page);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }

    const again = await startShell(userData);
    const reopened = await openApp(again);
    try {
      await reopened.page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      const chats = reopened.page.getByRole('navigation', { name: 'Chats' });
      const thread = chats.getByRole('button', { name: /^talkie-test:echo Hello from Chromium/ });
      await thread.waitFor();
      await thread.click();
      await reopened.page.getByRole('region', { name: 'Messages' }).getByText('Hello from Chromium <script>alert(1)</script>', { exact: true }).waitFor();
      expect(reopened.problems).toEqual([]);
    } finally {
      await reopened.close();
      await again.stop();
    }
  });
});
