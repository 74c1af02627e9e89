import { chatReducer, initialChatState, lastUserMessage, type ChatEvent, type ChatState, type RunEvent, type ShownError } from '../../shared/talkie/chat-state';
import { itemId, type ConversationItem } from '../../shared/conversation/items';
import { createTalkieProjector } from '../../shared/conversation/project-talkie';
import { ServiceError } from '../../shared/base/errors';
import type { Action } from '../../shared/talkie/content';
import type { EventName, EventPayload } from '../../shared/ipc/contract';
import type { ConversationItem as TalkieItem, RunUpdate } from '../../shared/talkie/conversation';
import type { ServerView } from '../../shared/talkie/ipc-schemas';
import type { ConversationAdapter, ConversationSource } from './conversation-source';

/** What a Talkie conversation asks of TalkieService (src/main/talkie/talkie-service.ts). */
export interface TalkiePort {
  connect(agentId: string): Promise<ServerView>;
  thread(agentId: string, threadId: string): Promise<{ threadId: string; items: TalkieItem[] }>;
  /** The whole thread within the conversation bounds, and how many of its oldest items they removed. */
  heldThread(agentId: string, threadId: string): Promise<{ threadId: string; items: TalkieItem[]; removedItems: number }>;
  threads(agentId: string): Promise<{ threads: { id: string }[] }>;
  send(agentId: string, request: { threadId?: string | undefined; messageId: string; text: string }): Promise<{ runKey: string; threadId: string }>;
  cancel(agentId: string, runKey: string): Promise<{ cancelled: boolean }>;
  /** The kiosk's reset: every run cancelled; how many. */
  cancelAll(): Promise<number>;
}

