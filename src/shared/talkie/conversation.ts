import { boundItems } from '../conversation/bounds';
import type { Action, Card, UsageMeter } from './content';

/**
 * What a Talkie run means to the UI, after main validated and normalized the AG-UI events
 * (src/shared/talkie/run-events.ts). These cross the IPC boundary; the renderer and the CLI fold
 * them into a Conversation with `applyUpdate`, so both show the same thing.
 */
export type RunUpdate =
  | { type: 'run.started'; threadId: string; runId: string }
  | { type: 'text.start'; messageId: string }
  | { type: 'text.delta'; messageId: string; delta: string }
  | { type: 'text.end'; messageId: string }
  | { type: 'tool.start'; toolCallId: string; label: string }
  | { type: 'tool.end'; toolCallId: string; ok: boolean; error?: string }
  | { type: 'card'; card: Card }
  | { type: 'action'; action: Action }
  | { type: 'open'; url: string; label: string }
  | { type: 'usage'; usage: UsageMeter[] }
  | { type: 'run.finished' }
  | { type: 'run.error'; code: string; message: string; retryable: boolean }
  /** The stream dropped before the run ended; main reloads the thread (disconnect is not cancel). */
  | { type: 'run.interrupted'; message: string };

/**
 * `at`: when the item was said, as an ISO date: the server's `createdAt` for a loaded thread, the
 * moment it reached this app for a live run (a few hundred milliseconds after the server made it,
 * so honest to show to the minute). Absent when neither is known (an older server's thread).
 */
export type ConversationItem = (
  | { kind: 'user'; id: string; text: string; state: 'sending' | 'sent' | 'failed' }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  | { kind: 'tool'; id: string; label: string; state: 'running' | 'ok' | 'error'; error?: string }
  | { kind: 'card'; id: string; card: Card }
  | { kind: 'action'; id: string; action: Action }
  | { kind: 'link'; id: string; url: string; label: string }
  | { kind: 'error'; id: string; code: string; message: string; retryable: boolean }
  /**
   * A line said in a voice call (Talkie 1 §10): `hearing` until the provider's final transcript arrives,
   * `unavailable` when its transcription failed (a placeholder, never silently dropped).
   */
  | { kind: 'spoken'; id: string; role: 'user' | 'assistant'; text: string; state: 'hearing' | 'final' | 'unavailable' }
) & { at?: string };

export type RunState = 'idle' | 'running' | 'finished' | 'error' | 'cancelled' | 'interrupted';

export interface Conversation {
  threadId?: string;
  runId?: string;
  runState: RunState;
  items: ConversationItem[];
  usage?: UsageMeter[];
  /** Items main holds before these (a thread opened on its newest window; "Show earlier" asks for them). */
  earlierItems?: number;
  /** The oldest items removed to keep the conversation within its bounds (the screen says so). */
  removedItems?: number;
}

export const emptyConversation: Conversation = { runState: 'idle', items: [] };

/**
 * Bounds that keep a hostile stream from growing the view without end: each text's, at most 5,000
 * items, and the conversation bounds' budget for all of them (src/shared/conversation/bounds.ts); the
 * oldest items go first, counted in `removedItems`.
 */
export const conversationLimits = { items: 5000, textChars: 200_000 } as const;

/**
 * The conversation within its bounds: the oldest items beyond them removed and counted. The items
 * main still held before them (`earlierItems`) are older still: they count as removed too.
 */
export function boundConversation(conversation: Conversation): Conversation {
  const { items, removed } = boundItems(conversation.items, conversationLimits.items);
  if (removed === 0) return conversation;
  const { earlierItems = 0, ...rest } = conversation;
  return { ...rest, items: [...items], removedItems: (conversation.removedItems ?? 0) + earlierItems + removed };
}

/** `at` (an ISO date) is kept on each item the call adds; an item updated in place keeps its first time. */
export function addUserMessage(conversation: Conversation, id: string, text: string, at?: string): Conversation {
  // A retry keeps the message's id and place (never a duplicate).
  const exists = conversation.items.some((item) => item.kind === 'user' && item.id === id);
  const items: ConversationItem[] = exists
    ? conversation.items.map((item) => (item.kind === 'user' && item.id === id ? { ...item, state: 'sending' } : item))
    : [...conversation.items, { kind: 'user', id, text, state: 'sending', ...stamp(at) }];
  return boundConversation({ ...conversation, items, runState: 'running' });
}

export function markUserMessage(conversation: Conversation, id: string, state: 'sent' | 'failed'): Conversation {
  return { ...conversation, items: conversation.items.map((item) => (item.kind === 'user' && item.id === id ? { ...item, state } : item)) };
}

