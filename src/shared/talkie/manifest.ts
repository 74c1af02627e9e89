import { z } from 'zod';
import { ServiceError } from '../base/errors';
import { pointer, type Problem } from './problems';

/**
 * Talkie 1 §1: the manifest at /.well-known/talkie.json.
 * Unknown fields are ignored (the schemas are loose); every rule the client must enforce is a
 * Problem with a stable code, so `agentdesk probe` and the UI explain refusals the same way.
 */
export const manifestMaxBytes = 64 * 1024;
export const defaultAccent = '#0b7a75';

export const endpointNames = [
  'status',
  'run',
  'cancelRun',
  'threads',
  'thread',
  'action',
  'decision',
  'voiceSessions',
  'voiceTool',
  'voiceTranscript',
  'voiceUsage',
] as const;
export type EndpointName = (typeof endpointNames)[number];

const text = (max: number) => z.string().max(max);

const manifestSchema = z.looseObject({
  spec: z.string().max(40),
  issuer: z.string().max(2048),
  serverId: z.string().min(1).max(256),
  name: text(200),
  description: text(2000).optional(),
  locale: text(35).optional(),
  brand: z.looseObject({ logo: z.string().max(2048).optional(), accent: z.string().max(40).optional() }).optional(),
  auth: z.looseObject({
    oauth: z.looseObject({ issuer: z.string().max(2048), scopes: z.array(z.string().max(200)).max(32).optional() }).optional(),
    token: z.looseObject({ hint: text(500).optional() }).optional(),
  }),
  endpoints: z.record(z.string().max(64), z.string().max(2048)),
  capabilities: z.looseObject({}).optional(),
  limits: z.looseObject({ maxMessageChars: z.number().int().positive().max(1_000_000).optional() }).optional(),
  testMode: z.boolean().optional(),
});

export interface TalkieManifest {
  spec: 'talkie/1';
  issuer: string;
  serverId: string;
  name: string;
  description?: string;
  locale?: string;
  logo?: string;
  accent: string;
  auth: { oauth?: { issuer: string; scopes: string[] }; token?: { hint?: string } };
  /** Endpoint templates as the manifest gives them. */
  endpoints: Partial<Record<EndpointName, string>>;
  /** Endpoints whose absolute URL is on another origin: usable only after the user accepts them. */
  crossOriginEndpoints: { name: EndpointName; url: string }[];
  maxMessageChars?: number;
  testMode: boolean;
  /** `capabilities.voice` when well-formed (Talkie 1 §10); whether voice is offered is `voiceAvailability` (voice/voice-session.ts). */
  voice?: VoiceCapability;
  /** `capabilities.actions.voiceConfirm === true` (Talkie 1 §1, C1). */
  voiceConfirm: boolean;
  /** Raw capabilities (voice, actions, cards), for later features. */
  capabilities: Record<string, unknown>;
}

/**
 * A Talkie server as the client keys what it keeps for it (tokens, accepted endpoints, voice
 * consent): its `serverId` at its origin, the manifest's `issuer` (the origin the manifest was served
 * from). The serverId alone is public in every manifest, so any server can claim it.
 */
export interface TalkieServerKey {
  serverId: string;
  issuer: string;
}

export function sameTalkieServer(a: TalkieServerKey, b: TalkieServerKey): boolean {
  return a.serverId === b.serverId && a.issuer === b.issuer;
}

/** Talkie 1 §1 `capabilities.voice`; signalling hosts are lower-cased here, once. */
export interface VoiceCapability {
  transports: string[];
  eventProtocols: string[];
  signalingHosts: string[];
}

const voiceCapabilitySchema = z.looseObject({
  transports: z.array(z.string().max(40)).max(10),
  eventProtocols: z.array(z.string().max(60)).max(10),
  signalingHosts: z.array(z.string().min(1).max(253)).min(1).max(20),
});

export type ManifestValidation = { ok: true; manifest: TalkieManifest; problems: Problem[] } | { ok: false; problems: Problem[] };

/**
 * Validates a parsed manifest fetched from `fetchedFrom` (the URL it was actually served from).
 * Problems that make the server unusable fail validation; the rest are returned as notes.
 */
