import { z } from 'zod';
import type { SecretStore } from '../secrets/secret-store';

/** The tokens of one Talkie server, kept only in main. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires, epoch milliseconds (absent: the AS did not say). */
  expiresAt?: number;
  /** The scope the AS granted, space-separated, when it said. */
  scope?: string;
  /**
   * OAuth: the Authorization Server's issuer identifier (manifest `auth.oauth.issuer`, as its
   * metadata states it); refresh and revocation discover the AS from it. A pasted development
   * token has no AS: the caller puts the Talkie server origin here.
   */
  issuer: string;
  /** The client_id the tokens were issued to (refresh and revocation use it again). */
  clientId: string;
}

export interface TokenStore {
  load(serverId: string): Promise<TokenSet | undefined>;
  save(serverId: string, tokens: TokenSet): Promise<void>;
  clear(serverId: string): Promise<void>;
}

const tokenSetSchema = z.strictObject({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().int().nonnegative().optional(),
  scope: z.string().optional(),
  issuer: z.string().min(1),
  clientId: z.string().min(1),
});

/** The keychain account of a server's tokens: one JSON secret per serverId. */
export function tokenAccount(serverId: string): string {
  if (serverId.length === 0) throw new TypeError('serverId must not be empty.');
  return `talkie:${serverId}`;
}

/**
 * Tokens as one JSON secret per server in a SecretStore. A stored value that is not a valid
 * TokenSet (an older format, a damaged entry) reads as "not signed in" and is removed, so the
 * user is asked to sign in again instead of seeing an error.
 *
 * What was read or saved in this session is also kept in memory, so a keychain that gets locked
 * mid-session (`keychain_locked`) does not sign the user out: tokens already known keep working,
 * and a save the keychain refused (a rotated refresh token above all) fails with the keychain's
 * error but is not lost: it is kept for the session and written on the next read once the
 * keychain is unlocked. Nothing ever goes to disk outside the keychain.
 */
export function createTokenStore(secrets: SecretStore): TokenStore {
  const session = new Map<string, { tokens: TokenSet; saved: boolean }>();
  return {
    async load(serverId) {
      const account = tokenAccount(serverId);
      const known = session.get(serverId);
      if (known) {
        if (!known.saved) {
          // Best effort: the keychain may be unlocked again by now.
          await secrets.set(account, JSON.stringify(known.tokens)).then(
            () => void (known.saved = true),
            () => undefined,
          );
        }
        return known.tokens;
      }
      const text = await secrets.get(account);
      if (text === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      const parsed = tokenSetSchema.safeParse(value);
      if (parsed.success) {
        const tokens = stripUndefined(parsed.data);
        session.set(serverId, { tokens, saved: true });
        return tokens;
      }
      await secrets.delete(account);
      return undefined;
    },
    async save(serverId, tokens) {
      // parse() names the offending field only; zod issues do not echo string values.
      const checked = tokenSetSchema.parse(stripUndefined(tokens));
      const entry = { tokens: stripUndefined(checked), saved: false };
      session.set(serverId, entry);
      await secrets.set(tokenAccount(serverId), JSON.stringify(checked));
      entry.saved = true;
    },
    async clear(serverId) {
      // A refused delete leaves the sign-in where it was, in the keychain and here.
      await secrets.delete(tokenAccount(serverId));
      session.delete(serverId);
    },
  };
}

function stripUndefined(tokens: TokenSet): TokenSet {
  return Object.fromEntries(Object.entries(tokens).filter(([, value]) => value !== undefined)) as unknown as TokenSet;
}
