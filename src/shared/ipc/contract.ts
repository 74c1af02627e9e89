import { z } from 'zod';
import { settingsPatchSchema, settingsSchema } from '../settings/settings';
import {
  nfcArmRequestSchema,
  nfcArmResponseSchema,
  nfcCancelRequestSchema,
  nfcCancelResponseSchema,
  nfcKioskRequestSchema,
  nfcKioskResponseSchema,
  nfcScanResultSchema,
  nfcStatusSchema,
} from '../nfc/ipc-schemas';
import { agentCallEvents, agentCallMethods } from '../agentcall/ipc-schemas';
import { conversationEvents, conversationMethods } from '../conversation/ipc-schemas';
import { webPagesSchema } from '../agentmesh/ipc-schemas';
import { aguiMethods } from '../agui/ipc-schemas';
import {
  actionSchema,
  conversationItemSchema,
  runUpdateSchema,
  serverViewSchema,
  talkieRunEvents,
  talkieVoiceEvents,
  talkieVoiceMethods,
  threadSummarySchema,
  usageSchema,
} from '../talkie/ipc-schemas';
import { agentLabelMaxLength } from '../agents/label';
import { earlierRequestFields, earlierResponseSchema, windowFields } from '../conversation/bounds';
import { threadSearchRequestSchema, threadSearchResponseSchema } from '../threads/thread-search';
import { ipcBytes } from '../base/binary';
import { noticeLimits, noticeSchema } from './notices';
import { uiMemoryMethods } from './ui-memory-schemas';
import { speechEvents, speechMethods } from '../speech/ipc-schemas';
import {
  adminUnlockRequestSchema,
  adminUnlockResponseSchema,
  devicePolicyStatusSchema,
  diagnosticsSaveResponseSchema,
  kioskResetResponseSchema,
  kioskStartTagRequestSchema,
} from '../device-policy/ipc-schemas';

/**
 * THE IPC contract: every method the renderer may call and every event it may subscribe to.
 *
 * - The preload builds `window.agentdesk` from this object (one function per method, one
 *   subscribe function per event); the web shell builds the same API over a WebSocket.
 * - Main registers one handler per method from this object and validates every request against
 *   `request` before the service sees it, and every answer against `response` before it leaves
 *   (schemas are strict: an answer carrying an undeclared field, say a token added to a service
 *   object by mistake, is refused instead of crossing).
 * - Method `settings.get` becomes channel `agentdesk:settings.get` and `window.agentdesk.settings.get()`;
 *   event `settings.changed` becomes channel `agentdesk:event:settings.changed` and
 *   `window.agentdesk.settings.onChanged(listener)`.
 *
 * - A method with `gesture` runs only from the user's own click or key press: the dispatcher checks
 *   it once for every such method (Electron: input events main saw; the web shell: the page's
 *   transient user activation for that call) and otherwise answers `no_user_gesture` with this text.
 *
 * Adding a capability means adding entries here; the types of both sides follow.
 */

const empty = z.strictObject({});

/** The most agents the list (agents.json) holds; agents.add and agents.restore refuse one more (`limit_reached`). */
export const maxAgents = 500;

export const agentEntrySchema = z.strictObject({
  id: z.string().min(1).max(64),
  /** Normalized URL the user added (host or manifest/card URL). */
  url: z.string().max(2048),
  /** What the list shows: host[:port][/path]. */
  display: z.string().max(2100),
  addedAt: z.string().max(40),
  /** Set for a plain AG-UI endpoint (added as such); otherwise the protocol is read from the agent's documents. */
  protocol: z.literal('agui').optional(),
  /** The name its A2A card gives, learned when the agent was identified as a plain A2A agent; the list shows it (with the address). */
  name: z.string().max(200).optional(),
  /** The name the user gave it (Rename): the lists show it instead of the card's name or the address (agents.json version 2). */
  label: z.string().max(agentLabelMaxLength).optional(),
});
export type AgentEntry = z.infer<typeof agentEntrySchema>;

