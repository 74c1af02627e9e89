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

describe('TokenStore', () => {
  it('keeps one JSON secret per server under talkie:<serverId>', async () => {
    const secrets = memorySecretStore();
    const store = createTokenStore(secrets);
    await store.save('crm.example.com', tokens);
    await store.save('other.example', { accessToken: 'access-2', issuer: 'https://other.example', clientId: 'c' });

    expect(tokenAccount('crm.example.com')).toBe('talkie:crm.example.com');
    expect(JSON.parse((await secrets.get('talkie:crm.example.com'))!)).toEqual(tokens);
    expect(await store.load('crm.example.com')).toEqual(tokens);
    expect(await store.load('other.example')).toEqual({ accessToken: 'access-2', issuer: 'https://other.example', clientId: 'c' });
    expect(await store.load('unknown.example')).toBeUndefined();

    await store.clear('crm.example.com');
    expect(await store.load('crm.example.com')).toBeUndefined();
    expect(await secrets.get('talkie:crm.example.com')).toBeUndefined();
    expect(await store.load('other.example')).toBeDefined();
  });

  it('reads a damaged entry as "not signed in" and removes it', async () => {
    const secrets = memorySecretStore();
    const store = createTokenStore(secrets);
    for (const damaged of ['not json', '{"accessToken":""}', JSON.stringify({ ...tokens, expiresAt: 'soon' })]) {
      await secrets.set('talkie:s', damaged);
      expect(await store.load('s')).toBeUndefined();
      expect(await secrets.get('talkie:s')).toBeUndefined();
    }
  });

  it('refuses to save an incomplete token set, without echoing the token in the error', async () => {
    const store = createTokenStore(memorySecretStore());
    const error = await store.save('s', { accessToken: 'secret-access-token', issuer: '', clientId: 'c' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('secret-access-token');
    expect(await store.load('s')).toBeUndefined();
    await expect(store.load('')).rejects.toThrow(TypeError);
  });
});

describe('acceptsPastedToken (Talkie §2.2)', () => {
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
