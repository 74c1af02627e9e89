import { earlierJoins, type EarlierItems } from '../conversation/bounds';
import type { z } from 'zod';
import type { IpcError } from '../base/errors';
import type { Action, UsageMeter } from './content';
import type { talkieRunEvents } from './ipc-schemas';
import {
  addSpoken,
  addUserMessage,
  applyUpdate,
  emptyConversation,
  markCancelled,
  markUserMessage,
  type Conversation,
  type ConversationItem,
  type RunUpdate,
} from './conversation';

/** A failure as the chat shows it: an IPC error's code (or a server's), its message, whether a retry may help. */
export type ShownError = Pick<IpcError, 'message' | 'retryable'> & { code: string };

/**
 * The Talkie chat's state and every way it changes, as one pure reducer (no React, no API, no clock):
 * main's Talkie conversation source (src/main/conversation/talkie-source.ts) performs the calls and
 * dispatches what they answered. The conversation itself is folded
 * by src/shared/talkie/conversation.ts; this adds what the screen knows around it: the run it
 * follows, why a message was not sent, the status note, loading, cancelling, what to announce, and
 * the last message being edited.
 */

/** What the status line says about the run that ended last (beyond the conversation's runState). */
export type RunNote = 'recovered' | 'interrupted' | 'cancelled';

type RunEndedPayload = z.infer<(typeof talkieRunEvents)['talkie.runEnded']>;
export type RunEvent = { kind: 'update'; payload: z.infer<(typeof talkieRunEvents)['talkie.update']> } | { kind: 'ended'; payload: RunEndedPayload };

/** Events of a run kept until `talkie.send` answers with its runKey (a hostile stream cannot grow it without end). */
export const maxBufferedEvents = 5000;

export interface FollowedRun {
  /** Which delivery this is (the hook numbers them): a late answer of an earlier one is dropped. */
  attempt: number;
  messageId: string;
  /** Known once talkie.send answered; until then this agent's events are buffered. */
  runKey?: string;
  buffer: readonly RunEvent[];
}

/** What the polite announcer says; the hook words it in the user's language. */
export type Announcement =
  { kind: 'newAction'; summary: string } | { kind: 'actionStatus'; summary: string; status: Action['status'] } | { kind: 'text'; text: string };

/** The user's last message is being edited in the composer (it will be sent as a new message). */
export interface Editing {
  messageId: string;
  /** What the composer held before the message's text was put there (Stop editing puts it back). */
  previousDraft: string;
}

export interface ChatState {
  conversation: Conversation;
  /** The run this screen follows: a message is on its way or its run streams (one at a time). */
  run: FollowedRun | undefined;
  note: RunNote | undefined;
  /** Why a user message was not sent, by message id. */
  failures: ReadonlyMap<string, ShownError>;
  usage: UsageMeter[] | undefined;
  /** A thread is loading (its id). */
  loading: string | undefined;
  loadError: { threadId: string; error: ShownError } | undefined;
  cancelling: boolean;
  cancelError: ShownError | undefined;
  announcement: Announcement | undefined;
  /** Bumped when the user leaves the conversation (new chat, another thread): late answers carrying an older one are dropped. */
  generation: number;
  /** The newest failure of a send, a run, a cancel or a thread load (the hook reports sign-in problems from it). */
  lastFailure: ShownError | undefined;
  editing: Editing | undefined;
}

