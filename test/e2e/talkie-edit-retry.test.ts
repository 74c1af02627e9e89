import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('Retry and Edit, in Chromium against the built-in demo', () => {
  it('a failed reply answered on Retry (talkie-test:error-once); ArrowUp edits the last message, sent as a new one; Edit and Escape', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-edit-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      const transcript = page.getByRole('log', { name: 'Conversation' });

      // The demo fails the first run of this message (retryable); Retry sends the same message again.
      await message.fill('talkie-test:error-once');
      await message.press('Enter');
      const failure = transcript.getByText('The model provider is unavailable (test, this once: Retry gets an answer).');
      await failure.waitFor();
      const retry = transcript.getByRole('button', { name: 'Retry' });
      await retry.focus();
      await page.keyboard.press('Enter');
      await explainFailure(page, 'edit-retry-answer', async () => {
        await transcript.getByText('Answered on the second try.', { exact: true }).waitFor();
        await failure.waitFor({ state: 'detached' });
      });
      // Retried, not sent twice: the message is in the transcript once.
      await expect(transcript.getByText('talkie-test:error-once', { exact: true }).count()).resolves.toBe(1);

      // ArrowUp in the empty composer puts the last message back, and the composer says what sending does.
      await message.focus();
      await page.keyboard.press('ArrowUp');
      await expect(message.inputValue()).resolves.toBe('talkie-test:error-once');
      const notice = page.getByText(/Editing your last message\. Sending adds it as a new message/);
      await notice.waitFor();
      await app.screenshot('chat-edit-last-message-1280x800');
      await message.fill('talkie-test:echo Edited, sent as a new message');
      await message.press('Enter');
      await transcript.getByText('Edited, sent as a new message', { exact: true }).waitFor();
      await notice.waitFor({ state: 'detached' });
      // The earlier exchange is still there: the server keeps it, so the screen does too.
      await transcript.getByText('Answered on the second try.', { exact: true }).waitFor();

      // Edit on the last message, then Escape: the composer is empty again and the screen stays.
      await transcript.getByRole('button', { name: 'Edit' }).click();
      await expect(message.inputValue()).resolves.toBe('talkie-test:echo Edited, sent as a new message');
      // At once, as a quick user would (the notice may not be painted yet): Escape still stops the edit.
      await page.keyboard.press('Escape');
      await notice.waitFor({ state: 'detached' });
      await expect(message.inputValue()).resolves.toBe('');
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it('plain AG-UI: ArrowUp edits the last message; the agent then counts both messages, as the screen said it would', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-edit-agui-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Watch an agent work' }).click();
      const message = page.getByRole('textbox', { name: 'Message' });
      await message.waitFor();
      await message.fill('show the plan');
      await message.press('Enter');
      await page.getByText(/This is the first message of the thread\./).waitFor();
      await page.getByText('Answered', { exact: true }).waitFor();

      await message.focus();
      await page.keyboard.press('ArrowUp');
      await expect(message.inputValue()).resolves.toBe('show the plan');
      const notice = page.getByText(/the earlier one and its answer stay in this chat, and the agent still gets them/);
      await notice.waitFor();
      await app.screenshot('agui-edit-last-message-1280x800');
      await message.fill('show the plan once more');
      await message.press('Enter');
      // The demo agent reads the history the client sends: the earlier message is in it.
      await page.getByText(/This thread has 2 user messages so far/).waitFor();
      await notice.waitFor({ state: 'detached' });
      await page.getByRole('log', { name: 'Conversation' }).getByText('show the plan', { exact: true }).waitFor();
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
