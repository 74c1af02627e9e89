import { EventSchemas } from '@ag-ui/core/schemas';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { realtimeCallsPath as providerPath } from '../../../src/main/demo/voice/realtime-provider';
import { demoVoiceSecondsEnv, parseDemoVoiceSeconds, realtimeCallsPath } from '../../../src/main/demo/voice/voice-sessions';
import { validateManifest } from '../../../src/shared/talkie/manifest';
import { interpretEvent } from '../../../src/shared/talkie/run-events';
import { classifyUtterance } from '../../../src/shared/talkie/voice/confirm-words';
import { validateVoiceSession, voiceAvailability } from '../../../src/shared/talkie/voice/voice-session';
import { useTempDirs } from '../../support/temp-dir';
import { api, custom, getThread, runInput, sleep, stream, useDemoServers, waitFor, type Json } from './demo-helpers';
import { postOffer, retryPeerRace, speechAvailable, speechMissing, useAppPeers } from './voice-helpers';

const start = useDemoServers({ timeScale: 0.02, voice: { speechEngines: () => speechAvailable } });
const appPeer = useAppPeers();
const tempDir = useTempDirs();

interface Session {
  voiceSessionId: string;
  threadId: string;
  clientSecret: string;
  signaling: { type: string; url: string };
  expiresAt: string;
  maxSeconds: number;
  warnSeconds: number;
  locale: string;
  labels: Record<string, string>;
  consent: { confirm: string[]; refuse: string[] };
}

const base = '/api/talkie/voice/sessions';
const seg = encodeURIComponent;

async function session(server: TalkieDemoServer, body: Json = {}, token?: string): Promise<Session> {
  const response = await api(server, 'POST', base, { body, ...(token === undefined ? {} : { token }) });
  if (response.status !== 201) throw new Error(`voiceSessions answered ${response.status}: ${JSON.stringify(response.json)}`);
  return response.json as unknown as Session;
}

const tool = (server: TalkieDemoServer, s: Session, name: string, callId: string, args: string, token?: string) =>
  api(server, 'POST', `${base}/${seg(s.voiceSessionId)}/tools/${seg(name)}`, { body: { callId, arguments: args }, ...(token === undefined ? {} : { token }) });
const transcript = (server: TalkieDemoServer, s: Session, body: Json) => api(server, 'POST', `${base}/${seg(s.voiceSessionId)}/transcript`, { body });
const usage = (server: TalkieDemoServer, s: Session, seconds: number, final: boolean) =>
  api(server, 'POST', `${base}/${seg(s.voiceSessionId)}/usage`, { body: { seconds, final } });
const threadSummary = async (server: TalkieDemoServer, threadId: string) =>
  ((await api(server, 'GET', '/api/talkie/threads')).json.threads as Json[]).find((thread) => thread.id === threadId);

describe('demo voice (Talkie 1 §10): manifest and status', () => {
  it('offers voice in a manifest the app itself accepts, and status says voice: true while the speech engines run', async () => {
    const server = await start();
    const json = (await (await fetch(server.manifestUrl)).json()) as Json;
    const validation = validateManifest(json, server.manifestUrl);
    expect(validation.ok).toBe(true);
    if (!validation.ok) return;
    expect(validation.problems.filter((problem) => problem.code.startsWith('voice'))).toEqual([]);
    const status = (await api(server, 'GET', '/api/talkie/status')).json;
    expect(status).toMatchObject({ voice: true });
    expect(status).not.toHaveProperty('voiceUnavailable');
    expect(voiceAvailability(validation.manifest, status as { voice: boolean })).toEqual({
      offered: true,
      enabled: true,
      signalingHosts: ['127.0.0.1'],
      voiceConfirm: true,
    });
    expect(json.description).not.toMatch(/apt-get/);
  });

  it('says voice: false, what is missing and how to install it while the speech engines are missing; voiceSessions answers 503', async () => {
    const server = await start({ voice: { speechEngines: () => speechMissing } });
    const status = await api(server, 'GET', '/api/talkie/status');
    expect(status.json).toMatchObject({
      voice: false,
      voiceUnavailable: {
        message: expect.stringContaining('sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us'),
        missing: ['pocketsphinx', 'pocketsphinx-en-us'],
        installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us',
      },
    });
    const json = (await (await fetch(server.manifestUrl)).json()) as Json;
    expect(json.description).toContain('sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us');
    const validation = validateManifest(json, server.manifestUrl);
    expect(validation.ok && voiceAvailability(validation.manifest, status.json as { voice: boolean })).toMatchObject({ offered: true, enabled: false });
    const refused = await api(server, 'POST', base, { body: {} });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ error: { code: 'upstream_unavailable', message: expect.stringContaining('pocketsphinx'), retryable: true } });
  });

  it('names the signalling path of its realtime provider', () => {
    expect(realtimeCallsPath).toBe(providerPath);
  });

  it('takes a call length someone typed only as whole seconds from 10 to 3600, and says which setting was wrong', () => {
    expect(parseDemoVoiceSeconds('45', '--voice-seconds')).toBe(45);
    expect(parseDemoVoiceSeconds('3600', demoVoiceSecondsEnv)).toBe(3600);
    for (const bad of ['9', '3601', '4.5', '-20', '', 'forty', '1e2', '0x20']) {
      expect(() => parseDemoVoiceSeconds(bad, '--voice-seconds'), bad).toThrow(
        `--voice-seconds must be a whole number of seconds from 10 to 3600, not "${bad}".`,
      );
    }
  });
});