export type ChatEvent =
  /** A user message goes out (new, or again with the same id); `dropErrorItem`: the run error it retries; `fromComposer`: typed (ends an edit). */
  | { type: 'deliver'; attempt: number; messageId: string; text: string; at: string; dropErrorItem?: string; fromComposer?: boolean }
  | { type: 'send.failed'; attempt: number; error: ShownError }
  | { type: 'send.accepted'; attempt: number; runKey: string; threadId: string; at: string }
  /** A talkie.update or talkie.runEnded of this agent. */
  | { type: 'run.event'; event: RunEvent; at: string }
  | { type: 'cancel.requested' }
  | { type: 'cancel.answered'; attempt: number; error?: ShownError }
  | { type: 'chat.new' }
  | { type: 'thread.open'; threadId: string }
  /** A thread opened: its newest window (`earlierItems` before it in main, `removedItems` removed by the bounds). */
  | {
      type: 'thread.loaded';
      generation: number;
      threadId: string;
      items: ConversationItem[];
      earlierItems?: number | undefined;
      removedItems?: number | undefined;
    }
  /** "Show earlier": main's items before the window, put before it when they still join it. */
  | { type: 'thread.earlier'; generation: number; threadId: string; answer: EarlierItems<ConversationItem> }
  | { type: 'thread.failed'; generation: number; threadId: string; error: ShownError }
  /** A decision's answer (by button: with the generation it was sent in; by voice: without). */
  | { type: 'decided'; generation?: number; action: Action; updates: RunUpdate[]; at: string }
  | { type: 'action.refreshed'; generation: number; action: Action; at: string }
  /** The thread as the server has it now: cards already shown are replaced by their newer version. */
  | { type: 'cards.refreshed'; generation: number; items: ConversationItem[] }
  | { type: 'voice.updates'; updates: RunUpdate[]; at: string }
  | { type: 'voice.spoken'; line: { id: string; role: 'user' | 'assistant'; text: string; state: 'hearing' | 'final' | 'unavailable' }; at: string }
  | { type: 'thread.adopt'; threadId: string }
  | { type: 'announce'; text: string }
  | { type: 'edit.start'; previousDraft: string }
  | { type: 'edit.stop' };

export function initialChatState(threadId?: string): ChatState {
  return {
    conversation: threadId === undefined ? emptyConversation : { ...emptyConversation, threadId },
    run: undefined,
    note: undefined,
    failures: new Map(),
    usage: undefined,
    loading: undefined,
    loadError: undefined,
    cancelling: false,
    cancelError: undefined,
    announcement: undefined,
    generation: 0,
    lastFailure: undefined,
    editing: undefined,
  };
}

/** The user's newest typed message (spoken lines are not editable), if any. */
export function lastUserMessage(conversation: Conversation): Extract<ConversationItem, { kind: 'user' }> | undefined {
  const last = conversation.items.findLast((item) => item.kind === 'user');
  return last?.kind === 'user' ? last : undefined;
}

/** Why a run ended without its message being sent, as the screen shows it. */
export function notSentError(outcome: RunEndedPayload['outcome']): ShownError {
  return {
    code: outcome.code === 'unauthorized' ? 'sign_in_required' : 'server_error',
    message: outcome.message ?? '',
    ...(outcome.retryable === undefined ? {} : { retryable: outcome.retryable }),
  };
}

