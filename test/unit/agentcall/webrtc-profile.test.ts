import { describe, expect, it } from 'vitest';
import { validateAgentCard } from '../../../src/shared/agentcall/card';
import { checkAnswerSdp, checkEventsChannel, checkWebrtcProfile, webrtcDescriptor } from '../../../src/shared/agentcall/webrtc-profile';
import { cardCases } from './card-cases';

const exact = () => structuredClone(webrtcDescriptor) as unknown as Record<string, Record<string, unknown> | unknown>;

function refused(value: unknown) {
  const result = checkWebrtcProfile(value);
  if (result.ok) throw new Error('expected a refusal');
  return result;
}

describe('the agentcall-webrtc-0.1 profile object', () => {
  it('accepts the exact object, with supportsExplicitTurns and an unknown additive key', () => {
    expect(checkWebrtcProfile(exact())).toEqual({ ok: true, webrtc: { ...webrtcDescriptor, supportsExplicitTurns: false } });
    const turns = checkWebrtcProfile({ ...exact(), supportsExplicitTurns: true, futureField: { grants: 'nothing' } });
    expect(turns.ok && turns.webrtc.supportsExplicitTurns).toBe(true);
    expect(turns.ok && 'futureField' in turns.webrtc).toBe(false);
  });

  it.each([
    ['not an object', 'agentcall-webrtc-0.1', 'webrtc_params_invalid', '', 'A WebRTC card needs the agui.webrtc object of the agentcall-webrtc-0.1 profile.'],
    ['an array', [], 'webrtc_params_invalid', '', 'A WebRTC card needs the agui.webrtc object of the agentcall-webrtc-0.1 profile.'],
  ])('refuses %s', (_name, value, code, path, message) => {
    const result = refused(value);
    expect(result.problems).toEqual([{ code, path: path === '' ? [] : path.split('/'), message }]);
    expect(result.profileOk).toBe(false);
  });

  it.each([
    ['missing', undefined, 'The WebRTC profile is missing; AgentDesk supports exactly "agentcall-webrtc-0.1".'],
    [
      'another vendor profile',
      'openai-realtime-webrtc-1',
      'The WebRTC profile is "openai-realtime-webrtc-1"; AgentDesk supports exactly "agentcall-webrtc-0.1".',
    ],
    ['a later version', 'agentcall-webrtc-0.2', 'The WebRTC profile is "agentcall-webrtc-0.2"; AgentDesk supports exactly "agentcall-webrtc-0.1".'],
    ['a number', 1, 'The WebRTC profile is 1; AgentDesk supports exactly "agentcall-webrtc-0.1".'],
  ])('refuses the profile name when it is %s', (_name, profile, message) => {
    const value = exact();
    if (profile === undefined) delete value.profile;
    else value.profile = profile;
    const result = refused(value);
    expect(result.problems).toEqual([{ code: 'webrtc_profile_unsupported', path: ['profile'], message }]);
    expect(result.profileOk).toBe(false);
  });

  it.each([
    ['audio', 'codec', 'pcmu', 'agui.webrtc.audio.codec must be "opus", not "pcmu".'],
    ['audio', 'codec', 'OPUS', 'agui.webrtc.audio.codec must be "opus", not "OPUS".'],
    ['audio', 'clockRateHz', 16000, 'agui.webrtc.audio.clockRateHz must be 48000, not 16000.'],
    ['audio', 'clockRateHz', '48000', 'agui.webrtc.audio.clockRateHz must be 48000, not "48000".'],
    ['audio', 'channels', 2, 'agui.webrtc.audio.channels must be 1, not 2.'],
    ['audio', 'direction', 'recvonly', 'agui.webrtc.audio.direction must be "sendrecv", not "recvonly".'],
    ['audio', 'direction', undefined, 'agui.webrtc.audio.direction must be "sendrecv", not missing.'],
    ['events', 'transport', 'websocket', 'agui.webrtc.events.transport must be "datachannel", not "websocket".'],
    ['events', 'label', 'oai-events', 'agui.webrtc.events.label must be "agentcall.events", not "oai-events".'],
    ['events', 'protocol', 'agentcall-agui-ws-0.1', 'agui.webrtc.events.protocol must be "agentcall-agui-dc-0.1", not "agentcall-agui-ws-0.1".'],
    ['events', 'protocol', '', 'agui.webrtc.events.protocol must be "agentcall-agui-dc-0.1", not "".'],
    ['events', 'ordered', false, 'agui.webrtc.events.ordered must be true, not false.'],
    ['events', 'ordered', 'true', 'agui.webrtc.events.ordered must be true, not "true".'],
  ])('refuses %s.%s = %j with the reason', (group, key, value, message) => {
    const profile = exact();
    const section = profile[group] as Record<string, unknown>;
    if (value === undefined) delete section[key];
    else section[key] = value;
    const result = refused(profile);
    expect(result.problems).toEqual([{ code: 'webrtc_params_invalid', path: [group, key], message }]);
    // The profile name was right: physical inputs are not refused because of this key.
    expect(result.profileOk).toBe(true);
  });

  it.each(['audio', 'events'] as const)('refuses a missing or non-object %s group', (group) => {
    for (const value of [undefined, 'opus', null, []]) {
      const profile = exact();
      if (value === undefined) delete profile[group];
      else profile[group] = value;
      expect(refused(profile).problems).toEqual([
        { code: 'webrtc_params_invalid', path: [group], message: `agui.webrtc.${group} must be ${JSON.stringify(webrtcDescriptor[group])}.` },
      ]);
    }
  });

  it('refuses a supportsExplicitTurns that is not a boolean, and reports every wrong key at once', () => {
    expect(refused({ ...exact(), supportsExplicitTurns: 'yes' }).problems).toEqual([
      { code: 'field_invalid', path: ['supportsExplicitTurns'], message: 'supportsExplicitTurns must be true or false.' },
    ]);
    const profile = exact();
    (profile.audio as Record<string, unknown>).channels = 2;
    (profile.events as Record<string, unknown>).label = 'x';
    expect(refused(profile).problems.map((problem) => problem.path.join('.'))).toEqual(['audio.channels', 'events.label']);
  });

  it("is what the card validator reports, at the card's JSON path, with the same text", () => {
    const card = structuredClone(cardCases.find((entry) => entry.name === 'valid webrtc card')!.card) as {
      capabilities: { extensions: { params: { agui: { webrtc: { audio: Record<string, unknown> } } } }[] };
    };
    card.capabilities.extensions[0]!.params.agui.webrtc.audio.channels = 2;
    const result = validateAgentCard(card, { allowLocalHttp: false });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      {
        code: 'webrtc_params_invalid',
        path: '/capabilities/extensions/0/params/agui/webrtc/audio/channels',
        message: 'agui.webrtc.audio.channels must be 1, not 2.',
      },
    ]);
  });

  it("refuses a WebRTC card whose voice is not the agent's, with the reason", () => {
    const card = structuredClone(cardCases.find((entry) => entry.name === 'webrtc with voice.owner client')!.card);
    const result = validateAgentCard(card, { allowLocalHttp: false });
    expect(result.problems).toEqual([
      {
        code: 'webrtc_voice_owner_not_agent',
        path: '/capabilities/extensions/0/params/voice/owner',
        message: 'A WebRTC card must declare voice.owner "agent" (the agent owns the audio).',
      },
    ]);
  });
});

