/**
 * The stored form of the admin PIN in a device policy: a salted scrypt hash in the PHC string
 * format, its parameters inside the string, so a later AgentDesk can raise them without breaking
 * older policies:
 *
 *   $scrypt$ln=15,r=8,p=1$<salt, base64 without padding>$<hash, base64 without padding>
 *
 * (`ln` is log2 of scrypt's N.) `agentdesk policy hash-pin` makes one; main hashes and verifies with
 * node:crypto. This file only reads the format, so the policy schema can refuse a malformed hash.
 */
export interface AdminPinHash {
  /** log2(N). */
  ln: number;
  r: number;
  p: number;
  /** base64 (no padding). */
  salt: string;
  /** base64 (no padding). */
  hash: string;
}

/** Bounds a policy's parameters must keep: strong enough, and a verification stays well under a second and 256 MiB. */
export const adminPinHashBounds = {
  ln: { min: 14, max: 20 },
  r: { min: 8, max: 16 },
  p: { min: 1, max: 4 },
  saltBytes: { min: 16, max: 64 },
  hashBytes: { min: 32, max: 64 },
} as const;

/** What `agentdesk policy hash-pin` writes. */
export const adminPinHashDefaults = { ln: 15, r: 8, p: 1, saltBytes: 16, hashBytes: 32 } as const;

/** The PIN itself: 4 to 64 characters, no control characters (digits are what kiosk keypads offer). */
export const adminPinLength = { min: 4, max: 64 } as const;

const pattern = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** The parts of a stored hash, or why it is not one. */
export function parseAdminPinHash(text: string): AdminPinHash | { problem: string } {
  const match = pattern.exec(text);
  if (!match) return { problem: 'is not an admin PIN hash ($scrypt$ln=…,r=…,p=…$salt$hash); make one with `agentdesk policy hash-pin`' };
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = match[4]!;
  const hash = match[5]!;
  const { ln: lnBounds, r: rBounds, p: pBounds, saltBytes, hashBytes } = adminPinHashBounds;
  if (ln < lnBounds.min || ln > lnBounds.max) return { problem: `has ln=${ln}; AgentDesk accepts ${lnBounds.min} to ${lnBounds.max}` };
  if (r < rBounds.min || r > rBounds.max) return { problem: `has r=${r}; AgentDesk accepts ${rBounds.min} to ${rBounds.max}` };
  if (p < pBounds.min || p > pBounds.max) return { problem: `has p=${p}; AgentDesk accepts ${pBounds.min} to ${pBounds.max}` };
  const saltLength = base64Bytes(salt);
  const hashLength = base64Bytes(hash);
  if (saltLength === undefined || saltLength < saltBytes.min || saltLength > saltBytes.max)
    return { problem: `has a salt that is not ${saltBytes.min} to ${saltBytes.max} bytes of base64` };
  if (hashLength === undefined || hashLength < hashBytes.min || hashLength > hashBytes.max)
    return { problem: `has a hash that is not ${hashBytes.min} to ${hashBytes.max} bytes of base64` };
  return { ln, r, p, salt, hash };
}

/** The bytes unpadded base64 of this length holds, or undefined for an impossible length. */
function base64Bytes(text: string): number | undefined {
  if (text.length % 4 === 1) return undefined;
  return Math.floor((text.length * 3) / 4);
}

/** Why a PIN cannot be used, or undefined. */
export function adminPinProblem(pin: string): string | undefined {
  if (pin.length < adminPinLength.min) return `An admin PIN has at least ${adminPinLength.min} characters.`;
  if (pin.length > adminPinLength.max) return `An admin PIN has at most ${adminPinLength.max} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(pin)) return 'An admin PIN cannot contain control characters (a tab, a line break).';
  return undefined;
}

/**
 * Lockout after wrong PINs: the first `freeTries` wrong tries cost nothing; from then on each wrong
 * try locks the PIN for `firstWaitSeconds`, doubling with each further wrong try, at most
 * `maxWaitSeconds`. A right PIN clears the count. Main keeps (and saves) the count.
 */
export const adminPinLockout = { freeTries: 5, firstWaitSeconds: 30, maxWaitSeconds: 3_600 } as const;

/** The wait after `failures` wrong tries in a row (0 while they are free). */
export function adminPinWaitSeconds(failures: number): number {
  if (failures < adminPinLockout.freeTries) return 0;
  const doublings = Math.min(failures - adminPinLockout.freeTries, 20);
  return Math.min(adminPinLockout.firstWaitSeconds * 2 ** doublings, adminPinLockout.maxWaitSeconds);
}