export function chatReducer(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case 'deliver': {
      if (state.run) return state;
      const conversation = event.dropErrorItem === undefined ? state.conversation : withoutItem(state.conversation, 'error', event.dropErrorItem);
      return {
        ...state,
        run: { attempt: event.attempt, messageId: event.messageId, buffer: [] },
        note: undefined,
        cancelError: undefined,
        failures: withFailure(state.failures, event.messageId, undefined),
        conversation: addUserMessage(conversation, event.messageId, event.text, event.at),
        editing: event.fromComposer ? undefined : state.editing,
      };
    }
    case 'send.failed': {
      const run = state.run;
      if (run?.attempt !== event.attempt) return state;
      return {
        ...stopFollowing(state),
        conversation: { ...markUserMessage(state.conversation, run.messageId, 'failed'), runState: 'idle' },
        failures: withFailure(state.failures, run.messageId, event.error),
        lastFailure: event.error,
      };
    }
    case 'send.accepted': {
      const run = state.run;
      if (run?.attempt !== event.attempt) return state;
      const conversation = state.conversation.threadId === undefined ? { ...state.conversation, threadId: event.threadId } : state.conversation;
      let next: ChatState = { ...state, run: { ...run, runKey: event.runKey, buffer: [] }, conversation };
      // The events that came before the answer, in order, as long as this run is still followed.
      for (const kept of run.buffer) {
        if (next.run?.attempt !== run.attempt) break;
        if (kept.payload.runKey === event.runKey) next = applyRunEvent(next, kept, event.at);
      }
      return next;
    }
    case 'run.event': {
      const run = state.run;
      if (!run) return state;
      if (run.runKey === undefined) {
        if (run.buffer.length >= maxBufferedEvents) return state;
        return { ...state, run: { ...run, buffer: [...run.buffer, event.event] } };
      }
      return event.event.payload.runKey === run.runKey ? applyRunEvent(state, event.event, event.at) : state;
    }
    case 'cancel.requested':
      if (state.run?.runKey === undefined) return state;
      return { ...state, cancelling: true, cancelError: undefined };
    case 'cancel.answered':
      if (state.run?.attempt !== event.attempt) return state;
      return event.error ? { ...state, cancelling: false, cancelError: event.error, lastFailure: event.error } : { ...state, cancelling: false };
    case 'chat.new':
      return { ...leave(state), loading: undefined, conversation: emptyConversation };
    case 'thread.open':
      return { ...leave(state), loading: event.threadId, conversation: { ...emptyConversation, threadId: event.threadId } };
    case 'thread.loaded':
      if (event.generation !== state.generation) return state;
      return { ...state, loading: undefined, conversation: { ...emptyConversation, threadId: event.threadId, ...openedWindow(event) } };
    case 'thread.earlier': {
      const { conversation } = state;
      const earlier = conversation.earlierItems ?? 0;
      if (event.generation !== state.generation || conversation.threadId !== event.threadId) return state;
      if (!earlierJoins((conversation.removedItems ?? 0) + earlier, earlier, event.answer)) return state;
      return { ...state, conversation: { ...conversation, items: [...event.answer.items, ...conversation.items], earlierItems: event.answer.earlierItems } };
    }
    case 'thread.failed':
      if (event.generation !== state.generation) return state;
      return { ...state, loading: undefined, loadError: { threadId: event.threadId, error: event.error }, lastFailure: event.error };
    case 'decided': {
      if (event.generation !== undefined && event.generation !== state.generation) return state;
      const usage = event.updates.reduce<UsageMeter[] | undefined>((current, update) => (update.type === 'usage' ? update.usage : current), state.usage);
      return {
        ...state,
        usage,
        conversation: besideRun(state.conversation, [...event.updates, { type: 'action', action: event.action }], event.at),
        announcement: { kind: 'actionStatus', summary: event.action.summary, status: event.action.status },
      };
    }
    case 'action.refreshed': {
      if (event.generation !== state.generation) return state;
      const { action } = event;
      const before = state.conversation.items.find((item) => item.kind === 'action' && item.id === action.id);
      const changed = before?.kind === 'action' && before.action.status !== action.status;
      return {
        ...state,
        conversation: besideRun(state.conversation, [{ type: 'action', action }], event.at),
        ...(changed ? { announcement: { kind: 'actionStatus', summary: action.summary, status: action.status } } : {}),
      };
    }
    case 'cards.refreshed': {
      if (event.generation !== state.generation) return state;
      const shown = new Set(state.conversation.items.filter((item) => item.kind === 'card').map((item) => item.id));
      const updates: RunUpdate[] = [];
      for (const item of event.items) if (item.kind === 'card' && shown.has(item.id)) updates.push({ type: 'card', card: item.card });
      return updates.length === 0 ? state : { ...state, conversation: updates.reduce((folded, update) => applyUpdate(folded, update), state.conversation) };
    }
    case 'voice.updates': {
      let { usage, announcement } = state;
      for (const update of event.updates) {
        if (update.type === 'usage') usage = update.usage;
        if (update.type === 'action' && update.action.status === 'pending' && !hasAction(state.conversation, update.action.id)) {
          announcement = { kind: 'newAction', summary: update.action.summary };
        }
      }
      return { ...state, usage, announcement, conversation: besideRun(state.conversation, event.updates, event.at) };
    }
    case 'voice.spoken':
      return { ...state, conversation: addSpoken(state.conversation, { ...event.line, at: event.at }) };
    case 'thread.adopt':
      return state.conversation.threadId === event.threadId ? state : { ...state, conversation: { ...state.conversation, threadId: event.threadId } };
    case 'announce':
      return { ...state, announcement: { kind: 'text', text: event.text } };
    case 'edit.start': {
      const last = lastUserMessage(state.conversation);
      if (state.run || !last) return state;
      // Editing again keeps the draft from before the first edit.
      const previousDraft = state.editing ? state.editing.previousDraft : event.previousDraft;
      return { ...state, editing: { messageId: last.id, previousDraft } };
    }
    case 'edit.stop':
      return state.editing ? { ...state, editing: undefined } : state;
  }
}

