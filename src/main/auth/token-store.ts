import { z } from 'zod';
import { originOf, type TalkieServerKey } from '../../shared/talkie/manifest';
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

/**
 * What tokens are kept under: a Talkie server (its serverId at its origin, the one origin its token
 * may be sent to, Talkie 1 §2.1), or an account of plain AG-UI's own (`agui:<endpoint>`). An
 * Authorization Server on another origin takes no part in the key: the token it issues for a server
 * is that server's, sent only to its origin, and refresh and revocation reach the AS through the
 * issuer saved with the tokens (`TokenSet.issuer`), never through a manifest read later.
 */
export type TokenKey = TalkieServerKey | string;

export interface TokenStore {
  load(key: TokenKey): Promise<TokenSet | undefined>;
  save(key: TokenKey, tokens: TokenSet): Promise<void>;
  clear(key: TokenKey): Promise<void>;
}

const tokenSetSchema = z.strictObject({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().int().nonnegative().optional(),
  scope: z.string().optional(),
  issuer: z.string().min(1),
  clientId: z.string().min(1),
});

/**
 * The keychain account of a key's tokens: `talkie@<origin>/<serverId>` for a Talkie server (an origin
 * has no `/` after its `//`, so no two servers share one), `talkie:<key>` for a plain AG-UI account.
 */
export function tokenAccount(key: TokenKey): string {
  if (typeof key === 'string') {
    if (key.length === 0) throw new TypeError('A token key must not be empty.');
    return `talkie:${key}`;
  }
  if (key.serverId.length === 0) throw new TypeError('serverId must not be empty.');
  if (originOf(key.issuer) !== key.issuer) throw new TypeError('A Talkie server is keyed by its origin (https://host[:port]).');
  return `talkie@${key.issuer}/${key.serverId}`;
}

/**
 * Where a Talkie server's tokens were kept before they were keyed by origin: `talkie:<serverId>`
 * (never for a serverId in plain AG-UI's `agui:` namespace, which shares the prefix).
 */
function legacyAccount(key: TalkieServerKey): string | undefined {
  return key.serverId.startsWith('agui:') ? undefined : `talkie:${key.serverId}`;
}

/**
 * Tokens as one JSON secret per key in a SecretStore. A stored value that is not a valid TokenSet
 * (an older format, a damaged entry) reads as "not signed in" and is removed, so the user is asked
 * to sign in again instead of seeing an error.
 *
 * A Talkie server's tokens saved before they were keyed by origin (`talkie:<serverId>`) did not record
 * the server's origin. They are taken over (moved to the server's account) only by the server on the
 * origin of the entry's own `issuer`: a pasted token's is the origin it was pasted for, an OAuth
 * token's the origin of the AS that issued it, so it goes to no origin it was not already meant for.
 * For any other origin the entry is not used (it stays where it is); a server whose AS is on another
 * origin therefore asks its user to sign in once more.
 *
 * What was read or saved in this session is also kept in memory, so a keychain that gets locked
 * mid-session (`keychain_locked`) does not sign the user out: tokens already known keep working,
 * and a save the keychain refused (a rotated refresh token above all) fails with the keychain's
 * error but is not lost: it is kept for the session and written on the next read once the
 * keychain is unlocked. Nothing ever goes to disk outside the keychain.
 */
export function createTokenStore(secrets: SecretStore): TokenStore {
  const session = new Map<string, { tokens: TokenSet; saved: boolean }>();

  /** The entry at `account`: its tokens, or undefined (none, or a damaged one, which is removed). */
  const read = async (account: string): Promise<TokenSet | undefined> => {
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
  };

  const takeOverLegacy = async (key: TalkieServerKey, account: string): Promise<TokenSet | undefined> => {
    const legacy = legacyAccount(key);
    if (legacy === undefined) return undefined;
    const tokens = await read(legacy);
    if (tokens === undefined || originOf(tokens.issuer) !== key.issuer) return undefined;
    await secrets.set(account, JSON.stringify(tokens));
    await secrets.delete(legacy);
    return tokens;
  };

  return {
    async load(key) {
      const account = tokenAccount(key);
      const known = session.get(account);
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
      const tokens = (await read(account)) ?? (typeof key === 'string' ? undefined : await takeOverLegacy(key, account));
      if (tokens) session.set(account, { tokens, saved: true });
      return tokens;
    },
    async save(key, tokens) {
      const account = tokenAccount(key);
      // parse() names the offending field only; zod issues do not echo string values.
      const checked = tokenSetSchema.parse(stripUndefined(tokens));
      const entry = { tokens: stripUndefined(checked), saved: false };
      session.set(account, entry);
      await secrets.set(account, JSON.stringify(checked));
      entry.saved = true;
    },
    async clear(key) {
      const account = tokenAccount(key);
      // A refused delete leaves the sign-in where it was, in the keychain and here.
      await secrets.delete(account);
      session.delete(account);
    },
  };
}

function stripUndefined(tokens: TokenSet): TokenSet {
  return Object.fromEntries(Object.entries(tokens).filter(([, value]) => value !== undefined)) as unknown as TokenSet;
}
