import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { iso, newId, threadTitle, type ThreadRecord, type UserSpace } from '../demo-store';
import { checkId, httpErrors, TalkieHttpError } from '../http-util';
import type { TalkieUser } from '../talkie-types';
import { demoSpeechEngines, speechUnavailableMessage, type SpeechEngines } from '../../speech/speech-engines';
import { runVoiceTool, voiceConsent, voiceLabels, type VoiceLocale, type VoiceToolResult } from './voice-tools';

/**
 * The demo's Talkie 1 §10 voice sessions (`voiceSessions`, `voiceTool`, `voiceTranscript`, `voiceUsage`) and the check of
 * the client secrets its realtime provider is handed: in memory only, only a secret's SHA-256 kept, each secret spent by its
 * first SDP POST. Decision: docs/architecture.md#demo-voice-sessions
 */

/** The in-app demo's call length in seconds (`agentdesk demo --voice-seconds N` for the command-line demo). */
export const demoVoiceSecondsEnv = 'AGENTDESK_DEMO_VOICE_SECONDS';

/**
 * A demo call length someone typed (a flag or `AGENTDESK_DEMO_VOICE_SECONDS`): a whole number of
 * seconds from 10 to 3600, else a RangeError that says so, naming `where`.
 */
export function parseDemoVoiceSeconds(text: string, where: string): number {
  const seconds = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(seconds) || seconds < 10 || seconds > 3600) {
    throw new RangeError(`${where} must be a whole number of seconds from 10 to 3600, not "${text.slice(0, 40)}".`);
  }
  return seconds;
}

export interface DemoVoiceOptions {
  /** Talkie 1 §10.1 maxSeconds of a session. Default 300. */
  maxSeconds?: number;
  /** Talkie 1 §10.1 warnSeconds. Default 30. */
  warnSeconds?: number;
  /** How long a client secret may open a connection (ms, not scaled by timeScale). Default 60 000. */
  secretTtlMs?: number;
  /** Voice seconds each user may talk per day. Default 1800 (30 minutes). */
  dailySeconds?: number;
  /** Open (not ended, not stale) sessions per user. Default 3. */
  maxOpenSessions?: number;
  /** Whether the demo's speech engines can run; default: espeak-ng and pocketsphinx on PATH (speech-engines.ts). */
  speechEngines?: () => SpeechEngines;
}

export interface VoiceSessionsEnv {
  spaceFor(user: TalkieUser): UserSpace;
  /** Where the client POSTs its SDP offer: the demo's own provider. */
  signalingUrl(): string;
  timeScale: number;
  log: { info(area: string, message: string): void };
  now?: () => number;
}

interface VoiceSessionRecord {
  id: string;
  userId: string;
  space: UserSpace;
  threadId: string;
  locale: VoiceLocale;
  maxSeconds: number;
  warnSeconds: number;
  createdAt: number;
  secretExpiresAt: number;
  /** SHA-256 (hex) of the unspent secret; undefined once spent or the session ended. */
  secretDigest: string | undefined;
  connectedAt?: number;
  /** The highest cumulative seconds reported. */
  seconds: number;
  endedAt?: number;
  callIds: Set<string>;
  transcripts: Map<string, { role: 'user' | 'assistant'; text: string }>;
}

/**
 * Where the demo's realtime provider takes SDP offers, on the demo's own port: realtime-provider.ts's
 * `realtimeCallsPath`, repeated here so the server can name it without loading the provider's native
 * code (test/unit/demo/demo-voice.test.ts checks they agree).
 */
export const realtimeCallsPath = '/v1/realtime/calls';
export const voiceThreadTitle = 'Voice conversation';
export const maxTranscriptChars = 20_000;
export const maxToolArgumentChars = 16 * 1024;
const maxCallIdsPerSession = 10_000;
const maxTranscriptsPerSession = 20_000;
/** A session's record is kept this long after its last possible use (late transcripts, repeated finals). */
const retainMs = 10 * 60_000;
/** A connected session counts as open for its maxSeconds plus this (a client may report a little late). */
const graceMs = 60_000;

