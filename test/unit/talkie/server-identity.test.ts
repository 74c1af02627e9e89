import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultOAuthClientId } from '../../../src/main/auth/talkie-oauth';
import { startDemoAuthorizationServer, type DemoAuthorizationServer } from '../../../src/main/demo/authorization-server';
import { memorySecretStore } from '../../../src/main/secrets/secret-store';
import { voiceConsentGiven } from '../../../src/shared/settings/settings';
import type { ServerView } from '../../../src/shared/talkie/ipc-schemas';
import { json, manifestFor, startServer, type TestServer } from '../../support/http-server';
import { browse } from '../../support/oauth-browser';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Talkie 1 §2.1: a bearer token goes to no origin but its server's. The serverId is public in every
 * manifest, so a server on another origin (here another port of 127.0.0.1) can copy it, with the
 * name, the sign-in server and the endpoints; it must get nothing the user gave the real server.
 */
const tempDir = useTempDirs();
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((server) => server.close()));
});

const serverId = 'crm.example.com';
const signalingHosts = ['api.openai.com'];
/**
 * The real server's manifest on `origin`; `full`: with an endpoint on another origin (to accept) and
 * voice. A copy is the same manifest on its own origin: its serverId, name, AS and endpoints.
 */
const manifestOf = (origin: string, oauthIssuer: string, full: boolean) =>
  manifestFor(origin, {
    serverId,
    name: 'Example CRM',
    auth: { oauth: { issuer: oauthIssuer, scopes: ['talkie', 'offline_access'] }, token: {} },
    ...(full
      ? {
          endpoints: {
            ...manifestFor(origin).endpoints,
            voiceSessions: '/voice/sessions',
            voiceTool: '/voice/sessions/{voiceSessionId}/tools/{name}',
            voiceTranscript: '/voice/sessions/{voiceSessionId}/transcript',
            voiceUsage: 'https://usage.example.net/voice/{voiceSessionId}',
          },
          capabilities: { voice: { transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts } },
        }
      : {}),
  });

/** A Talkie server whose threads answer only a token `accepts` takes. */
function talkieServer(oauthIssuer: string, accepts: (token: string) => Promise<boolean>, full = true) {
  return startServer((req: IncomingMessage, res: ServerResponse, server: TestServer) => {
    if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestOf(server.origin, oauthIssuer, full));
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    void accepts(token).then((ok) =>
      ok ? json(res, 200, { threads: [] }) : json(res, 401, { error: { code: 'unauthorized', message: 'Sign in', retryable: false } }),
    );
  });
}

async function addAgent(app: TestServices, url: string): Promise<string> {
  const added = await app.call('agents.add', { address: url });
  if (!added.ok) throw new Error(added.error.message);
  return added.value.agent.id;
}

async function viewOf(app: TestServices, agentId: string): Promise<ServerView> {
  const connected = await app.call('talkie.connect', { agentId });
  if (!connected.ok) throw new Error(connected.error.message);
  return connected.value;
}

const authorizations = (server: TestServer) => server.requests.filter((request) => request.authorization !== undefined);

