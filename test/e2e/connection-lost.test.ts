import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell } from './support/app';

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('AgentDesk dies mid-answer (Chromium, web shell)', () => {
  it('the banner says so and the answer’s spinner ends with a message instead of "answering…" forever', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-lost-'));
    dirs.push(dir);
    const shell = await startShell(dir);
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('talkie-test:slow');
      await box.press('Enter');
      await page.getByText(/Part 1 of/).waitFor();
      await page.getByText('Agent is answering…').waitFor();
      const gone = new Promise((resolve) => shell.process.once('exit', resolve));
      shell.process.kill('SIGKILL');
      await gone;
      await page.getByRole('alert').getByText('Connection to AgentDesk was lost. Restart the app.').waitFor();
      await page.getByText('AgentDesk stopped: the rest of this answer cannot arrive.').waitFor();
      expect(await page.getByText('Agent is answering…').count()).toBe(0);
      expect(await page.locator('.run-status .spinner').count()).toBe(0);
    } finally {
      await app.close();
      // Killed above (its exit code stays null, which stop() would wait for); stopped here when the test failed before.
      if (shell.process.signalCode === null) await shell.stop();
    }
  });
});
