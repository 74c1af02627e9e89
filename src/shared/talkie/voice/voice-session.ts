import { z } from 'zod';
import type { TalkieManifest } from '../manifest';
import { pointer, type Problem } from '../problems';

/**
 * Talkie 1 §10.1: when voice is offered, and the `POST voiceSessions` response.
 * Everything here runs before any network call to the speech provider: a response that fails
 * `validateVoiceSession` (wrong transport, a signalling URL on an unlisted host, …) is refused,
 * so the client secret is never sent anywhere the manifest did not name.
 */
export const voiceTransport = 'webrtc';
export const voiceEventProtocol = 'openai-realtime/1';
export const voiceEndpointNames = ['voiceSessions', 'voiceTool', 'voiceTranscript', 'voiceUsage'] as const;

export type VoiceAvailability =
  | {
      offered: true;
      /** false when `GET status` says `voice: false` (Talkie 1 §4): shown, greyed out. */ enabled: boolean;
      signalingHosts: string[];
      voiceConfirm: boolean;
    }
  | { offered: false; code: 'voice_not_offered' | 'voice_transport_unsupported' | 'voice_protocol_unsupported' | 'voice_endpoint_missing'; message: string };

/** Rules 1–2: voice needs `capabilities.voice` with webrtc + openai-realtime/1 and all four voice endpoints. */
export function voiceAvailability(manifest: Pick<TalkieManifest, 'voice' | 'voiceConfirm' | 'endpoints'>, status?: { voice?: boolean }): VoiceAvailability {
  const voice = manifest.voice;
  if (!voice) return { offered: false, code: 'voice_not_offered', message: 'This server does not offer voice.' };
  if (!voice.transports.includes(voiceTransport)) {
    return {
      offered: false,
      code: 'voice_transport_unsupported',
      message: `This server offers voice over ${voice.transports.join(', ') || 'nothing'}; AgentDesk speaks ${voiceTransport}.`,
    };
  }
  if (!voice.eventProtocols.includes(voiceEventProtocol)) {
    return {
      offered: false,
      code: 'voice_protocol_unsupported',
      message: `This server's voice uses ${voice.eventProtocols.join(', ') || 'no event protocol'}; AgentDesk reads ${voiceEventProtocol}.`,
    };
  }
  const missing = voiceEndpointNames.filter((name) => manifest.endpoints[name] === undefined);
  if (missing.length > 0)
    return { offered: false, code: 'voice_endpoint_missing', message: `This server offers voice but has no ${missing.join(', ')} endpoint.` };
  return { offered: true, enabled: status?.voice !== false, signalingHosts: voice.signalingHosts, voiceConfirm: manifest.voiceConfirm };
}

export type SignalingCheck =
  | { ok: true; /** The normalized URL that was checked: send the SDP offer to exactly this. */ url: string }
  | { ok: false; code: 'signaling_url_invalid' | 'signaling_userinfo' | 'signaling_not_https' | 'signaling_host_not_listed'; message: string };

const loopbackHosts = new Set(['localhost', '[::1]']);
const isLoopback = (hostname: string): boolean => loopbackHosts.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * Rules 5–6: `signaling.url` must be https (http only to a loopback host in development) and its
 * host exactly one of `capabilities.voice.signalingHosts` (lower-cased, no suffix match, no userinfo).
 */
export function checkSignalingUrl(url: string, signalingHosts: readonly string[], options: { development: boolean }): SignalingCheck {
  if (!URL.canParse(url)) return { ok: false, code: 'signaling_url_invalid', message: 'The voice signalling address is not a URL.' };
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, code: 'signaling_userinfo', message: 'The voice signalling address carries a user name or password; it is refused.' };
  }
  const plainAllowed = parsed.protocol === 'http:' && options.development && isLoopback(parsed.hostname);
  if (parsed.protocol !== 'https:' && !plainAllowed) {
    return { ok: false, code: 'signaling_not_https', message: `The voice signalling address must use https, not ${parsed.protocol.replace(/:$/, '')}.` };
  }
  const listed = signalingHosts.map((host) => host.toLowerCase());
  if (!listed.includes(parsed.hostname) && !listed.includes(parsed.host)) {
    return {
      ok: false,
      code: 'signaling_host_not_listed',
      message: `The voice signalling host ${parsed.host} is not one of the hosts this server lists (${listed.join(', ')}).`,
    };
  }
  return { ok: true, url: parsed.href };
}

