import { z } from 'zod';
import { passportLimits } from './passport';
import { intentSchema, limits, maxFrameBytes, modalitySchema } from './protocol';
import { sessionUpdateSchema } from './session-view';

/**
 * What crosses IPC about AgentCall sessions. Main holds the connection, the engine, the device's
 * tag observations and the staged photos; the renderer names them (scanId + objectRef, photoId)
 * and never supplies an object or image bytes itself.
 */

const agentId = z.string().min(1).max(64);
export const sessionKeySchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const bounded = (max: number) => z.string().max(max);

/** The agent as its card describes it, for the session header. */
export const agentCallAgentSchema = z.strictObject({
  name: bounded(200),
  description: bounded(2000),
  version: bounded(100),
  cardUrl: bounded(2048),
  /** The AG-UI WebSocket the session uses (shown as the agent's address). */
  endpoint: bounded(2048),
  accepted: z.array(modalitySchema).max(2),
  agentRequests: z.array(modalitySchema).max(2),
  legacyExtension: z.boolean(),
  skills: z.array(z.strictObject({ name: bounded(100), description: bounded(300) })).max(32),
  /** Notes from card validation that did not prevent use. */
  notes: z.array(bounded(500)).max(20),
  /**
   * Who owns the audio and how the agent is reached: `websocket` sessions (voice `client`: the app may
   * speak and listen itself) or `webrtc` calls (voice `agent`; `explicitTurns`: push to talk).
   */
  voice: z.strictObject({ owner: z.enum(['client', 'agent']), transport: z.enum(['websocket', 'webrtc']), explicitTurns: z.boolean() }),
});
export type AgentCallAgent = z.infer<typeof agentCallAgentSchema>;

export const agentCallOpenResponseSchema = z.strictObject({
  sessionKey: sessionKeySchema,
  agent: agentCallAgentSchema,
  /** The updates so far (session.starting …), folded by the renderer like later `agentcall.update` events. */
  updates: z.array(sessionUpdateSchema).max(50),
});
export type AgentCallOpenResponse = z.infer<typeof agentCallOpenResponseSchema>;

