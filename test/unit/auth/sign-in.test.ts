import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessToken,
  AuthError,
  callbackPath,
  completePrivateUseRedirect,
  signIn,
  signOut,
  type AuthErrorCode,
  type FetchLike,
  type OAuthDeps,
  type SignInDeps,
} from '../../../src/main/auth/oauth-client';
import { createTokenStore, tokenAccount, type TokenStore } from '../../../src/main/auth/token-store';
import { startDemoAuthorizationServer, type DemoAuthorizationServer } from '../../../src/main/demo/authorization-server';
import { memorySecretStore, type SecretStore } from '../../../src/main/secrets/secret-store';
import { memoryLogger } from '../../support/logger';
import { browse } from '../../support/oauth-browser';

/**
 * The whole Authorization Code + PKCE flow against a real oidc-provider on 127.0.0.1.
 * The "browser" is plain fetch with redirect: 'manual' and a cookie jar: it follows the AS's
 * redirects (auto login and consent of the demo user) until the redirect to AgentDesk's callback.
 */

/** The sample Client ID Metadata Document AgentDesk ships: the demo AS registers exactly it. */
const clientDocument = JSON.parse(readFileSync(new URL('../../../resources/oauth/client.json', import.meta.url), 'utf8')) as {
  client_id: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  grant_types: string[];
  response_types: string[];
  scope: string;
};
const clientId = clientDocument.client_id;
const serverIssuer = 'https://talkie.example';
let as: DemoAuthorizationServer;

beforeAll(async () => {
  as = await startDemoAuthorizationServer({ clientId, redirectUris: [...clientDocument.redirect_uris, 'cz.firemnicrm.talkie:/oauth/callback'] });
});

describe('the sample Client ID Metadata Document (resources/oauth/client.json)', () => {
  it('describes a public native client with loopback and private-use redirects on the callback path and the Talkie scopes', () => {
    expect(new URL(clientDocument.client_id).protocol).toBe('https:');
    expect(clientDocument.client_id).toMatch(/\/oauth\/client\.json$/);
    expect(clientDocument.token_endpoint_auth_method).toBe('none');
    expect(clientDocument.grant_types.sort()).toEqual(['authorization_code', 'refresh_token']);
    expect(clientDocument.response_types).toEqual(['code']);
    expect(clientDocument.scope.split(' ').sort()).toEqual(['offline_access', 'talkie']);
    // The loopback IP literal without a port (RFC 8252 §7.3: any port matches) and AgentDesk's
    // private-use scheme (RFC 8252 §7.1), both on our callback path.
    expect(clientDocument.redirect_uris).toEqual(['http://127.0.0.1/oauth/callback', 'dev.agentdesk.app:/oauth/callback']);
    for (const uri of clientDocument.redirect_uris) expect(new URL(uri).pathname).toBe(callbackPath);
  });
});
afterAll(async () => {
  await as?.close();
});

let serverCount = 0;
function setup(overrides: Partial<SignInDeps> & { openBrowser?: SignInDeps['openBrowser'] } = {}) {
  const secrets: SecretStore = memorySecretStore();
  const tokens: TokenStore = createTokenStore(secrets);
  const opened: string[] = [];
  const deps: SignInDeps = {
    fetch: globalThis.fetch,
    tokens,
    allowLocalHttp: true,
    config: { clientId, redirect: 'loopback' },
    openBrowser: async (url) => {
      opened.push(url);
      await deliver(await browse(url));
    },
    ...overrides,
  };
  serverCount += 1;
  const request = { serverId: `demo-${serverCount}`, issuer: serverIssuer, authIssuer: as.issuer };
  return { secrets, tokens, deps, request, opened };
}

/** The browser loads the callback URL; checks AgentDesk's answer page. */
async function deliver(callback: URL | string): Promise<void> {
  const response = await fetch(callback, { redirect: 'manual' });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(body).toContain('You can close this window and return to AgentDesk.');
  expect(body).not.toMatch(/<script/i);
  expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
}

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

async function expectCode(promise: Promise<unknown>, code: AuthErrorCode): Promise<void> {
  expect((await rejection(promise)).code).toBe(code);
}

/** A refresh grant straight at the token endpoint, outside the client under test. */
async function tryRefresh(refreshToken: string): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  const json = (await response.json()) as { error?: string };
  return json.error === undefined ? { status: response.status } : { status: response.status, error: json.error };
}

