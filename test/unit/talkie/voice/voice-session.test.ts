import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../../../src/shared/talkie/manifest';
import { checkSignalingUrl, validateVoiceSession, voiceAvailability } from '../../../../src/shared/talkie/voice/voice-session';

const manifestJson = {
  spec: 'talkie/1',
  issuer: 'https://crm.example.com',
  serverId: 'crm.example.com',
  name: 'Example CRM',
  auth: { oauth: { issuer: 'https://crm.example.com/oauth' } },
  endpoints: {
    run: '/api/talkie/run',
    threads: '/api/talkie/threads',
    thread: '/api/talkie/threads/{threadId}',
    voiceSessions: '/api/talkie/voice/sessions',
    voiceTool: '/api/talkie/voice/sessions/{voiceSessionId}/tools/{name}',
    voiceTranscript: '/api/talkie/voice/sessions/{voiceSessionId}/transcript',
    voiceUsage: '/api/talkie/voice/sessions/{voiceSessionId}/usage',
  },
  capabilities: {
    voice: { transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts: ['API.OpenAI.com'] },
    actions: { voiceConfirm: true },
  },
};
const from = 'https://crm.example.com/.well-known/talkie.json';

function manifestWith(patch: Record<string, unknown>) {
  const result = validateManifest({ ...manifestJson, ...patch }, from);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result;
}

const sessionJson = {
  voiceSessionId: 'v_1',
  threadId: 't_123',
  transport: 'webrtc',
  eventProtocol: 'openai-realtime/1',
  signaling: { type: 'sdp-post', url: 'https://api.openai.com/v1/realtime/calls' },
  clientSecret: 'ek_secret',
  expiresAt: '2026-10-22T10:01:00Z',
  maxSeconds: 900,
  warnSeconds: 60,
  locale: 'cs',
  labels: { search_records: 'Hledám v CRM…' },
  consent: { confirm: ['ano', 'potvrzuji'], refuse: ['ne', 'zruš'] },
  futureField: { ignored: true },
};
const hosts = ['api.openai.com'];
const prod = { development: false };

describe('voice in the manifest (rules 1–2)', () => {
  it('rule 1: voice is offered with capabilities.voice and the four voice endpoints; status voice:false greys it out', () => {
    const { manifest, problems } = manifestWith({});
    expect(problems).toEqual([]);
    expect(manifest.voice).toEqual({ transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts: ['api.openai.com'] });
    expect(voiceAvailability(manifest)).toEqual({ offered: true, enabled: true, signalingHosts: ['api.openai.com'], voiceConfirm: true });
    expect(voiceAvailability(manifest, { voice: false })).toMatchObject({ offered: true, enabled: false });
    const { voiceUsage: _omitted, ...endpoints } = manifestJson.endpoints;
    expect(voiceAvailability(manifestWith({ endpoints }).manifest)).toMatchObject({
      offered: false,
      code: 'voice_endpoint_missing',
      message: expect.stringContaining('voiceUsage'),
    });
    expect(voiceAvailability(manifestWith({ capabilities: {} }).manifest)).toMatchObject({ offered: false, code: 'voice_not_offered' });
  });

  it('rule 2: voice needs webrtc among the transports and openai-realtime/1 among the event protocols', () => {
    const voice = manifestJson.capabilities.voice;
    expect(voiceAvailability(manifestWith({ capabilities: { voice: { ...voice, transports: ['websocket'] } } }).manifest)).toMatchObject({
      offered: false,
      code: 'voice_transport_unsupported',
    });
    expect(voiceAvailability(manifestWith({ capabilities: { voice: { ...voice, eventProtocols: ['other/2'] } } }).manifest)).toMatchObject({
      offered: false,
      code: 'voice_protocol_unsupported',
    });
  });

  it('a malformed capabilities.voice is a note and no voice, not a refused server; voiceConfirm is true only when it says true', () => {
    const result = manifestWith({ capabilities: { voice: { transports: 'webrtc' }, actions: { voiceConfirm: 'yes' } } });
    expect(result.problems).toEqual([expect.objectContaining({ code: 'voice_capability_invalid', path: '/capabilities/voice/transports' })]);
    expect(result.manifest.voice).toBeUndefined();
    expect(result.manifest.voiceConfirm).toBe(false);
  });
});

