import { describe, expect, it } from 'vitest';
import { acceptsPastedToken } from '../../../src/main/auth/oauth-client';
import { createTokenStore, tokenAccount, type TokenSet } from '../../../src/main/auth/token-store';
import { memorySecretStore } from '../../../src/main/secrets/secret-store';

const tokens: TokenSet = {
  accessToken: 'access-1',
  refreshToken: 'refresh-1',
  expiresAt: 1_900_000_000_000,
  scope: 'talkie offline_access',
  issuer: 'https://crm.example.com/oauth',
  clientId: 'https://talkie.firemni-crm.cz/oauth/client.json',
};

const crm = { serverId: 'crm.example.com', issuer: 'https://crm.example.com' };
/** A server elsewhere that copied crm's serverId (it is public in every manifest). */
const copycat = { serverId: 'crm.example.com', issuer: 'http://127.0.0.1:8123' };

describe('TokenStore', () => {
  it('keeps one JSON secret per Talkie server, its serverId at its origin, under talkie@<origin>/<serverId>', async () => {
    const secrets = memorySecretStore();
    const store = createTokenStore(secrets);
    await store.save(crm, tokens);
    await store.save(
      { serverId: 'other.example', issuer: 'https://other.example' },
      { accessToken: 'access-2', issuer: 'https://other.example', clientId: 'c' },
    );

    expect(tokenAccount(crm)).toBe('talkie@https://crm.example.com/crm.example.com');
    expect(JSON.parse((await secrets.get('talkie@https://crm.example.com/crm.example.com'))!)).toEqual(tokens);
    expect(await store.load(crm)).toEqual(tokens);
    expect(await store.load({ serverId: 'other.example', issuer: 'https://other.example' })).toEqual({
      accessToken: 'access-2',
      issuer: 'https://other.example',
      clientId: 'c',
    });
    expect(await store.load({ serverId: 'unknown.example', issuer: 'https://unknown.example' })).toBeUndefined();
    // The same serverId on another origin is another server: it has no tokens (in this session or from the keychain).
    expect(await store.load(copycat)).toBeUndefined();
    expect(await createTokenStore(secrets).load(copycat)).toBeUndefined();

    await store.clear(crm);
    expect(await store.load(crm)).toBeUndefined();
    expect(await secrets.get('talkie@https://crm.example.com/crm.example.com')).toBeUndefined();
    expect(await store.load({ serverId: 'other.example', issuer: 'https://other.example' })).toBeDefined();
  });

  it('keeps a plain AG-UI account (a string key) under talkie:<key>, as before', async () => {
    const secrets = memorySecretStore();
    await createTokenStore(secrets).save('agui:https://agui.example/agent', { accessToken: 'a', issuer: 'https://agui.example', clientId: 'pasted' });
    expect(await secrets.get('talkie:agui:https://agui.example/agent')).toBeDefined();
  });

  it('refuses a Talkie key whose issuer is not an origin, or whose serverId is empty', () => {
    for (const key of [
      { serverId: 's', issuer: 'https://crm.example.com/' },
      { serverId: 's', issuer: 'https://crm.example.com/talkie' },
      { serverId: 's', issuer: 'crm.example.com' },
      { serverId: '', issuer: crm.issuer },
    ]) {
      expect(() => tokenAccount(key)).toThrow(TypeError);
    }
  });

  describe('an entry saved before tokens were keyed by origin (talkie:<serverId>)', () => {
    const pasted: TokenSet = { accessToken: 'pasted-1', issuer: 'https://crm.example.com', clientId: 'development-token' };

    it('is taken over only by the server on the origin the entry names: a pasted token its server, never a copycat', async () => {
      const secrets = memorySecretStore();
      await secrets.set('talkie:crm.example.com', JSON.stringify(pasted));
      const store = createTokenStore(secrets);
      expect(await store.load(copycat)).toBeUndefined();
      // Left where it was for its own server.
      expect(await secrets.get('talkie:crm.example.com')).toBeDefined();
      expect(await store.load(crm)).toEqual(pasted);
      // Moved: under the server's account now, the old one gone, so no later reader finds it there.
      expect(JSON.parse((await secrets.get(tokenAccount(crm)))!)).toEqual(pasted);
      expect(await secrets.get('talkie:crm.example.com')).toBeUndefined();
      expect(await createTokenStore(secrets).load(copycat)).toBeUndefined();
      expect(await createTokenStore(secrets).load(crm)).toEqual(pasted);
    });

    it('an OAuth entry goes to the origin of the AS that issued it; with the AS on another origin it is not used (sign in again)', async () => {
      const secrets = memorySecretStore();
      await secrets.set('talkie:crm.example.com', JSON.stringify(tokens)); // issuer https://crm.example.com/oauth
      await secrets.set('talkie:sso.example.com', JSON.stringify({ ...tokens, issuer: 'https://login.example.com' }));
      const store = createTokenStore(secrets);
      expect(await store.load(copycat)).toBeUndefined();
      expect(await store.load(crm)).toEqual(tokens);
      expect(await store.load({ serverId: 'sso.example.com', issuer: 'https://sso.example.com' })).toBeUndefined();
    });

    it("a serverId in plain AG-UI's agui: namespace never reads an AG-UI account", async () => {
      const secrets = memorySecretStore();
      const store = createTokenStore(secrets);
      await store.save('agui:https://crm.example.com/agent', pasted);
      expect(await store.load({ serverId: 'agui:https://crm.example.com/agent', issuer: 'https://crm.example.com' })).toBeUndefined();
      expect(await store.load('agui:https://crm.example.com/agent')).toEqual(pasted);
    });
  });

  it('reads a damaged entry as "not signed in" and removes it', async () => {
    const secrets = memorySecretStore();
    const store = createTokenStore(secrets);
    for (const damaged of ['not json', '{"accessToken":""}', JSON.stringify({ ...tokens, expiresAt: 'soon' })]) {
      await secrets.set(tokenAccount(crm), damaged);
      expect(await store.load(crm)).toBeUndefined();
      expect(await secrets.get(tokenAccount(crm))).toBeUndefined();
      // The same for one saved before tokens were keyed by origin.
      await secrets.set('talkie:crm.example.com', damaged);
      expect(await store.load(crm)).toBeUndefined();
      expect(await secrets.get('talkie:crm.example.com')).toBeUndefined();
    }
  });

  it('refuses to save an incomplete token set, without echoing the token in the error', async () => {
    const store = createTokenStore(memorySecretStore());
    const error = await store.save(crm, { accessToken: 'secret-access-token', issuer: '', clientId: 'c' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('secret-access-token');
    expect(await store.load(crm)).toBeUndefined();
    await expect(store.load('')).rejects.toThrow(TypeError);
    await expect(store.load({ serverId: '', issuer: crm.issuer })).rejects.toThrow(TypeError);
  });
});

describe('acceptsPastedToken (Talkie 1 §2.2)', () => {
  const table: [string, { token?: unknown } | undefined, boolean, boolean][] = [
    ['manifest offers auth.token, developer switch on', { token: { hint: 'Settings → Devices → New token' } }, true, true],
    ['auth.token without a hint, switch on', { token: {} }, true, true],
    ['manifest offers auth.token, switch off', { token: { hint: 'x' } }, false, false],
    ['no auth.token, switch on', {}, true, false],
    ['no auth at all, switch on', undefined, true, false],
    ['auth.token is null', { token: null }, true, false],
    ['auth.token is not an object', { token: 'yes' }, true, false],
    ['auth.token is true', { token: true }, true, false],
    ['auth.token is an array', { token: [] }, true, false],
  ];
  it.each(table)('%s', (_name, manifestAuth, developerSwitchOn, expected) => {
    expect(acceptsPastedToken(manifestAuth, developerSwitchOn)).toBe(expected);
  });
});