const id = z.string().min(1).max(200);
const word = z.string().min(1).max(60);
const maxLabels = 64;

const voiceSessionSchema = z.looseObject({
  voiceSessionId: id,
  threadId: id,
  transport: z.string().max(40),
  eventProtocol: z.string().max(60),
  signaling: z.looseObject({ type: z.string().max(40), url: z.string().max(2048) }),
  clientSecret: z.string().min(1).max(4096),
  expiresAt: z.iso.datetime({ offset: true }),
  maxSeconds: z
    .number()
    .int()
    .positive()
    .max(24 * 3600),
  warnSeconds: z
    .number()
    .int()
    .nonnegative()
    .max(24 * 3600),
  locale: z.string().max(35).optional(),
  labels: z
    .record(z.string().max(64), z.string().max(200))
    .refine((labels) => Object.keys(labels).length <= maxLabels, `at most ${maxLabels} labels`)
    .optional(),
  consent: z.looseObject({ confirm: z.array(word).max(20).optional(), refuse: z.array(word).max(20).optional() }).optional(),
});

export interface VoiceSession {
  voiceSessionId: string;
  threadId: string;
  transport: typeof voiceTransport;
  eventProtocol: typeof voiceEventProtocol;
  /** Already checked by `checkSignalingUrl`. */
  signalingUrl: string;
  /** Main only: never logged, persisted or handed to the renderer. */
  clientSecret: string;
  expiresAt: string;
  maxSeconds: number;
  warnSeconds: number;
  locale?: string;
  /** Tool name → status text while that voice tool runs. */
  labels: Record<string, string>;
  /** Words the server adds to the built-in vocabularies (Talkie 1 §10.1). */
  consent: { confirm: string[]; refuse: string[] };
}

export type VoiceSessionValidation = { ok: true; session: VoiceSession } | { ok: false; problems: Problem[] };

/** Rules 2, 4–6: the `POST voiceSessions` response, refused whole when anything is off. */
export function validateVoiceSession(json: unknown, signalingHosts: readonly string[], options: { development: boolean }): VoiceSessionValidation {
  const parsed = voiceSessionSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((issue) => ({
      code: 'voice_session_invalid',
      path: pointer(issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))),
      message: issue.message,
    }));
    return { ok: false, problems };
  }
  const raw = parsed.data;
  const refuse = (code: string, path: string, message: string): VoiceSessionValidation => ({ ok: false, problems: [{ code, path, message }] });
  if (raw.transport !== voiceTransport)
    return refuse('voice_transport_unsupported', '/transport', `The voice session uses ${raw.transport.slice(0, 40)}; AgentDesk speaks ${voiceTransport}.`);
  if (raw.eventProtocol !== voiceEventProtocol)
    return refuse(
      'voice_protocol_unsupported',
      '/eventProtocol',
      `The voice session uses ${raw.eventProtocol.slice(0, 60)}; AgentDesk reads ${voiceEventProtocol}.`,
    );
  if (raw.signaling.type !== 'sdp-post')
    return refuse('signaling_type_unsupported', '/signaling/type', `The voice signalling is ${raw.signaling.type.slice(0, 40)}; AgentDesk does sdp-post.`);
  const signaling = checkSignalingUrl(raw.signaling.url, signalingHosts, options);
  if (!signaling.ok) return refuse(signaling.code, '/signaling/url', signaling.message);
  const session: VoiceSession = {
    voiceSessionId: raw.voiceSessionId,
    threadId: raw.threadId,
    transport: voiceTransport,
    eventProtocol: voiceEventProtocol,
    signalingUrl: signaling.url,
    clientSecret: raw.clientSecret,
    expiresAt: raw.expiresAt,
    maxSeconds: raw.maxSeconds,
    warnSeconds: raw.warnSeconds,
    labels: { ...raw.labels },
    consent: { confirm: raw.consent?.confirm ?? [], refuse: raw.consent?.refuse ?? [] },
  };
  if (raw.locale !== undefined) session.locale = raw.locale;
  return { ok: true, session };
}