describe('checkSignalingUrl (rules 5–6)', () => {
  it('rule 5: signaling.url must be https; http only for a loopback host in development', () => {
    expect(checkSignalingUrl('https://api.openai.com/v1/realtime/calls', hosts, prod)).toEqual({ ok: true, url: 'https://api.openai.com/v1/realtime/calls' });
    expect(checkSignalingUrl('http://api.openai.com/v1/realtime/calls', hosts, prod)).toMatchObject({ ok: false, code: 'signaling_not_https' });
    expect(checkSignalingUrl('http://127.0.0.1:9000/calls', ['127.0.0.1'], prod)).toMatchObject({ ok: false, code: 'signaling_not_https' });
    expect(checkSignalingUrl('http://127.0.0.1:9000/calls', ['127.0.0.1'], { development: true })).toMatchObject({ ok: true });
    expect(checkSignalingUrl('http://localhost:9000/calls', ['localhost'], { development: true })).toMatchObject({ ok: true });
    expect(checkSignalingUrl('http://api.openai.com/calls', hosts, { development: true })).toMatchObject({ ok: false, code: 'signaling_not_https' });
    expect(checkSignalingUrl('wss://api.openai.com/calls', hosts, prod)).toMatchObject({ ok: false, code: 'signaling_not_https' });
    expect(checkSignalingUrl('not a url', hosts, prod)).toMatchObject({ ok: false, code: 'signaling_url_invalid' });
  });

  it('rule 6: the host is exactly one of signalingHosts: lower-cased, no suffix match, no userinfo', () => {
    expect(checkSignalingUrl('https://API.OPENAI.COM/v1/realtime/calls', hosts, prod)).toMatchObject({
      ok: true,
      url: 'https://api.openai.com/v1/realtime/calls',
    });
    for (const url of [
      'https://evil.api.openai.com/calls',
      'https://api.openai.com.evil.example/calls',
      'https://api.openai.com./calls',
      'https://openai.com/calls',
    ]) {
      expect(checkSignalingUrl(url, hosts, prod), url).toMatchObject({
        ok: false,
        code: 'signaling_host_not_listed',
        message: expect.stringContaining('not one of the hosts'),
      });
    }
    expect(checkSignalingUrl('https://api.openai.com@evil.example/calls', hosts, prod)).toMatchObject({ ok: false, code: 'signaling_userinfo' });
    expect(checkSignalingUrl('https://user:pw@api.openai.com/calls', hosts, prod)).toMatchObject({ ok: false, code: 'signaling_userinfo' });
    // The URL parser's view of the host is the one checked and the one returned.
    expect(checkSignalingUrl('https://api.openai.com\\@evil.example/calls', hosts, prod)).toMatchObject({
      ok: true,
      url: 'https://api.openai.com/@evil.example/calls',
    });
  });
});

describe('validateVoiceSession (rules 2, 4)', () => {
  it('rule 4: parses the spec example, ignoring unknown fields', () => {
    const result = validateVoiceSession(sessionJson, hosts, prod);
    expect(result).toEqual({
      ok: true,
      session: {
        voiceSessionId: 'v_1',
        threadId: 't_123',
        transport: 'webrtc',
        eventProtocol: 'openai-realtime/1',
        signalingUrl: 'https://api.openai.com/v1/realtime/calls',
        clientSecret: 'ek_secret',
        expiresAt: '2026-10-22T10:01:00Z',
        maxSeconds: 900,
        warnSeconds: 60,
        locale: 'cs',
        labels: { search_records: 'Hledám v CRM…' },
        consent: { confirm: ['ano', 'potvrzuji'], refuse: ['ne', 'zruš'] },
      },
    });
    const { consent: _c, labels: _l, locale: _lo, ...minimal } = sessionJson;
    expect(validateVoiceSession(minimal, hosts, prod)).toMatchObject({ ok: true, session: { labels: {}, consent: { confirm: [], refuse: [] } } });
  });

  it('rule 2: refuses a session whose transport, event protocol or signalling type is something else', () => {
    expect(validateVoiceSession({ ...sessionJson, transport: 'websocket' }, hosts, prod)).toMatchObject({
      ok: false,
      problems: [{ code: 'voice_transport_unsupported', path: '/transport' }],
    });
    expect(validateVoiceSession({ ...sessionJson, eventProtocol: 'gemini-live/1' }, hosts, prod)).toMatchObject({
      ok: false,
      problems: [{ code: 'voice_protocol_unsupported' }],
    });
    expect(validateVoiceSession({ ...sessionJson, signaling: { type: 'whip', url: sessionJson.signaling.url } }, hosts, prod)).toMatchObject({
      ok: false,
      problems: [{ code: 'signaling_type_unsupported' }],
    });
  });

  it('rules 5–6: refuses a session whose signalling URL fails the check, never echoing the secret', () => {
    const result = validateVoiceSession({ ...sessionJson, signaling: { type: 'sdp-post', url: 'https://collector.evil.example/calls' } }, hosts, prod);
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'signaling_host_not_listed', path: '/signaling/url' }] });
    expect(JSON.stringify(result)).not.toContain('ek_secret');
  });

  it('everything is bounded: oversized or missing fields are refused with a pointer', () => {
    expect(validateVoiceSession({ ...sessionJson, clientSecret: 'x'.repeat(5000) }, hosts, prod)).toMatchObject({
      ok: false,
      problems: [{ code: 'voice_session_invalid', path: '/clientSecret' }],
    });
    expect(validateVoiceSession({ ...sessionJson, maxSeconds: -1 }, hosts, prod)).toMatchObject({ ok: false, problems: [{ path: '/maxSeconds' }] });
    expect(validateVoiceSession({ ...sessionJson, expiresAt: 'tomorrow' }, hosts, prod)).toMatchObject({ ok: false, problems: [{ path: '/expiresAt' }] });
    expect(validateVoiceSession({ ...sessionJson, consent: { confirm: Array.from({ length: 21 }, () => 'ano') } }, hosts, prod)).toMatchObject({
      ok: false,
      problems: [{ path: '/consent/confirm' }],
    });
    const labels = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`tool_${i}`, 'x']));
    expect(validateVoiceSession({ ...sessionJson, labels }, hosts, prod)).toMatchObject({ ok: false, problems: [{ path: '/labels' }] });
    const { clientSecret: _s, ...noSecret } = sessionJson;
    expect(validateVoiceSession(noSecret, hosts, prod)).toMatchObject({ ok: false, problems: [{ path: '/clientSecret' }] });
    expect(validateVoiceSession('nope', hosts, prod).ok).toBe(false);
  });
});
