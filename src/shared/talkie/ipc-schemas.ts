import { z } from 'zod';
import { windowFields } from '../conversation/bounds';
import { actionStatuses, type Action, type Card, type UsageMeter } from './content';
import type { ConversationItem, RunUpdate } from './conversation';
import type { Problem } from './problems';

/**
 * zod schemas for the Talkie values that cross the IPC boundary, matching the TypeScript types
 * in content.ts / conversation.ts (the `satisfies` checks below fail the typecheck if they drift).
 */
const s = (max: number) => z.string().max(max);

export const problemSchema = z.strictObject({ code: s(64), path: s(500), message: s(2000) }) satisfies z.ZodType<Problem>;

const blockSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('heading'), text: s(500) }),
  z.strictObject({ type: z.literal('text'), text: s(20_000) }),
  z.strictObject({ type: z.literal('fields'), fields: z.array(z.strictObject({ label: s(500), value: s(2000) })).max(100) }),
  z.strictObject({
    type: z.literal('list'),
    items: z.array(z.strictObject({ title: s(500), subtitle: s(500).optional(), url: s(4096).optional() })).max(100),
    more: z.number().int().nonnegative().optional(),
  }),
  z.strictObject({ type: z.literal('link'), label: s(500), url: s(4096) }),
  z.strictObject({ type: z.literal('file'), name: s(500), mime: s(200).optional(), size: z.number().int().nonnegative().optional(), url: s(4096) }),
  z.strictObject({ type: z.literal('badge'), text: s(500), tone: z.enum(['neutral', 'positive', 'warning', 'negative']).optional() }),
]);

export const cardSchema = z.strictObject({
  id: s(200),
  title: s(500).optional(),
  subtitle: s(500).optional(),
  url: s(4096).optional(),
  blocks: z.array(blockSchema).max(50).optional(),
  fallbackText: s(5000),
  a11yLabel: s(500).optional(),
}) satisfies z.ZodType<Card>;

export const actionSchema = z.strictObject({
  id: s(200),
  threadId: s(200).optional(),
  summary: s(2000),
  riskLevel: z.enum(['low', 'medium', 'high', 'unknown']),
  status: z.enum(actionStatuses),
  paramsHash: s(200),
  createdAt: s(40).optional(),
  expiresAt: s(40).optional(),
  undoUntil: s(40).optional(),
  buttons: z.boolean(),
  voice: z.boolean(),
  voiceKeyword: s(100).optional(),
}) satisfies z.ZodType<Action>;

export const usageSchema = z
  .array(z.strictObject({ label: s(200), used: z.number(), limit: z.number().optional(), unit: s(40).optional() }))
  .max(20) satisfies z.ZodType<UsageMeter[]>;

export const runUpdateSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('run.started'), threadId: s(200), runId: s(200) }),
  z.strictObject({ type: z.literal('text.start'), messageId: s(200) }),
  z.strictObject({ type: z.literal('text.delta'), messageId: s(200), delta: s(1024 * 1024) }),
  z.strictObject({ type: z.literal('text.end'), messageId: s(200) }),
  z.strictObject({ type: z.literal('tool.start'), toolCallId: s(200), label: s(200) }),
  z.strictObject({ type: z.literal('tool.end'), toolCallId: s(200), ok: z.boolean(), error: s(500).optional() }),
  z.strictObject({ type: z.literal('card'), card: cardSchema }),
  z.strictObject({ type: z.literal('action'), action: actionSchema }),
  z.strictObject({ type: z.literal('open'), url: s(4096), label: s(200) }),
  z.strictObject({ type: z.literal('usage'), usage: usageSchema }),
  z.strictObject({ type: z.literal('run.finished') }),
  z.strictObject({ type: z.literal('run.error'), code: s(64), message: s(2000), retryable: z.boolean() }),
  z.strictObject({ type: z.literal('run.interrupted'), message: s(2000) }),
]) satisfies z.ZodType<RunUpdate>;

