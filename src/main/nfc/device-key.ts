import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { SecretStore } from '../secrets/secret-store';
import { deviceKeyBytes } from './alias';

/**
 * The NFC device key: 32 random bytes that turn card IDs into keyed aliases (alias.ts). Generated
 * once and kept in the OS keychain. Where no keychain is reachable, an administrator can provision
 * a key file instead (policy): a regular file owned by the user and readable by the user alone
 * (mode 0600 or stricter), holding the 32 bytes raw, as 64 hex digits, or as base64.
 *
 * Without either, NFC scanning is refused with an explanation: a key kept only in memory would give
 * every tag a new alias after each restart.
 */
export const deviceKeyAccount = 'nfc-device-key';
/** Environment variable naming the policy key file for the app (the CLI also takes --key-file). */
export const deviceKeyFileEnv = 'AGENTDESK_NFC_KEY_FILE';

export class DeviceKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceKeyError';
  }
}

export interface DeviceKey {
  key: Uint8Array;
  source: 'keychain' | 'file';
}

export interface DeviceKeyOptions {
  /** A policy-provisioned key file; when given it is used instead of the keychain. */
  keyFile?: string;
  secrets?: SecretStore;
}

const keyFileHelp =
  'Create one with `head -c 32 /dev/urandom > nfc-device.key && chmod 600 nfc-device.key` and pass it with --key-file (CLI) or AGENTDESK_NFC_KEY_FILE (app).';

export async function loadDeviceKey(options: DeviceKeyOptions): Promise<DeviceKey> {
  if (options.keyFile !== undefined) return { key: await readKeyFile(options.keyFile), source: 'file' };
  const secrets = options.secrets;
  if (!secrets || secrets.kind !== 'keychain') {
    const why = secrets?.reason ? ` ${secrets.reason.replace(/: sign-ins last until AgentDesk closes\.$/, '.')}` : '';
    throw new DeviceKeyError(
      `NFC scanning needs a device key that survives restarts, kept in the OS keychain, and no keychain is reachable.${why} Ask your administrator for a device key file instead. ${keyFileHelp}`,
    );
  }
  const stored = await secrets.get(deviceKeyAccount);
  if (stored !== undefined) return { key: decodeStoredKey(stored), source: 'keychain' };
  await secrets.set(deviceKeyAccount, Buffer.from(randomBytes(deviceKeyBytes)).toString('base64'));
  // Read back what the keychain holds: if another AgentDesk process generated one at the same time, both use the same key.
  const kept = await secrets.get(deviceKeyAccount);
  if (kept === undefined) throw new DeviceKeyError('The keychain did not keep the NFC device key.');
  return { key: decodeStoredKey(kept), source: 'keychain' };
}

function decodeStoredKey(stored: string): Uint8Array {
  const key = /^[A-Za-z0-9+/]{43}=$/.test(stored) ? Buffer.from(stored, 'base64') : undefined;
  if (!key || key.length !== deviceKeyBytes) {
    // Replacing it would silently give every known tag a new alias; say so instead.
    throw new DeviceKeyError(`The NFC device key in the keychain (AgentDesk / ${deviceKeyAccount}) is damaged. Delete that entry to create a new key (tags then get new aliases).`);
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
    if (!key) throw new DeviceKeyError(`The NFC device key file ${path} does not hold a key: it needs exactly 32 bytes, raw, as 64 hex digits, or as base64. ${keyFileHelp}`);
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