/**
 * `agents.check`: what an address turned out to be, before it is added. Found: its kind and, when
 * it gives one, its own name (Talkie manifest, A2A card) and how many web pages its card lists. Not
 * found: why (`unreachable`: no answer in time, or a network failure; `blocked`: an address the
 * network rules refuse; `not_found`: a server answered, without an agent there; `incompatible`: an
 * agent AgentDesk cannot talk to), with main's sentence and a stable code for a Details line.
 */
export const agentCheckSchema = z.discriminatedUnion('found', [
  z.strictObject({
    found: z.literal(true),
    kind: z.enum(['talkie', 'agentcall', 'a2a', 'agui']),
    /** The address as the list will show it. */
    display: z.string().max(2100),
    name: z.string().max(200).optional(),
    webPages: z.number().int().min(0).max(100).optional(),
  }),
  z.strictObject({
    found: z.literal(false),
    reason: z.enum(['unreachable', 'blocked', 'not_found', 'incompatible']),
    display: z.string().max(2100),
    code: z.string().max(64),
    message: z.string().max(1000),
  }),
]);
export type AgentCheck = z.infer<typeof agentCheckSchema>;

/**
 * A plain A2A agent (a valid card with neither a Talkie manifest nor the AgentCall extension): no
 * session, a page with what its card says (description, skills, provider, documentation and icon
 * links: https, untrusted, opened only through `external.open`, never fetched) and its web pages.
 */
export const a2aAgentViewSchema = z.strictObject({
  name: z.string().max(200),
  description: z.string().max(2000),
  version: z.string().max(100),
  cardUrl: z.string().max(4096),
  skills: z.array(z.strictObject({ name: z.string().max(100), description: z.string().max(300), tags: z.array(z.string().max(50)).max(10) })).max(32),
  provider: z.strictObject({ organization: z.string().max(200), url: z.string().max(2048).optional() }).optional(),
  documentationUrl: z.string().max(2048).optional(),
  iconUrl: z.string().max(2048).optional(),
});
export type A2AAgentView = z.infer<typeof a2aAgentViewSchema>;

const agentId = z.string().min(1).max(64);
const protocolId = z.string().min(1).max(200);
/** The id of the built-in demo agent (never stored in agents.json: its port changes per start). */
export const builtInDemoAgentId = 'builtin-demo';
/** The built-in demo's AgentCall side (the same demo process, its A2A card and WebSocket endpoint). */
export const builtInAgentCallDemoId = 'builtin-demo-agentcall';
/** The built-in demo's plain AG-UI side (an endpoint, no manifest or card). */
export const builtInAguiDemoId = 'builtin-demo-agui';

export const hardwareStatusSchema = z.strictObject({
  nfc: nfcStatusSchema,
});
export type HardwareStatus = z.infer<typeof hardwareStatusSchema>;

/** Opaque id of a photo main holds for the renderer (16 random bytes, base64url). */
const photoId = z.string().regex(/^[A-Za-z0-9_-]{22}$/);
/** Image bytes as bytes (binary.ts: structured clone in Electron, a binary frame in the web shell), at most 24 MiB. */
const photoBytes = ipcBytes(24 * 1024 * 1024, { min: 1 });

export const photoStageRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('file'), bytes: photoBytes }),
  /** RGBA pixels as a canvas's getImageData gives them: width × height × 4 bytes (checked in main). */
  z.strictObject({ kind: z.literal('frame'), width: z.number().int().min(1).max(4096), height: z.number().int().min(1).max(4096), rgba: photoBytes }),
]);

export const stagedPhotoSchema = z.strictObject({
  photoId,
  /** `data:image/jpeg;base64,` + the processed JPEG (≤ 61,440 bytes → ≤ 81,920 characters). */
  preview: z.string().startsWith('data:image/jpeg;base64,').max(81_943),
  byteCount: z.number().int().min(1).max(61_440),
  pixelWidth: z.number().int().min(1).max(1024),
  pixelHeight: z.number().int().min(1).max(1024),
});
export type StagedPhoto = z.infer<typeof stagedPhotoSchema>;

