import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createTokenStore } from '../../../src/main/auth/token-store';
import { keychainProblem, keyringEntryOptions, memorySecretStore, openSecretStore } from '../../../src/main/secrets/secret-store';

const testService = 'AgentDesk-test';

// The real keychain test runs only where a Secret Service answers (npm test provides one on Linux:
// gnome-keyring under dbus-run-session). Everywhere else it says why it was skipped.
const keychain = await openSecretStore({ service: testService });
const noKeychain = keychain.kind !== 'keychain';
if (noKeychain) {
  console.log(
    `keychain test skipped: no Secret Service. ${keychain.reason ?? ''} Run npm test (as root it installs gnome-keyring and runs the unit tests under dbus-run-session).`,
  );
}

describe('memorySecretStore', () => {
  it('keeps secrets per account for this session only, and says why', async () => {
    const store = memorySecretStore('No keychain is reachable (test): sign-ins last until AgentDesk closes.');
    expect(store.kind).toBe('memory');
    expect(store.reason).toMatch(/No keychain is reachable/);
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', 'one');
    await store.set('b', 'two');
    await store.set('a', 'three');
    expect(await store.get('a')).toBe('three');
    expect(await store.get('b')).toBe('two');
    await store.delete('a');
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(await memorySecretStore().get('b')).toBeUndefined(); // another instance shares nothing
    expect(memorySecretStore().reason).toBeUndefined();
    await expect(store.set('', 'x')).rejects.toThrow(TypeError);
  });
});

