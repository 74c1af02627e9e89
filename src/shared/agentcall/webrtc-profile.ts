import { webrtcProfile } from './protocol';

/**
 * The `agentcall-webrtc-0.1` profile (AgentCall AG-UI extension 0.1, "WebSocket and WebRTC") as pure
 * rules: the exact `params.agui.webrtc` object a card must carry, and what the SDP answer of such an
 * agent must contain. Used by the card validator (card.ts), main's SDP exchange and `agentdesk
 * conformance`, so all three refuse the same things with the same words.
 *
 * The object must be exactly the spec's: profile, audio {opus, 48000, 1, sendrecv} and events
 * {datachannel, agentcall.events, agentcall-agui-dc-0.1, ordered}. Any other value of those keys is
 * refused, one problem per key, naming the key, the required value and what the card said.
 * `supportsExplicitTurns` is optional and must be a boolean. Unknown additive keys are ignored (0.1
 * may add optional fields; they never grant anything).
 */

/** The exact `params.agui.webrtc` object the spec requires for `transport: "webrtc"`. */
export const webrtcDescriptor = {
  profile: webrtcProfile,
  audio: { codec: 'opus', clockRateHz: 48000, channels: 1, direction: 'sendrecv' },
  events: { transport: 'datachannel', label: 'agentcall.events', protocol: 'agentcall-agui-dc-0.1', ordered: true },
} as const;

/** The data channel's label and subprotocol. */
export const eventsChannel = { label: webrtcDescriptor.events.label, protocol: webrtcDescriptor.events.protocol } as const;

/** The SDP answer is at most 128 KiB. */
export const maxAnswerBytes = 128 * 1024;

/** The header that names the session on the SDP POST. */
export const sessionIdHeader = 'AgentCall-Session-ID';

export interface AgentCallWebrtc {
  profile: typeof webrtcProfile;
  audio: (typeof webrtcDescriptor)['audio'];
  events: (typeof webrtcDescriptor)['events'];
  /** `supportsExplicitTurns: true` in `params.agui.webrtc` (binding choice: the spec names no place): permits audioTurnControl explicit. */
  supportsExplicitTurns: boolean;
}

export interface ProfileProblem {
  code: 'webrtc_params_invalid' | 'webrtc_profile_unsupported' | 'field_invalid';
  /** Segments below `params.agui.webrtc`. */
  path: (string | number)[];
  message: string;
}