export const agentCallMethods = {
  /**
   * Reads the agent card, checks it, connects and starts a session (ending this agent's previous
   * one). Fails with `incompatible` (why the card cannot be used), `sign_in_required` (the card
   * asks for a bearer token: paste one with `agentcall.useToken`) or `network_error`.
   */
  'agentcall.open': { request: z.strictObject({ agentId }), response: agentCallOpenResponseSchema },
  /** Reads and checks the agent's card without connecting: what the screen offers (a session, or a call for a WebRTC card). Fails as `open` does. */
  'agentcall.card': { request: z.strictObject({ agentId }), response: z.strictObject({ agent: agentCallAgentSchema }) },
  /** A bearer token for an agent whose card requires one; kept in the keychain, sent only in the WebSocket upgrade. */
  'agentcall.useToken': { request: z.strictObject({ agentId, token: z.string().min(1).max(8192) }), response: z.strictObject({ saved: z.literal(true) }) },
  'agentcall.sendText': {
    request: z.strictObject({ sessionKey: sessionKeySchema, text: z.string().min(1).max(limits.textChars) }),
    response: z.strictObject({ sent: z.literal(true) }),
  },
  /**
   * An observation from this machine's bridges: `scan` names a tag observation main received from the
   * NFC reader (its scan and exact objectRef), `photoId` a photo main staged; at least one.
   * `interactionId` answers the agent's pending request.
   */
  'agentcall.sendObservation': {
    request: z.strictObject({
      sessionKey: sessionKeySchema,
      scan: z.strictObject({ scanId: z.string().min(1).max(64), objectRef: z.string().min(1).max(limits.labelChars) }).optional(),
      photoId: z
        .string()
        .regex(/^[A-Za-z0-9_-]{22}$/)
        .optional(),
      intent: intentSchema.optional(),
      interactionId: z.string().min(1).max(limits.interactionIdChars).optional(),
    }),
    response: z.strictObject({ sent: z.literal(true) }),
    /** A collection reaches the agent only from a visible control the user just used. */
    gesture: 'Observations are sent only when you click Send.',
  },
  /** Confirm or cancel the shown teaching proposal (sends its confirm/cancel text as a turn). */
  'agentcall.answerProposal': {
    request: z.strictObject({
      sessionKey: sessionKeySchema,
      proposalId: z.string().min(1).max(limits.interactionIdChars),
      answer: z.enum(['confirm', 'cancel']),
    }),
    response: z.strictObject({ sent: z.literal(true) }),
    gesture: 'Teaching is confirmed only when you click Confirm.',
  },
  /**
   * Asks the agent for one action recipe of the current object passport, after the user confirmed it:
   * the renderer names the passport and the recipe; main sends what its own copy says (one user.turn).
   */
  'agentcall.confirmRecipe': {
    request: z.strictObject({
      sessionKey: sessionKeySchema,
      passportId: z.string().min(1).max(64),
      recipeId: z.string().min(1).max(passportLimits.recipeIdChars),
    }),
    response: z.strictObject({ sent: z.literal(true) }),
    gesture: 'An action is asked for only when you click Confirm.',
  },
  /** Declines the agent's pending scan/photo request (`response.cancel`). */
  'agentcall.decline': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ sent: z.literal(true) }) },
  /** Cancels the active run (`response.cancel`). */
  'agentcall.cancel': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ sent: z.literal(true) }) },
  /**
   * agentcall-webrtc-0.1 call, step 1: the renderer's SDP offer (its RTCPeerConnection: the microphone
   * track and the `agentcall.events` channel). Main POSTs it to the card's URL (session id, bearer,
   * network checks) and returns only the answer and the call's key. `explicitTurns`: push-to-talk
   * (the card says supportsExplicitTurns).
   */
  'agentcall.callOffer': {
    request: z.strictObject({
      agentId,
      sdp: z
        .string()
        .min(1)
        .max(64 * 1024),
    }),
    response: z.strictObject({
      callKey: sessionKeySchema,
      sdp: z
        .string()
        .min(1)
        .max(128 * 1024),
      explicitTurns: z.boolean(),
    }),
    gesture: 'A call starts only when you click Call.',
  },
  /** Step 2: the channel is open; main sends session.start through it (agentcall.channelSend) and answers as `agentcall.open` does. */
  'agentcall.callOpened': { request: z.strictObject({ callKey: sessionKeySchema }), response: agentCallOpenResponseSchema },
  /**
   * A message the renderer received on the call's channel, unparsed: its `text`, or, for a message main
   * must refuse without seeing it, `refused` (a binary message, or text of more than 256 Ki UTF-16 units).
   */
  'agentcall.callMessage': {
    request: z.strictObject({
      callKey: sessionKeySchema,
      text: z
        .string()
        .max(maxFrameBytes * 2)
        .optional(),
      refused: z.enum(['binary', 'too_large']).optional(),
    }),
    response: z.strictObject({ taken: z.boolean() }),
  },
  /** The call's channel closed (`clean`), or failed, or the peer connection failed or disconnected: the session ends. */
  'agentcall.callClosed': {
    request: z.strictObject({ callKey: sessionKeySchema, why: z.string().max(200), clean: z.boolean() }),
    response: z.strictObject({ ended: z.boolean() }),
  },
  /** Explicit audio turns: push-to-talk pressed (start), released after the microphone stopped (commit), or Esc/leaving (cancel). */
  'agentcall.audioTurn': {
    request: z.strictObject({ sessionKey: sessionKeySchema, action: z.enum(['start', 'commit', 'cancel']), microphoneStopped: z.boolean() }),
    response: z.strictObject({ turn: z.number().int().min(0) }),
  },
  /** Ends the session (`session.end`); false when it had already ended. */
  'agentcall.end': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ ended: z.boolean() }) },
} as const;

export const agentCallEvents = {
  /** What changed in a session, in order (one batch per frame from the agent or per command). */
  'agentcall.update': z.strictObject({ sessionKey: sessionKeySchema, updates: z.array(sessionUpdateSchema).min(1).max(50) }),
  /** Put this text on the call's agentcall.events channel, as it is (main built and checked it). */
  'agentcall.channelSend': z.strictObject({ callKey: sessionKeySchema, text: z.string().min(1).max(maxFrameBytes) }),
  /** Main ended the call: close the channel and the peer connection. */
  'agentcall.channelClose': z.strictObject({ callKey: sessionKeySchema }),
} as const;
