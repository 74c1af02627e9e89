import { randomBytes } from 'node:crypto';
import { link, open, rm, stat, writeFile } from 'node:fs/promises';
import type { SecretStore } from '../secrets/secret-store';
import { deviceKeyBytes } from './alias';

/**
 * The NFC device key: 32 random bytes that turn card IDs into keyed aliases (alias.ts). Generated
 * once and kept in the OS keychain. An administrator can provision a key file instead (policy
 * `deviceKeyFile`, or AGENTDESK_NFC_KEY_FILE): a regular file owned by the user and readable by the
 * user alone (mode 0600 or stricter), holding the 32 bytes raw, as 64 hex digits, or as base64; it
 * always wins.
 *
 * Where no keychain is reachable (a kiosk or a server without a Secret Service), the app keeps the key
 * in a file of its own in its user-data folder (`userKeyFile`), readable by this user alone — what
 * Chromium's "basic" password store does on such machines: it keeps the key from the computer's other
 * users, not from anyone who can act as this user or read the disk. Once there, that file stays the
 * key even if a keychain appears later (tags keep their aliases). Only if that file cannot be made or
 * used does a key live in memory for this run (tags then get new aliases after a restart), so a scan
 * never fails for want of a keychain. Without `userKeyFile` (the command line), no keychain is an
 * error that explains the key file.
 */
export const deviceKeyAccount = 'nfc-device-key';
/** Environment variable naming the policy key file for the app (the CLI also takes --key-file). */
export const deviceKeyFileEnv = 'AGENTDESK_NFC_KEY_FILE';
/** The file in the user-data folder that holds the key where no keychain is reachable. */
export const userDeviceKeyFileName = 'nfc-device.key';

export class DeviceKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceKeyError';
  }
}

export interface DeviceKey {
  key: Uint8Array;
  /** `file`: the administrator's key file; `user-file`: the app's own file where no keychain is reachable; `memory`: this run only. */
  source: 'keychain' | 'file' | 'user-file' | 'memory';
  /** `user-file`: where it is kept. */
  file?: string;
  /** `memory`: why the user file could not be used. */
  problem?: string;
}

export interface DeviceKeyOptions {
  /** A policy-provisioned key file; when given it is used instead of the keychain. */
  keyFile?: string;
  secrets?: SecretStore;
  /** Where the app keeps the key when no keychain is reachable (its user-data folder's `nfc-device.key`). */
  userKeyFile?: string;
}

const keyFileHelp =
  'Create one with `head -c 32 /dev/urandom > nfc-device.key && chmod 600 nfc-device.key` and pass it with --key-file (CLI) or AGENTDESK_NFC_KEY_FILE (app).';

export async function loadDeviceKey(options: DeviceKeyOptions): Promise<DeviceKey> {
  if (options.keyFile !== undefined) return { key: await readKeyFile(options.keyFile), source: 'file' };
  const { secrets, userKeyFile } = options;
  if (secrets?.kind === 'keychain') {
    const stored = await secrets.get(deviceKeyAccount);
    if (stored !== undefined) return { key: decodeStoredKey(stored), source: 'keychain' };
    // Kept in the user's file while there was no keychain: it stays the key, so tags keep their aliases.
    if (userKeyFile !== undefined && (await exists(userKeyFile))) return { key: await readKeyFile(userKeyFile), source: 'user-file', file: userKeyFile };
    await secrets.set(deviceKeyAccount, Buffer.from(randomBytes(deviceKeyBytes)).toString('base64'));
    // Read back what the keychain holds: if another AgentDesk process generated one at the same time, both use the same key.
    const kept = await secrets.get(deviceKeyAccount);
    if (kept === undefined) throw new DeviceKeyError('The keychain did not keep the NFC device key.');
    return { key: decodeStoredKey(kept), source: 'keychain' };
  }
  if (userKeyFile === undefined) {
    const why = secrets?.reason ? ` ${secrets.reason.replace(/: sign-ins last until AgentDesk closes\.$/, '.')}` : '';
    throw new DeviceKeyError(
      `NFC scanning needs a device key that survives restarts, kept in the OS keychain, and no keychain is reachable.${why} Ask your administrator for a device key file instead. ${keyFileHelp}`,
    );
  }
  try {
    return { key: await userFileKey(userKeyFile), source: 'user-file', file: userKeyFile };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return { key: new Uint8Array(randomBytes(deviceKeyBytes)), source: 'memory', problem };
  }
}

