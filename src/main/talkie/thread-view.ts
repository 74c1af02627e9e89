import { z } from 'zod';
import { parseAction, parseCard, type Action } from '../../shared/talkie/content';
import type { ConversationItem } from '../../shared/talkie/conversation';

/** Talkie §9 thread bodies → the same conversation items a live run produces. */
const threadSchema = z.looseObject({
  thread: z.looseObject({ id: z.string().max(200) }).optional(),
  messages: z.array(
    z.looseObject({
      id: z.string().max(200),
      role: z.string().max(20),
      content: z.string().max(200_000).optional(),
      channel: z.string().max(20).optional(),
      cards: z.array(z.unknown()).max(50).optional(),
    }),
  ).max(5000),
  actions: z.array(z.unknown()).max(500).optional(),
});

export function threadItems(json: unknown): { items: ConversationItem[]; actions: Action[] } | undefined {
  const parsed = threadSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const items: ConversationItem[] = [];
  for (const message of parsed.data.messages) {
    const text = message.content ?? '';
    if (message.channel === 'voice' && (message.role === 'user' || message.role === 'assistant')) {
      // What was said in a voice call (§10.3 transcripts) stays marked as spoken.
      if (text !== '') items.push({ kind: 'spoken', id: message.id, role: message.role, text, state: 'final' });
    } else if (message.role === 'user') items.push({ kind: 'user', id: message.id, text, state: 'sent' });
    else if (message.role === 'assistant' && text !== '') items.push({ kind: 'assistant', id: message.id, text, streaming: false });
    for (const raw of message.cards ?? []) {
      const card = parseCard(raw);
      if (card) items.push({ kind: 'card', id: card.id, card });
    }
  }
  const actions = (parsed.data.actions ?? []).map(parseAction).filter((action): action is Action => action !== undefined);
  for (const action of actions) items.push({ kind: 'action', id: action.id, action });
  return { items, actions };
}

const threadListSchema = z.looseObject({
  threads: z.array(
    z.looseObject({ id: z.string().max(200), title: z.string().max(500).optional(), channel: z.string().max(20).optional(), createdAt: z.string().max(40).optional(), updatedAt: z.string().max(40).optional() }),
  ),
});

export function threadList(json: unknown) {
  const parsed = threadListSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.threads.slice(0, 50).map((thread) => ({
    id: thread.id,
    title: thread.title ?? '',
    channel: thread.channel ?? 'chat',
    ...(thread.createdAt === undefined ? {} : { createdAt: thread.createdAt }),
    ...(thread.updatedAt === undefined ? {} : { updatedAt: thread.updatedAt }),
  }));
}