describe('demo voice (Talkie 1 §10.1): sessions', () => {
  it('creates a session the app accepts in development, refused outside it (http); a new voice thread', async () => {
    const server = await start({ voice: { speechEngines: () => speechAvailable, maxSeconds: 120 } });
    const before = Date.now();
    const s = await session(server);
    expect(s).toEqual({
      voiceSessionId: expect.stringMatching(/^v_/),
      threadId: expect.stringMatching(/^t_/),
      transport: 'webrtc',
      eventProtocol: 'openai-realtime/1',
      signaling: { type: 'sdp-post', url: `${server.baseUrl}/v1/realtime/calls` },
      clientSecret: expect.stringMatching(/^ek_demo_[0-9a-f]{64}$/),
      expiresAt: expect.any(String),
      maxSeconds: 120,
      warnSeconds: 30,
      locale: 'en',
      labels: { search_contacts: 'Searching contacts…', send_offer: 'Preparing the offer…' },
      consent: { confirm: ['confirm', 'yes'], refuse: ['no', 'cancel'] },
    });
    const expires = Date.parse(s.expiresAt);
    expect(expires - before).toBeGreaterThanOrEqual(59_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(60_000);
    const development = validateVoiceSession(s, ['127.0.0.1'], { development: true });
    expect(development).toMatchObject({ ok: true, session: { signalingUrl: `${server.baseUrl}/v1/realtime/calls`, maxSeconds: 120, locale: 'en' } });
    expect(validateVoiceSession(s, ['127.0.0.1'], { development: false })).toMatchObject({ ok: false, problems: [{ code: 'signaling_not_https' }] });
    expect(await threadSummary(server, s.threadId)).toMatchObject({ title: 'Voice conversation', channel: 'voice' });
    expect((await session(server)).clientSecret).not.toBe(s.clientSecret);
  });

  it('adopts an existing thread as it is, makes an unknown threadId a new voice thread, and speaks Czech when asked', async () => {
    const server = await start();
    const chat = runInput('hello');
    await stream(server, chat);
    const adopted = await session(server, { threadId: chat.threadId, locale: 'cs-CZ' });
    expect(adopted).toMatchObject({
      threadId: chat.threadId,
      locale: 'cs',
      labels: { search_contacts: 'Hledám kontakty…', send_offer: 'Připravuji nabídku…' },
      consent: { confirm: ['ano', 'potvrzuji'], refuse: ['ne', 'zrušit'] },
    });
    expect(await threadSummary(server, chat.threadId)).toMatchObject({ title: 'hello', channel: 'chat' });
    const fresh = await session(server, { threadId: 't_client_voice', locale: 'de' });
    expect(fresh).toMatchObject({ threadId: 't_client_voice', locale: 'en' });
    expect(await threadSummary(server, 't_client_voice')).toMatchObject({ channel: 'voice' });
  });

  it('refuses bad requests with Talkie 1 §3 errors, and needs the bearer token', async () => {
    const server = await start();
    expect((await api(server, 'POST', base, { body: {}, token: null })).status).toBe(401);
    expect((await api(server, 'POST', base, { body: {}, token: 'wrong' })).json).toMatchObject({ error: { code: 'unauthorized' } });
    const bad: [unknown, string | undefined][] = [
      [[], undefined],
      [{ threadId: 42 }, undefined],
      [{ threadId: '' }, undefined],
      [{ threadId: 'x'.repeat(201) }, undefined],
      [{ locale: 'not a locale!' }, undefined],
      [{ locale: 7 }, undefined],
    ];
    for (const [body] of bad) {
      const response = await api(server, 'POST', base, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json).toEqual({ error: { code: 'invalid_request', message: expect.any(String), retryable: false } });
    }
    expect((await api(server, 'POST', base, { rawBody: 'not json', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
    expect((await api(server, 'GET', base)).status).toBe(405);
  });

  it('a client secret opens one connection: used, expired or unknown secrets get 401 at /v1/realtime/calls', { timeout: 30_000 }, async () => {
    const server = await start({ voice: { speechEngines: () => speechAvailable, secretTtlMs: 1500 } });
    const { s, peer } = await retryPeerRace(async () => {
      const peer = await appPeer();
      const s = await session(server);
      const first = await postOffer(s.signaling.url, s.clientSecret, peer.offer);
      expect(first.status).toBe(201);
      expect(first.headers.get('content-type')).toBe('application/sdp');
      const answer = await first.text();
      expect(answer).toMatch(/^v=0/);
      try {
        await peer.connect(answer);
      } catch (error) {
        await usage(server, s, 0, true); // ends it: a retry opens another
        throw error;
      }
      return { s, peer };
    });

    const again = await postOffer(s.signaling.url, s.clientSecret, peer.offer);
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await postOffer(s.signaling.url, `ek_demo_${'0'.repeat(64)}`, peer.offer)).status).toBe(401);
    // The Talkie token is not a client secret, and a client secret is not a Talkie token.
    expect((await postOffer(s.signaling.url, server.token, peer.offer)).status).toBe(401);
    expect((await api(server, 'GET', '/api/talkie/status', { token: (await session(server)).clientSecret })).status).toBe(401);

    const late = await session(server);
    await sleep(1600);
    expect((await postOffer(late.signaling.url, late.clientSecret, peer.offer)).status).toBe(401);
    // A session ended before it connected: its secret is void.
    const ended = await session(server);
    expect((await usage(server, ended, 0, true)).status).toBe(200);
    expect((await postOffer(ended.signaling.url, ended.clientSecret, peer.offer)).status).toBe(401);
    // DNS rebinding: the provider sits behind the same Host check as the rest of the demo.
    const { port } = new URL(server.baseUrl);
    const foreign = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: realtimeCallsPath, method: 'POST', headers: { Host: `attacker.example:${port}`, 'Content-Type': 'application/sdp' } },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(peer.offer);
    });
    expect(foreign).toBe(421);
  });

  it("answers 429 quota_exceeded once the user's voice minutes are used up; a session never outlasts what is left", async () => {
    const server = await start({
      voice: { speechEngines: () => speechAvailable, dailySeconds: 100, maxSeconds: 300 },
      verifyToken: async (token) => (token === 'u2' ? { id: 'u2', name: 'Other' } : undefined),
    });
    const s = await session(server);
    expect(s.maxSeconds).toBe(100);
    expect(await usage(server, s, 40, false)).toMatchObject({ status: 200, json: { ok: true, remainingSeconds: 60 } });
    const second = await session(server);
    expect(second.maxSeconds).toBe(60);
    expect((await usage(server, second, 70, true)).json).toEqual({ ok: true, remainingSeconds: 0 });
    expect((await usage(server, s, 40, false)).json).toEqual({ ok: true, remainingSeconds: 0 }); // the quota bounds it too
    const refused = await api(server, 'POST', base, { body: {} });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: { code: 'quota_exceeded', message: expect.stringContaining('voice minutes'), retryable: false } });
    const meters = (await api(server, 'GET', '/api/talkie/status')).json.usage as Json[];
    expect(meters[1]).toEqual({ label: 'Voice today', used: 1.8, limit: 1.7, unit: 'minutes' });
    // Per user: another user still has their minutes.
    expect(await api(server, 'POST', base, { body: {}, token: 'u2' })).toMatchObject({ status: 201, json: { maxSeconds: 100 } });
  });

  it('keeps at most maxOpenSessions open per user (429 rate_limited, retryable); ending one frees a place', async () => {
    const server = await start({
      voice: { speechEngines: () => speechAvailable, maxOpenSessions: 2 },
      verifyToken: async (token) => (token === 'u2' ? { id: 'u2', name: 'Other' } : undefined),
    });
    const first = await session(server);
    await session(server);
    const refused = await api(server, 'POST', base, { body: {} });
    expect(refused).toMatchObject({ status: 429, json: { error: { code: 'rate_limited', retryable: true } } });
    expect((await api(server, 'POST', base, { body: {}, token: 'u2' })).status).toBe(201);
    await usage(server, first, 5, true);
    expect((await api(server, 'POST', base, { body: {} })).status).toBe(201);
  });
});

