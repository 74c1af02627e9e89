import { z } from 'zod';
import { conversationItemSchema, itemLimits, type ConversationItem } from './items';

/**
 * One open conversation as the renderer holds it: what it is with (agent, protocol, thread), how it
 * goes (`status`) and a window of its items, the newest last. Main holds the whole conversation
 * (bounded, see bounds.ts) and is the judge of what is in the window.
 */

export const protocolSchema = z.enum(['talkie', 'agui', 'agentcall']);
export type ConversationProtocol = z.infer<typeof protocolSchema>;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const conversationStatusSchema = z.strictObject({
  /** `connecting` until the conversation can take a message; `ended` when a session is over (AgentCall). */
  phase: z.enum(['connecting', 'ready', 'ended']),
  /** The agent's answer: none going, asked for (`starting`), streaming, or being stopped. */
  run: z.enum(['idle', 'starting', 'running', 'cancelling']),
  /** How the last answer ended, for the status line; `waiting`: the agent waits for the user (a question, a scan). */
  outcome: z.enum(['done', 'stopped', 'failed', 'interrupted', 'waiting']).optional(),
  threadId: s(itemLimits.idChars).optional(),
  /** The protocol's handle of a live session (AgentCall's session key), for the protocol's own methods. */
  session: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  /** What the user may send from this machine besides text: a scanned tag, a photo. */
  accepts: z
    .array(z.enum(['nfc', 'photo']))
    .max(2)
    .optional(),
  /** The agent is reached by a call (AgentCall over WebRTC): nothing can be sent until the user calls. */
  reach: z.literal('call').optional(),
  /** Items main still holds before the first one the renderer has ("Show earlier"). */
  earlier: count,
  /** Items the size bound removed from this conversation for good. */
  dropped: count,
});
export type ConversationStatus = z.infer<typeof conversationStatusSchema>;

export const conversationViewSchema = z.strictObject({
  /** Changes at every open, thread switch and new chat: updates of an earlier one are dropped. */
  conversationId: s(80),
  agentId: z.string().min(1).max(64),
  protocol: protocolSchema,
  status: conversationStatusSchema,
  items: z.array(conversationItemSchema).max(5_000),
});
export type ConversationView = z.infer<typeof conversationViewSchema>;

export const idleStatus: ConversationStatus = { phase: 'connecting', run: 'idle', earlier: 0, dropped: 0 };

export function emptyConversationView(conversationId: string, agentId: string, protocol: ConversationProtocol): ConversationView {
  return { conversationId, agentId, protocol, status: idleStatus, items: [] };
}

export function findItem(view: { items: readonly ConversationItem[] }, id: string): ConversationItem | undefined {
  return view.items.find((item) => item.id === id);
}

function s(max: number) {
  return z.string().max(max);
}