export const mediaKindSchema = z.enum(['camera', 'microphone']);
export type MediaKind = z.infer<typeof mediaKindSchema>;

export const contract = {
  methods: {
    'app.info': {
      request: empty,
      response: z.strictObject({
        name: z.string(),
        version: z.string(),
        /** Which host runs the main services: the Electron app or the web shell. */
        shell: z.enum(['electron', 'web']),
        platform: z.string(),
        /** Messages for the user so far (the newest 20), for example a settings file that was moved aside; later ones arrive as `app.notice`. */
        notices: z.array(noticeSchema).max(noticeLimits.kept),
      }),
    },
    /** The device policy (issue #18): none, what it sets, or why it failed (kiosk mode: then nothing else runs and the page shows this). */
    'policy.status': { request: empty, response: devicePolicyStatusSchema },
    /** The admin PIN (device policy): a right PIN allows settings changes for a while; wrong tries lock it for a growing wait. */
    'policy.unlockAdmin': {
      request: adminUnlockRequestSchema,
      response: adminUnlockResponseSchema,
      gesture: 'The admin PIN is taken only from your own key press or click.',
    },
    /**
     * Settings → Save diagnostics…: main writes the diagnostics bundle (versions, platform, the policy
     * without secrets, settings, reader and camera state, the redacted recent log) where the user chooses.
     * Under a device policy admin PIN it needs the unlock, like settings changes.
     */
    'diagnostics.save': { request: empty, response: diagnosticsSaveResponseSchema, gesture: 'Diagnostics are saved only when you click Save diagnostics.' },
    /**
     * Kiosk mode only (else `not_allowed`): ends every session (AgentCall `session.end`, voice calls
     * hung up, Talkie and AG-UI runs cancelled) and wipes what main kept of it, in memory and on disk
     * (staged photos, held tags, the UI memory's screen and drafts, AG-UI thread files). The idle
     * reset and the start screen call it.
     */
    'kiosk.reset': { request: empty, response: kioskResetResponseSchema },
    /**
     * Kiosk mode only: the tag tapped on the start screen becomes the first observation of the start
     * agent's new AgentCall session. No click needed: main takes only a tap its reader saw (held for
     * the session), only for a session of the policy's start agent.
     */
    'kiosk.startTag': { request: kioskStartTagRequestSchema, response: z.strictObject({ sent: z.literal(true) }) },
    'settings.get': { request: empty, response: settingsSchema },
    'settings.update': { request: z.strictObject({ patch: settingsPatchSchema }), response: settingsSchema },
    'agents.list': { request: empty, response: z.strictObject({ agents: z.array(agentEntrySchema) }) },
    'agents.add': {
      /** `kind: 'agui'`: the address is a plain AG-UI endpoint (POST + SSE), not a server with a manifest or card. */
      request: z.strictObject({ address: z.string().max(4096), kind: z.enum(['auto', 'agui']).optional() }),
      response: z.strictObject({ agent: agentEntrySchema }),
    },
    /**
     * Identifies an address before it is added (`agents.add` checks only its syntax): reads its Talkie
     * manifest and A2A card (a plain AG-UI endpoint: one GET), bounded in time, and says what it found or
     * why not. An address add would refuse (syntax, already listed) fails as add fails, before any request.
     */
    'agents.check': {
      request: z.strictObject({ address: z.string().max(4096), kind: z.enum(['auto', 'agui']).optional() }),
      response: agentCheckSchema,
    },
    /** The user's name for an agent (trimmed, one line, 1–100 characters); saved in agents.json. */
    'agents.rename': {
      request: z.strictObject({ id: z.string().min(1).max(64), name: z.string().max(1000) }),
      response: z.strictObject({ agent: agentEntrySchema }),
    },
    'agents.remove': {
      request: z.strictObject({ id: z.string().min(1).max(64) }),
      response: z.strictObject({ agents: z.array(agentEntrySchema) }),
    },
    /** Undo of a remove: puts the removed entry back (same id) at its former place in the list. */
    'agents.restore': {
      request: z.strictObject({ agent: agentEntrySchema, index: z.number().int().min(0).max(maxAgents) }),
      response: z.strictObject({ agents: z.array(agentEntrySchema) }),
    },
    'hardware.status': { request: empty, response: hardwareStatusSchema },
    /** Opens an https: link in the system browser, only from the user's own click or key press. */
    'external.open': {
      request: z.strictObject({ url: z.string().max(8192) }),
      response: z.strictObject({ opened: z.literal(true) }),
      gesture: 'Links open only when you click or press a key on them.',
    },
    /** The UI is about to open the camera or microphone: allow the permission request for these kinds. */
    'media.arm': {
      request: z.strictObject({ kinds: z.array(mediaKindSchema).min(1).max(2) }),
      response: z.strictObject({ armed: z.array(mediaKindSchema) }),
    },
    /** The preview or call closed: permission requests for these kinds are refused again. */
    'media.disarm': {
      request: z.strictObject({ kinds: z.array(mediaKindSchema).min(1).max(2) }),
      response: z.strictObject({ armed: z.array(mediaKindSchema) }),
    },
    /** Arms one NFC scan (a visible control, a user gesture): the next tap becomes a `nfc.scanResult`. */
    'nfc.arm': { request: nfcArmRequestSchema, response: nfcArmResponseSchema, gesture: 'A scan starts only when you click Scan.' },
    'nfc.cancel': { request: nfcCancelRequestSchema, response: nfcCancelResponseSchema },
    /** Kiosk policy: scanning stays armed while the window is focused and the scan indicator is visible. */
    'nfc.kiosk': { request: nfcKioskRequestSchema, response: nfcKioskResponseSchema },
    /**
     * A camera frame or an image file → the stripped, bounded JPEG of a photo observation, held in
     * main under an opaque id until the session takes it (Send), it is discarded, it expires (10 min)
     * or the session ends. A refused picture fails with `invalid_image` and a message for people.
     */
    'photo.stage': { request: photoStageRequestSchema, response: stagedPhotoSchema },
    /** Retake, Discard, closing the capture: main forgets the photo (false when it was already gone). */
    'photo.discard': { request: z.strictObject({ photoId }), response: z.strictObject({ discarded: z.boolean() }) },
    /** Starts the built-in demo agent in main (once) and returns its agent id. */
    'demo.open': { request: empty, response: z.strictObject({ agentId }) },
    /** The same demo's AgentCall side (NFC objects, photos, teaching): its agent id. */
    'demo.openAgentCall': { request: empty, response: z.strictObject({ agentId }) },
    /**
     * Which protocol the agent speaks (reads its Talkie manifest and agent card); `a2a`: a plain A2A agent (no
     * session; its page shows the card and its web pages); `incompatible` says why nothing is usable.
     */
    'agents.identify': {
      request: z.strictObject({ agentId }),
      response: z.union([
        z.strictObject({ protocol: z.enum(['talkie', 'agentcall', 'agui']) }),
        z.strictObject({ protocol: z.literal('a2a'), agent: a2aAgentViewSchema }),
      ]),
    },
    /** The agent's web pages from its A2A card (AgentMesh UI links): shown as untrusted links, opened only on click. */
    'agents.webPages': { request: z.strictObject({ agentId }), response: webPagesSchema },
    /**
     * Searches the agent's threads, titles and message text, in what main already holds (a Talkie
     * agent: what this session listed, sent, streamed or opened; a plain AG-UI agent: its saved
     * thread); never a request to the agent. At most 20 results, newest first, titles that match
     * first, each with a short snippet of the first message that matches. An AgentCall agent has none.
     */
    'agents.searchThreads': { request: threadSearchRequestSchema, response: threadSearchResponseSchema },
    /** The same demo's plain AG-UI side (reasoning, steps, a tool call, activity, a confirmation to resume). */
    'demo.openAgui': { request: empty, response: z.strictObject({ agentId }) },
    ...aguiMethods,
    ...agentCallMethods,
    ...uiMemoryMethods,
    /** Discovers the agent's Talkie manifest (cached) and reports what the UI needs to show. */
    'talkie.connect': { request: z.strictObject({ agentId }), response: serverViewSchema },
    /** The user accepted the endpoints on other origins that the manifest lists. */
    'talkie.acceptEndpoints': { request: z.strictObject({ agentId }), response: serverViewSchema },
    /** Development token (only when the manifest offers auth.token and the developer switch is on). */
    'talkie.useToken': { request: z.strictObject({ agentId, token: z.string().min(1).max(8192) }), response: serverViewSchema },
    /** Waits for the browser (the link arrives as `talkie.signInLink`) up to main's time limit; `talkie.cancelSignIn` stops it. */
    'talkie.signIn': { request: z.strictObject({ agentId }), response: serverViewSchema },
    'talkie.cancelSignIn': { request: z.strictObject({ agentId }), response: z.strictObject({ cancelled: z.boolean() }) },
    /** Opens the waiting sign-in's link in the browser again (main holds the link). */
    'talkie.openSignInLink': {
      request: z.strictObject({ agentId }),
      response: z.strictObject({ opened: z.boolean() }),
      gesture: 'The sign-in link opens only when you click Open again.',
    },
    'talkie.signOut': { request: z.strictObject({ agentId }), response: serverViewSchema },
    'talkie.status': {
      request: z.strictObject({ agentId }),
      response: z.strictObject({
        user: z.strictObject({ name: z.string().max(200), email: z.string().max(320).optional() }).optional(),
        usage: usageSchema,
        /** Talkie 1 §4 `voice`: false when the server has voice switched off for this user now (the Call button is greyed out). */
        voice: z.boolean().optional(),
      }),
    },
    /**
     * Sends user text as a new run. Returns at once; the run streams as `talkie.update` events and
     * ends with one `talkie.runEnded`. A retry reuses messageId (the server ignores duplicates).
     */
    'talkie.send': {
      request: z.strictObject({ agentId, threadId: protocolId.optional(), messageId: protocolId, text: z.string().min(1).max(1_000_000) }),
      response: z.strictObject({ runKey: z.string().max(100), threadId: protocolId }),
    },
    'talkie.cancel': { request: z.strictObject({ agentId, runKey: z.string().max(100) }), response: z.strictObject({ cancelled: z.boolean() }) },
    'talkie.threads': { request: z.strictObject({ agentId }), response: z.strictObject({ threads: z.array(threadSummarySchema).max(50) }) },
    /** A thread as the server has it: its newest window (src/shared/conversation/bounds.ts), never all of it. */
    'talkie.thread': {
      request: z.strictObject({ agentId, threadId: protocolId }),
      response: z.strictObject({ threadId: protocolId, items: z.array(conversationItemSchema).max(5000), ...windowFields }),
    },
    /** "Show earlier": the items before the page's first one (`before`, its absolute position) in the thread it opened last. */
    'talkie.threadEarlier': {
      request: z.strictObject({ agentId, threadId: protocolId, ...earlierRequestFields }),
      response: earlierResponseSchema(conversationItemSchema),
    },
    'talkie.deleteThread': {
      request: z.strictObject({ agentId, threadId: protocolId }),
      response: z.strictObject({ threads: z.array(threadSummarySchema).max(50) }),
    },
    /**
     * New chat: the agent's open conversation ends (its thread stays on the server) and the next
     * `conversation.open` of the agent starts an empty one, its first message a new thread.
     */
    'talkie.newChat': { request: z.strictObject({ agentId }), response: z.strictObject({}) },
    /** The user's decision on a proposed action (Talkie 1 §8: only on the user's explicit gesture, never on the agent's behalf). */
    'talkie.decide': {
      request: z.strictObject({ agentId, actionId: protocolId, decision: z.enum(['confirm', 'cancel']) }),
      response: z.strictObject({ action: actionSchema, updates: z.array(runUpdateSchema).max(200), note: z.string().max(500).optional() }),
      gesture: 'Decisions are sent only when you click Confirm or Cancel.',
    },
    'talkie.action': { request: z.strictObject({ agentId, actionId: protocolId }), response: z.strictObject({ action: actionSchema }) },
    /**
     * Downloads a same-origin `file` block with the user's token (Talkie 1 §6), asking where to save it.
     * Progress arrives as `talkie.downloadProgress` events with the caller's downloadId.
     */
    'talkie.download': {
      request: z.strictObject({ agentId, downloadId: z.string().min(1).max(100), url: z.string().max(4096), name: z.string().max(500) }),
      response: z.strictObject({ saved: z.boolean(), path: z.string().max(4096).optional(), bytes: z.number().int().nonnegative().optional() }),
      gesture: 'Files download only when you click Download.',
    },
    ...talkieVoiceMethods,
    ...speechMethods,
    ...conversationMethods,
  },
  events: {
    /** A message for the user that is not the answer to a call: a saved file moved aside or from a newer AgentDesk, a background save that failed. */
    'app.notice': noticeSchema,
    ...talkieRunEvents,
    /** A browser sign-in's link (to copy or open again), its time limit, and why the browser did not open, if it did not. */
    'talkie.signInLink': z.strictObject({
      agentId,
      url: z.string().max(8192),
      timeoutMs: z.number().int().positive(),
      openError: z.string().max(500).optional(),
    }),
    'talkie.downloadProgress': z.strictObject({
      agentId,
      downloadId: z.string().max(100),
      received: z.number().int().nonnegative(),
      total: z.number().int().nonnegative().optional(),
    }),
    /** The outcome of an armed scan: an observation (never the tag's UID), a failure, timeout or cancel. */
    'nfc.scanResult': nfcScanResultSchema,
    'settings.changed': settingsSchema,
    'agents.changed': z.strictObject({ agents: z.array(agentEntrySchema) }),
    'hardware.changed': hardwareStatusSchema,
    ...talkieVoiceEvents,
    ...agentCallEvents,
    ...speechEvents,
    ...conversationEvents,
  },
} as const;

