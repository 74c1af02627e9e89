import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hashAdminPin } from '../../src/main/policy/admin-pin';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';
import { expectNoViolations } from './support/axe';

/** The device policy at the web shell's start (issue #18): refused outside kiosk mode, the error screen in kiosk mode, applied when valid. */
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-policy-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const webshell = fileURLToPath(new URL('../../out/main/webshell.js', import.meta.url));

describe('the device policy at start', () => {
  it('outside kiosk mode, the web shell refuses to start with a policy it cannot use: exit 1, the file and the problem on stderr', async () => {
    const dir = await tempDir();
    const policy = join(dir, 'policy.json');
    await writeFile(policy, '{\n  "policyVersion": 1,\n  "theme": "dark"\n}\n');
    const run = spawnSync(process.execPath, [webshell, '--user-data', join(dir, 'user-data'), '--policy', policy], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe(''); // no launch URL: nothing was served
    expect(run.stderr).toContain(`AgentDesk's device policy ${policy} cannot be used: one problem: unknown key "theme" at the top level.`);
    const missing = spawnSync(process.execPath, [webshell, '--user-data', join(dir, 'user-data'), '--policy', join(dir, 'nope.json')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('cannot be used: the file does not exist.');
  });

  it('in kiosk mode, the page shows only the error screen naming the file and the problem', async () => {
    const dir = await tempDir();
    const policy = join(dir, 'policy.json');
    await writeFile(policy, '{"policyVersion": 2, "kiosk": true}');
    const shell = await startShell(join(dir, 'user-data'), { args: ['--policy', policy] });
    const app = await openApp(shell);
    try {
      await explainFailure(app.page, 'policy-error-screen', () =>
        app.page.getByRole('heading', { level: 1, name: 'AgentDesk cannot start on this device' }).waitFor(),
      );
      const alert = await app.page.getByRole('alert').innerText();
      expect(alert).toContain(`Device policy file: ${policy}`);
      expect(alert).toContain('policyVersion 2 is not a version this AgentDesk knows');
      expect(await app.page.getByRole('button', { name: 'Settings' }).count()).toBe(0);
      expect(shell.output()).toContain('Kiosk mode: the page shows this and nothing else runs.');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it('applies a valid policy: the forced language, and the locked agent list', async () => {
    const dir = await tempDir();
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify({ policyVersion: 1, language: 'cs', agents: { list: [{ address: 'workshop.example.com', name: 'Dílna' }] } }));
    const shell = await startShell(join(dir, 'user-data'), { args: ['--policy', policy] });
    const app = await openApp(shell);
    try {
      await explainFailure(app.page, 'policy-applied', () => app.page.getByRole('heading', { level: 1, name: 'Vaši agenti' }).waitFor());
      await app.page.getByText('Dílna').first().waitFor();
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it(
    'Settings → Save diagnostics…: under an admin PIN, Settings opens only after the PIN prompt, and then saves; without one, the bundle lands in ~/Downloads',
    { timeout: 60_000 },
    async () => {
      const dir = await tempDir();
      const policy = join(dir, 'policy.json');
      const pinHash = await hashAdminPin('2468');
      await writeFile(policy, JSON.stringify({ policyVersion: 1, language: 'en', admin: { pinHash } }));
      // HOME is the test's: the web shell saves into $HOME/Downloads.
      const env = { HOME: dir };
      let shell = await startShell(join(dir, 'user-data'), { args: ['--policy', policy], env });
      let app = await openApp(shell);
      try {
        await app.page.getByRole('button', { name: 'Settings' }).click();
        const dialog = app.page.getByRole('dialog', { name: 'Administrator PIN' });
        await explainFailure(app.page, 'diagnostics-pin', () => dialog.waitFor());
        // The PIN prompt stands in front of Settings: nothing of it shows before the PIN.
        expect(await app.page.getByRole('button', { name: 'Save diagnostics…' }).count()).toBe(0);
        await dialog.getByLabel('PIN').fill('2468');
        await dialog.getByRole('button', { name: 'Unlock' }).click();
        await app.page.getByRole('heading', { level: 2, name: 'Diagnostics' }).waitFor();
        await app.page.getByRole('button', { name: 'Save diagnostics…' }).click();
        await explainFailure(app.page, 'diagnostics-unlocked', () => app.page.getByText(/^Diagnostics saved to /).waitFor());
        await expectNoViolations(app.page, 'Settings, diagnostics saved after the admin PIN');
      } finally {
        await app.close();
        await shell.stop();
      }
      await rm(join(dir, 'Downloads'), { recursive: true, force: true });

      shell = await startShell(join(dir, 'user-data'), { env });
      app = await openApp(shell);
      try {
        await app.page.getByRole('button', { name: 'Settings' }).click();
        await app.page.getByRole('button', { name: 'Save diagnostics…' }).click();
        const saved = app.page.getByText(/^Diagnostics saved to /);
        await explainFailure(app.page, 'diagnostics-saved', () => saved.waitFor());
        const [name] = await readdir(join(dir, 'Downloads'));
        expect(name).toMatch(/^agentdesk-diagnostics-.*\.json$/);
        expect(await saved.innerText()).toBe(`Diagnostics saved to ${join(dir, 'Downloads', name!)}.`);
        const bundle = JSON.parse(await readFile(join(dir, 'Downloads', name!), 'utf8')) as { format: string; app: { shell: string }; logs: unknown[] };
        expect(bundle).toMatchObject({ format: 'agentdesk-diagnostics/1', app: { shell: 'web' } });
        expect(bundle.logs.length).toBeGreaterThan(0);
        await expectNoViolations(app.page, 'Settings, diagnostics saved');
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
});
