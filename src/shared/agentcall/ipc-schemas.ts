import { z } from 'zod';
import { intentSchema, limits, modalitySchema } from './protocol';
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
      photoId: z.string().regex(/^[A-Za-z0-9_-]{22}$/).optional(),
      intent: intentSchema.optional(),
      interactionId: z.string().min(1).max(limits.interactionIdChars).optional(),
    }),
    response: z.strictObject({ sent: z.literal(true) }),
    /** A collection reaches the agent only from a visible control the user just used. */
    gesture: 'Observations are sent only when you click Send.',
  },
  /** Confirm or cancel the shown teaching proposal (sends its confirm/cancel text as a turn). */
  'agentcall.answerProposal': {
    request: z.strictObject({ sessionKey: sessionKeySchema, proposalId: z.string().min(1).max(limits.interactionIdChars), answer: z.enum(['confirm', 'cancel']) }),
    response: z.strictObject({ sent: z.literal(true) }),
    gesture: 'Teaching is confirmed only when you click Confirm.',
  },
  /** Declines the agent's pending scan/photo request (`response.cancel`). */
  'agentcall.decline': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ sent: z.literal(true) }) },
  /** Cancels the active run (`response.cancel`). */
  'agentcall.cancel': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ sent: z.literal(true) }) },
  /** Ends the session (`session.end`); false when it had already ended. */
  'agentcall.end': { request: z.strictObject({ sessionKey: sessionKeySchema }), response: z.strictObject({ ended: z.boolean() }) },
} as const;

export const agentCallEvents = {
  /** What changed in a session, in order (one batch per frame from the agent or per command). */
  'agentcall.update': z.strictObject({ sessionKey: sessionKeySchema, updates: z.array(sessionUpdateSchema).min(1).max(50) }),
} as const;