const createBodySchema = z.looseObject({ threadId: z.string().optional(), locale: z.string().optional() });
const toolBodySchema = z.looseObject({ callId: z.string(), arguments: z.string() });
const transcriptBodySchema = z.looseObject({ role: z.enum(['user', 'assistant']), text: z.string(), itemId: z.string() });
const usageBodySchema = z.looseObject({
  seconds: z
    .number()
    .finite()
    .nonnegative()
    .max(24 * 3600),
  final: z.boolean(),
});

const digest = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

function voiceLocale(requested: string | undefined): VoiceLocale {
  if (requested === undefined) return 'en';
  if (!/^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(requested) || requested.length > 35) {
    throw httpErrors.invalid('The locale must be a language tag such as "en" or "cs".');
  }
  return /^cs(?:[-_]|$)/i.test(requested) ? 'cs' : 'en';
}

export class DemoVoiceSessions {
  private readonly sessions = new Map<string, VoiceSessionRecord>();
  /** Secret digest → session id, for the unspent secrets. */
  private readonly secrets = new Map<string, string>();
  private readonly maxSeconds: number;
  private readonly warnSeconds: number;
  private readonly secretTtlMs: number;
  readonly dailySeconds: number;
  private readonly maxOpenSessions: number;
  private readonly engines: () => SpeechEngines;
  private readonly now: () => number;

  constructor(
    options: DemoVoiceOptions,
    private readonly env: VoiceSessionsEnv,
  ) {
    const positive = (value: number | undefined, fallback: number, what: string): number => {
      const chosen = value ?? fallback;
      if (!(Number.isFinite(chosen) && chosen > 0)) throw new RangeError(`${what} must be a positive number`);
      return chosen;
    };
    this.maxSeconds = Math.floor(positive(options.maxSeconds, 300, 'voice.maxSeconds'));
    this.warnSeconds = Math.floor(options.warnSeconds ?? 30);
    this.secretTtlMs = positive(options.secretTtlMs, 60_000, 'voice.secretTtlMs');
    this.dailySeconds = positive(options.dailySeconds, 30 * 60, 'voice.dailySeconds');
    this.maxOpenSessions = Math.floor(positive(options.maxOpenSessions, 3, 'voice.maxOpenSessions'));
    if (!(this.maxSeconds >= 1 && this.warnSeconds >= 0)) throw new RangeError('voice.maxSeconds must be ≥ 1 and voice.warnSeconds ≥ 0');
    this.engines = options.speechEngines ?? (() => demoSpeechEngines());
    this.now = env.now ?? Date.now;
  }

  /** Whether the demo's speech can run now, and what is missing if not. */
  speech(): SpeechEngines {
    return this.engines();
  }

  /** `POST voiceSessions`. */
  create(user: TalkieUser, body: unknown) {
    const parsed = createBodySchema.safeParse(body);
    if (!parsed.success) throw httpErrors.invalid('A voice session request is a JSON object { threadId?: string, locale?: string }.');
    const { threadId: requestedThread, locale: requestedLocale } = parsed.data;
    if (requestedThread !== undefined) checkId(requestedThread, 'threadId');
    const locale = voiceLocale(requestedLocale);
    const engines = this.engines();
    if (!engines.available) throw new TalkieHttpError(503, 'upstream_unavailable', speechUnavailableMessage(engines), true);

    const now = this.now();
    this.prune(now);
    const space = this.env.spaceFor(user);
    const left = Math.floor(space.voiceSecondsLeft());
    if (left < 1) {
      throw httpErrors.quota(`You have used today's ${Math.round(space.voiceLimitSeconds / 60)} voice minutes. Try again tomorrow.`);
    }
    const open = [...this.sessions.values()].filter((session) => session.userId === user.id && this.isOpen(session, now));
    if (open.length >= this.maxOpenSessions) {
      throw new TalkieHttpError(429, 'rate_limited', `At most ${this.maxOpenSessions} voice calls can be open at once; end one first.`, true);
    }

    const existing = requestedThread === undefined ? undefined : space.threads.get(requestedThread);
    const thread: ThreadRecord = existing && !existing.deleted ? existing : space.createThread(requestedThread ?? newId('t'), '', 'voice', voiceThreadTitle);
    const secret = `ek_demo_${randomBytes(32).toString('hex')}`;
    const maxSeconds = Math.min(this.maxSeconds, left);
    const session: VoiceSessionRecord = {
      id: newId('v'),
      userId: user.id,
      space,
      threadId: thread.id,
      locale,
      maxSeconds,
      warnSeconds: Math.min(this.warnSeconds, maxSeconds),
      createdAt: now,
      secretExpiresAt: now + this.secretTtlMs,
      secretDigest: digest(secret),
      seconds: 0,
      callIds: new Set(),
      transcripts: new Map(),
    };
    this.sessions.set(session.id, session);
    this.secrets.set(session.secretDigest!, session.id);
    this.env.log.info('demo', `voice session ${session.id} created (thread ${thread.id}, ${locale}, ${maxSeconds} s)`);
    return {
      voiceSessionId: session.id,
      threadId: thread.id,
      transport: 'webrtc',
      eventProtocol: 'openai-realtime/1',
      signaling: { type: 'sdp-post', url: this.env.signalingUrl() },
      clientSecret: secret,
      expiresAt: iso(session.secretExpiresAt),
      maxSeconds,
      warnSeconds: session.warnSeconds,
      locale,
      labels: { ...voiceLabels[locale] },
      consent: { confirm: [...voiceConsent[locale].confirm], refuse: [...voiceConsent[locale].refuse] },
    };
  }