/** What the administrator is told, once, about where the key is kept when it is not in a keychain (null: nothing to say). */
export function deviceKeyNotice(key: DeviceKey): { code: 'nfc_key_file' | 'nfc_key_memory'; file?: string; detail?: string; message: string } | null {
  if (key.source === 'user-file') {
    const file = key.file ?? userDeviceKeyFileName;
    return {
      code: 'nfc_key_file',
      file,
      message: `No keychain is reachable, so the NFC device key is kept in ${file}, which only this computer account can read. That keeps tag aliases from the computer's other users, but not from anyone who can use this account or read this disk (a backup, the disk in another computer); a keychain or the policy's deviceKeyFile would.`,
    };
  }
  if (key.source === 'memory') {
    return {
      code: 'nfc_key_memory',
      ...(key.problem ? { detail: key.problem } : {}),
      message: `The NFC device key could not be kept (no keychain, and ${key.problem ?? 'no file for it'}): tags get new aliases when AgentDesk restarts. Set the policy's deviceKeyFile.`,
    };
  }
  return null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new DeviceKeyError(`The NFC device key file ${path} cannot be checked (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`);
  }
}

/**
 * The app's own key file: made once (32 random bytes, mode 0600) and put in place with link(), which
 * never replaces a file that is there and never leaves a half-written one; then read with the key file's checks.
 */
async function userFileKey(path: string): Promise<Uint8Array> {
  if (!(await exists(path))) {
    const draft = `${path}.${randomBytes(6).toString('hex')}.new`;
    try {
      await writeFile(draft, randomBytes(deviceKeyBytes), { mode: 0o600, flag: 'wx' });
      await link(draft, path);
    } catch (error) {
      // Another AgentDesk made it first: that one is the key.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new DeviceKeyError(`The NFC device key file ${path} cannot be created (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`);
    } finally {
      await rm(draft, { force: true });
    }
  }
  return readKeyFile(path);
}

function decodeStoredKey(stored: string): Uint8Array {
  const key = /^[A-Za-z0-9+/]{43}=$/.test(stored) ? Buffer.from(stored, 'base64') : undefined;
  if (!key || key.length !== deviceKeyBytes) {
    // Replacing it would silently give every known tag a new alias; say so instead.
    throw new DeviceKeyError(
      `The NFC device key in the keychain (AgentDesk / ${deviceKeyAccount}) is damaged. Delete that entry to create a new key (tags then get new aliases).`,
    );
  }
  return new Uint8Array(key);
}

const maxKeyFileBytes = 256;

/** Reads a policy key file after checking it is a regular file owned by this user and not readable by others. */
export async function readKeyFile(path: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'permission denied' : (code ?? 'unknown error');
    throw new DeviceKeyError(`The NFC device key file ${path} cannot be opened (${why}).`);
  }
  try {
    // Checked on the open handle, so the file checked is the file read.
    const info = await handle.stat();
    if (!info.isFile()) throw new DeviceKeyError(`The NFC device key file ${path} is not a regular file.`);
    if (process.platform !== 'win32') {
      if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
        throw new DeviceKeyError(`The NFC device key file ${path} belongs to another user; it must be owned by the user running AgentDesk.`);
      }
      if ((info.mode & 0o077) !== 0) {
        throw new DeviceKeyError(
          `The NFC device key file ${path} can be read or written by others (mode ${(info.mode & 0o777).toString(8).padStart(3, '0')}); run \`chmod 600 ${path}\`.`,
        );
      }
    }
    if (info.size > maxKeyFileBytes) throw new DeviceKeyError(`The NFC device key file ${path} is too large to be a key.`);
    const content = Buffer.alloc(maxKeyFileBytes + 1);
    const { bytesRead } = await handle.read(content, 0, content.length, 0);
    const key = decodeKeyFile(content.subarray(0, bytesRead));
    content.fill(0);
    if (!key)
      throw new DeviceKeyError(
        `The NFC device key file ${path} does not hold a key: it needs exactly 32 bytes, raw, as 64 hex digits, or as base64. ${keyFileHelp}`,
      );
    return key;
  } finally {
    await handle.close();
  }
}

function decodeKeyFile(content: Buffer): Uint8Array | undefined {
  if (content.length === deviceKeyBytes) return new Uint8Array(content);
  const text = content.toString('latin1').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return new Uint8Array(Buffer.from(text, 'hex'));
  if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return new Uint8Array(Buffer.from(text, 'base64'));
  return undefined;
}
