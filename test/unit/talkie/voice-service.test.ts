import { describe, expect, it } from 'vitest';
import { json, manifestFor, startServer, type TestServer } from '../../support/http-server';
import {
  recording,
  staticAnswerSdp,
  startVoiceFixture,
  voiceSecret,
  type Seen,
  type VoiceFixture,
  type VoiceFixtureOptions,
} from '../../support/talkie-voice-fixture';
import { memoryLogger } from '../../support/logger';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { TalkieClient } from '../../../src/main/talkie/talkie-client';
import { VoiceService } from '../../../src/main/talkie/voice-service';
import type { GlobalKeys } from '../../../src/main/talkie/call-shortcut';
import { validateManifest } from '../../../src/shared/talkie/manifest';

const tempDir = useTempDirs();
const secret = voiceSecret;
const answerSdp = staticAnswerSdp;
const offerSdp = 'v=0\r\no=- 9 9 IN IP4 127.0.0.1\r\ns=offer\r\nt=0 0\r\n';

interface Fixture extends VoiceFixture {
  app: TestServices;
  agentId: string;
  log: ReturnType<typeof memoryLogger>;
  events: { channel: string; payload: unknown }[];
}

/** The loopback Talkie + signalling servers, and the app's services with the Talkie server added and a token. */
async function fixture(options: Pick<VoiceFixtureOptions, 'signalingHosts' | 'voiceConfirm'> = {}, globalKeys?: GlobalKeys): Promise<Fixture> {
  const servers = await startVoiceFixture({ ...options, start: startServer });
  const log = memoryLogger();
  const app = await startTestServices(await tempDir(), { log, ...(globalKeys ? { globalKeys } : {}) });
  const events: { channel: string; payload: unknown }[] = [];
  app.events.connect((channel, payload) => void events.push({ channel, payload }));
  await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
  const added = await app.call('agents.add', { address: servers.talkie.url });
  const agentId = added.ok ? added.value.agent.id : '';
  await app.call('talkie.useToken', { agentId, token: 'dev_token' });
  return { ...servers, app, agentId, log, events };
}

async function started(f: Fixture) {
  const start = await f.app.call('talkie.voiceStart', { agentId: f.agentId, locale: 'cs' });
  if (!start.ok) throw new Error(`${start.error.code}: ${start.error.message}`);
  return start.value;
}