export function applyUpdate(conversation: Conversation, update: RunUpdate, at?: string): Conversation {
  const upsert = (current: Conversation, next: ConversationItem) => upsertAt(current, next, at);
  switch (update.type) {
    case 'run.started':
      return {
        ...conversation,
        threadId: update.threadId,
        runId: update.runId,
        runState: 'running',
        items: conversation.items.map((item) => (item.kind === 'user' && item.state === 'sending' ? { ...item, state: 'sent' } : item)),
      };
    case 'text.start':
      return upsert(conversation, { kind: 'assistant', id: update.messageId, text: '', streaming: true });
    case 'text.delta': {
      const current = find(conversation, 'assistant', update.messageId);
      const text = `${current?.text ?? ''}${update.delta}`.slice(0, conversationLimits.textChars);
      return upsert(conversation, { kind: 'assistant', id: update.messageId, text, streaming: true });
    }
    case 'text.end': {
      const current = find(conversation, 'assistant', update.messageId);
      return current ? upsert(conversation, { ...current, streaming: false }) : conversation;
    }
    case 'tool.start':
      return upsert(conversation, { kind: 'tool', id: update.toolCallId, label: update.label, state: 'running' });
    case 'tool.end': {
      const current = find(conversation, 'tool', update.toolCallId);
      const label = current?.label ?? '';
      return upsert(
        conversation,
        update.ok
          ? { kind: 'tool', id: update.toolCallId, label, state: 'ok' }
          : { kind: 'tool', id: update.toolCallId, label, state: 'error', ...(update.error === undefined ? {} : { error: update.error }) },
      );
    }
    case 'card':
      return upsert(conversation, { kind: 'card', id: update.card.id, card: update.card });
    case 'action':
      // A newer version of the same action updates it in place; a new proposal never hides an older one.
      return upsert(conversation, { kind: 'action', id: update.action.id, action: update.action });
    case 'open':
      return upsert(conversation, { kind: 'link', id: `link:${update.url}`, url: update.url, label: update.label });
    case 'usage':
      return { ...conversation, usage: update.usage };
    case 'run.finished':
      return { ...conversation, runState: conversation.runState === 'cancelled' ? 'cancelled' : 'finished', items: endStreaming(conversation.items) };
    case 'run.error': {
      const items = endStreaming(conversation.items);
      if (update.code === 'cancelled') return { ...conversation, runState: 'cancelled', items };
      const error: ConversationItem = {
        kind: 'error',
        id: `error:${conversation.runId ?? ''}`,
        code: update.code,
        message: update.message,
        retryable: update.retryable,
        ...stamp(at),
      };
      return boundConversation({ ...conversation, runState: 'error', items: [...items.filter((item) => item.id !== error.id), error] });
    }
    case 'run.interrupted':
      return { ...conversation, runState: 'interrupted', items: endStreaming(conversation.items) };
  }
}

/** A voice call's transcript line, added once and then updated in place (its id is the provider's item id). */
export function addSpoken(conversation: Conversation, item: Omit<Extract<ConversationItem, { kind: 'spoken' }>, 'kind'>): Conversation {
  const { at, ...line } = item;
  return upsertAt(conversation, { kind: 'spoken', ...line, text: line.text.slice(0, conversationLimits.textChars) }, at);
}

export function markCancelled(conversation: Conversation): Conversation {
  return { ...conversation, runState: 'cancelled', items: endStreaming(conversation.items) };
}

function endStreaming(items: ConversationItem[]): ConversationItem[] {
  return items.map((item) => (item.kind === 'assistant' && item.streaming ? { ...item, streaming: false } : item));
}

function find<K extends ConversationItem['kind']>(conversation: Conversation, kind: K, id: string) {
  return conversation.items.find((item): item is Extract<ConversationItem, { kind: K }> => item.kind === kind && item.id === id);
}

function stamp(at: string | undefined): { at?: string } {
  return at === undefined ? {} : { at };
}

/** A new item gets `at`; an item replaced in place keeps the time it first had. */
function upsertAt(conversation: Conversation, next: ConversationItem, at: string | undefined): Conversation {
  const index = conversation.items.findIndex((item) => item.kind === next.kind && item.id === next.id);
  if (index === -1) return boundConversation({ ...conversation, items: [...conversation.items, { ...next, ...stamp(at) }] });
  const items = conversation.items.slice();
  const first = conversation.items[index]?.at;
  items[index] = first === undefined ? next : { ...next, at: first };
  return boundConversation({ ...conversation, items });
}