export const conversationItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('user'), id: s(200), text: s(200_000), state: z.enum(['sending', 'sent', 'failed']), at: s(40).optional() }),
  z.strictObject({ kind: z.literal('assistant'), id: s(200), text: s(200_000), streaming: z.boolean(), at: s(40).optional() }),
  z.strictObject({
    kind: z.literal('tool'),
    id: s(200),
    label: s(200),
    state: z.enum(['running', 'ok', 'error']),
    error: s(500).optional(),
    at: s(40).optional(),
  }),
  z.strictObject({ kind: z.literal('card'), id: s(200), card: cardSchema, at: s(40).optional() }),
  z.strictObject({ kind: z.literal('action'), id: s(200), action: actionSchema, at: s(40).optional() }),
  z.strictObject({ kind: z.literal('link'), id: s(4200), url: s(4096), label: s(200), at: s(40).optional() }),
  z.strictObject({ kind: z.literal('error'), id: s(300), code: s(64), message: s(2000), retryable: z.boolean(), at: s(40).optional() }),
  z.strictObject({
    kind: z.literal('spoken'),
    id: s(200),
    role: z.enum(['user', 'assistant']),
    text: s(200_000),
    state: z.enum(['hearing', 'final', 'unavailable']),
    at: s(40).optional(),
  }),
]) satisfies z.ZodType<ConversationItem>;

/** `firstMessage`: for a thread the server gives no title, its first user message as a title (threadTitleFromMessage), when main has seen it. */
export const threadSummarySchema = z.strictObject({
  id: s(200),
  title: s(500),
  channel: s(20),
  createdAt: s(40).optional(),
  updatedAt: s(40).optional(),
  firstMessage: s(200).optional(),
});

/** What the UI knows about one Talkie server (never a token). */
export const serverViewSchema = z.strictObject({
  agentId: s(64),
  serverId: s(256),
  issuer: s(2048),
  name: s(200),
  description: s(2000).optional(),
  /** #rrggbb */
  accent: s(7),
  /** A PNG data URL, decoded and re-encoded by main. */
  logo: s(512 * 1024).optional(),
  maxMessageChars: z.number().int().positive().optional(),
  testMode: z.boolean(),
  signedIn: z.boolean(),
  /** How this server lets the user sign in here. */
  signIn: z.strictObject({ oauth: z.boolean(), pastedToken: z.boolean(), tokenHint: s(500).optional() }),
  /** Endpoints on another origin, to be shown and accepted before use. */
  crossOriginEndpoints: z.array(z.strictObject({ name: s(64), url: s(2048) })).max(20),
  endpointsAccepted: z.boolean(),
  problems: z.array(problemSchema).max(50),
  /** Where tokens are kept: the OS keychain, or memory for this session only (with why). */
  tokenStorage: z.strictObject({ kind: z.enum(['keychain', 'memory']), reason: s(500).optional() }),
  /**
   * Talkie 1 §10 voice as the manifest offers it (`voiceAvailability`): the Call button shows only when
   * offered; `signalingHosts` is where audio goes (told to the user before the first call). Whether
   * voice is switched on for this user now is `talkie.status`'s `voice`.
   */
  voice: z.discriminatedUnion('offered', [
    z.strictObject({ offered: z.literal(true), voiceConfirm: z.boolean(), signalingHosts: z.array(s(253)).min(1).max(20) }),
    z.strictObject({ offered: z.literal(false), code: s(64), message: s(500) }),
  ]),
});
export type ServerView = z.infer<typeof serverViewSchema>;

const talkieAgentId = z.string().min(1).max(64);
const talkieProtocolId = z.string().min(1).max(200);
/** The opaque id main gives one voice call; the session's clientSecret stays behind it, in main. */
const voiceCallId = z.string().min(1).max(100);

/**
 * Talkie 1 §10 voice through main. The renderer owns the RTCPeerConnection and the data channel; main
 * creates the session, keeps its clientSecret (never in an answer, event, log line or file), posts the
 * SDP offer to the checked signalling URL and calls voiceTool / voiceTranscript / voiceUsage.
 */