describe('demo voice (Talkie 1 §10.2): tools', () => {
  it('search_contacts: a short text for the model and a talkie.card the app reads, also stored in the thread', async () => {
    const server = await start();
    const s = await session(server);
    const response = await tool(server, s, 'search_contacts', 'call_1', '{"query":"Jana"}');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      ok: true,
      output: expect.stringContaining('Jana Nováková (Alfa s.r.o., Brno)'),
      events: [expect.objectContaining({ type: 'CUSTOM', name: 'talkie.card' })],
    });
    expect(response.json.output).toBe('Found 1 contact: Jana Nováková (Alfa s.r.o., Brno). Offer N-2026-014 for Jana Nováková is ready to send.');
    const [event] = response.json.events as Json[];
    expect(EventSchemas.safeParse(event).success).toBe(true);
    const interpretation = interpretEvent(event, server.baseUrl);
    expect(interpretation).toMatchObject({ kind: 'updates', updates: [{ type: 'card', card: { title: 'Contacts', subtitle: '1 match' } }] });
    const card = (event as { value: Json }).value;
    expect(card).toMatchObject({ blocks: [{ type: 'list', items: [{ title: 'Jana Nováková', subtitle: 'Alfa s.r.o. · Brno' }] }] });
    const thread = await getThread(server, s.threadId);
    expect(thread.messages).toEqual([expect.objectContaining({ role: 'assistant', content: '', cards: [card], channel: 'voice' })]);

    // Everyone for an empty query: the chat path's card; nobody for a name the demo does not know.
    const all = await tool(server, s, 'search_contacts', 'call_2', '{}');
    expect(custom(all.json.events as never, 'talkie.card')[0]).toMatchObject({
      subtitle: '3 of 5 matches',
      fallbackText: 'Contacts: Jana Nováková, Petr Svoboda, Eva Dvořáková and 2 more',
    });
    const chat = await stream(server, runInput('search contacts'));
    expect({ ...custom(chat.events, 'talkie.card')[0], id: 'x' }).toEqual({ ...custom(all.json.events as never, 'talkie.card')[0], id: 'x' });
    expect((await tool(server, s, 'search_contacts', 'call_3', '{"query":"Zikmund"}')).json).toMatchObject({
      ok: true,
      output: 'No contact matches "Zikmund".',
    });
    const czech = await session(server, { locale: 'cs' });
    expect((await tool(server, czech, 'search_contacts', 'call_1', '{"query":"s.r.o."}')).json.output).toMatch(/^Našla jsem 5 kontaktů: /);
  });

  it('send_offer proposes the chat path\'s send-offer action; a decision with method "voice" confirms it through the decision endpoint', async () => {
    const server = await start();
    const s = await session(server);
    const response = await tool(server, s, 'send_offer', 'call_offer', '{"client":"Jana Nováková"}');
    expect(response.json).toMatchObject({
      ok: true,
      output: 'I have prepared offer N-2026-014 for Jana Nováková (jana.novakova@alfa.example). Say "yes, send it" to confirm or press Confirm.',
    });
    const [action] = custom(response.json.events as never, 'talkie.action') as Json[];
    expect(action).toMatchObject({
      threadId: s.threadId,
      toolCallId: 'call_offer',
      summary: 'Send offer N-2026-014 to jana.novakova@alfa.example',
      riskLevel: 'medium',
      status: 'pending',
      confirm: { methods: ['button', 'voice'], voice: { keyword: 'send' } },
    });
    expect(interpretEvent((response.json.events as Json[])[0], server.baseUrl)).toMatchObject({ kind: 'updates', updates: [{ type: 'action' }] });
    // The same action as typed: same parameters, so the same paramsHash.
    const chat = await stream(server, runInput('send the offer'));
    expect(custom(chat.events, 'talkie.action')[0]).toMatchObject({ paramsHash: action!.paramsHash, summary: action!.summary, riskLevel: 'medium' });
    // What the model tells the user to say confirms it under Talkie 1 §10.4 (C7), with the session's consent words.
    expect(classifyUtterance('yes, send it', { ...s.consent, locale: s.locale }, 'send')).toEqual({ kind: 'confirm' });

    const decided = await api(server, 'POST', `/api/talkie/actions/${seg(String(action!.id))}/decision`, {
      body: { decision: 'confirm', paramsHash: action!.paramsHash, method: 'voice' },
    });
    expect(decided.status).toBe(200);
    expect(decided.json.action).toMatchObject({ id: action!.id, status: 'running', undoUntil: expect.any(String) });
    const done = await waitFor(async () => {
      const current = (await api(server, 'GET', `/api/talkie/actions/${seg(String(action!.id))}`)).json;
      return current.status === 'done' ? current : undefined;
    });
    expect(done).toMatchObject({ status: 'done' });
    const thread = await getThread(server, s.threadId);
    expect(thread.actions).toEqual([expect.objectContaining({ id: action!.id, status: 'done' })]);
    expect(thread.messages.flatMap((message) => message.cards.map((card) => card.title))).toEqual(['Offer N-2026-014 sent']);
  });

  it('send_offer in Czech asks for its own keyword; for another client it proposes nothing and says so', async () => {
    const server = await start();
    const czech = await session(server, { locale: 'cs' });
    const response = await tool(server, czech, 'send_offer', 'call_1', '{}');
    expect(response.json.output).toContain('řekněte „ano, odeslat“');
    const [action] = custom(response.json.events as never, 'talkie.action') as Json[];
    expect(action).toMatchObject({ confirm: { methods: ['button', 'voice'], voice: { keyword: 'odeslat' } } });
    expect(classifyUtterance('ano, odeslat', { ...czech.consent, locale: 'cs' }, 'odeslat')).toEqual({ kind: 'confirm' });

    const s = await session(server);
    const other = await tool(server, s, 'send_offer', 'call_2', '{"client":"Petr Svoboda"}');
    expect(other.json).toEqual({
      ok: true,
      output: 'There is no prepared offer for "Petr Svoboda". The demo has one offer, N-2026-014 for Jana Nováková (Alfa s.r.o.).',
      events: [],
    });
    expect((await getThread(server, s.threadId)).actions).toEqual([]);
  });

  it('binds each call to its session and user: reused callId 409, unknown session 404, unknown tool 404, bad arguments 400, ended 410', async () => {
    const server = await start({ verifyToken: async (token) => (token === 'u2' ? { id: 'u2', name: 'Other' } : undefined) });
    const s = await session(server);
    expect((await tool(server, s, 'search_contacts', 'call_1', '{}')).status).toBe(200);
    const reused = await tool(server, s, 'search_contacts', 'call_1', '{}');
    expect(reused).toMatchObject({ status: 409, json: { error: { code: 'conflict', retryable: false } } });
    expect((await tool(server, s, 'send_offer', 'call_1', '{}')).status).toBe(409);
    // The same callId in another session is that session's own.
    const second = await session(server);
    expect((await tool(server, second, 'search_contacts', 'call_1', '{}')).status).toBe(200);

    const unknown = await api(server, 'POST', `${base}/v_nope/tools/search_contacts`, { body: { callId: 'c', arguments: '{}' } });
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    expect((await tool(server, s, 'search_contacts', 'call_u2', '{}', 'u2')).status).toBe(404); // another user's session
    const noTool = await tool(server, s, 'delete_everything', 'call_2', '{}');
    expect(noTool).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: expect.stringContaining('search_contacts and send_offer') } } });
    for (const [args, callId] of [
      ['not json', 'call_3'],
      ['[1]', 'call_4'],
      ['{"query":5}', 'call_5'],
    ] as const) {
      expect((await tool(server, s, 'search_contacts', callId, args)).json).toMatchObject({ error: { code: 'invalid_request' } });
    }
    for (const body of [{}, { callId: 'c6' }, { callId: 'c7', arguments: {} }, { callId: '', arguments: '{}' }, { callId: 'a\nb', arguments: '{}' }]) {
      expect((await api(server, 'POST', `${base}/${seg(s.voiceSessionId)}/tools/search_contacts`, { body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await tool(server, s, 'search_contacts', 'call_8', `{"query":"${'x'.repeat(17_000)}"}`)).status).toBe(413);
    expect((await tool(server, s, 'search_contacts', 'call_9', '{}', null as never)).status).toBe(401);

    await usage(server, s, 10, true);
    expect((await tool(server, s, 'search_contacts', 'call_10', '{}')).json).toMatchObject({ error: { code: 'expired' } });
  });
});