describe('openSecretStore without a Secret Service', () => {
  it('pins the Secret Service on Linux instead of letting the keyring fall back to another store', () => {
    expect(keyringEntryOptions).toEqual({ linux: { store: 'secret-service' } });
  });

  it.skipIf(process.platform !== 'linux')('falls back to memory with a plain reason when no D-Bus session is reachable', async () => {
    const result = await openInChild({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/agentdesk-test-bus' });
    expect(result).toEqual({
      kind: 'memory',
      reason: 'No keychain is reachable (Secret Service not running: no D-Bus session bus): sign-ins last until AgentDesk closes.',
      problem: 'Secret Service not running: no D-Bus session bus',
    });
  });

  it.skipIf(process.platform !== 'linux' || !existsSync('/usr/bin/dbus-run-session'))(
    'falls back to memory when the D-Bus session has no Secret Service on it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agentdesk-bus-'));
      try {
        // A session bus with no service files: nothing can be activated as org.freedesktop.secrets.
        const config = join(dir, 'bus.conf');
        await writeFile(
          config,
          `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=${dir}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
        );
        const result = await openInChild({}, ['/usr/bin/dbus-run-session', `--config-file=${config}`, '--']);
        expect(result).toEqual({
          kind: 'memory',
          reason: 'No keychain is reachable (Secret Service not running): sign-ins last until AgentDesk closes.',
          problem: 'Secret Service not running',
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('turns keyring errors into short human causes', () => {
    expect(keychainProblem(new Error('Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files'))).toBe(
      'Secret Service not running',
    );
    expect(keychainProblem(new Error("Couldn't access platform storage: Secret Service: no result found"))).toBe('the Secret Service has no unlocked keyring');
    // gnome-keyring with a locked collection and no display to ask on (measured with gdbus Lock).
    expect(keychainProblem(new Error("Couldn't access platform storage: Secret Service: unlock prompt was dismissed"))).toBe('the keychain is locked');
    expect(keychainProblem(new Error('keychain call timed out'))).toBe('the keychain did not answer in time');
    expect(keychainProblem(new Error('something else'))).toBe('the keychain refused a test entry');
  });
});

describe('openSecretStore with the OS keychain', () => {
  it.skipIf(noKeychain)('stores, replaces, reads and deletes secrets in the Secret Service, leaving no probe entry', async () => {
    expect(keychain.kind).toBe('keychain');
    expect(keychain.reason).toBeUndefined();
    const account = `test:${process.pid}:${Date.now()}`;
    try {
      expect(await keychain.get(account)).toBeUndefined();
      await keychain.set(account, 'first value');
      await keychain.set(account, 'second value ✓');
      expect(await keychain.get(account)).toBe('second value ✓');
      // It really is in the keychain (Secret Service on Linux), under the service and account given.
      expect(await new AsyncEntry(testService, account, keyringEntryOptions).getPassword()).toBe('second value ✓');
      const accounts = (await findCredentialsAsync(testService)).map((credential) => credential.account);
      expect(accounts).toContain(account);
      expect(accounts.filter((name) => name.startsWith('probe:'))).toEqual([]);
      await keychain.delete(account);
      await keychain.delete(account); // deleting what is not there is fine
      expect(await keychain.get(account)).toBeUndefined();
      expect(await new AsyncEntry(testService, account, keyringEntryOptions).getPassword()).toBeNull();
    } finally {
      await new AsyncEntry(testService, account, keyringEntryOptions).deleteCredential().catch(() => undefined);
    }
  });

  it.skipIf(noKeychain)('keeps a TokenStore across store instances (as across app restarts)', async () => {
    const serverId = `keychain-test-${process.pid}-${Date.now()}`;
    const tokens = {
      accessToken: 'at-value',
      refreshToken: 'rt-value',
      expiresAt: 1_900_000_000_000,
      scope: 'talkie offline_access',
      issuer: 'https://as.example',
      clientId: 'https://app.example/client.json',
    };
    try {
      await createTokenStore(keychain).save(serverId, tokens);
      const reopened = await openSecretStore({ service: testService });
      expect(reopened.kind).toBe('keychain');
      expect(await createTokenStore(reopened).load(serverId)).toEqual(tokens);
      await createTokenStore(reopened).clear(serverId);
      expect(await createTokenStore(keychain).load(serverId)).toBeUndefined();
    } finally {
      await createTokenStore(keychain)
        .clear(serverId)
        .catch(() => undefined);
    }
  });
});

/**
 * Runs openSecretStore() in a fresh Node process with the given environment (the keyring reads
 * D-Bus settings from the real process environment, so this cannot be done in-process).
 * The module (and the shared errors it imports) is transpiled with TypeScript; its one package import is pointed at node_modules.
 */
async function openInChild(env: Record<string, string>, prefix: string[] = []): Promise<{ kind: string; reason?: string; problem?: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-secrets-'));
  try {
    const sourcePath = fileURLToPath(new URL('../../../src/main/secrets/secret-store.ts', import.meta.url));
    const keyringUrl = pathToFileURL(createRequire(import.meta.url).resolve('@napi-rs/keyring')).href;
    const transpile = async (path: string) =>
      ts.transpileModule(await readFile(path, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      }).outputText;
    const output = await transpile(sourcePath);
    expect(output).toContain("import('@napi-rs/keyring')");
    // Its one module of the app: the shared error class (no imports of its own).
    expect(output).toContain("from '../../shared/base/errors'");
    await writeFile(join(dir, 'errors.mjs'), await transpile(fileURLToPath(new URL('../../../src/shared/base/errors.ts', import.meta.url))));
    const modulePath = join(dir, 'secret-store.mjs');
    await writeFile(
      modulePath,
      output.replace("import('@napi-rs/keyring')", `import(${JSON.stringify(keyringUrl)})`).replace("from '../../shared/base/errors'", "from './errors.mjs'"),
    );
    const script = `const { openSecretStore } = await import(${JSON.stringify(pathToFileURL(modulePath).href)});
const store = await openSecretStore({ service: ${JSON.stringify(testService)} });
process.stdout.write(JSON.stringify({ kind: store.kind, reason: store.reason, problem: store.problem }));`;
    const command = [...prefix, process.execPath, '--input-type=module', '-e', script];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(command[0]!, command.slice(1), { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...env }, timeout: 30_000 }, (error, out) =>
        error ? reject(error) : resolve(out),
      );
    });
    return JSON.parse(stdout) as { kind: string; reason?: string };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
