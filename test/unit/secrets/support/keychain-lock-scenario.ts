/**
 * Run by keychain-locked.test.ts in its own D-Bus session with its own gnome-keyring (so locking
 * the keyring cannot disturb other test files that share the outer one): the keychain gets locked
 * in the middle of a session, then unlocked again. Prints one JSON line with what each step saw.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTokenStore, type TokenSet } from '../../../../src/main/auth/token-store';
import { openSecretStore } from '../../../../src/main/secrets/secret-store';

const run = promisify(execFile);
const service = 'AgentDesk-lock-test';

type Outcome = { ok: true; value: unknown } | { ok: false; name: string; code?: string; message: string; retryable?: boolean };
async function outcome(step: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: (await step()) ?? null };
  } catch (error) {
    const { name, message, code, retryable } = error as Error & { code?: string; retryable?: boolean };
    return { ok: false, name, message, ...(code === undefined ? {} : { code }), ...(retryable === undefined ? {} : { retryable }) };
  }
}

async function secretService(method: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('gdbus', [
    'call',
    '--session',
    '--dest',
    'org.freedesktop.secrets',
    '--object-path',
    '/org/freedesktop/secrets',
    '--method',
    `org.freedesktop.Secret.Service.${method}`,
    ...args,
  ]);
  return stdout;
}

const tokens = (accessToken: string, refreshToken: string): TokenSet => ({
  accessToken,
  refreshToken,
  issuer: 'https://as.example',
  clientId: 'https://app.example/client.json',
});

const store = await openSecretStore({ service });
const report: Record<string, unknown> = { kind: store.kind };
if (store.kind === 'keychain') {
  // server-b's sign-in is in the keychain from an earlier run; this session has not read it yet.
  await createTokenStore(store).save('server-b', tokens('at-b0', 'rt-b0'));
  const session = createTokenStore(store);
  await session.save('server-a', tokens('at-1', 'rt-1'));
  report.beforeLock = await outcome(() => session.load('server-a'));

  // The default collection (gnome-keyring's "login"), locked as the screen locker or `Lock` in Seahorse does.
  const alias = await secretService('ReadAlias', 'default');
  const collection = /'([^']+)'/.exec(alias)?.[1] ?? '/org/freedesktop/secrets/collection/login';
  report.lock = await secretService('Lock', `['${collection}']`);

  report.loadKnown = await outcome(() => session.load('server-a'));
  report.loadUnknown = await outcome(() => session.load('server-b'));
  report.loadAbsent = await outcome(() => session.load('server-never'));
  report.saveRotated = await outcome(() => session.save('server-a', tokens('at-2', 'rt-2')));
  report.loadAfterRefusedSave = await outcome(() => session.load('server-a'));
  report.clearWhileLocked = await outcome(() => session.clear('server-a'));
  report.rawGet = await outcome(() => store.get('talkie:server-a'));
  report.rawSet = await outcome(() => store.set('talkie:server-c', 'secret'));

  // Unlocked again: a new login starts the daemon anew with the password (what `--replace --unlock` does).
  await new Promise<void>((resolve, reject) => {
    const child = execFile('gnome-keyring-daemon', ['--replace', '--unlock', '--components=secrets'], (error) => (error ? reject(error) : resolve()));
    child.stdin?.end('test');
  });
  report.loadAfterUnlock = await outcome(() => session.load('server-a'));
  // A new session (as after an app restart) reads what the keychain holds now: the rotated tokens.
  report.freshSessionAfterUnlock = await outcome(() => createTokenStore(store).load('server-a'));
  report.loadUnknownAfterUnlock = await outcome(() => session.load('server-b'));
  report.saveAfterUnlock = await outcome(() => session.save('server-b', tokens('at-b', 'rt-b')));
  report.clearAfterUnlock = await outcome(async () => {
    await session.clear('server-a');
    await session.clear('server-b');
    return createTokenStore(store).load('server-a');
  });
} else {
  report.reason = store.reason;
}
process.stdout.write(`${JSON.stringify(report)}\n`);
