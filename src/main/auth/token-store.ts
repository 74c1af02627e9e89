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
 */
export function createTokenStore(secrets: SecretStore): TokenStore {
  return {
    async load(serverId) {
      const account = tokenAccount(serverId);
      const text = await secrets.get(account);
      if (text === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      const parsed = tokenSetSchema.safeParse(value);
      if (parsed.success) return stripUndefined(parsed.data);
      await secrets.delete(account);
      return undefined;
    },
    async save(serverId, tokens) {
      // parse() names the offending field only; zod issues do not echo string values.
      const checked = tokenSetSchema.parse(stripUndefined(tokens));
      await secrets.set(tokenAccount(serverId), JSON.stringify(checked));
    },
    async clear(serverId) {
      await secrets.delete(tokenAccount(serverId));
    },
  };
}

function stripUndefined(tokens: TokenSet): TokenSet {
  return Object.fromEntries(Object.entries(tokens).filter(([, value]) => value !== undefined)) as unknown as TokenSet;
}
