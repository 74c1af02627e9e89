import { z } from 'zod';
import { intentSchema, limits as agentCallLimits } from '../agentcall/protocol';
import { endReasonSchema, imageSummarySchema, passportViewSchema, pendingInteractionSchema, teachingProposalSchema } from '../agentcall/session-view';
import { answerFieldsSchema, aguiInterruptSchema } from '../agui/thread-persistence';
import { actionSchema, cardSchema } from '../talkie/ipc-schemas';

/**
 * Everything a conversation shows, whatever the protocol: the one item type every protocol's fold
 * is projected into (src/shared/conversation/project-*.ts, in main), that crosses IPC in
 * `conversation.*` and that the renderer's one transcript draws.
 *
 * Items are plain data: text is shown as text (Markdown only where `format` says so, raw HTML never),
 * and nothing in an item is fetched. Tokens, raw tag IDs and image bytes never appear here.
 */

const s = (max: number) => z.string().max(max);

export const itemLimits = {
  idChars: 400,
  textChars: 200_000,
  nameChars: 300,
  codeChars: 64,
  messageChars: 4_000,
  jsonChars: 100_000,
} as const;

const id = s(itemLimits.idChars);
const text = s(itemLimits.textChars);

/** Who said something. `system`: a developer/system message an AG-UI server chose to show. */
export const roleSchema = z.enum(['user', 'agent', 'system']);

/**
 * A message's state. The user's: `queued` (typed while the agent answers; sent when its run ends),
 * `sending`, `sent`, `failed`. The agent's: `streaming`, `done`, `stopped` (cancelled), `failed`,
 * `interrupted` (the stream dropped).
 */
export const messageStateSchema = z.enum(['queued', 'sending', 'sent', 'failed', 'streaming', 'done', 'stopped', 'interrupted']);

const problem = z.strictObject({ code: s(itemLimits.codeChars), message: s(itemLimits.messageChars), retryable: z.boolean().optional() });

const common = {
  id,
  /** When it was said (ms since the epoch), when known. */
  at: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
  /** Said inside a subagent (AG-UI): the transcript groups it under the subagent's name. */
  subagent: z.strictObject({ id, name: s(itemLimits.nameChars) }).optional(),
};