export function validateManifest(json: unknown, fetchedFrom: string): ManifestValidation {
  const problems: Problem[] = [];
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 20)) {
      problems.push({ code: 'manifest_invalid', path: pointer(issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))), message: issue.message });
    }
    return { ok: false, problems };
  }
  const m = parsed.data;
  const major = /^talkie\/(\d+)(\.|$)/.exec(m.spec)?.[1];
  if (major !== '1') {
    problems.push({
      code: 'spec_unsupported',
      path: '/spec',
      message: major ? `This server speaks Talkie ${major}; AgentDesk supports Talkie 1.` : `"${m.spec}" is not a Talkie protocol version.`,
    });
    return { ok: false, problems };
  }
  const fetchedOrigin = originOf(fetchedFrom);
  const issuerOrigin = originOf(m.issuer);
  if (!issuerOrigin || issuerOrigin !== m.issuer.replace(/\/$/, '')) {
    problems.push({ code: 'issuer_invalid', path: '/issuer', message: `The issuer must be an origin like https://host[:port], not "${m.issuer}".` });
  } else if (issuerOrigin !== fetchedOrigin) {
    problems.push({
      code: 'issuer_mismatch',
      path: '/issuer',
      message: `The manifest was served from ${fetchedOrigin} but names ${issuerOrigin} as its issuer.`,
    });
  }
  if (!m.auth.oauth) {
    problems.push({ code: 'auth_oauth_missing', path: '/auth/oauth', message: 'The manifest offers no OAuth sign-in (Talkie requires it).' });
  }
  const endpoints: Partial<Record<EndpointName, string>> = {};
  const crossOriginEndpoints: { name: EndpointName; url: string }[] = [];
  for (const [name, template] of Object.entries(m.endpoints)) {
    if (!(endpointNames as readonly string[]).includes(name)) continue;
    const endpointName = name as EndpointName;
    if (template.startsWith('/') && !template.startsWith('//')) {
      endpoints[endpointName] = template;
      continue;
    }
    const origin = originOf(template);
    if (!origin || !template.startsWith('https://')) {
      problems.push({ code: 'endpoint_invalid', path: pointer(['endpoints', name]), message: `Endpoint ${name} must be a path or an https URL.` });
      continue;
    }
    endpoints[endpointName] = template;
    if (origin !== issuerOrigin) crossOriginEndpoints.push({ name: endpointName, url: template });
  }
  for (const required of ['run', 'threads', 'thread'] as const) {
    if (!endpoints[required])
      problems.push({ code: 'endpoint_missing', path: pointer(['endpoints', required]), message: `The manifest has no ${required} endpoint.` });
  }
  let accent = defaultAccent;
  if (m.brand?.accent !== undefined) {
    if (/^#[0-9a-fA-F]{6}$/.test(m.brand.accent)) accent = m.brand.accent.toLowerCase();
    else
      problems.push({ code: 'accent_invalid', path: '/brand/accent', message: `The accent colour "${m.brand.accent}" is not #rrggbb; the default is used.` });
  }
  let logo: string | undefined;
  if (m.brand?.logo !== undefined) {
    const url = resolveAgainst(m.brand.logo, m.issuer);
    if (url && (originOf(url) === issuerOrigin || url.startsWith('https://'))) logo = url;
    else problems.push({ code: 'logo_invalid', path: '/brand/logo', message: 'The logo must be a same-origin path or an https URL; it is not shown.' });
  }
  const voice = parseVoiceCapability(m.capabilities?.voice, problems);
  const fatal = problems.some((problem) => ['issuer_invalid', 'issuer_mismatch', 'endpoint_missing'].includes(problem.code));
  if (fatal || !issuerOrigin) return { ok: false, problems };
  const manifest: TalkieManifest = {
    spec: 'talkie/1',
    issuer: issuerOrigin,
    serverId: m.serverId,
    name: m.name,
    accent,
    auth: {
      ...(m.auth.oauth ? { oauth: { issuer: m.auth.oauth.issuer, scopes: m.auth.oauth.scopes ?? ['talkie', 'offline_access'] } } : {}),
      ...(m.auth.token ? { token: m.auth.token.hint === undefined ? {} : { hint: m.auth.token.hint } } : {}),
    },
    endpoints,
    crossOriginEndpoints,
    testMode: m.testMode === true,
    voiceConfirm: (m.capabilities?.actions as { voiceConfirm?: unknown } | undefined)?.voiceConfirm === true,
    capabilities: { ...m.capabilities },
  };
  if (voice !== undefined) manifest.voice = voice;
  if (m.description !== undefined) manifest.description = m.description;
  if (m.locale !== undefined) manifest.locale = m.locale;
  if (logo !== undefined) manifest.logo = logo;
  if (m.limits?.maxMessageChars !== undefined) manifest.maxMessageChars = m.limits.maxMessageChars;
  return { ok: true, manifest, problems };
}

/** A malformed `capabilities.voice` is a note, not a refusal: the server stays usable, without voice. */
function parseVoiceCapability(raw: unknown, problems: Problem[]): VoiceCapability | undefined {
  if (raw === undefined) return undefined;
  const parsed = voiceCapabilitySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = pointer(['capabilities', 'voice', ...(issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))]);
    problems.push({
      code: 'voice_capability_invalid',
      path,
      message: `capabilities.voice is malformed (${issue?.message ?? 'invalid'}); voice is not offered.`,
    });
    return undefined;
  }
  const { transports, eventProtocols, signalingHosts } = parsed.data;
  return { transports, eventProtocols, signalingHosts: signalingHosts.map((host) => host.toLowerCase()) };
}

/**
 * The URL of an endpoint: the template resolved against the issuer origin (not the manifest URL),
 * with each `{name}` placeholder replaced by its value encoded as one path segment (a value that is
 * not well-formed text, a lone surrogate, is refused with `invalid_request`).
 */
export function endpointUrl(
  manifest: Pick<TalkieManifest, 'issuer' | 'endpoints'>,
  name: EndpointName,
  params: Record<string, string> = {},
): string | undefined {
  const template = manifest.endpoints[name];
  if (template === undefined) return undefined;
  const filled = template.replace(/\{([a-zA-Z][a-zA-Z0-9]*)\}/g, (_match, key: string) => {
    const value = Object.hasOwn(params, key) ? params[key] : undefined;
    if (value === undefined) throw new Error(`endpoint ${name} needs {${key}}`);
    try {
      return encodeURIComponent(value);
    } catch {
      // A lone surrogate: no URL can carry it, so no server could have meant it.
      throw new ServiceError('invalid_request', `The ${key} is not well-formed text, so it cannot be part of an address.`);
    }
  });
  return new URL(filled, `${manifest.issuer}/`).href;
}

/** Where to look for the manifest for what the user typed: a host, or a full manifest URL. */
export function manifestUrlFor(address: string): string {
  const url = new URL(address);
  if (url.pathname === '/' || url.pathname === '') return `${url.origin}/.well-known/talkie.json`;
  return url.href;
}

export function originOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
}

function resolveAgainst(reference: string, base: string): string | undefined {
  return URL.canParse(reference, `${base}/`) ? new URL(reference, `${base}/`).href : undefined;
}