/** One event of the followed run (its runKey already matched). */
function applyRunEvent(state: ChatState, event: RunEvent, at: string): ChatState {
  if (event.kind === 'update') {
    const { update } = event.payload;
    let next = state;
    if (update.type === 'usage') next = { ...next, usage: update.usage };
    if (update.type === 'action' && update.action.status === 'pending' && !hasAction(state.conversation, update.action.id)) {
      next = { ...next, announcement: { kind: 'newAction', summary: update.action.summary } };
    }
    return { ...next, conversation: applyUpdate(state.conversation, update, at) };
  }
  const { payload } = event;
  const messageId = state.run?.messageId ?? '';
  let next = stopFollowing(state);
  let conversation = payload.threadId === undefined ? next.conversation : { ...next.conversation, threadId: payload.threadId };
  const { outcome } = payload;
  switch (outcome.kind) {
    case 'finished':
      if (conversation.runState === 'running') conversation = applyUpdate(conversation, { type: 'run.finished' });
      break;
    case 'error':
      if (conversation.runState !== 'error') {
        conversation = applyUpdate(
          conversation,
          { type: 'run.error', code: outcome.code ?? 'internal', message: outcome.message ?? '', retryable: outcome.retryable ?? false },
          at,
        );
      }
      break;
    case 'not_sent': {
      conversation = { ...markUserMessage(conversation, messageId, 'failed'), runState: 'idle' };
      const error = notSentError(outcome);
      next = { ...next, failures: withFailure(next.failures, messageId, error), lastFailure: error };
      break;
    }
    case 'interrupted':
      if (payload.items) {
        const { earlierItems: _earlier, removedItems: _removed, ...rest } = conversation;
        conversation = { ...rest, ...openedWindow({ ...payload, items: payload.items }), runState: 'finished' };
        next = { ...next, note: 'recovered' };
      } else {
        conversation = applyUpdate(conversation, { type: 'run.interrupted', message: outcome.message ?? '' });
        next = { ...next, note: 'interrupted' };
      }
      break;
    case 'cancelled':
      conversation = markCancelled(conversation);
      next = { ...next, note: 'cancelled' };
      break;
  }
  return { ...next, conversation };
}

/** A thread's newest window as main sent it: its items, and what lies before them. */
function openedWindow(window: {
  items: ConversationItem[];
  earlierItems?: number | undefined;
  removedItems?: number | undefined;
}): Pick<Conversation, 'items' | 'earlierItems' | 'removedItems'> {
  return {
    items: window.items,
    ...(window.earlierItems ? { earlierItems: window.earlierItems } : {}),
    ...(window.removedItems ? { removedItems: window.removedItems } : {}),
  };
}

function stopFollowing(state: ChatState): ChatState {
  return { ...state, run: undefined, cancelling: false };
}

/** The user leaves this conversation: nothing of it is followed or shown as failed any more. */
function leave(state: ChatState): ChatState {
  return {
    ...stopFollowing(state),
    generation: state.generation + 1,
    note: undefined,
    failures: state.failures.size === 0 ? state.failures : new Map(),
    cancelError: undefined,
    loadError: undefined,
    editing: undefined,
  };
}

/** Items a decision or a voice call added: they never change the run this screen follows. */
function besideRun(conversation: Conversation, updates: RunUpdate[], at: string): Conversation {
  const next = updates.reduce((folded, update) => applyUpdate(folded, update, at), conversation);
  return { ...next, runState: conversation.runState, runId: conversation.runId, threadId: conversation.threadId };
}

function hasAction(conversation: Conversation, actionId: string): boolean {
  return conversation.items.some((item) => item.kind === 'action' && item.id === actionId);
}

function withoutItem(conversation: Conversation, kind: ConversationItem['kind'], id: string): Conversation {
  return { ...conversation, items: conversation.items.filter((item) => !(item.kind === kind && item.id === id)) };
}

function withFailure(failures: ReadonlyMap<string, ShownError>, messageId: string, error: ShownError | undefined): ReadonlyMap<string, ShownError> {
  if (!error && !failures.has(messageId)) return failures;
  const next = new Map(failures);
  if (error) next.set(messageId, error);
  else next.delete(messageId);
  return next;
}
