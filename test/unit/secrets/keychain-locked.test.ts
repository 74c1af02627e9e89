import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTokenStore } from '../../../src/main/auth/token-store';
import { keychainLockedMessage, SecretStoreError, type SecretStore } from '../../../src/main/secrets/secret-store';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tools = ['/usr/bin/dbus-run-session', '/usr/bin/gnome-keyring-daemon', '/usr/bin/gdbus'];
const missingTools = tools.filter((tool) => !existsSync(tool));
if (missingTools.length > 0) {
  console.log(`locked-keychain test skipped: ${missingTools.join(', ')} not installed (npm test installs gnome-keyring when run as root).`);
}

/** Runs the scenario in its own D-Bus session with a fresh gnome-keyring unlocked with "test", under a throwaway HOME. */
async function runScenario(): Promise<Record<string, unknown>> {
  const home = await mkdtemp(join(tmpdir(), 'agentdesk-keyring-lock-'));
  try {
    const script = 'echo -n test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"';
    const tsx = join(root, 'node_modules/.bin/tsx');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        'dbus-run-session',
        ['--', 'bash', '-c', script, 'bash', tsx, join(root, 'test/unit/secrets/support/keychain-lock-scenario.ts')],
        { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, timeout: 120_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    // Never a plain-text fallback: no file the scenario's user has (the keyring's own included) holds a token in clear.
    const plainText = [];
    for (const entry of await readdir(home, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const text = await readFile(join(entry.parentPath, entry.name), 'latin1').catch(() => '');
      if (/rt-[12b]|at-[12b]/.test(text)) plainText.push(entry.name);
    }
    return { ...(JSON.parse(line) as Record<string, unknown>), plainText };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('the keychain locked in the middle of a session', () => {
  it.skipIf(missingTools.length > 0)(
    'real gnome-keyring: a clear keychain_locked error, no sign-in lost, no plain text, and back to normal once unlocked',
    async () => {
      const report = await runScenario();
      expect(report.kind, `the Secret Service did not open: ${String(report.reason)}`).toBe('keychain');
      const locked = { ok: false, name: 'SecretStoreError', code: 'keychain_locked', message: keychainLockedMessage, retryable: true };
      expect(report.beforeLock).toMatchObject({ ok: true, value: { accessToken: 'at-1' } });
      // Tokens this session already had keep working: the user is not signed out by a locked keychain.
      expect(report.loadKnown).toMatchObject({ ok: true, value: { accessToken: 'at-1', refreshToken: 'rt-1' } });
      // A sign-in the session never read cannot be had: the stable error, not "not signed in" and not a crash.
      expect(report.loadUnknown).toEqual(locked);
      // (An account with nothing stored needs no unlocking: the Secret Service finds no item and says so.)
      expect(report.loadAbsent).toEqual({ ok: true, value: null });
      // A refused save fails with the same error, and its tokens (a rotated refresh token) stay for the session.
      expect(report.saveRotated).toEqual(locked);
      expect(report.loadAfterRefusedSave).toMatchObject({ ok: true, value: { accessToken: 'at-2', refreshToken: 'rt-2' } });
      // Signing out cannot remove the keychain's copy: it says so and keeps the sign-in.
      expect(report.clearWhileLocked).toEqual(locked);
      expect(report.rawGet).toEqual(locked);
      expect(report.rawSet).toEqual(locked);
      // Unlocked: the kept tokens are written on the next read, so a new session finds them in the keychain.
      expect(report.loadAfterUnlock).toMatchObject({ ok: true, value: { accessToken: 'at-2' } });
      expect(report.freshSessionAfterUnlock).toMatchObject({ ok: true, value: { accessToken: 'at-2', refreshToken: 'rt-2' } });
      expect(report.loadUnknownAfterUnlock).toMatchObject({ ok: true, value: { accessToken: 'at-b0' } });
      expect(report.saveAfterUnlock).toEqual({ ok: true, value: null });
      expect(report.clearAfterUnlock).toEqual({ ok: true, value: null });
      expect(report.plainText).toEqual([]);
    },
    150_000,
  );
});

/** A keychain that can be locked, like the Secret Service store after `Lock`. */
function lockableStore(): SecretStore & { locked: boolean; values: Map<string, string> } {
  const values = new Map<string, string>();
  const store = {
    kind: 'keychain' as const,
    locked: false,
    values,
    check() {
      if (store.locked) throw new SecretStoreError('keychain_locked', keychainLockedMessage);
    },
    get: async (account: string) => (store.check(), values.get(account)),
    set: async (account: string, secret: string) => void (store.check(), values.set(account, secret)),
    delete: async (account: string) => void (store.check(), values.delete(account)),
  };
  return store;
}

describe('TokenStore over a keychain that gets locked', () => {
  it('keeps what the session read or saved, fails the rest with keychain_locked, and writes the kept tokens back after unlocking', async () => {
    const keychain = lockableStore();
    const tokens = createTokenStore(keychain);
    const set = (accessToken: string) => ({ accessToken, issuer: 'https://as.example', clientId: 'client' });
    await tokens.save('a', set('at-1'));
    keychain.locked = true;
    await expect(tokens.load('a')).resolves.toEqual(set('at-1'));
    await expect(tokens.load('b')).rejects.toMatchObject({ code: 'keychain_locked', retryable: true });
    await expect(tokens.save('a', set('at-2'))).rejects.toMatchObject({ code: 'keychain_locked' });
    await expect(tokens.load('a')).resolves.toEqual(set('at-2'));
    await expect(tokens.clear('a')).rejects.toMatchObject({ code: 'keychain_locked' });
    expect(JSON.parse(keychain.values.get('talkie:a')!)).toEqual(set('at-1'));
    keychain.locked = false;
    await expect(tokens.load('a')).resolves.toEqual(set('at-2'));
    expect(JSON.parse(keychain.values.get('talkie:a')!)).toEqual(set('at-2'));
    await tokens.clear('a');
    await expect(tokens.load('a')).resolves.toBeUndefined();
  });
});

describe('the keychain locked, through the contract', () => {
  it('a token save answers keychain_locked with the sentence for people (no internal error, no crash), and works once unlocked', async () => {
    const keychain = lockableStore();
    const app = await startTestServices(await tempDir(), { secrets: keychain });
    try {
      await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
      const added = await app.call('agents.add', { address: 'http://127.0.0.1:9/agui', kind: 'agui' });
      if (!added.ok) throw new Error(added.error.message);
      const agentId = added.value.agent.id;
      keychain.locked = true;
      expect(await app.call('agui.useToken', { agentId, token: 'secret-token-1' })).toEqual({
        ok: false,
        error: { code: 'keychain_locked', message: keychainLockedMessage, retryable: true },
      });
      // Nothing fell back to a file: the token is only where the keychain (still locked) will get it.
      expect([...keychain.values.values()].join('')).not.toContain('secret-token-1');
      keychain.locked = false;
      expect(await app.call('agui.useToken', { agentId, token: 'secret-token-1' })).toMatchObject({ ok: true, value: { hasToken: true } });
      expect([...keychain.values.values()].join('')).toContain('secret-token-1');
    } finally {
      await app.dispose();
    }
  });
});