export type ProfileCheck =
  | { ok: true; webrtc: AgentCallWebrtc }
  /** `profileOk`: the profile name itself was right (physical inputs are judged by it). */
  | { ok: false; profileOk: boolean; profileName: string; problems: ProfileProblem[] };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function quote(value: unknown): string {
  if (typeof value === 'string') {
    const points = Array.from(value);
    return `"${points.length > 80 ? `${points.slice(0, 79).join('')}…` : value}"`;
  }
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

/** Checks `params.agui.webrtc` against the exact profile object. */
export function checkWebrtcProfile(value: unknown): ProfileCheck {
  if (!isObject(value)) {
    return {
      ok: false,
      profileOk: false,
      profileName: 'a WebRTC card without a profile',
      problems: [{ code: 'webrtc_params_invalid', path: [], message: `A WebRTC card needs the agui.webrtc object of the ${webrtcProfile} profile.` }],
    };
  }
  const problems: ProfileProblem[] = [];
  const profileOk = value.profile === webrtcProfile;
  const profileName = typeof value.profile === 'string' ? quote(value.profile) : 'a WebRTC card without a profile';
  if (!profileOk) {
    problems.push({
      code: 'webrtc_profile_unsupported',
      path: ['profile'],
      message: `The WebRTC profile is ${value.profile === undefined ? 'missing' : quote(value.profile)}; AgentDesk supports exactly "${webrtcProfile}".`,
    });
  }
  for (const group of ['audio', 'events'] as const) {
    const expected: Record<string, unknown> = webrtcDescriptor[group];
    const actual = value[group];
    if (!isObject(actual)) {
      problems.push({ code: 'webrtc_params_invalid', path: [group], message: `agui.webrtc.${group} must be ${JSON.stringify(expected)}.` });
      continue;
    }
    for (const [key, want] of Object.entries(expected)) {
      if (actual[key] !== want) {
        problems.push({
          code: 'webrtc_params_invalid',
          path: [group, key],
          message: `agui.webrtc.${group}.${key} must be ${JSON.stringify(want)}, not ${actual[key] === undefined ? 'missing' : quote(actual[key])}.`,
        });
      }
    }
  }
  let supportsExplicitTurns = false;
  if (Object.prototype.hasOwnProperty.call(value, 'supportsExplicitTurns')) {
    if (typeof value.supportsExplicitTurns !== 'boolean') {
      problems.push({ code: 'field_invalid', path: ['supportsExplicitTurns'], message: 'supportsExplicitTurns must be true or false.' });
    } else supportsExplicitTurns = value.supportsExplicitTurns;
  }
  if (problems.length > 0) return { ok: false, profileOk, profileName, problems };
  return {
    ok: true,
    webrtc: { profile: webrtcProfile, audio: { ...webrtcDescriptor.audio }, events: { ...webrtcDescriptor.events }, supportsExplicitTurns },
  };
}

export interface AnswerProblem {
  code: 'answer_not_sdp' | 'answer_audio' | 'answer_opus' | 'answer_direction' | 'answer_datachannel' | 'answer_sections';
  message: string;
}

/**
 * What an agent's SDP answer must show for this profile: exactly one audio section, Opus at
 * 48 kHz in it, mono (no `stereo=1` or `sprop-stereo=1` in its fmtp), sendrecv (or no direction attribute, which means sendrecv), and one
 * `webrtc-datachannel` application section; no video. The label and subprotocol of the channel are
 * not in SDP (DCEP carries them); the peer checks them when the channel opens.
 */
export function checkAnswerSdp(sdp: string): AnswerProblem[] {
  if (!sdp.startsWith('v=0')) return [{ code: 'answer_not_sdp', message: 'The answer is not an SDP description (it does not start with v=0).' }];
  const sections = sdp.split(/\r?\n(?=m=)/).slice(1);
  const problems: AnswerProblem[] = [];
  const audio = sections.filter((section) => section.startsWith('m=audio '));
  const application = sections.filter((section) => section.startsWith('m=application ') && /webrtc-datachannel/.test(section.split(/\r?\n/)[0] ?? ''));
  const others = sections.filter((section) => !section.startsWith('m=audio ') && !section.startsWith('m=application '));
  if (audio.length !== 1)
    problems.push({ code: 'answer_audio', message: `The answer has ${audio.length} audio sections; the profile has exactly one Opus track.` });
  const track = audio[0];
  if (track !== undefined) {
    const port = /^m=audio (\d+)/.exec(track)?.[1];
    if (port === '0') problems.push({ code: 'answer_audio', message: 'The answer rejected the audio track (port 0).' });
    const payloads = new Set((/^m=audio \d+ \S+ ([\d ]+)/.exec(track)?.[1] ?? '').trim().split(/\s+/));
    const opus = [...track.matchAll(/^a=rtpmap:(\d+) opus\/48000(?:\/(\d+))?\s*$/gim)].filter((match) => payloads.has(match[1] ?? ''));
    if (opus.length === 0) problems.push({ code: 'answer_opus', message: "The answer's audio track does not use Opus at 48 kHz." });
    // The profile's audio is mono (channels 1): an answer that asks for stereo, or says it sends it, breaks it.
    const stereo = opus.some((match) => new RegExp(`^a=fmtp:${match[1]} .*\\b(?:sprop-)?stereo=1\\b`, 'm').test(track));
    if (stereo)
      problems.push({ code: 'answer_opus', message: "The answer's Opus is stereo (stereo=1 or sprop-stereo=1); the profile's audio is mono (channels 1)." });
    const directions = [...track.matchAll(/^a=(sendrecv|sendonly|recvonly|inactive)\s*$/gm)].map((match) => match[1]);
    const direction = directions[0] ?? 'sendrecv';
    if (directions.length > 1 || direction !== 'sendrecv')
      problems.push({ code: 'answer_direction', message: `The answer's audio track is ${directions.join(', ')}; the profile needs sendrecv.` });
  }
  if (application.length !== 1)
    problems.push({ code: 'answer_datachannel', message: `The answer has ${application.length} data channel sections; the profile needs exactly one.` });
  else if (/^m=application 0 /.test(application[0]!)) problems.push({ code: 'answer_datachannel', message: 'The answer rejected the data channel (port 0).' });
  if (others.length > 0)
    problems.push({
      code: 'answer_sections',
      message: `The answer has ${others.length} other media sections (${others.map((s) => s.split(' ')[0]).join(', ')}); the profile has audio and one data channel only.`,
    });
  return problems;
}

/** Checks a data channel the agent's side reports: the exact label and subprotocol, ordered. */
export function checkEventsChannel(channel: { label: string; protocol: string; ordered?: boolean }): string | undefined {
  if (channel.label !== eventsChannel.label) return `The data channel is labelled ${quote(channel.label)}; the profile needs "${eventsChannel.label}".`;
  if (channel.protocol !== eventsChannel.protocol)
    return `The data channel's subprotocol is ${quote(channel.protocol)}; the profile needs "${eventsChannel.protocol}".`;
  if (channel.ordered === false) return 'The data channel is unordered; the profile needs an ordered, reliable channel.';
  return undefined;
}