export const talkieVoiceMethods = {
  /**
   * Creates a voice session (`POST voiceSessions`), refused whole unless it passes Talkie 1 §10.1 (webrtc,
   * openai-realtime/1, sdp-post to an https host the manifest lists). The answer is what the call
   * screen needs: no secret, no signalling address.
   */
  'talkie.voiceStart': {
    request: z.strictObject({ agentId: talkieAgentId, threadId: talkieProtocolId.optional(), locale: s(35).optional() }),
    response: z.strictObject({
      callId: voiceCallId,
      threadId: talkieProtocolId,
      /** Connect before this (the secret is short-lived); after it, start a new call. */
      expiresAt: s(40),
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
      locale: s(35).optional(),
      /** Tool name → status text while that voice tool runs. */
      labels: z.record(s(64), s(200)).refine((labels) => Object.keys(labels).length <= 64, 'at most 64 labels'),
      /** Words added to the built-in confirm/refuse vocabularies. */
      consent: z.strictObject({ confirm: z.array(s(60)).max(20), refuse: z.array(s(60)).max(20) }),
      /** `capabilities.actions.voiceConfirm`: whether actions may be confirmed by voice at all (C1). */
      voiceConfirm: z.boolean(),
      /**
       * The signalling URL is http:// (to this computer, allowed only by the development setting; Talkie 1 §10.1
       * requires https): the call's key travels unencrypted, and the call bar says so. Never for the built-in demo.
       */
      unencrypted: z.literal(true).optional(),
    }),
    gesture: 'A voice call starts only when you click Call.',
  },
  /**
   * Sends the renderer's SDP offer to the speech provider and returns its answer. `voice_session_expired`
   * (the secret expired or the provider refused it): start a new call with `talkie.voiceStart`.
   */
  'talkie.voiceOffer': {
    request: z.strictObject({
      callId: voiceCallId,
      sdp: z
        .string()
        .min(1)
        .max(64 * 1024),
    }),
    response: z.strictObject({ sdp: z.string().max(128 * 1024) }),
  },
  /**
   * One provider function call (`response.function_call_arguments.done`), sent to `voiceTool` once per
   * provider call id. `ok`: send `output` unchanged as function_call_output; `failed`: send `output` (a
   * short explanation for the model) and show `message`; `duplicate`: this call id was already used
   * (the server answered 409, or it was asked twice): the tool did not run, and the model is told so.
   */
  'talkie.voiceTool': {
    request: z.strictObject({ callId: voiceCallId, providerCallId: talkieProtocolId, name: s(64).min(1), arguments: s(256 * 1024) }),
    response: z.discriminatedUnion('outcome', [
      z.strictObject({ outcome: z.literal('ok'), output: s(256 * 1024), updates: z.array(runUpdateSchema).max(200) }),
      z.strictObject({ outcome: z.literal('failed'), output: s(2500), code: s(64), message: s(2000), retryable: z.boolean() }),
      z.strictObject({ outcome: z.literal('duplicate') }),
    ]),
  },
  /**
   * A decision the user spoke in a voice call (Talkie 1 §10.4), posted with `method: "voice"` and the paramsHash
   * of the proposal the assistant read out. Not a `gesture` method: the user said it, they did not
   * click. Main takes it only from a connected call that is still live, only for a proposal that came
   * in this call's own tool results, only when the server allows voice confirmation
   * (`capabilities.actions.voiceConfirm`) and the action's `confirm.methods` (read again from the
   * server) lists `voice`; otherwise `not_allowed`. Answers like `talkie.decide` (409/410 as a note
   * with the authoritative action).
   */
  'talkie.voiceDecide': {
    request: z.strictObject({ callId: voiceCallId, actionId: talkieProtocolId, paramsHash: s(200).min(1), decision: z.enum(['confirm', 'cancel']) }),
    response: z.strictObject({ action: actionSchema, updates: z.array(runUpdateSchema).max(200), note: s(500).optional() }),
  },
  /**
   * A provider `error` event from the call's data channel (the renderer reads the channel): main writes
   * it to the log, a bounded number per call. `answersUpdate`: it answers one of the client's
   * turn-detection `session.update`s (its `eventId`), which the provider therefore refused.
   */
  'talkie.voiceProviderError': {
    request: z.strictObject({
      callId: voiceCallId,
      type: s(100).optional(),
      code: s(100).optional(),
      message: s(2000),
      param: s(200).optional(),
      eventId: s(200).optional(),
      answersUpdate: z.boolean(),
    }),
    response: z.strictObject({ logged: z.boolean() }),
  },
  /**
   * A line of the call as the page reads it on the data channel (the provider's item id, who spoke,
   * `hearing` until its transcript came, then the text or `unavailable`): main shows it in the
   * conversation of the call's thread, added once and then updated in place. Bounded per call.
   */
  'talkie.voiceLine': {
    request: z.strictObject({
      callId: voiceCallId,
      itemId: talkieProtocolId,
      role: z.enum(['user', 'assistant']),
      text: s(20_000),
      state: z.enum(['hearing', 'final', 'unavailable']),
    }),
    response: z.strictObject({ shown: z.boolean() }),
  },
  /** One final transcript (`POST voiceTranscript`), once per provider item id; `stored: false` for a repeat. */
  'talkie.voiceTranscript': {
    request: z.strictObject({ callId: voiceCallId, role: z.enum(['user', 'assistant']), text: s(20_000).min(1), itemId: talkieProtocolId }),
    response: z.strictObject({ stored: z.boolean() }),
  },
  /** A usage report (`POST voiceUsage`, every 30 s): cumulative connected seconds; the server's remainingSeconds wins. */
  'talkie.voiceUsage': {
    request: z.strictObject({
      callId: voiceCallId,
      seconds: z
        .number()
        .int()
        .nonnegative()
        .max(24 * 3600),
    }),
    response: z.strictObject({
      remainingSeconds: z
        .number()
        .int()
        .min(-24 * 3600)
        .max(24 * 3600),
    }),
  },
  /**
   * Ends the call: sends the final usage once (`seconds`, or the last reported figure) and forgets the
   * secret. A second end (or an unknown call) answers `{ ended: false }`.
   */
  /**
   * Takes (`armed: true`) or gives back the call's global shortcut (call-shortcut.ts), only for a live,
   * connected call; the call's end gives it back too. `armed`: its presses arrive as
   * `talkie.voiceShortcutPressed`; `taken`: another program holds the keys; `unavailable`: this shell
   * cannot hear keys outside its window (the web shell); `off`: given back.
   */
  'talkie.voiceShortcut': {
    request: z.strictObject({ callId: voiceCallId, armed: z.boolean() }),
    response: z.discriminatedUnion('state', [
      z.strictObject({ state: z.enum(['armed', 'taken']), label: s(40) }),
      z.strictObject({ state: z.enum(['unavailable', 'off']) }),
    ]),
  },
  'talkie.voiceEnd': {
    request: z.strictObject({
      callId: voiceCallId,
      seconds: z
        .number()
        .int()
        .nonnegative()
        .max(24 * 3600)
        .optional(),
    }),
    response: z.strictObject({
      ended: z.boolean(),
      remainingSeconds: z
        .number()
        .int()
        .min(-24 * 3600)
        .max(24 * 3600)
        .optional(),
    }),
  },
} as const;

/** Talkie 1 §10 voice events: the call's global shortcut was pressed (while armed, for that call). */
export const talkieVoiceEvents = {
  'talkie.voiceShortcutPressed': z.strictObject({ callId: voiceCallId }),
} as const;

/** How a run ended, as the UI shows it (Talkie 1 §5: disconnect is not cancel). */
export const runOutcomeSchema = z.strictObject({
  kind: z.enum(['finished', 'error', 'not_sent', 'interrupted', 'cancelled']),
  code: z.string().max(64).optional(),
  message: z.string().max(2000).optional(),
  retryable: z.boolean().optional(),
});

/** A Talkie run's events: its updates as they stream, and how it ended. */
export const talkieRunEvents = {
  'talkie.update': z.strictObject({ agentId: talkieAgentId, runKey: z.string().max(100), update: runUpdateSchema }),
  'talkie.runEnded': z.strictObject({
    agentId: talkieAgentId,
    runKey: z.string().max(100),
    threadId: talkieProtocolId.optional(),
    outcome: runOutcomeSchema,
    /** After an interrupted stream: the thread as the server stored it (its newest window, as `talkie.thread`). */
    items: z.array(conversationItemSchema).max(5000).optional(),
    ...windowFields,
  }),
} as const;