export const conversationItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('message'),
    ...common,
    role: roleSchema,
    text,
    /** `markdown`: the agent's text (the Markdown subset, raw HTML as text); `plain`: shown as typed. */
    format: z.enum(['markdown', 'plain']),
    state: messageStateSchema,
    /** A name the server gave the speaker (an AG-UI message `name`). */
    author: s(itemLimits.nameChars).optional(),
    truncated: z.literal(true).optional(),
    /** Why it failed (a user message not sent, an agent answer that failed). */
    error: problem.optional(),
  }),
  /** Something said in a call: the transcript when the protocol gives one, else only that (and how long) someone spoke. */
  z.strictObject({
    kind: z.literal('speech'),
    ...common,
    role: roleSchema.exclude(['system']),
    text: s(20_000).optional(),
    state: z.enum(['hearing', 'final', 'unavailable']),
    durationMs: z.number().int().min(0).max(86_400_000).optional(),
  }),
  /** The agent's thinking, shown folded. `hiddenPart`: the agent also thought something it keeps encrypted (never shown). */
  z.strictObject({
    kind: z.literal('reasoning'),
    ...common,
    text,
    streaming: z.boolean(),
    truncated: z.literal(true).optional(),
    hiddenPart: z.literal(true).optional(),
  }),
  /** A tool the agent used: its human name, what it was given and what came back (behind Details). */
  z.strictObject({
    kind: z.literal('tool'),
    ...common,
    /** The tool's own name (an identifier; may be empty when the agent never announced the call). */
    name: s(itemLimits.nameChars),
    /** What the server says it does, for people ("Searching contacts…"), when it says. */
    label: s(itemLimits.nameChars).optional(),
    state: z.enum(['running', 'done', 'failed', 'cancelled']),
    /** What the agent gave it (pretty JSON when it parses); `argsNote` when they are empty, not JSON or cut. */
    args: s(itemLimits.jsonChars).optional(),
    argsNote: z.enum(['empty', 'invalid', 'truncated']).optional(),
    result: s(itemLimits.jsonChars).optional(),
    resultTruncated: z.literal(true).optional(),
    /** Media parts of the result, named only (never fetched). */
    media: z
      .array(z.strictObject({ type: z.enum(['image', 'audio', 'video', 'document']), mimeType: s(100).optional() }))
      .max(20)
      .optional(),
    error: s(itemLimits.messageChars).optional(),
  }),
  z.strictObject({ kind: z.literal('card'), ...common, card: cardSchema }),
  z.strictObject({ kind: z.literal('action'), ...common, action: actionSchema }),
  /** A link the agent suggested: untrusted, opened only through the external-link rules. */
  z.strictObject({ kind: z.literal('link'), ...common, url: s(4096), label: s(500) }),
  /**
   * The agent's open questions (AG-UI interrupts of one run), answered together — each with its form or,
   * for the usual approval shape, Allow and Deny — since the answers start the next run together.
   */
  z.strictObject({
    kind: z.literal('interrupt'),
    ...common,
    interrupts: z.array(aguiInterruptSchema).min(1).max(100),
    /** The tool each question is about (by tool call id): its name and arguments, when the agent announced the call. */
    tools: z.record(z.string().max(itemLimits.idChars), z.strictObject({ name: s(itemLimits.nameChars), args: s(itemLimits.jsonChars).optional() })),
  }),
  z.strictObject({
    kind: z.literal('answer'),
    ...common,
    question: s(itemLimits.messageChars),
    status: z.enum(['resolved', 'cancelled']),
    fields: answerFieldsSchema,
  }),
  /** What the user sent from this machine's bridges (AgentCall): a tag's object and/or a photo, with the intent. */
  z.strictObject({
    kind: z.literal('observation'),
    ...common,
    intent: intentSchema,
    object: z.strictObject({ objectRef: s(agentCallLimits.labelChars), label: s(agentCallLimits.labelChars).optional() }).optional(),
    image: imageSummarySchema.optional(),
    /** Answers the agent's request of this id. */
    interactionId: s(agentCallLimits.interactionIdChars).optional(),
  }),
  /** The agent asked the user to scan or photograph something (AgentCall). */
  z.strictObject({
    kind: z.literal('request'),
    ...common,
    request: pendingInteractionSchema,
    state: z.enum(['pending', 'answered', 'cancelled', 'declined', 'superseded']),
  }),
  /** A teaching proposal (AgentCall); `ended`: invalidated by the end of the session while it was shown, `invalidated`: by another object. */
  z.strictObject({
    kind: z.literal('teaching'),
    ...common,
    proposal: teachingProposalSchema,
    state: z.enum(['shown', 'confirmed', 'cancelled', 'invalidated', 'ended']),
  }),
  /** An object passport (AgentCall): untrusted data about an object, its action recipes asked for only with the user's confirmation. */
  z.strictObject({ kind: z.literal('passport'), ...common, passport: passportViewSchema, state: z.enum(['current', 'replaced', 'otherObject', 'ended']) }),
  /** Something the agent reported doing (AG-UI activity, a custom event): a readable line, the raw JSON behind Details. */
  z.strictObject({
    kind: z.literal('activity'),
    ...common,
    /** Who reported it, when known (a custom event's namespace label). */
    source: s(itemLimits.nameChars).optional(),
    title: s(itemLimits.nameChars),
    text: s(itemLimits.messageChars).optional(),
    json: s(itemLimits.jsonChars).optional(),
  }),
  /** A note in the conversation: an error of the run, something the user should know, or the end of a session. */
  z.strictObject({
    kind: z.literal('notice'),
    ...common,
    tone: z.enum(['info', 'warning', 'error']),
    code: s(itemLimits.codeChars),
    message: s(itemLimits.messageChars),
    retryable: z.boolean().optional(),
  }),
  z.strictObject({ kind: z.literal('ended'), ...common, reason: endReasonSchema }),
]);

export type ConversationItem = z.infer<typeof conversationItemSchema>;
export type ConversationItemKind = ConversationItem['kind'];
export type ItemOfKind<K extends ConversationItemKind> = Extract<ConversationItem, { kind: K }>;
export type MessageState = z.infer<typeof messageStateSchema>;

/** The kinds whose `text` grows while they stream: an update may carry only what was appended. */
export const textKinds = ['message', 'reasoning', 'speech'] as const satisfies readonly ConversationItemKind[];

/**
 * An item's id in a conversation: the protocol's own id prefixed with its protocol kind, since a
 * protocol may use one id for two things (an AgentCall request and a teaching proposal, say).
 */
export function itemId(sourceKind: string, sourceId: string): string {
  return `${sourceKind}:${sourceId}`;
}

/** The protocol's own id of an item (what `itemId` was given). */
export function sourceIdOf(item: { id: string }): string {
  const colon = item.id.indexOf(':');
  return colon < 0 ? item.id : item.id.slice(colon + 1);
}
