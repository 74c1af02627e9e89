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

describe('the open agent’s chats in the sidebar, in Chromium', () => {
  it('two threads with the demo Talkie agent, searched and switched from the sidebar (wide, then in the drawer)', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-sidebar-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      const sidebar = page.getByRole('navigation', { name: 'AgentDesk' });
      await sidebar.getByRole('button', { name: 'Demo: chat with an assistant' }).click();
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      const transcript = page.getByRole('log', { name: 'Conversation' });
      // The chat list is under the demo's entry in the sidebar, not in the agent's screen.
      const chats = sidebar.getByRole('navigation', { name: 'Chats' });
      await chats.waitFor();
      expect(await page.getByRole('main').getByRole('navigation', { name: 'Chats' }).count()).toBe(0);
      const alfa = chats.getByRole('button', { name: /^talkie-test:echo The offer for Alfa/ });
      const brno = chats.getByRole('button', { name: /^talkie-test:echo Weather in Brno/ });

      await message.fill('talkie-test:echo The offer for Alfa is ready');
      await message.press('Enter');
      await transcript.getByText('The offer for Alfa is ready', { exact: true }).waitFor();
      await explainFailure(page, 'sidebar-first-thread', () => expect.poll(() => alfa.getAttribute('aria-current')).toBe('true'));

      await chats.getByRole('button', { name: 'New chat' }).click();
      await message.fill('talkie-test:echo Weather in Brno is sunny');
      await message.press('Enter');
      await transcript.getByText('Weather in Brno is sunny', { exact: true }).waitFor();
      await explainFailure(page, 'sidebar-second-thread', () => expect.poll(() => brno.getAttribute('aria-current')).toBe('true'));
      expect(await alfa.getAttribute('aria-current')).toBeNull();
      expect(await chats.getByRole('listitem').count()).toBe(2);

      // Search: the assistant's answer text ("sunny") finds its thread; the other one is not listed.
      const search = chats.getByRole('searchbox', { name: 'Search chats' });
      await search.fill('SUNNY');
      await explainFailure(page, 'sidebar-search', () => expect.poll(() => chats.getByRole('listitem').count()).toBe(1));
      expect(await brno.textContent()).toContain('Weather in Brno is sunny');
      await search.fill('alfa ready');
      await alfa.waitFor();
      await expect.poll(() => brno.count()).toBe(0);
      await app.screenshot('sidebar-search-1280x800');

      // A result opens its thread.
      await alfa.click();
      await transcript.getByText('The offer for Alfa is ready', { exact: true }).waitFor();
      await expect.poll(() => transcript.getByText('Weather in Brno is sunny', { exact: true }).count()).toBe(0);
      expect(await alfa.getAttribute('aria-current')).toBe('true');

      await search.fill('charlie');
      await chats.getByText('No chats match').waitFor();
      await search.press('Escape');
      expect(await search.inputValue()).toBe('');
      await expect.poll(() => chats.getByRole('listitem').count()).toBe(2);
      // Escape cleared the search and left the chat open.
      await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();

      // Switching threads from the list.
      await brno.click();
      await transcript.getByText('Weather in Brno is sunny', { exact: true }).waitFor();
      expect(await brno.getAttribute('aria-current')).toBe('true');
      await app.screenshot('sidebar-threads-1280x800');

      // A narrow window: the same list in the drawer; picking a chat closes the drawer on it.
      await page.setViewportSize({ width: 600, height: 800 });
      const menu = page.getByRole('button', { name: 'Open the menu' });
      await menu.click();
      await alfa.waitFor({ state: 'visible' });
      await app.screenshot('sidebar-drawer-600x800');
      await alfa.click();
      await transcript.getByText('The offer for Alfa is ready', { exact: true }).waitFor();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await expect.poll(() => alfa.isVisible()).toBe(false);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it('a plain AG-UI agent (the demo): New chat keeps the first thread, search finds it, the list opens it again', async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-sidebar-agui-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    const { page } = app;
    try {
      const sidebar = page.getByRole('navigation', { name: 'AgentDesk' });
      await sidebar.getByRole('button', { name: 'Demo: an agent at work' }).click();
      const message = page.getByRole('textbox', { name: 'Message' });
      await explainFailure(page, 'sidebar-agui-open', () => message.waitFor());
      const chats = sidebar.getByRole('navigation', { name: 'Chats' });
      const transcript = page.getByRole('log', { name: 'Conversation' });
      const first = chats.getByRole('button', { name: /^Hello about the alpaca/ });
      const second = chats.getByRole('button', { name: /^A second thread/ });

      await message.fill('Hello about the alpaca');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await explainFailure(page, 'sidebar-agui-first', () => expect.poll(() => first.getAttribute('aria-current'), { timeout: 30_000 }).toBe('true'));
      await chats.getByRole('button', { name: 'New chat' }).click();
      await expect.poll(() => first.getAttribute('aria-current')).toBeNull();
      await message.fill('A second thread');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await explainFailure(page, 'sidebar-agui-second', () => expect.poll(() => second.getAttribute('aria-current'), { timeout: 30_000 }).toBe('true'));
      expect(await chats.getByRole('listitem').count()).toBe(2);

      const search = chats.getByRole('searchbox', { name: 'Search chats' });
      await search.fill('alpaca');
      await expect.poll(() => chats.getByRole('listitem').count()).toBe(1);
      await first.waitFor();
      await search.press('Escape');
      await expect.poll(() => chats.getByRole('listitem').count()).toBe(2);

      await first.click();
      await transcript.getByText('Hello about the alpaca', { exact: true }).waitFor();
      await expect.poll(() => transcript.getByText('A second thread', { exact: true }).count()).toBe(0);
      await expect.poll(() => first.getAttribute('aria-current')).toBe('true');
      await app.screenshot('sidebar-agui-1280x800');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