/** Main's own listening to an event (EventBus.observe). */
export interface MainEvents {
  observe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** A line said in a voice call, as the page reads it on the call's data channel (added, then updated in place). */
export interface SpokenLine {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  state: 'hearing' | 'final' | 'unavailable';
}

/**
 * A Talkie agent's conversation: the chat's pure reducer (src/shared/talkie/chat-state.ts) run in main
 * — the page used to run it — fed with what TalkieService answers and streams, and projected. The
 * thread lives on the server; main remembers which one each agent had open this session, so coming
 * back to the agent opens it again (else its newest thread). A server the user has not signed in to
 * (or whose addresses on other sites were not accepted) opens no conversation: the page's sign-in comes first.
 *
 * What other Talkie methods answered is folded in here too, by the composition root
 * (src/main/app/talkie-conversation.ts): a decision on an action, an action read again (and the cards
 * it changed), and a voice call's tool lines, cards, actions, spoken lines and thread — each only
 * into the conversation it belongs to.
 */
export interface TalkieConversations extends ConversationAdapter {
  /** New chat: the agent's next conversation starts empty (the thread it had is no longer reopened). */
  startFresh(agentId: string): void;
  /** A decision came back (by button, or spoken in a call): folded where the action is shown, or into its thread. */
  decided(agentId: string, answer: { action: Action; updates: RunUpdate[] }): void;
  /** The action as the server has it now (GET action): a changed status also brings the thread's newer cards. */
  actionRead(agentId: string, action: Action): void;
  /** A voice call started on `threadId` (Talkie 1 §10.1): the open conversation is that thread from now on. */
  voiceThread(agentId: string, threadId: string): void;
  /** A voice call's tool lines, cards and actions, for the conversation of the call's thread. */
  voiceUpdates(agentId: string, threadId: string, updates: RunUpdate[]): void;
  /** A line said in a voice call, for the conversation of the call's thread. */
  voiceLine(agentId: string, threadId: string, line: SpokenLine): void;
}

/** One open conversation, as the folds reach it. */
interface OpenTalkie {
  state(): ChatState;
  dispatch(event: ChatEvent): void;
  /** Reads the open thread again; resolves with its items (undefined when it could not be read). */
  reread(): Promise<TalkieItem[] | undefined>;
}

/** What the screen says after a dropped stream when the server's stored answer replaced it (the page words it by its code). */
export const recoveredNotice = { code: 'recovered', message: 'The connection dropped; this is the answer the server stored.' } as const;

export function talkieAdapter(talkie: TalkiePort, events: MainEvents, now: () => number = Date.now): TalkieConversations {
  const lastThread = new Map<string, string>();
  const fresh = new Set<string>();
  const open = new Map<string, OpenTalkie>();
  const at = () => new Date(now()).toISOString();
  /** The open conversation of `agentId`, when it shows `threadId`. */
  const onThread = (agentId: string, threadId: string) => {
    const conversation = open.get(agentId);
    return conversation?.state().conversation.threadId === threadId ? conversation : undefined;
  };
  return {
    protocol: 'talkie',
    async reset() {
      lastThread.clear();
      fresh.clear();
      return { ended: await talkie.cancelAll(), removedFiles: 0 };
    },
    startFresh(agentId) {
      lastThread.delete(agentId);
      fresh.add(agentId);
    },
    decided(agentId, answer) {
      const conversation = open.get(agentId);
      if (conversation === undefined) return;
      const { conversation: shown, generation } = conversation.state();
      const here =
        shown.items.some((item) => item.kind === 'action' && item.id === answer.action.id) ||
        (answer.action.threadId !== undefined && answer.action.threadId === shown.threadId);
      if (here) conversation.dispatch({ type: 'decided', generation, action: answer.action, updates: answer.updates, at: at() });
    },
    actionRead(agentId, action) {
      const conversation = open.get(agentId);
      if (conversation === undefined) return;
      const { conversation: shown, generation } = conversation.state();
      const before = shown.items.find((item) => item.kind === 'action' && item.id === action.id);
      if (before?.kind !== 'action') return;
      conversation.dispatch({ type: 'action.refreshed', generation, action, at: at() });
      // An action that changed on its own (an undo window closed) may have newer cards in the thread
      // (Talkie replaces a card with the same id): "Sending… you can still cancel it" becomes "Sent".
      if (before.action.status === action.status) return;
      void conversation.reread().then((items) => {
        if (items !== undefined) conversation.dispatch({ type: 'cards.refreshed', generation, items });
      });
    },
    voiceThread(agentId, threadId) {
      open.get(agentId)?.dispatch({ type: 'thread.adopt', threadId });
    },
    voiceUpdates(agentId, threadId, updates) {
      onThread(agentId, threadId)?.dispatch({ type: 'voice.updates', updates, at: at() });
    },
    voiceLine(agentId, threadId, line) {
      onThread(agentId, threadId)?.dispatch({ type: 'voice.spoken', line, at: at() });
    },
    async open(agentId, options) {
      const server = await talkie.connect(agentId);
      if (!server.endpointsAccepted) throw new ServiceError('endpoints_not_accepted', 'Review and accept the addresses this server uses on other sites first.');
      if (!server.signedIn) throw new ServiceError('sign_in_required', 'Sign in to this server first.');
      let state: ChatState = initialChatState();
      let attempts = 0;
      const project = createTalkieProjector();
      const notes = noteProjector();
      const listeners = new Set<() => void>();
      const dispatch = (event: ChatEvent) => {
        const next = chatReducer(state, event);
        if (next === state) return;
        state = next;
        if (state.conversation.threadId !== undefined) lastThread.set(agentId, state.conversation.threadId);
        for (const listener of listeners) listener();
      };
      const receive = (event: RunEvent) => {
        if (event.payload.agentId !== agentId) return;
        if (!state.run) {
          // A run of the open thread this conversation does not follow ended (it began before the page
          // reopened it): the thread is read again, so its end shows.
          const threadId = state.conversation.threadId;
          if (event.kind === 'ended' && threadId !== undefined && event.payload.threadId === threadId) void load(threadId);
          return;
        }
        dispatch({ type: 'run.event', event, at: at() });
      };
      const stops = [
        events.observe('talkie.update', (payload) => receive({ kind: 'update', payload })),
        events.observe('talkie.runEnded', (payload) => receive({ kind: 'ended', payload })),
      ];
      const load = async (threadId: string) => {
        dispatch({ type: 'thread.open', threadId });
        const { generation } = state;
        try {
          // The whole thread (within the bounds): the conversation service sends the page its window.
          const loaded = await talkie.heldThread(agentId, threadId);
          dispatch({ type: 'thread.loaded', generation, threadId: loaded.threadId, items: loaded.items, removedItems: loaded.removedItems });
        } catch (error) {
          dispatch({ type: 'thread.failed', generation, threadId, error: shown(error) });
        }
      };
      const handle: OpenTalkie = {
        state: () => state,
        dispatch,
        async reread() {
          const threadId = state.conversation.threadId;
          if (threadId === undefined) return undefined;
          try {
            return (await talkie.thread(agentId, threadId)).items;
          } catch {
            return undefined;
          }
        },
      };
      open.set(agentId, handle);
      const startFresh = options.threadId === undefined && fresh.delete(agentId);
      const threadId = startFresh ? undefined : (options.threadId ?? lastThread.get(agentId) ?? (await newestThread(talkie, agentId)));
      if (threadId !== undefined) await load(threadId);

      const source: ConversationSource = {
        protocol: 'talkie',
        snapshot() {
          const projected = project(state.conversation);
          const items = [...withFailures(projected.items, state.failures), ...notes(state)];
          const run = state.run ? (state.cancelling ? 'cancelling' : state.run.runKey === undefined ? 'starting' : 'running') : 'idle';
          return { items, status: { ...projected.status, phase: state.loading === undefined ? 'ready' : 'connecting', run } };
        },
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async send(message) {
          if (state.run) throw new ServiceError('rejected', 'The agent is still answering.');
          // A message sent again keeps its id and its text (Talkie 1 §5: the server ignores a duplicate);
          // after an answer that failed, its error gives way to the new attempt.
          const again = state.conversation.items.find((item) => item.kind === 'user' && item.id === message.messageId);
          const text = again?.kind === 'user' ? again.text : message.text;
          const retriesLast = again !== undefined && lastUserMessage(state.conversation)?.id === again.id;
          const failedAnswer =
            retriesLast && state.conversation.runState === 'error' ? state.conversation.items.findLast((item) => item.kind === 'error') : undefined;
          const attempt = ++attempts;
          dispatch({
            type: 'deliver',
            attempt,
            messageId: message.messageId,
            text,
            at: at(),
            ...(failedAnswer === undefined ? { fromComposer: true } : { dropErrorItem: failedAnswer.id }),
          });
          try {
            const accepted = await talkie.send(agentId, { threadId: state.conversation.threadId, messageId: message.messageId, text });
            dispatch({ type: 'send.accepted', attempt, runKey: accepted.runKey, threadId: accepted.threadId, at: at() });
          } catch (error) {
            dispatch({ type: 'send.failed', attempt, error: shown(error) });
          }
        },
        async cancel() {
          const runKey = state.run?.runKey;
          if (runKey === undefined) return false;
          dispatch({ type: 'cancel.requested' });
          const attempt = state.run?.attempt ?? 0;
          try {
            const { cancelled } = await talkie.cancel(agentId, runKey);
            dispatch({ type: 'cancel.answered', attempt });
            return cancelled;
          } catch (error) {
            dispatch({ type: 'cancel.answered', attempt, error: shown(error) });
            throw error;
          }
        },
        async end() {
          for (const stop of stops) stop();
          listeners.clear();
          if (open.get(agentId) === handle) open.delete(agentId);
        },
      };
      return source;
    },
  };
}

async function newestThread(talkie: TalkiePort, agentId: string): Promise<string | undefined> {
  try {
    const { threads } = await talkie.threads(agentId);
    return threads[0]?.id;
  } catch {
    return undefined;
  }
}

/**
 * What the chat keeps beside the conversation, as items after it: a thread that could not be read
 * (`load:<threadId>`, its error, Retry) and, after a dropped stream, that the answer shown is the one
 * the server stored (`note:recovered`). The same object while it stays the same.
 */
function noteProjector(): (state: ChatState) => ConversationItem[] {
  let last: { loadError: ChatState['loadError']; note: ChatState['note']; items: ConversationItem[] } | undefined;
  return (state) => {
    const before = last;
    if (before !== undefined && before.loadError === state.loadError && before.note === state.note) return before.items;
    const items: ConversationItem[] = [];
    const failed = state.loadError;
    if (failed !== undefined) items.push({ kind: 'notice', id: itemId('load', failed.threadId), tone: 'error', ...problem(failed.error), retryable: true });
    if (state.note === 'recovered') items.push({ kind: 'notice', id: itemId('note', 'recovered'), tone: 'info', ...recoveredNotice });
    last = { loadError: state.loadError, note: state.note, items };
    return items;
  };
}

/** A failure within the item schema's bounds. */
function problem(error: ShownError): { code: string; message: string } {
  return { code: error.code.slice(0, 64), message: error.message.slice(0, 4000) };
}

/** A user message that was not sent carries why (the chat keeps failures beside the conversation). */
function withFailures(items: readonly ConversationItem[], failures: ReadonlyMap<string, ShownError>): ConversationItem[] {
  if (failures.size === 0) return items as ConversationItem[];
  return items.map((item) => {
    if (item.kind !== 'message' || item.role !== 'user' || item.state !== 'failed') return item;
    const failure = failures.get(item.id.slice('user:'.length));
    return failure === undefined
      ? item
      : { ...item, error: { ...problem(failure), ...(failure.retryable === undefined ? {} : { retryable: failure.retryable }) } };
  });
}

function shown(error: unknown): ShownError {
  if (error instanceof ServiceError)
    return { code: error.code, message: error.message, ...(error.retryable === undefined ? {} : { retryable: error.retryable }) };
  return { code: 'internal', message: 'Something went wrong; details are in the app log.' };
}
