import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSignInTimeoutMs } from '../../../src/main/auth/oauth-client';
import { eventChannel } from '../../../src/shared/ipc/contract';
import { defaultOAuthClientId } from '../../../src/main/auth/talkie-oauth';
import { startDemoAuthorizationServer, type DemoAuthorizationServer } from '../../../src/main/demo/authorization-server';
import { startDemo } from '../../../src/main/demo/start-demo';
import { json, manifestFor, startServer } from '../../support/http-server';
import { browse } from '../../support/oauth-browser';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('signing in to a Talkie server through the app services', () => {
  it('signs in with OAuth + PKCE in the browser, uses the token only in main, and revokes it on sign-out', async () => {
    const as: DemoAuthorizationServer = await startDemoAuthorizationServer({ clientId: defaultOAuthClientId });
    servers.push(as);
    const seen: string[] = [];
    const talkie = await startServer((req, res) => {
      const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
      if (req.url === '/.well-known/talkie.json')
        return json(res, 200, manifestFor(origin, { auth: { oauth: { issuer: as.issuer, scopes: ['talkie', 'offline_access'] } } }));
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      seen.push(token);
      void as
        .verifyAccessToken(token)
        .then((user) => (user ? json(res, 200, { threads: [] }) : json(res, 401, { error: { code: 'unauthorized', message: 'Sign in', retryable: false } })));
    });

    const app = await startTestServices(await tempDir(), {
      openExternal: async (url) => {
        // The "system browser": the AS logs the demo user in and redirects to the loopback callback.
        const callback = await browse(url);
        await fetch(callback);
      },
    });
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await app.call('agents.add', { address: talkie.url });
    const agentId = added.ok ? added.value.agent.id : '';
    expect(await app.call('talkie.connect', { agentId })).toMatchObject({ ok: true, value: { signedIn: false, signIn: { oauth: true, pastedToken: false } } });
    expect(await app.call('talkie.threads', { agentId })).toMatchObject({ ok: false, error: { code: 'sign_in_required' } });

    const signedIn = await app.call('talkie.signIn', { agentId });
    expect(signedIn).toMatchObject({ ok: true, value: { signedIn: true } });
    expect(await app.call('talkie.threads', { agentId })).toEqual({ ok: true, value: { threads: [] } });
    const token = seen.at(-1)!;
    expect(await as.verifyAccessToken(token)).toMatchObject({ id: 'demo' });
    expect(JSON.stringify(signedIn)).not.toContain(token);

    expect(await app.call('talkie.signOut', { agentId })).toMatchObject({ ok: true, value: { signedIn: false } });
    expect(await as.verifyAccessToken(token)).toBeUndefined();
  });

  it('signs in to the complete demo (`agentdesk demo`) through its own Authorization Server', async () => {
    const demo = await startDemo();
    servers.push(demo);
    const app = await startTestServices(await tempDir(), {
      openExternal: async (url) => {
        await fetch(await browse(url));
      },
    });
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await app.call('agents.add', { address: demo.baseUrl });
    const agentId = added.ok ? added.value.agent.id : '';
    expect(await app.call('talkie.connect', { agentId })).toMatchObject({ ok: true, value: { name: 'AgentDesk demo', signedIn: false, problems: [] } });
    expect(await app.call('talkie.signIn', { agentId })).toMatchObject({ ok: true, value: { signedIn: true } });
    expect(await app.call('talkie.status', { agentId })).toMatchObject({ ok: true, value: { user: { name: expect.any(String) } } });
  });

  it('shows the waiting sign-in its link and time limit, says when the browser did not open, opens it again, and Cancel stops the wait', async () => {
    const as: DemoAuthorizationServer = await startDemoAuthorizationServer({ clientId: defaultOAuthClientId });
    servers.push(as);
    const talkie = await startServer((req, res) => {
      const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
      if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(origin, { auth: { oauth: { issuer: as.issuer, scopes: ['talkie'] } } }));
      json(res, 401, { error: { code: 'unauthorized', message: 'Sign in', retryable: false } });
    });
    const opened: string[] = [];
    const app = await startTestServices(await tempDir(), {
      openExternal: async (url) => {
        opened.push(url);
        throw new Error('xdg-open: no method available for opening the link');
      },
    });
    const links: unknown[] = [];
    app.events.connect((channel, payload) => {
      if (channel === eventChannel('talkie.signInLink')) links.push(payload);
    });
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await app.call('agents.add', { address: talkie.url });
    const agentId = added.ok ? added.value.agent.id : '';
    await app.call('talkie.connect', { agentId });
    expect(await app.call('talkie.openSignInLink', { agentId })).toEqual({ ok: true, value: { opened: false } });

    const signingIn = app.call('talkie.signIn', { agentId });
    await vi.waitFor(() => expect(links).toHaveLength(2));
    const url = opened[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*code_challenge=/);
    expect(links).toEqual([
      { agentId, url, timeoutMs: defaultSignInTimeoutMs },
      { agentId, url, timeoutMs: defaultSignInTimeoutMs, openError: 'xdg-open: no method available for opening the link' },
    ]);
    // Still waiting: Open again tries the same link.
    expect(await app.call('talkie.openSignInLink', { agentId })).toMatchObject({ ok: false, error: { code: 'no_browser' } });
    expect(opened).toEqual([url, url]);

    expect(await app.call('talkie.cancelSignIn', { agentId })).toEqual({ ok: true, value: { cancelled: true } });
    expect(await signingIn).toMatchObject({ ok: false, error: { message: 'Sign-in was cancelled.' } });
    expect(await app.call('talkie.cancelSignIn', { agentId })).toEqual({ ok: true, value: { cancelled: false } });
  });
});
