import { z } from 'zod';
import { parseAction, parseCard, type Action } from '../../shared/talkie/content';
import type { ConversationItem } from '../../shared/talkie/conversation';
import { threadTitleFromMessage } from '../../shared/talkie/thread-title';

/** Talkie 1 §9 thread bodies → the same conversation items a live run produces. */
const threadSchema = z.looseObject({
  thread: z.looseObject({ id: z.string().max(200) }).optional(),
  messages: z
    .array(
      z.looseObject({
        id: z.string().max(200),
        role: z.string().max(20),
        content: z.string().max(200_000).optional(),
        channel: z.string().max(20).optional(),
        cards: z.array(z.unknown()).max(50).optional(),
        createdAt: z.string().max(40).optional(),
      }),
    )
    .max(5000),
  actions: z.array(z.unknown()).max(500).optional(),
});

export function threadItems(json: unknown): { items: ConversationItem[]; actions: Action[] } | undefined {
  const parsed = threadSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const actions = (parsed.data.actions ?? []).map(parseAction).filter((action): action is Action => action !== undefined);
  // Talkie 1 §9 lists a thread's actions apart from its messages: each goes where it was proposed, before the
  // first message said after it (a live run shows it there too); one without a readable time goes last.
  const placed = actions
    .map((action) => ({ action, time: timeOf(action.createdAt) }))
    .sort((a, b) => (a.time === b.time ? 0 : a.time === undefined ? 1 : b.time === undefined ? -1 : a.time - b.time));
  const items: ConversationItem[] = [];
  const actionsUntil = (time: number | undefined) => {
    while (placed[0] !== undefined && time !== undefined && placed[0].time !== undefined && placed[0].time < time) {
      const { action } = placed.shift()!;
      items.push({ kind: 'action', id: action.id, action, ...readableTime(action.createdAt) });
    }
  };
  for (const message of parsed.data.messages) {
    const text = message.content ?? '';
    // The message's time goes on everything it brought (its cards too); a date that cannot be read is left out.
    const at = readableTime(message.createdAt);
    actionsUntil(timeOf(message.createdAt));
    if (message.channel === 'voice' && (message.role === 'user' || message.role === 'assistant')) {
      // What was said in a voice call (Talkie 1 §10.3 transcripts) stays marked as spoken.
      if (text !== '') items.push({ kind: 'spoken', id: message.id, role: message.role, text, state: 'final', ...at });
    } else if (message.role === 'user') items.push({ kind: 'user', id: message.id, text, state: 'sent', ...at });
    else if (message.role === 'assistant' && text !== '') items.push({ kind: 'assistant', id: message.id, text, streaming: false, ...at });
    for (const raw of message.cards ?? []) {
      const card = parseCard(raw);
      if (card) items.push({ kind: 'card', id: card.id, card, ...at });
    }
  }
  for (const { action } of placed) items.push({ kind: 'action', id: action.id, action, ...readableTime(action.createdAt) });
  return { items, actions };
}

/** A date string as milliseconds, or undefined when it cannot be read. */
function timeOf(iso: string | undefined): number | undefined {
  const time = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/** `{ at }` for a date string that parses (bounded to 40 characters by the schemas), `{}` otherwise. */
function readableTime(iso: string | undefined): { at?: string } {
  return timeOf(iso) !== undefined ? { at: iso as string } : {};
}

const threadListSchema = z.looseObject({
  threads: z.array(
    z.looseObject({
      id: z.string().max(200),
      title: z.string().max(500).optional(),
      channel: z.string().max(20).optional(),
      createdAt: z.string().max(40).optional(),
      updatedAt: z.string().max(40).optional(),
    }),
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

/**
 * The first user message of each thread main has seen (a new thread's first send, a loaded thread),
 * as a title for a thread the server lists without one (the server's title wins). Derived from what
 * main already has: no request is made for it. In memory, at most `max` threads (the oldest go first).
 */
export class FirstMessages {
  private readonly titles = new Map<string, string>();

  constructor(private readonly max = 1000) {}

  /** A new thread's first message (a later send never replaces it). */
  sent(agentId: string, threadId: string, text: string): void {
    if (!this.titles.has(key(agentId, threadId))) this.set(agentId, threadId, text);
  }

  /** A loaded thread: its first user message, as the server has it. */
  loaded(agentId: string, threadId: string, items: readonly ConversationItem[]): void {
    const first = items.find((item) => item.kind === 'user' && item.text.trim() !== '');
    if (first?.kind === 'user') this.set(agentId, threadId, first.text);
  }

  forget(agentId: string, threadId: string): void {
    this.titles.delete(key(agentId, threadId));
  }

  /** The list with `firstMessage` on each untitled thread whose first message is known. */
  fill<T extends { id: string; title: string }>(agentId: string, threads: T[]): (T & { firstMessage?: string })[] {
    return threads.map((thread) => {
      const firstMessage = thread.title.trim() === '' ? this.titles.get(key(agentId, thread.id)) : undefined;
      return firstMessage === undefined ? thread : { ...thread, firstMessage };
    });
  }

  private set(agentId: string, threadId: string, text: string): void {
    const title = threadTitleFromMessage(text);
    if (title === '') return;
    const id = key(agentId, threadId);
    this.titles.delete(id);
    this.titles.set(id, title);
    if (this.titles.size > this.max) this.titles.delete(this.titles.keys().next().value!);
  }
}

function key(agentId: string, threadId: string): string {
  return `${agentId}\n${threadId}`;
}