describe('Talkie 1 voice through the contract (main side, §10)', () => {
  it('starts a call, exchanges SDP with the secret, runs a tool once, posts transcripts and usage, and ends once', async () => {
    const f = await fixture();
    const answers: unknown[] = [];
    const call = async (method: Parameters<TestServices['call']>[0], payload?: unknown, gesture?: boolean) => {
      const result = await f.app.call(method, payload, gesture);
      answers.push(result);
      return result;
    };

    // The screen learns that voice is offered, and where the audio goes, from the server view (no secret in it).
    expect(await f.app.call('talkie.connect', { agentId: f.agentId })).toMatchObject({
      ok: true,
      value: { voice: { offered: true, voiceConfirm: true, signalingHosts: [f.signaling.origin.replace('http://', '')] } },
    });
    // Talkie 1 §4: voice switched off for this user now (the button is greyed out with the reason).
    expect(await f.app.call('talkie.status', { agentId: f.agentId })).toEqual({ ok: true, value: { user: { name: 'Jana' }, usage: [], voice: false } });
    expect(await call('talkie.voiceStart', { agentId: f.agentId }, false)).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    const start = await call('talkie.voiceStart', { agentId: f.agentId, threadId: 't_voice', locale: 'cs' });
    expect(start).toMatchObject({
      ok: true,
      value: {
        threadId: 't_voice',
        maxSeconds: 900,
        warnSeconds: 60,
        locale: 'cs',
        labels: { search_records: 'Hledám v CRM…' },
        consent: { confirm: ['potvrzuji'], refuse: ['zruš'] },
        voiceConfirm: true,
      },
    });
    const callId = start.ok ? (start.value as { callId: string }).callId : '';
    expect(f.talkieSeen.find((r) => r.path === '/voice/sessions')).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer dev_token' } });
    expect(JSON.parse(f.talkieSeen.find((r) => r.path === '/voice/sessions')!.body)).toEqual({ threadId: 't_voice', locale: 'cs' });

    expect(await call('talkie.voiceOffer', { callId, sdp: offerSdp })).toEqual({ ok: true, value: { sdp: answerSdp } });
    expect(f.signalingSeen).toHaveLength(1);
    expect(f.signalingSeen[0]).toMatchObject({
      method: 'POST',
      path: '/v1/realtime/calls',
      body: offerSdp,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/sdp' },
    });
    // The secret only opens the connection: a second offer is refused without reaching the provider.
    expect(await call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({ ok: false, error: { code: 'voice_session_expired' } });
    expect(f.signalingSeen).toHaveLength(1);

    const tool = await call('talkie.voiceTool', { callId, providerCallId: 'call_1', name: 'search records', arguments: '{"q":"Acme"}' });
    expect(tool).toMatchObject({ ok: true, value: { outcome: 'ok', output: 'Found 2 records.', updates: [{ type: 'card', card: { id: 'c1' } }] } });
    const toolRequest = f.talkieSeen.find((r) => r.path.startsWith('/voice/v_1/tools/'))!;
    expect(toolRequest.path).toBe('/voice/v_1/tools/search%20records');
    expect(JSON.parse(toolRequest.body)).toEqual({ callId: 'call_1', arguments: '{"q":"Acme"}' });
    expect(await call('talkie.voiceTool', { callId, providerCallId: 'call_1', name: 'search records', arguments: '{}' })).toEqual({
      ok: true,
      value: { outcome: 'duplicate' },
    });
    expect(f.talkieSeen.filter((r) => r.path.startsWith('/voice/v_1/tools/'))).toHaveLength(1);
    expect(await call('talkie.voiceTool', { callId, providerCallId: 'call_2', name: 'broken', arguments: '{}' })).toMatchObject({
      ok: true,
      value: { outcome: 'failed', output: 'The tool failed: The CRM is down.', code: 'server_error', retryable: true },
    });

    expect(await call('talkie.voiceTranscript', { callId, role: 'user', text: 'Najdi Acme', itemId: 'item_1' })).toEqual({ ok: true, value: { stored: true } });
    expect(await call('talkie.voiceTranscript', { callId, role: 'user', text: 'Najdi Acme', itemId: 'item_1' })).toEqual({
      ok: true,
      value: { stored: false },
    });
    expect(f.talkieSeen.filter((r) => r.path === '/voice/v_1/transcript').map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { role: 'user', text: 'Najdi Acme', itemId: 'item_1' },
    ]);

    expect(await call('talkie.voiceUsage', { callId, seconds: 30 })).toEqual({ ok: true, value: { remainingSeconds: 865 } });
    expect(await call('talkie.voiceEnd', { callId, seconds: 42 })).toEqual({ ok: true, value: { ended: true, remainingSeconds: 853 } });
    expect(await call('talkie.voiceEnd', { callId, seconds: 50 })).toEqual({ ok: true, value: { ended: false } });
    expect(f.talkieSeen.filter((r) => r.path === '/voice/v_1/usage').map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { seconds: 30, final: false },
      { seconds: 42, final: true },
    ]);
    expect(await call('talkie.voiceUsage', { callId, seconds: 60 })).toMatchObject({ ok: false, error: { code: 'not_found' } });

    // The secret crossed to nothing but the signalling host: no IPC answer or event, no log line, no other request.
    expect(f.events.length).toBeGreaterThan(0);
    const everywhere = JSON.stringify({ answers, events: f.events, log: f.log.lines, talkie: f.talkieSeen.map((r) => ({ ...r, body: r.body })) });
    expect(everywhere).not.toContain(secret);
    expect(everywhere).not.toContain('ek_SECRET');
    expect(f.log.lines.some((line) => line.includes('voice call'))).toBe(true);
  });

  const refusals: [string, (f: Fixture) => void, { signalingHosts?: (signaling: TestServer) => string[] }][] = [
    ['a signalling host the manifest does not list', () => {}, { signalingHosts: () => ['api.openai.com'] }],
    ['the same IP on another port', () => {}, { signalingHosts: (signaling) => [`127.0.0.1:${String(Number(new URL(signaling.origin).port) + 1)}`] }],
    ['a wrong transport', (f) => void (f.session.transport = 'websocket'), {}],
    ['a wrong signalling type', (f) => void (f.session.signaling = { type: 'websocket', url: (f.session.signaling as { url: string }).url }), {}],
    [
      'user info in the signalling URL',
      (f) => void (f.session.signaling = { type: 'sdp-post', url: `http://user:pw@${f.signaling.origin.replace('http://', '')}/v1` }),
      {},
    ],
  ];
  for (const [name, change, options] of refusals) {
    it(`refuses ${name}, and sends nothing to the signalling host`, async () => {
      const f = await fixture(options);
      change(f);
      const start = await f.app.call('talkie.voiceStart', { agentId: f.agentId });
      expect(start).toMatchObject({ ok: false, error: { code: 'protocol_error', message: expect.stringContaining('voice session cannot be used') } });
      expect(JSON.stringify(start)).not.toContain(secret);
      expect(f.signalingSeen).toEqual([]);
      expect(f.log.lines.join('\n')).not.toContain(secret);
    });
  }

  it('takes the call shortcut from the system only for a connected call, for one call at a time, and gives it back at the end', async () => {
    // The system's global keys as Electron's globalShortcut behaves: one holder per accelerator; a key
    // another program holds cannot be registered.
    const held = new Map<string, () => void>();
    const heldElsewhere = new Set<string>();
    const keys: GlobalKeys = {
      register: (accelerator, onPress) => {
        if (held.has(accelerator) || heldElsewhere.has(accelerator)) return false;
        held.set(accelerator, onPress);
        return true;
      },
      unregister: (accelerator) => void held.delete(accelerator),
    };
    const f = await fixture({}, keys);
    const pressed = () => f.events.filter((event) => event.channel === 'agentdesk:event:talkie.voiceShortcutPressed').map((event) => event.payload);
    const first = await started(f);
    expect(await f.app.call('talkie.voiceShortcut', { callId: first.callId, armed: true })).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
    expect(held.size).toBe(0);
    expect(await f.app.call('talkie.voiceOffer', { callId: first.callId, sdp: offerSdp })).toMatchObject({ ok: true });
    const label = process.platform === 'darwin' ? 'Cmd+Shift+Space' : 'Ctrl+Shift+Space';
    expect(await f.app.call('talkie.voiceShortcut', { callId: first.callId, armed: true })).toEqual({ ok: true, value: { state: 'armed', label } });
    expect([...held.keys()]).toEqual(['CommandOrControl+Shift+Space']);
    held.get('CommandOrControl+Shift+Space')!();
    expect(pressed()).toEqual([{ callId: first.callId }]);
    // Disarmed, the keys go back to the system; armed again, they come back.
    expect(await f.app.call('talkie.voiceShortcut', { callId: first.callId, armed: false })).toEqual({ ok: true, value: { state: 'off' } });
    expect(held.size).toBe(0);
    await f.app.call('talkie.voiceShortcut', { callId: first.callId, armed: true });
    expect(held.size).toBe(1);
    // The call's end gives them back; a later press is not heard, and an ended call cannot take them.
    await f.app.call('talkie.voiceEnd', { callId: first.callId, seconds: 3 });
    expect(held.size).toBe(0);
    expect(await f.app.call('talkie.voiceShortcut', { callId: first.callId, armed: true })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // Another program holds them: the call says so and holds nothing.
    heldElsewhere.add('CommandOrControl+Shift+Space');
    f.rules.singleUseSecret = false;
    const second = await started(f);
    expect(await f.app.call('talkie.voiceOffer', { callId: second.callId, sdp: offerSdp })).toMatchObject({ ok: true });
    expect(await f.app.call('talkie.voiceShortcut', { callId: second.callId, armed: true })).toEqual({ ok: true, value: { state: 'taken', label } });
    expect(held.size).toBe(0);
    expect(pressed()).toHaveLength(1);
    // The user's own combination (Settings) is the one taken.
    await f.app.call('settings.update', { patch: { voiceShortcut: 'CommandOrControl+Alt+T' } });
    expect(await f.app.call('talkie.voiceShortcut', { callId: second.callId, armed: true })).toEqual({
      ok: true,
      value: { state: 'armed', label: process.platform === 'darwin' ? 'Cmd+Option+T' : 'Ctrl+Alt+T' },
    });
    expect([...held.keys()]).toEqual(['CommandOrControl+Alt+T']);
    await f.app.call('talkie.voiceEnd', { callId: second.callId });
    expect(held.size).toBe(0);
  });

  it('answers `unavailable` for the call shortcut in a shell without global keys (the web shell)', async () => {
    const f = await fixture();
    const call = await started(f);
    await f.app.call('talkie.voiceOffer', { callId: call.callId, sdp: offerSdp });
    expect(await f.app.call('talkie.voiceShortcut', { callId: call.callId, armed: true })).toEqual({ ok: true, value: { state: 'unavailable' } });
  });

  it('refuses http signalling outside development, and sends nothing to the signalling host', async () => {
    const f = await fixture();
    const { client } = await f.app.call('talkie.connect', { agentId: f.agentId }).then(async () => {
      // The Talkie server itself is reachable (its own policy); only the voice policy is production's.
      const manifest = validateManifest(
        JSON.parse(JSON.stringify(await (await fetch(`${f.talkie.origin}/.well-known/talkie.json`)).json())),
        `${f.talkie.origin}/.well-known/talkie.json`,
      );
      if (!manifest.ok) throw new Error('manifest');
      return { client: new TalkieClient(manifest.manifest, { allowLocalHttp: true }, { get: async () => 'dev_token', refresh: async () => undefined }) };
    });
    const log = memoryLogger();
    const voice = new VoiceService({
      talkie: {
        voiceClient: async () => ({ client, policy: { allowLocalHttp: false } }),
        voiceCall: (_agentId, request) => request(),
        action: () => Promise.reject(new Error('not used')),
        decide: () => Promise.reject(new Error('not used')),
      },
      log,
    });
    await expect(voice.start('a', {})).rejects.toMatchObject({ code: 'protocol_error', message: expect.stringContaining('https') });
    expect(f.talkieSeen.some((r) => r.path === '/voice/sessions')).toBe(true);
    expect(f.signalingSeen).toEqual([]);
    expect(log.lines.join('\n')).not.toContain(secret);
  });

  it('says when a call is set up over http:// (the development setting, Talkie 1 §10.1 requires https): in voiceStart’s answer for the call bar, and in the log', async () => {
    const f = await fixture();
    const plain = await started(f);
    expect(plain.unencrypted).toBe(true);
    expect(f.log.lines).toContainEqual(
      `WARN [talkie] voice call ${plain.callId}: the signalling address ${f.signaling.origin.replace('http://', '')} is http://, allowed by the development setting; the call's key travels unencrypted`,
    );
    expect(f.log.lines.join('\n')).not.toContain(secret);
    // An https signalling address (nothing is sent to it before the offer): no such word.
    f.session.signaling = { type: 'sdp-post', url: `https://${f.signaling.origin.replace('http://', '')}/v1/realtime/calls` };
    const secure = await started(f);
    expect(secure).not.toHaveProperty('unencrypted');
    expect(f.log.lines.filter((line) => line.includes('travels unencrypted'))).toHaveLength(1);
  });

  it('logs the provider errors the page read on the call’s channel, at most 20 per call', async () => {
    const f = await fixture();
    const { callId } = await started(f);
    const refusal = {
      callId,
      type: 'invalid_request_error',
      code: 'invalid_value',
      message: 'Unknown parameter.\nINFO [talkie] forged',
      param: 'session.audio.input.turn_detection',
      eventId: 'agentdesk_1',
      answersUpdate: true,
    };
    expect(await f.app.call('talkie.voiceProviderError', refusal)).toEqual({ ok: true, value: { logged: true } });
    expect(f.log.lines.at(-1)).toBe(
      `WARN [talkie] voice call ${callId}: the speech provider reported invalid_request_error/invalid_value at session.audio.input.turn_detection, refusing the turn-detection update agentdesk_1: Unknown parameter.\nINFO [talkie] forged`,
    );
    for (let i = 2; i <= 25; i++) await f.app.call('talkie.voiceProviderError', { callId, message: `error ${i}`, answersUpdate: false });
    expect(f.log.lines.filter((line) => line.includes('the speech provider reported'))).toHaveLength(20);
    expect(f.log.lines.filter((line) => line.includes('the speech provider reported')).at(-1)).toBe(
      `WARN [talkie] voice call ${callId}: the speech provider reported error: error 20 (the last one logged for this call)`,
    );
    expect(await f.app.call('talkie.voiceProviderError', { callId: 'vc_unknown', message: 'x', answersUpdate: false })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('does not follow a redirect on the SDP POST: an error, and the target never sees the secret', async () => {
    const f = await fixture();
    const targetSeen: Seen[] = [];
    const target = await startServer(
      recording(targetSeen, (_request, res) => void (res.writeHead(201, { 'Content-Type': 'application/sdp' }), res.end(answerSdp))),
    );
    for (const location of [`${target.origin}/steal`, '/v1/realtime/elsewhere']) {
      f.sdp.respond = (res) => void (res.writeHead(307, { Location: location }), res.end());
      const { callId } = await started(f);
      const offer = await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp });
      expect(offer).toMatchObject({
        ok: false,
        error: { code: expect.stringMatching(/^(protocol_error|network_error)$/), message: expect.stringMatching(/redirect/) },
      });
      expect(JSON.stringify(offer)).not.toContain(secret);
    }
    expect(targetSeen).toEqual([]);
    expect(f.signalingSeen.map((r) => r.path)).toEqual(['/v1/realtime/calls', '/v1/realtime/calls']);
  });

  it('refuses an oversized SDP answer and one that is not application/sdp', async () => {
    const f = await fixture();
    f.sdp.respond = (res) => void (res.writeHead(201, { 'Content-Type': 'application/sdp' }), res.end(`v=0\r\n${'a=x\r\n'.repeat(40_000)}`));
    let { callId } = await started(f);
    expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('128 KiB') },
    });
    f.sdp.respond = (res) => void (res.writeHead(201, { 'Content-Type': 'text/html' }), res.end('<html>'));
    ({ callId } = await started(f));
    expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({
      ok: false,
      error: { code: 'protocol_error', message: expect.stringContaining('SDP') },
    });
  });

  it('asks for a new session when the secret expired (nothing sent) or the provider answers 401', async () => {
    const f = await fixture();
    f.session.expiresAt = new Date(Date.now() - 1000).toISOString();
    let { callId } = await started(f);
    expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({
      ok: false,
      error: { code: 'voice_session_expired', retryable: true },
    });
    expect(f.signalingSeen).toEqual([]);

    f.session.expiresAt = new Date(Date.now() + 60_000).toISOString();
    f.sdp.respond = (res) => json(res, 401, { error: { message: 'bad key' } });
    ({ callId } = await started(f));
    expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({ ok: false, error: { code: 'voice_session_expired' } });
    // Never reused: a retry on the same call does not send the spent secret again.
    expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({ ok: false, error: { code: 'voice_session_expired' } });
    expect(f.signalingSeen).toHaveLength(1);
  });

  it('sends the secret once even when two offers overlap', async () => {
    const f = await fixture();
    const { callId } = await started(f);
    const [first, second] = await Promise.all([
      f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp }),
      f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp }),
    ]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    expect(f.signalingSeen).toHaveLength(1);
  });

  it('answers `duplicate` when the server answers 409 for a reused provider call id (the call controller then tells the model the tool failed)', async () => {
    const f = await fixture();
    f.toolCalls.push('call_seen_by_server');
    const { callId } = await started(f);
    expect(await f.app.call('talkie.voiceTool', { callId, providerCallId: 'call_seen_by_server', name: 'search_records', arguments: '{}' })).toEqual({
      ok: true,
      value: { outcome: 'duplicate' },
    });
  });

  describe('talkie.voiceDecide (Talkie 1 §10.4: a decision spoken in the call)', () => {
    const decisions = (f: Fixture) => f.talkieSeen.filter((r) => r.path.endsWith('/decision')).map((r) => JSON.parse(r.body) as unknown);
    async function connectedCall(f: Fixture) {
      const { callId } = await started(f);
      expect(await f.app.call('talkie.voiceOffer', { callId, sdp: offerSdp })).toMatchObject({ ok: true });
      return callId;
    }

    it('is not a gesture method, and posts the decision with method voice and the paramsHash that was read out', async () => {
      const f = await fixture();
      const callId = await connectedCall(f);
      expect(await f.app.call('talkie.voiceTool', { callId, providerCallId: 'call_p', name: 'propose', arguments: '{}' })).toMatchObject({
        ok: true,
        value: { outcome: 'ok', updates: [{ type: 'action', action: { id: 'a_voice', voice: true } }] },
      });
      const decided = await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' }, false);
      expect(decided).toMatchObject({
        ok: true,
        value: { action: { id: 'a_voice', status: 'done' }, updates: [{ type: 'card', card: { id: 'sent_a_voice' } }] },
      });
      expect(decisions(f)).toEqual([{ decision: 'confirm', paramsHash: 'sha256:a_voice', method: 'voice' }]);
      // The server was asked for the action's policy before the decision went out.
      const paths = f.talkieSeen.map((r) => `${r.method} ${r.path}`);
      expect(paths.indexOf('GET /actions/a_voice')).toBeGreaterThan(-1);
      expect(paths.indexOf('GET /actions/a_voice')).toBeLessThan(paths.indexOf('POST /actions/a_voice/decision'));
    });

    it('refuses, without posting a decision: an ended or unknown call, a call never connected, a proposal not made in this call, a policy without voice, a server without voiceConfirm', async () => {
      const f = await fixture();
      const unconnected = (await started(f)).callId;
      await f.app.call('talkie.voiceTool', { callId: unconnected, providerCallId: 'call_u', name: 'propose', arguments: '{}' });
      expect(
        await f.app.call('talkie.voiceDecide', { callId: unconnected, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' }),
      ).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining('not connected') },
      });

      const callId = await connectedCall(f);
      // Proposed in another call (or never): this call did not read it out.
      expect(await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' })).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining('not proposed in this call') },
      });
      await f.app.call('talkie.voiceTool', { callId, providerCallId: 'call_b', name: 'propose_button', arguments: '{}' });
      expect(await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_button', paramsHash: 'sha256:a_button', decision: 'confirm' })).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining('does not list voice') },
      });
      // The policy is read again: a proposal that lost voice since it was read out is refused too.
      await f.app.call('talkie.voiceTool', { callId, providerCallId: 'call_p', name: 'propose', arguments: '{}' });
      f.policies.a_voice = ['button'];
      expect(await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'cancel' })).toMatchObject({
        ok: false,
        error: { code: 'not_allowed' },
      });

      f.policies.a_voice = ['button', 'voice'];
      await f.app.call('talkie.voiceEnd', { callId, seconds: 10 });
      expect(await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' })).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
      expect(
        await f.app.call('talkie.voiceDecide', { callId: 'vc_made_up', actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' }),
      ).toMatchObject({ ok: false, error: { code: 'not_found' } });

      const strict = await fixture({ voiceConfirm: false });
      const strictCall = await connectedCall(strict);
      await strict.app.call('talkie.voiceTool', { callId: strictCall, providerCallId: 'call_p', name: 'propose', arguments: '{}' });
      expect(
        await strict.app.call('talkie.voiceDecide', { callId: strictCall, actionId: 'a_voice', paramsHash: 'sha256:a_voice', decision: 'confirm' }),
      ).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining('does not allow confirming by voice') },
      });

      expect(decisions(f)).toEqual([]);
      expect(decisions(strict)).toEqual([]);
    });

    it('answers a changed proposal (409 stale) with a note and the authoritative action, like talkie.decide', async () => {
      const f = await fixture();
      const callId = await connectedCall(f);
      await f.app.call('talkie.voiceTool', { callId, providerCallId: 'call_p', name: 'propose', arguments: '{}' });
      expect(await f.app.call('talkie.voiceDecide', { callId, actionId: 'a_voice', paramsHash: 'sha256:what_was_heard_before', decision: 'confirm' })).toEqual({
        ok: true,
        value: {
          action: expect.objectContaining({ id: 'a_voice', status: 'pending' }),
          updates: [],
          note: 'The proposal changed since you saw it; review it again.',
        },
      });
      expect(decisions(f)).toEqual([{ decision: 'confirm', paramsHash: 'sha256:what_was_heard_before', method: 'voice' }]);
    });
  });

  it('refuses voice on a server that does not offer it, before any voice request', async () => {
    const server = await startServer((req, res) => json(res, 200, manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`)));
    const app = await startTestServices(await tempDir());
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
    const added = await app.call('agents.add', { address: server.url });
    const agentId = added.ok ? added.value.agent.id : '';
    await app.call('talkie.useToken', { agentId, token: 't' });
    expect(await app.call('talkie.voiceStart', { agentId })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: 'This server does not offer voice.' },
    });
    expect(server.requests.every((r) => r.path === '/.well-known/talkie.json' || r.path.startsWith('/logo'))).toBe(true);
  });
});