describe('demo voice (Talkie 1 §10.3): transcripts and usage', () => {
  it('stores each transcript item once (201, then 200), as voice messages; the first user words title a voice thread; 409 for a changed text', async () => {
    const server = await start();
    const s = await session(server);
    const user = { role: 'user', text: 'Search contacts for Jana', itemId: 'item_1' };
    expect(await transcript(server, s, user)).toMatchObject({ status: 201, json: { ok: true, stored: true } });
    expect(await transcript(server, s, user)).toMatchObject({ status: 200, json: { ok: true, stored: false } });
    expect((await transcript(server, s, { ...user, text: 'Something else' })).json).toMatchObject({ error: { code: 'conflict' } });
    expect((await transcript(server, s, { role: 'assistant', text: 'I found *one* contact.', itemId: 'item_2' })).status).toBe(201);
    const thread = await getThread(server, s.threadId);
    expect(thread.messages).toEqual([
      expect.objectContaining({ role: 'user', content: 'Search contacts for Jana', channel: 'voice' }),
      expect.objectContaining({ role: 'assistant', content: 'I found *one* contact.', channel: 'voice' }),
    ]);
    expect(thread.thread).toMatchObject({ title: 'Search contacts for Jana', channel: 'voice' });

    for (const body of [
      { role: 'system', text: 'x', itemId: 'i3' },
      { role: 'user', text: '   ', itemId: 'i4' },
      { role: 'user', text: 'x' },
      { role: 'user', text: 'x', itemId: '' },
      'text',
    ]) {
      expect((await transcript(server, s, body as Json)).json, JSON.stringify(body)).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect((await transcript(server, s, { role: 'user', text: 'x'.repeat(20_001), itemId: 'i5' })).status).toBe(413);
    expect((await api(server, 'POST', `${base}/v_nope/transcript`, { body: user })).status).toBe(404);
  });

  it('usage: cumulative seconds, remainingSeconds = maxSeconds − seconds, final ends the session (repeatable), nothing non-final after it', async () => {
    const server = await start();
    const s = await session(server);
    expect(await usage(server, s, 30, false)).toEqual(expect.objectContaining({ status: 200, json: { ok: true, remainingSeconds: 270 } }));
    expect((await usage(server, s, 20, false)).json).toEqual({ ok: true, remainingSeconds: 270 }); // a late, lower report changes nothing
    expect((await usage(server, s, 45.5, true)).json).toEqual({ ok: true, remainingSeconds: 254 });
    expect((await usage(server, s, 45.5, true)).json).toEqual({ ok: true, remainingSeconds: 254 });
    expect((await usage(server, s, 50, false)).json).toMatchObject({ error: { code: 'expired' } });
    // A transcript may cross the final report on the wire: still stored.
    expect((await transcript(server, s, { role: 'assistant', text: 'Goodbye.', itemId: 'late' })).status).toBe(201);
    expect((await api(server, 'GET', '/api/talkie/status')).json.usage).toContainEqual({ label: 'Voice today', used: 0.8, limit: 30, unit: 'minutes' });
    for (const body of [{ seconds: -1, final: false }, { seconds: 'ten', final: false }, { seconds: 10 }, { seconds: 1e9, final: false }]) {
      expect((await api(server, 'POST', `${base}/${seg(s.voiceSessionId)}/usage`, { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('keeps voice threads, their transcripts and the voice seconds across a restart (the sessions themselves end)', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await start({ persistPath: path, voice: { speechEngines: () => speechAvailable } });
    const s = await session(first);
    await transcript(first, s, { role: 'user', text: 'Hello by voice', itemId: 'item_1' });
    await usage(first, s, 61, true);
    await first.close();
    const second = await start({ persistPath: path, voice: { speechEngines: () => speechAvailable } });
    expect(await threadSummary(second, s.threadId)).toMatchObject({ title: 'Hello by voice', channel: 'voice' });
    expect((await getThread(second, s.threadId)).messages).toEqual([expect.objectContaining({ content: 'Hello by voice', channel: 'voice' })]);
    expect((await api(second, 'GET', '/api/talkie/status')).json.usage).toContainEqual({ label: 'Voice today', used: 1, limit: 30, unit: 'minutes' });
    expect((await usage(second, s, 70, false)).status).toBe(404);
  });
});
