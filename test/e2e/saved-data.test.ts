import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chattrUnavailable } from '../support/faulty-folders';
import { closeBrowser, openApp, startShell } from './support/app';

/**
 * What the user sees of saved data in Chromium through the web shell: a newer AgentDesk's file
 * (a notice in the status banner, changes refused and explained, the file untouched) and a save
 * the folder refuses (`chattr +i`, which stops root too).
 */
const userDirs: string[] = [];
const immutable: string[] = [];
async function userDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
  userDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await closeBrowser();
  for (const dir of immutable.splice(0)) execFileSync('chattr', ['-i', dir]);
  await Promise.all(userDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const noChattr = chattrUnavailable();
if (noChattr !== undefined) console.warn(`saved-data e2e: the refused-save test is skipped: ${noChattr}`);

describe('saved data in the app', () => {
  it('a newer AgentDesk’s agents.json: its agents are listed, the banner says the file is not changed, and Add explains why it is refused', async () => {
    const dir = await userDataDir();
    const newer = JSON.stringify({
      schemaVersion: 3,
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2026-01-01T00:00:00.000Z' }],
    });
    await writeFile(join(dir, 'agents.json'), newer);
    const shell = await startShell(dir);
    const app = await openApp(shell);
    try {
      const notice = 'agents.json was written by a newer AgentDesk (version 3); this version reads it as version 2, and will not change it.';
      await app.page.getByRole('status').getByText(notice).waitFor();
      await app.page.getByRole('list', { name: 'Added agents' }).getByText('crm.example.com', { exact: true }).waitFor();
      await app.page.getByRole('textbox', { name: 'Agent address' }).fill('other.example.com');
      await app.page.getByRole('button', { name: 'Check', exact: true }).click();
      await app.page.getByRole('button', { name: /^Add( anyway)?$/ }).click();
      await app.page.getByRole('alert').getByText(notice).waitFor();
      await app.screenshot('saved-data-newer-file');
      expect(await readFile(join(dir, 'agents.json'), 'utf8')).toBe(newer);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it.skipIf(noChattr !== undefined)('a settings change the folder refuses says which file could not be saved and why', async () => {
    const dir = await userDataDir();
    const shell = await startShell(dir);
    const app = await openApp(shell);
    try {
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      execFileSync('chattr', ['+i', dir]);
      immutable.push(dir);
      await app.page.getByRole('button', { name: 'Settings' }).click();
      // click, not check(): the refused change goes back to the saved theme, possibly before
      // Playwright looks (a fresh-clone CI run failed with "did not change its state").
      await app.page.getByRole('radio', { name: 'Dark' }).click();
      await app.page.getByText(`settings.json could not be saved in ${dir}: the operation is not permitted. The saved copy is unchanged.`).waitFor();
      expect(await app.page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(false);
      await app.screenshot('saved-data-save-refused');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
