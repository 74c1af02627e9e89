import { z } from 'zod';
import { conversationItemSchema, itemLimits } from './items';
import { conversationOpSchema } from './update';
import { conversationViewSchema } from './view';

/**
 * The one interface to a conversation, whatever the agent speaks: open it, send, cancel, take back
 * a queued message, ask for earlier items, end it. Protocol-specific answers to an item (a Talkie
 * action's decision, an AG-UI form, an AgentCall request or proposal) stay with their protocol's
 * methods; what they change reaches the page as `conversation.update` like everything else.
 */

const agentId = z.string().min(1).max(64);
const conversationId = z.string().min(1).max(80);
const messageId = z.string().min(1).max(200);

export const conversationMethods = {
  /**
   * The agent's conversation: the open one (a reload finds it again), else its last thread (or the
   * named one) or a new session. `renew`: a new one even when one is open (Start a new session after
   * an AgentCall session ended). The answer is the page's first view; changes follow as
   * `conversation.update`.
   */
  'conversation.open': {
    request: z.strictObject({ agentId, threadId: z.string().min(1).max(itemLimits.idChars).optional(), renew: z.boolean().optional() }),
    response: conversationViewSchema,
  },
  /** The page's view again (after an update it could not apply). */
  'conversation.view': { request: z.strictObject({ agentId, conversationId }), response: conversationViewSchema },
  /** The user's text: sent now, or queued while the agent answers (`queued: true`; it goes when the answer ends). */
  'conversation.send': {
    request: z.strictObject({ agentId, conversationId, messageId, text: z.string().min(1).max(1_000_000) }),
    response: z.strictObject({ queued: z.boolean() }),
  },
  /** Takes back a message that waits in the queue. */
  'conversation.unqueue': { request: z.strictObject({ agentId, conversationId, messageId }), response: z.strictObject({ removed: z.boolean() }) },
  'conversation.cancel': { request: z.strictObject({ agentId, conversationId }), response: z.strictObject({ cancelled: z.boolean() }) },
  /** Older items for "Show earlier": they go before the page's first item; `earlier`: how many older ones remain. */
  'conversation.earlier': {
    request: z.strictObject({ agentId, conversationId }),
    response: z.strictObject({ items: z.array(conversationItemSchema).max(5_000), earlier: z.number().int().min(0) }),
  },
  /** Ends the agent's conversation (an AgentCall session ends; a Talkie or AG-UI thread stays saved). */
  'conversation.close': { request: z.strictObject({ agentId }), response: z.strictObject({ closed: z.boolean() }) },
} as const;

export const conversationEvents = {
  /** What changed in an open conversation since the last update (see update.ts). */
  'conversation.update': z.strictObject({ agentId, conversationId, ops: z.array(conversationOpSchema).min(1).max(10_000) }),
} as const;