  /**
   * For the realtime provider: whether `secret` may open a connection now. It is spent by this
   * question (one connection per secret, Talkie 1 §10.1), so a second offer with it is refused.
   */
  isClientSecret(secret: string): boolean {
    if (!secret.startsWith('ek_demo_') || secret.length > 200) return false;
    const key = digest(secret);
    const id = this.secrets.get(key);
    if (id === undefined) return false;
    this.secrets.delete(key);
    const session = this.sessions.get(id);
    if (!session) return false;
    session.secretDigest = undefined;
    const now = this.now();
    if (session.endedAt !== undefined || now >= session.secretExpiresAt) return false;
    session.connectedAt = now;
    this.env.log.info('demo', `voice session ${session.id} connected`);
    return true;
  }

  /** `POST voiceTool`: runs one provider function call for the session's user. */
  tool(user: TalkieUser, voiceSessionId: string | undefined, name: string | undefined, body: unknown): { ok: true } & VoiceToolResult {
    const session = this.find(user, voiceSessionId);
    if (session.endedAt !== undefined) throw httpErrors.expired('This voice session has ended.');
    const parsed = toolBodySchema.safeParse(body);
    if (!parsed.success) throw httpErrors.invalid('A voice tool call needs { callId: string, arguments: string } (arguments: the JSON text the model gave).');
    const { callId, arguments: args } = parsed.data;
    checkId(callId, 'callId');
    if (args.length > maxToolArgumentChars)
      throw httpErrors.tooLarge(`The arguments of a voice tool call can have at most ${maxToolArgumentChars} characters.`);
    if (session.callIds.has(callId)) throw httpErrors.conflict('This tool call (callId) was already made in this voice session.');
    if (session.callIds.size >= maxCallIdsPerSession) throw new TalkieHttpError(429, 'rate_limited', 'This voice session has made too many tool calls.', false);
    session.callIds.add(callId);
    const thread = this.threadOf(session);
    const result = runVoiceTool(name ?? '', args, { space: session.space, thread, callId, locale: session.locale, timeScale: this.env.timeScale });
    this.env.log.info('demo', `voice session ${session.id}: tool ${name ?? ''}`);
    return { ok: true, output: result.output, events: result.events };
  }

