import { chatReducer, initialChatState, type ChatEvent, type ChatState, type RunEvent, type ShownError } from '../../shared/talkie/chat-state';
import type { ConversationItem } from '../../shared/conversation/items';
import { createTalkieProjector } from '../../shared/conversation/project-talkie';
import { ServiceError } from '../../shared/ipc/errors';
import type { EventBus } from '../ipc/event-bus';
import type { TalkieService } from '../talkie/talkie-service';
import type { ConversationAdapter, ConversationSource } from './conversation-source';

/**
 * A Talkie agent's conversation: the chat's pure reducer (src/shared/talkie/chat-state.ts) run in main
 * — the page used to run it — fed with what TalkieService answers and streams, and projected. The
 * thread lives on the server; main remembers which one each agent had open this session, so coming
 * back to the agent opens it again (else its newest thread).
 *
 * `dispatch` lets the composition root fold what other Talkie methods answered into the open
 * conversation (a decision on an action, a voice call's lines).
 */
export interface TalkieConversations extends ConversationAdapter {
  dispatch(agentId: string, event: ChatEvent): void;
}

export function talkieAdapter(talkie: TalkieService, events: EventBus, now: () => number = Date.now): TalkieConversations {
  const lastThread = new Map<string, string>();
  const open = new Map<string, (event: ChatEvent) => void>();
  return {
    protocol: 'talkie',
    async reset() {
      lastThread.clear();
      return { ended: await talkie.cancelAll(), removedFiles: 0 };
    },
    dispatch(agentId, event) {
      open.get(agentId)?.(event);
    },
    async open(agentId, options) {
      let state: ChatState = initialChatState();
      let attempts = 0;
      const project = createTalkieProjector();
      const listeners = new Set<() => void>();
      const at = () => new Date(now()).toISOString();
      const dispatch = (event: ChatEvent) => {
        const next = chatReducer(state, event);
        if (next === state) return;
        state = next;
        if (state.conversation.threadId !== undefined) lastThread.set(agentId, state.conversation.threadId);
        for (const listener of listeners) listener();
      };
      open.set(agentId, dispatch);
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
      const threadId = options.threadId ?? lastThread.get(agentId) ?? (await newestThread(talkie, agentId));
      if (threadId !== undefined) await load(threadId);

      const source: ConversationSource = {
        protocol: 'talkie',
        snapshot() {
          const projected = project(state.conversation);
          const items = withFailures(projected.items, state.failures);
          const run = state.run ? (state.cancelling ? 'cancelling' : state.run.runKey === undefined ? 'starting' : 'running') : 'idle';
          return { items, status: { ...projected.status, phase: state.loading === undefined ? 'ready' : 'connecting', run } };
        },
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async send(message) {
          if (state.run) throw new ServiceError('rejected', 'The agent is still answering.');
          const attempt = ++attempts;
          dispatch({ type: 'deliver', attempt, messageId: message.messageId, text: message.text, at: at(), fromComposer: true });
          try {
            const accepted = await talkie.send(agentId, { threadId: state.conversation.threadId, messageId: message.messageId, text: message.text });
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
          if (open.get(agentId) === dispatch) open.delete(agentId);
        },
      };
      return source;
    },
  };
}

async function newestThread(talkie: TalkieService, agentId: string): Promise<string | undefined> {
  try {
    const { threads } = await talkie.threads(agentId);
    return threads[0]?.id;
  } catch {
    return undefined;
  }
}

/** A user message that was not sent carries why (the chat keeps failures beside the conversation). */
function withFailures(items: readonly ConversationItem[], failures: ReadonlyMap<string, ShownError>): ConversationItem[] {
  if (failures.size === 0) return items as ConversationItem[];
  return items.map((item) => {
    if (item.kind !== 'message' || item.role !== 'user' || item.state !== 'failed') return item;
    const failure = failures.get(item.id.slice('user:'.length));
    return failure === undefined ? item : { ...item, error: { code: failure.code.slice(0, 64), message: failure.message.slice(0, 4000), ...(failure.retryable === undefined ? {} : { retryable: failure.retryable }) } };
  });
}

function shown(error: unknown): ShownError {
  if (error instanceof ServiceError) return { code: error.code, message: error.message, ...(error.retryable === undefined ? {} : { retryable: error.retryable }) };
  return { code: 'internal', message: 'Something went wrong; details are in the app log.' };
}
