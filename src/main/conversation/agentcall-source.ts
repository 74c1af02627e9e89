import type { AgentCallAgent, AgentCallOpenResponse } from '../../shared/agentcall/ipc-schemas';
import { applySessionUpdate, emptySessionView, type SessionOpened, type SessionUpdate, type SessionView } from '../../shared/agentcall/session-view';
import type { ConversationItem } from '../../shared/conversation/items';
import { createAgentCallProjector } from '../../shared/conversation/project-agentcall';
import { ServiceError } from '../../shared/base/errors';
import type { EventPayload } from '../../shared/ipc/contract';
import type { ConversationAdapter, ConversationSource } from './conversation-source';

/** What the conversation needs of AgentCallService (a test's fake main gives the same). */
export interface AgentCallSessions {
  card(agentId: string): Promise<{ agent: AgentCallAgent }>;
  open(agentId: string): Promise<AgentCallOpenResponse>;
  /** Throws a ServiceError when the session refuses the text. */
  sendText(key: string, text: string): { sent: true } | Promise<{ sent: true }>;
  cancel(key: string): { sent: true } | Promise<{ sent: true }>;
  end(key: string): Promise<{ ended: boolean }>;
  dispose(): Promise<number>;
  onSessionOpened(listener: (opened: SessionOpened) => void): () => void;
}

/** Main's own listener of the sessions' updates (EventBus.observe). */
export interface AgentCallUpdates {
  observe(event: 'agentcall.update', listener: (payload: EventPayload<'agentcall.update'>) => void): () => void;
}

/**
 * An AgentCall agent's conversation: its session, folded in main from the engine's updates (the same
 * `applySessionUpdate` the page used to run) and projected. A WebSocket card opens a session at once;
 * a WebRTC card is reached by a call, so the conversation waits (`reach: 'call'`) until the page's
 * call opens a session for this agent, which it then follows. Scans, photos, requests and proposals
 * stay AgentCall's own methods, addressed by the session key the status carries.
 */
export function agentCallAdapter(agentCall: AgentCallSessions, events: AgentCallUpdates): ConversationAdapter {
  return {
    protocol: 'agentcall',
    async reset() {
      return { ended: await agentCall.dispose(), removedFiles: 0 };
    },
    async open(agentId) {
      const { agent } = await agentCall.card(agentId);
      const byCall = agent.voice.transport === 'webrtc';
      let sessionKey: string | undefined;
      let view: SessionView = emptySessionView;
      const project = createAgentCallProjector();
      const stamp = arrivalStamps();
      const listeners = new Set<() => void>();
      const changed = () => {
        for (const listener of listeners) listener();
      };
      const fold = (updates: readonly SessionUpdate[]) => {
        for (const update of updates) view = applySessionUpdate(view, update);
        changed();
      };
      const stopUpdates = events.observe('agentcall.update', (payload) => {
        if (payload.sessionKey === sessionKey) fold(payload.updates);
      });
      // A call the page placed for this agent: its session is this conversation's. Its first updates
      // are only in the answer the page got; later ones come as events, after this.
      const stopCalls = byCall
        ? agentCall.onSessionOpened((opened) => {
            if (opened.agentId !== agentId || sessionKey !== undefined) return;
            sessionKey = opened.sessionKey;
            fold(opened.updates);
          })
        : () => undefined;
      const stop = () => {
        stopUpdates();
        stopCalls();
      };
      if (!byCall) {
        try {
          const opened = await agentCall.open(agentId);
          sessionKey = opened.sessionKey;
          for (const update of opened.updates) view = applySessionUpdate(view, update);
        } catch (error) {
          stop();
          throw error;
        }
      }
      const live = (): string => {
        if (sessionKey === undefined || view.phase === 'ended')
          throw new ServiceError('session_ended', byCall ? 'Call the agent first.' : 'The session has ended; start a new one.');
        return sessionKey;
      };
      const source: ConversationSource = {
        protocol: 'agentcall',
        snapshot() {
          const projected = project(view);
          projected.items = stamp(projected.items);
          const status = { ...projected.status, ...(sessionKey === undefined ? {} : { session: sessionKey }) };
          // Before a call there is no session to connect: the conversation is ready to be called.
          if (byCall && sessionKey === undefined) return { items: projected.items, status: { ...status, phase: 'ready' as const, reach: 'call' as const } };
          return { items: projected.items, status: byCall ? { ...status, reach: 'call' as const } : status };
        },
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async send(message) {
          await agentCall.sendText(live(), message.text);
        },
        async cancel() {
          if (!view.runActive || sessionKey === undefined) return false;
          await agentCall.cancel(sessionKey);
          return true;
        },
        async end() {
          stop();
          listeners.clear();
          if (sessionKey !== undefined && view.phase !== 'ended') await agentCall.end(sessionKey);
        },
      };
      return source;
    },
  };
}

/**
 * AgentCall's events carry no time, and a session is live: the moment an item reached main is when
 * it was said, to the minute — that is the time the conversation shows (`at`). Each item keeps the
 * time it first appeared (a streamed answer its start); unchanged items keep their stamped object.
 */
function arrivalStamps(): (items: readonly ConversationItem[]) => ConversationItem[] {
  let firstSeen = new Map<string, number>();
  const stamped = new WeakMap<ConversationItem, ConversationItem>();
  return (items) => {
    const now = Date.now();
    // The view drops its oldest items past its bound: so are their times.
    if (firstSeen.size > items.length * 2 + 100)
      firstSeen = new Map(items.flatMap((item) => (firstSeen.has(item.id) ? [[item.id, firstSeen.get(item.id) as number] as const] : [])));
    return items.map((item) => {
      let at = firstSeen.get(item.id);
      if (at === undefined) {
        at = now;
        firstSeen.set(item.id, at);
      }
      const known = stamped.get(item);
      if (known !== undefined && known.at === at) return known;
      const next = { ...item, at };
      stamped.set(item, next);
      return next;
    });
  };
}