export type Contract = typeof contract;
export type MethodName = keyof Contract['methods'];
export type EventName = keyof Contract['events'];
export type MethodRequest<M extends MethodName> = z.input<Contract['methods'][M]['request']>;
export type MethodResponse<M extends MethodName> = z.output<Contract['methods'][M]['response']>;
export type EventPayload<E extends EventName> = z.output<Contract['events'][E]>;

export const channelPrefix = 'agentdesk:';
export const eventChannelPrefix = 'agentdesk:event:';

export function methodChannel(method: MethodName): string {
  return `${channelPrefix}${method}`;
}

export function eventChannel(event: EventName): string {
  return `${eventChannelPrefix}${event}`;
}

export const methodNames = Object.keys(contract.methods) as MethodName[];
export const eventNames = Object.keys(contract.events) as EventName[];

/** The refusal text of a method that needs a user gesture (`gesture` in its spec), else undefined. */
export function gestureMessage(method: MethodName): string | undefined {
  const spec = contract.methods[method];
  return 'gesture' in spec ? spec.gesture : undefined;
}

/** The method a channel names, or undefined for any channel the contract does not declare. */
export function methodForChannel(channel: string): MethodName | undefined {
  if (!channel.startsWith(channelPrefix)) return undefined;
  const name = channel.slice(channelPrefix.length);
  return Object.hasOwn(contract.methods, name) ? (name as MethodName) : undefined;
}