describe('a Talkie server on another origin that copies a known serverId', () => {
  it('gets no Authorization header, no endpoint approval and no voice consent, is shown as a different server, and the real server keeps its token', async () => {
    const as: DemoAuthorizationServer = await startDemoAuthorizationServer({ clientId: defaultOAuthClientId });
    closing.push(as);
    const accepts = async (token: string) => (await as.verifyAccessToken(token)) !== undefined;
    const real = await talkieServer(as.issuer, accepts);
    // The copy even names the real server's sign-in server: the browser would sign the user in there.
    const copy = await talkieServer(as.issuer, accepts);
    const app = await startTestServices(await tempDir(), { openExternal: async (url) => void (await fetch(await browse(url))) });
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });

    // The user adds the real server, accepts its address elsewhere, signs in and agrees to its voice calls.
    const realId = await addAgent(app, real.url);
    const realView = await viewOf(app, realId);
    expect(realView).toMatchObject({ serverId, issuer: real.origin, endpointsAccepted: false, voice: { offered: true, signalingHosts } });
    expect(await app.call('talkie.acceptEndpoints', { agentId: realId })).toMatchObject({ ok: true, value: { endpointsAccepted: true } });
    expect(await app.call('talkie.signIn', { agentId: realId })).toMatchObject({ ok: true, value: { signedIn: true } });
    expect(await app.call('talkie.threads', { agentId: realId })).toEqual({ ok: true, value: { threads: [] } });
    const token = authorizations(real).at(-1)?.authorization;
    expect(token).toMatch(/^Bearer ./);

    // Then the copy is added: its own entry, its own origin, nothing the user gave the real server.
    const copyId = await addAgent(app, copy.url);
    expect(copyId).not.toBe(realId);
    const agents = await app.call('agents.list', {});
    expect(agents.ok && agents.value.agents.map((agent) => agent.display)).toEqual([real.url, copy.url].map((url) => new URL(url).host));
    const copyView = await viewOf(app, copyId);
    expect(copyView).toMatchObject({ serverId, name: 'Example CRM', issuer: copy.origin, signedIn: false, endpointsAccepted: false });
    expect(await app.call('talkie.threads', { agentId: copyId })).toMatchObject({ ok: false, error: { code: 'endpoints_not_accepted' } });
    // Even with its addresses accepted, it asks to sign in: the real server's token is not sent to it.
    await app.call('talkie.acceptEndpoints', { agentId: copyId });
    expect(await app.call('talkie.threads', { agentId: copyId })).toMatchObject({ ok: false, error: { code: 'sign_in_required' } });
    expect(copy.requests.some((request) => request.path === '/threads')).toBe(true);
    expect(authorizations(copy)).toEqual([]);

    // The real server still gets its token, and is still signed in.
    const before = authorizations(real).length;
    expect(await app.call('talkie.threads', { agentId: realId })).toEqual({ ok: true, value: { threads: [] } });
    expect(
      authorizations(real)
        .slice(before)
        .map((request) => request.authorization),
    ).toEqual([token]);
    expect(await viewOf(app, realId)).toMatchObject({ signedIn: true, endpointsAccepted: true });

    // The user agrees to the real server's voice calls (the call button sends its view's serverId and origin): the copy is asked again.
    expect(await app.call('settings.update', { patch: { voiceConsent: { serverId, issuer: realView.issuer, signalingHosts } } })).toMatchObject({ ok: true });
    const settings = await app.call('settings.get', {});
    expect(settings.ok && voiceConsentGiven(settings.value, realView, signalingHosts)).toBe(true);
    expect(settings.ok && voiceConsentGiven(settings.value, copyView, signalingHosts)).toBe(false);
    await app.dispose();
  });

  it('a token saved before tokens were keyed by origin (under the serverId alone) goes to the server it was saved for, never to the copy', async () => {
    const accepts = async (token: string) => token === 'pasted-secret';
    const real = await talkieServer('https://login.example.com', accepts, false);
    const copy = await talkieServer('https://login.example.com', accepts, false);
    // What an earlier AgentDesk saved for the real server's pasted development token: the keychain account named by the serverId alone.
    const secrets = memorySecretStore();
    await secrets.set(`talkie:${serverId}`, JSON.stringify({ accessToken: 'pasted-secret', issuer: real.origin, clientId: 'development-token' }));
    const app = await startTestServices(await tempDir(), { secrets });
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const copyId = await addAgent(app, copy.url);
    const realId = await addAgent(app, real.url);

    // The copy asks first.
    expect(await viewOf(app, copyId)).toMatchObject({ signedIn: false });
    expect(await app.call('talkie.threads', { agentId: copyId })).toMatchObject({ ok: false, error: { code: 'sign_in_required' } });
    expect(authorizations(copy)).toEqual([]);

    expect(await viewOf(app, realId)).toMatchObject({ signedIn: true });
    expect(await app.call('talkie.threads', { agentId: realId })).toEqual({ ok: true, value: { threads: [] } });
    expect(authorizations(real).map((request) => request.authorization)).toEqual(['Bearer pasted-secret']);
    expect(await app.call('talkie.threads', { agentId: copyId })).toMatchObject({ ok: false, error: { code: 'sign_in_required' } });
    expect(authorizations(copy)).toEqual([]);
    await app.dispose();
  });
});