async function refusesConnections(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

describe('signIn (Authorization Code + PKCE S256, loopback redirect)', () => {
  it('discovers the AS, sends PKCE S256 and a state, checks iss, exchanges the code and saves the tokens', async () => {
    const { deps, request, tokens, secrets } = setup();
    let seen: { authorization: URL; callback: URL } | undefined;
    deps.openBrowser = async (url) => {
      const callback = await browse(url);
      seen = { authorization: new URL(url), callback };
      await deliver(callback);
    };

    const result = await signIn(request, deps);

    const authorization = seen!.authorization.searchParams;
    expect(seen!.authorization.origin).toBe(as.issuer);
    expect(authorization.get('response_type')).toBe('code');
    expect(authorization.get('client_id')).toBe(clientId);
    expect(authorization.get('code_challenge_method')).toBe('S256');
    expect(authorization.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization.get('scope')).toBe('talkie offline_access');
    expect(authorization.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    const state = authorization.get('state');
    expect(state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The AS answered with our state and its own issuer (RFC 9207).
    expect(seen!.callback.searchParams.get('state')).toBe(state);
    expect(seen!.callback.searchParams.get('iss')).toBe(as.issuer);

    expect(result.issuer).toBe(as.issuer);
    expect(result.clientId).toBe(clientId);
    expect(result.refreshToken).toEqual(expect.any(String));
    expect(result.scope?.split(' ').sort()).toEqual(['offline_access', 'talkie']);
    expect(result.expiresAt).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(await tokens.load(request)).toEqual(result);
    expect(JSON.parse((await secrets.get(tokenAccount(request))) ?? '{}')).toEqual(result);
    expect(await as.verifyAccessToken(result.accessToken)).toEqual({ id: 'demo', name: 'Demo User', email: 'demo@example.invalid' });
    expect(await accessToken(request, deps)).toBe(result.accessToken);

    // One callback only: the listener is gone, a replayed callback reaches nothing.
    expect(await refusesConnections(seen!.callback.href)).toBe(true);
  });

  it('is refused by the AS without PKCE (the demo AS requires S256)', async () => {
    const redirectUri = 'http://127.0.0.1:9/oauth/callback';
    const url = new URL(`${as.issuer}/auth`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'talkie', state: 's' }).toString();
    const callback = await browse(url.href);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('ignores callbacks with a wrong state or path (answered, not counted) and completes with the right one afterwards', async () => {
    const log = memoryLogger();
    const { deps, request, tokens } = setup({ log });
    let genuine = '';
    deps.openBrowser = async (url) => {
      const callback = await browse(url);
      genuine = callback.href;
      // Another user on this computer saw the port in /proc/net/tcp and answers first: with a
      // made-up state (and the AS's own code, which it cannot know), and on another path.
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state-value');
      forged.searchParams.set('code', 'forged-code');
      const wrongState = await fetch(forged, { redirect: 'manual' });
      expect(wrongState.status).toBe(400);
      expect(await wrongState.text()).not.toContain('return to AgentDesk');
      const wrongPath = new URL(callback);
      wrongPath.pathname = `${callbackPath}/x`;
      expect((await fetch(wrongPath, { redirect: 'manual' })).status).toBe(404);
      // Then the browser arrives with the real answer.
      await deliver(callback);
    };
    const result = await signIn(request, deps);
    expect(await tokens.load(request)).toEqual(result);
    expect(await as.verifyAccessToken(result.accessToken)).toMatchObject({ id: 'demo' });
    expect(await refusesConnections(genuine)).toBe(true);
    expect(log.lines).toEqual([expect.stringContaining('it was ignored')]);
    expect(log.lines.join('\n')).not.toContain('forged');
  });

  it('keeps waiting after a wrong-state callback: without the right one, the sign-in times out and saves nothing', async () => {
    let redirectUri = '';
    const { deps, request, tokens } = setup({
      timeoutMs: 500,
      openBrowser: async (url) => {
        const params = new URL(url).searchParams;
        redirectUri = params.get('redirect_uri')!;
        const forged = new URL(redirectUri);
        forged.search = new URLSearchParams({ code: 'forged-code', state: 'forged-state-value', iss: as.issuer }).toString();
        expect((await fetch(forged)).status).toBe(400);
      },
    });
    await expectCode(signIn(request, deps), 'timeout');
    expect(await tokens.load(request)).toBeUndefined();
    expect(await refusesConnections(redirectUri)).toBe(true);
  });

  it('uses exactly the registered callback path: the AS refuses a loopback redirect_uri with any other path (so no random segment can be added)', async () => {
    for (const [path, allowed] of [
      [callbackPath, true],
      [`${callbackPath}/Zk3q9xW2`, false],
    ] as const) {
      const url = new URL(`${as.issuer}/auth`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: `http://127.0.0.1:9${path}`,
        scope: 'talkie',
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString();
      const response = await fetch(url, { redirect: 'manual' });
      const body = await response.text();
      if (allowed) expect(response.status).toBe(303);
      else expect({ status: response.status, body }).toEqual({ status: 400, body: expect.stringContaining('invalid_redirect_uri') });
    }
  });

  it('rejects an iss that is not the AS (iss_mismatch), and a missing iss when the AS promises one', async () => {
    for (const iss of ['https://evil.example', undefined]) {
      const { deps, request, tokens } = setup();
      deps.openBrowser = async (url) => {
        const callback = await browse(url);
        if (iss === undefined) callback.searchParams.delete('iss');
        else callback.searchParams.set('iss', iss);
        await deliver(callback);
      };
      await expectCode(signIn(request, deps), 'iss_mismatch');
      expect(await tokens.load(request)).toBeUndefined();
    }
  });

  it('reports an error response of the AS as access_denied', async () => {
    const { deps, request } = setup();
    deps.openBrowser = async (url) => {
      const params = new URL(url).searchParams;
      const callback = new URL(params.get('redirect_uri')!);
      callback.search = new URLSearchParams({ error: 'access_denied', state: params.get('state')!, iss: as.issuer }).toString();
      await deliver(callback);
    };
    const error = await rejection(signIn(request, deps));
    expect(error.code).toBe('access_denied');
    expect(error.message).toContain('access_denied');
  });

  it('times out when no callback arrives, and closes the listener', async () => {
    let redirectUri = '';
    const { deps, request } = setup({
      timeoutMs: 300,
      openBrowser: async (url) => void (redirectUri = new URL(url).searchParams.get('redirect_uri')!),
    });
    await expectCode(signIn(request, deps), 'timeout');
    expect(redirectUri).not.toBe('');
    expect(await refusesConnections(redirectUri)).toBe(true);
  });

  it('is cancelled through its AbortSignal', async () => {
    const controller = new AbortController();
    const { deps, request } = setup({ signal: controller.signal, openBrowser: async () => void setTimeout(() => controller.abort(), 20) });
    await expectCode(signIn(request, deps), 'cancelled');
  });

  it('fails with discovery_failed when the AS is unreachable or http:// is not allowed', async () => {
    const { deps, request } = setup();
    await expectCode(signIn({ ...request, authIssuer: 'http://127.0.0.1:9' }, deps), 'discovery_failed');
    await expectCode(signIn(request, { ...deps, allowLocalHttp: false }), 'discovery_failed');
    await expectCode(signIn({ ...request, authIssuer: 'http://203.0.113.5' }, deps), 'discovery_failed');
  });

  it('tries /.well-known/oauth-authorization-server first and falls back to /.well-known/openid-configuration', async () => {
    const asked: string[] = [];
    const onlyOpenId: FetchLike = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      asked.push(new URL(url).pathname);
      if (url.includes('/.well-known/oauth-authorization-server')) return new Response('not here', { status: 404 });
      return fetch(input, init);
    };
    const { deps, request } = setup({ fetch: onlyOpenId });
    await signIn(request, deps);
    expect(asked.slice(0, 2)).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  });
});

describe('signIn with the private-use scheme redirect', () => {
  it('completes when the OS hands the redirect to completePrivateUseRedirect, exactly once', async () => {
    let delivered = '';
    const { deps, request, tokens } = setup({
      config: { clientId, redirect: { privateUseScheme: 'cz.firemnicrm.talkie' } },
      openBrowser: async (url) => {
        expect(new URL(url).searchParams.get('redirect_uri')).toBe('cz.firemnicrm.talkie:/oauth/callback');
        const callback = await browse(url);
        delivered = callback.href;
        expect(completePrivateUseRedirect(callback.href.replace('state=', 'state=x'))).toBe(false); // unknown state: nothing
        expect(completePrivateUseRedirect(callback.href)).toBe(true);
      },
    });
    const result = await signIn(request, deps);
    expect(await tokens.load(request)).toEqual(result);
    expect(completePrivateUseRedirect(delivered)).toBe(false); // replay completes nothing
  });
});

describe('accessToken and refresh', () => {
  it('refreshes once on forceRefresh; the rotated-out refresh token is refused; reuse ends the sign-in', async () => {
    const { deps, request, tokens } = setup();
    const first = await signIn(request, deps);

    const refreshed = await accessToken(request, deps, { forceRefresh: true });
    expect(refreshed).not.toBe(first.accessToken);
    const second = (await tokens.load(request))!;
    expect(second.accessToken).toBe(refreshed);
    expect(second.refreshToken).toEqual(expect.any(String));
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await as.verifyAccessToken(refreshed)).toMatchObject({ id: 'demo' });
    // Not expired and not forced: no refresh.
    expect(await accessToken(request, deps)).toBe(refreshed);
    expect((await tokens.load(request))!.refreshToken).toBe(second.refreshToken);

    // Rotation: the old refresh token no longer works, and its reuse revokes the whole grant.
    expect(await tryRefresh(first.refreshToken!)).toEqual({ status: 400, error: 'invalid_grant' });
    const error = await rejection(accessToken(request, deps, { forceRefresh: true }));
    expect(error.code).toBe('sign_in_required');
    expect(await tokens.load(request)).toBeUndefined();
  });

  it('refreshes an expired access token by itself, and concurrent callers share one refresh', async () => {
    const { deps, request, tokens } = setup();
    const first = await signIn(request, deps);
    const later: OAuthDeps = { ...deps, now: () => Date.now() + 2 * 3600_000 };
    const [a, b] = await Promise.all([accessToken(request, later), accessToken(request, later)]);
    expect(a).toBe(b);
    expect(a).not.toBe(first.accessToken);
    expect((await tokens.load(request))!.accessToken).toBe(a);
    expect(await as.verifyAccessToken(a)).toMatchObject({ id: 'demo' });
  });

  it('asks to sign in when there are no tokens, or no refresh token after a 401', async () => {
    const { deps, tokens } = setup();
    await expectCode(accessToken('nobody', deps), 'sign_in_required');
    await tokens.save('pasted', { accessToken: 'dev-token', issuer: serverIssuer, clientId: 'pasted' });
    expect(await accessToken('pasted', deps)).toBe('dev-token');
    await expectCode(accessToken('pasted', deps, { forceRefresh: true }), 'sign_in_required');
    expect(await tokens.load('pasted')).toBeUndefined();
  });

  it('keeps the tokens when the AS cannot be reached (not a sign-out)', async () => {
    const { deps, request, tokens } = setup();
    await signIn(request, deps);
    const offline: OAuthDeps = { ...deps, fetch: async () => Promise.reject(new TypeError('fetch failed')) };
    await expectCode(accessToken(request, offline, { forceRefresh: true }), 'discovery_failed');
    expect(await tokens.load(request)).toBeDefined();
  });
});

describe('signOut', () => {
  it('revokes the refresh and access tokens at the AS, then forgets them', async () => {
    const { deps, request, tokens } = setup();
    const signedIn = await signIn(request, deps);
    expect(await as.verifyAccessToken(signedIn.accessToken)).toBeDefined();

    await signOut(request, deps);

    expect(await tokens.load(request)).toBeUndefined();
    expect(await as.verifyAccessToken(signedIn.accessToken)).toBeUndefined();
    expect(await tryRefresh(signedIn.refreshToken!)).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('forgets the tokens even when the AS cannot be reached, and logs no token', async () => {
    const { deps, request, tokens } = setup();
    const signedIn = await signIn(request, deps);
    const log = memoryLogger();
    await signOut(request, { ...deps, log, fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    expect(await tokens.load(request)).toBeUndefined();
    expect(log.lines).toHaveLength(1);
    expect(log.lines.join('\n')).not.toContain(signedIn.accessToken);
    expect(log.lines.join('\n')).not.toContain(signedIn.refreshToken!);
    // Not revoked: the token is still alive at the AS.
    expect(await as.verifyAccessToken(signedIn.accessToken)).toBeDefined();
  });
});
