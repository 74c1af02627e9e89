import { randomBytes } from 'node:crypto';
import type { AsyncEntry as KeyringEntry, EntryOptions } from '@napi-rs/keyring';
import { ServiceError } from '../../shared/base/errors';

/**
 * Where main keeps secrets (OAuth tokens, pasted development tokens): the OS keychain
 * (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) or, when none is
 * reachable, memory for this session only. Secrets never go to disk in plain text, never cross
 * the IPC boundary and are never logged; errors carry what failed, never the secret.
 */
export interface SecretStore {
  readonly kind: 'keychain' | 'memory';
  /** Why it is memory-only, for the UI ("No keychain is reachable (Secret Service not running): sign-ins last until AgentDesk closes."). */
  readonly reason?: string;
  /** The cause alone, in `reason`'s parentheses ("Secret Service not running"), for the notice's Details. */
  readonly problem?: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
}

export const defaultSecretService = 'AgentDesk';

/**
 * Linux: pin the Secret Service. Without the pin @napi-rs/keyring silently falls back to the
 * kernel keyring (keyutils), which forgets everything at logout and is not what the user's
 * keychain tools show; pinned, a missing Secret Service is an error we can explain instead.
 * The option is ignored on macOS and Windows.
 */
export const keyringEntryOptions: EntryOptions = { linux: { store: 'secret-service' } };

/** How long one keychain call may take before we treat the keychain as unreachable. */
const keychainCallTimeoutMs = 10_000;

/** What the user is told when the keychain was locked after AgentDesk opened it. */
export const keychainLockedMessage = 'The keychain is locked; unlock it and try again.';

/**
 * Thrown by a keychain-backed store when one call fails after the store was opened: a
 * ServiceError, so the caller's IPC answer carries the stable code (`keychain_locked`, retryable,
 * or `keychain_unavailable`) and a message for people, never an `internal` error.
 */
export class SecretStoreError extends ServiceError {
  constructor(code: 'keychain_locked' | 'keychain_unavailable', message: string, options?: { cause?: unknown }) {
    super(code, message, undefined, code === 'keychain_locked' ? true : undefined);
    this.name = 'SecretStoreError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** Tries the OS keychain (Secret Service pinned on Linux) with a probe write/read/delete; falls back to memory with a reason. */
export async function openSecretStore(options: { service?: string } = {}): Promise<SecretStore> {
  const service = options.service ?? defaultSecretService;
  let Entry: typeof KeyringEntry;
  try {
    ({ AsyncEntry: Entry } = await import('@napi-rs/keyring'));
  } catch {
    return memoryFallback('the keychain module could not be loaded');
  }
  const probeAccount = `probe:${randomBytes(8).toString('hex')}`;
  const probeValue = randomBytes(16).toString('base64url');
  let entry: KeyringEntry | undefined;
  try {
    entry = new Entry(service, probeAccount, keyringEntryOptions);
    const probe = entry;
    await withTimeout((signal) => probe.setPassword(probeValue, signal));
    const readBack = await withTimeout((signal) => probe.getPassword(signal));
    await withTimeout((signal) => probe.deleteCredential(signal));
    if (readBack !== probeValue) return memoryFallback('the keychain did not return what was stored in it');
  } catch (error) {
    // Best effort, not awaited (the keychain may be hanging): leave no probe entry behind.
    void entry?.deleteCredential().catch(() => undefined);
    return memoryFallback(keychainProblem(error));
  }
  return keychainSecretStore(Entry, service);
}

function memoryFallback(problem: string): SecretStore {
  return memorySecretStore(memoryReason(problem), problem);
}

export function memorySecretStore(reason?: string, problem?: string): SecretStore {
  const secrets = new Map<string, string>();
  return {
    kind: 'memory',
    ...(reason === undefined ? {} : { reason }),
    ...(problem === undefined ? {} : { problem }),
    get: async (account) => secrets.get(checkAccount(account)),
    set: async (account, secret) => void secrets.set(checkAccount(account), checkSecret(secret)),
    delete: async (account) => void secrets.delete(checkAccount(account)),
  };
}

function keychainSecretStore(Entry: typeof KeyringEntry, service: string): SecretStore {
  // One entry object per call: it holds no secret, and a Secret Service restart needs a fresh connection.
  const entry = (account: string) => new Entry(service, checkAccount(account), keyringEntryOptions);
  const call = async <T>(what: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await withTimeout(run);
    } catch (error) {
      const problem = keychainProblem(error);
      if (problem === lockedProblem) throw new SecretStoreError('keychain_locked', keychainLockedMessage, { cause: error });
      throw new SecretStoreError('keychain_unavailable', `The keychain could not ${what} (${problem}).`, { cause: error });
    }
  };
  return {
    kind: 'keychain',
    get: async (account) => (await call('read a sign-in', (signal) => entry(account).getPassword(signal))) ?? undefined,
    set: async (account, secret) => {
      checkSecret(secret);
      await call('save a sign-in', (signal) => entry(account).setPassword(secret, signal));
    },
    delete: async (account) => {
      await call('remove a sign-in', (signal) => entry(account).deleteCredential(signal));
    },
  };
}

function memoryReason(problem: string): string {
  return `No keychain is reachable (${problem}): sign-ins last until AgentDesk closes.`;
}

const lockedProblem = 'the keychain is locked';

/** A short human cause from a keyring error. Keyring messages name the store, never a secret. */
export function keychainProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/aborted|timed? ?out/i.test(message)) return 'the keychain did not answer in time';
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i.test(message)) return 'Secret Service not running';
  if (/DBUS_SESSION_BUS_ADDRESS|Failed to connect to socket|dbus-daemon|D-?Bus/i.test(message)) return 'Secret Service not running: no D-Bus session bus';
  if (/no result found/i.test(message)) return 'the Secret Service has no unlocked keyring';
  // gnome-keyring asks to unlock a locked collection; without a display the prompt is dismissed at once.
  if (/locked|unlock prompt/i.test(message)) return lockedProblem;
  if (/denied|not allowed|permission/i.test(message)) return 'access to the keychain was denied';
  return 'the keychain refused a test entry';
}

async function withTimeout<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('keychain call timed out'));
    }, keychainCallTimeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const maxAccountLength = 512;

function checkAccount(account: string): string {
  if (typeof account !== 'string' || account.length === 0 || account.length > maxAccountLength) {
    throw new TypeError(`A secret's account name must be 1–${maxAccountLength} characters.`);
  }
  return account;
}

function checkSecret(secret: string): string {
  if (typeof secret !== 'string') throw new TypeError('A secret must be a string.');
  return secret;
}