const answer = (audio: string, application = 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\na=sctp-port:5000\r\n') =>
  `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n${audio}${application}`;
const opusAudio = (direction = 'a=sendrecv\r\n', rtpmap = 'a=rtpmap:111 opus/48000/2\r\n') =>
  `m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n${direction}${rtpmap}a=fmtp:111 minptime=10;useinbandfec=1\r\n`;

describe("the agent's SDP answer", () => {
  it('accepts one sendrecv Opus 48 kHz track and one data channel (no direction attribute means sendrecv)', () => {
    expect(checkAnswerSdp(answer(opusAudio()))).toEqual([]);
    expect(checkAnswerSdp(answer(opusAudio('')))).toEqual([]);
    expect(checkAnswerSdp(answer(opusAudio().replace('useinbandfec=1', 'useinbandfec=1;stereo=0')))).toEqual([]);
  });

  it.each([
    ['not SDP', 'HTTP/1.1 200 OK', 'answer_not_sdp'],
    ['no audio', answer(''), 'answer_audio'],
    ['two audio tracks', answer(opusAudio() + opusAudio()), 'answer_audio'],
    ['a rejected audio track', answer(opusAudio().replace('m=audio 9', 'm=audio 0')), 'answer_audio'],
    ['PCMU instead of Opus', answer(opusAudio('a=sendrecv\r\n', 'a=rtpmap:111 PCMU/8000\r\n')), 'answer_opus'],
    ['Opus at 16 kHz', answer(opusAudio('a=sendrecv\r\n', 'a=rtpmap:111 opus/16000\r\n')), 'answer_opus'],
    ['Opus not among the m-line payloads', answer(opusAudio('a=sendrecv\r\n', 'a=rtpmap:112 opus/48000/2\r\n')), 'answer_opus'],
    ['stereo Opus (stereo=1)', answer(opusAudio().replace('useinbandfec=1', 'useinbandfec=1;stereo=1')), 'answer_opus'],
    ['stereo Opus (sprop-stereo=1)', answer(opusAudio().replace('minptime=10', 'sprop-stereo=1;minptime=10')), 'answer_opus'],
    ['a recvonly track', answer(opusAudio('a=recvonly\r\n')), 'answer_direction'],
    ['an inactive track', answer(opusAudio('a=inactive\r\n')), 'answer_direction'],
    ['no data channel', answer(opusAudio(), ''), 'answer_datachannel'],
    ['a rejected data channel', answer(opusAudio(), 'm=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n'), 'answer_datachannel'],
    ['a video section', answer(opusAudio()) + 'm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:2\r\n', 'answer_sections'],
  ])('refuses %s', (_name, sdp, code) => {
    const problems = checkAnswerSdp(sdp);
    expect(problems.map((problem) => problem.code)).toEqual([code]);
    expect(problems[0]!.message.length).toBeGreaterThan(20);
  });
});

describe('the events data channel', () => {
  it('needs the exact label and subprotocol, ordered', () => {
    expect(checkEventsChannel({ label: 'agentcall.events', protocol: 'agentcall-agui-dc-0.1', ordered: true })).toBeUndefined();
    expect(checkEventsChannel({ label: 'oai-events', protocol: 'agentcall-agui-dc-0.1' })).toBe(
      'The data channel is labelled "oai-events"; the profile needs "agentcall.events".',
    );
    expect(checkEventsChannel({ label: 'agentcall.events', protocol: '' })).toBe(
      'The data channel\'s subprotocol is ""; the profile needs "agentcall-agui-dc-0.1".',
    );
    expect(checkEventsChannel({ label: 'agentcall.events', protocol: 'agentcall-agui-dc-0.1', ordered: false })).toBe(
      'The data channel is unordered; the profile needs an ordered, reliable channel.',
    );
  });
});
