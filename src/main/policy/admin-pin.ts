import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { adminPinHashDefaults, adminPinProblem, parseAdminPinHash } from '../../shared/device-policy/admin-pin-hash';

/**
 * The admin PIN's salted slow hash (scrypt from node:crypto), in the PHC string the device policy
 * stores (`$scrypt$ln=15,r=8,p=1$salt$hash`, see src/shared/device-policy/admin-pin-hash.ts), and its
 * constant-time check. The parameters travel in the string, so a stronger setting later still
 * verifies the PINs hashed today.
 */
export class AdminPinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminPinError';
  }
}

function scryptAsync(pin: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(pin.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/** scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is exactly ln=15, r=8, so give it room. */
function options(ln: number, r: number, p: number): ScryptOptions {
  const N = 2 ** ln;
  return { N, r, p, maxmem: 128 * N * r * p + 16 * 1024 * 1024 };
}

/** A new hash of `pin` with a fresh random salt; throws AdminPinError for a PIN that cannot be used. */
export async function hashAdminPin(pin: string, parameters: { ln?: number; r?: number; p?: number } = {}): Promise<string> {
  const problem = adminPinProblem(pin);
  if (problem) throw new AdminPinError(problem);
  const { ln = adminPinHashDefaults.ln, r = adminPinHashDefaults.r, p = adminPinHashDefaults.p } = parameters;
  const salt = randomBytes(adminPinHashDefaults.saltBytes);
  const hash = await scryptAsync(pin, salt, adminPinHashDefaults.hashBytes, options(ln, r, p));
  const text = `$scrypt$ln=${ln},r=${r},p=${p}$${unpadded(salt)}$${unpadded(hash)}`;
  if ('problem' in parseAdminPinHash(text)) throw new AdminPinError(`ln=${ln}, r=${r}, p=${p} are outside what a policy accepts.`);
  return text;
}

/** True when `pin` is the one `stored` was made from. The comparison takes the same time wherever the bytes differ. */
export async function verifyAdminPin(pin: string, stored: string): Promise<boolean> {
  const parsed = parseAdminPinHash(stored);
  if ('problem' in parsed) throw new AdminPinError(`The policy's admin PIN hash ${parsed.problem}.`);
  const expected = Buffer.from(parsed.hash, 'base64');
  // A PIN of the wrong length is hashed all the same, so its answer takes as long as any other.
  const actual = await scryptAsync(pin, Buffer.from(parsed.salt, 'base64'), expected.length, options(parsed.ln, parsed.r, parsed.p));
  return timingSafeEqual(actual, expected);
}

function unpadded(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