  /** `POST voiceTranscript`: one final transcript item, stored once. */
  transcript(user: TalkieUser, voiceSessionId: string | undefined, body: unknown): { status: 200 | 201; body: { ok: true; stored: boolean } } {
    const session = this.find(user, voiceSessionId);
    const parsed = transcriptBodySchema.safeParse(body);
    if (!parsed.success) throw httpErrors.invalid('A transcript is { role: "user" | "assistant", text: string, itemId: string }.');
    const { role, text, itemId } = parsed.data;
    checkId(itemId, 'itemId');
    if (text.trim() === '') throw httpErrors.invalid('The transcript has no text.');
    if ([...text].length > maxTranscriptChars) throw httpErrors.tooLarge(`A transcript can have at most ${maxTranscriptChars} characters.`);
    const seen = session.transcripts.get(itemId);
    if (seen) {
      if (seen.role === role && seen.text === text) return { status: 200, body: { ok: true, stored: false } };
      throw httpErrors.conflict('This transcript item was already stored with another text.');
    }
    if (session.transcripts.size >= maxTranscriptsPerSession)
      throw new TalkieHttpError(429, 'rate_limited', 'This voice session has sent too many transcripts.', false);
    const thread = this.threadOf(session);
    if (role === 'user' && thread.channel === 'voice' && thread.title === voiceThreadTitle && !thread.messages.some((message) => message.role === 'user')) {
      thread.title = threadTitle(text);
    }
    session.transcripts.set(itemId, { role, text });
    session.space.addMessage(thread, { id: newId('msg'), role, content: text, createdAt: iso(this.now()), cards: [] }, 'voice');
    return { status: 201, body: { ok: true, stored: true } };
  }

  /** `POST voiceUsage`: cumulative seconds; `final` ends the session. */
  usage(user: TalkieUser, voiceSessionId: string | undefined, body: unknown): { ok: true; remainingSeconds: number } {
    const session = this.find(user, voiceSessionId);
    const parsed = usageBodySchema.safeParse(body);
    if (!parsed.success) throw httpErrors.invalid('A usage report is { seconds: number (0–86400), final: boolean }.');
    const { seconds, final } = parsed.data;
    if (session.endedAt !== undefined) {
      if (final) return { ok: true, remainingSeconds: this.remaining(session) };
      throw httpErrors.expired('This voice session has ended.');
    }
    if (seconds > session.seconds) {
      session.space.countVoiceSeconds(seconds - session.seconds);
      session.seconds = seconds;
    }
    if (final) this.end(session);
    return { ok: true, remainingSeconds: this.remaining(session) };
  }

  /** The server stops: every session ends (nothing of them is saved). */
  close(): void {
    this.sessions.clear();
    this.secrets.clear();
  }

  private end(session: VoiceSessionRecord): void {
    session.endedAt = this.now();
    if (session.secretDigest !== undefined) this.secrets.delete(session.secretDigest);
    session.secretDigest = undefined;
    this.env.log.info('demo', `voice session ${session.id} ended after ${Math.round(session.seconds)} s`);
  }

  private remaining(session: VoiceSessionRecord): number {
    return Math.max(0, Math.floor(Math.min(session.maxSeconds - session.seconds, session.space.voiceSecondsLeft())));
  }

  /** Another user's session is as unknown as one that never existed. */
  private find(user: TalkieUser, voiceSessionId: string | undefined): VoiceSessionRecord {
    const session = voiceSessionId === undefined ? undefined : this.sessions.get(voiceSessionId);
    if (!session || session.userId !== user.id) throw httpErrors.notFound('There is no such voice session.');
    return session;
  }

  private threadOf(session: VoiceSessionRecord): ThreadRecord {
    const thread = session.space.threads.get(session.threadId);
    if (!thread || thread.deleted) throw httpErrors.expired('The conversation of this voice session was deleted.');
    return thread;
  }

  private isOpen(session: VoiceSessionRecord, now: number): boolean {
    if (session.endedAt !== undefined) return false;
    return session.connectedAt === undefined ? now < session.secretExpiresAt : now < session.connectedAt + session.maxSeconds * 1000 + graceMs;
  }

  /** Forgets sessions long past any use, and secrets past their time. */
  private prune(now: number): void {
    for (const [id, session] of this.sessions) {
      if (session.secretDigest !== undefined && now >= session.secretExpiresAt) {
        this.secrets.delete(session.secretDigest);
        session.secretDigest = undefined;
      }
      const lastUse =
        session.endedAt ?? (session.connectedAt === undefined ? session.secretExpiresAt : session.connectedAt + session.maxSeconds * 1000 + graceMs);
      if (now - lastUse > retainMs) this.sessions.delete(id);
    }
  }
}
