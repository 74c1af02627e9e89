import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentCallAgent } from '../../../shared/agentcall/ipc-schemas';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../shared/agentcall/session-view';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { EventPayload } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import { useFrameState } from '../../hooks/useFrameState';
import { call } from '../../hooks/useLiveResource';

export type Connection =
  | { status: 'connecting' }
  | { status: 'failed'; error: IpcError }
  | { status: 'open'; sessionKey: string; agent: AgentCallAgent };

/** The session as the screen shows it: the engine's view plus what only the renderer knows. */
export interface SessionState {
  view: SessionView;
  /** Proposals that were still shown when the session ended (the view calls them invalidated too). */
  endedWithSession: ReadonlySet<string>;
}

export const initialSessionState: SessionState = { view: emptySessionView, endedWithSession: new Set() };

/** Folds one update, remembering which shown proposal the end of the session (not a new object) invalidated. */
export function foldUpdate(state: SessionState, update: SessionUpdate): SessionState {
  let endedWithSession = state.endedWithSession;
  if (update.type === 'ended' && state.view.phase !== 'ended') {
    const shown = state.view.items.filter((item) => item.kind === 'teaching' && item.state === 'shown').map((item) => item.id);
    if (shown.length > 0) endedWithSession = new Set([...endedWithSession, ...shown]);
  }
  return { view: applySessionUpdate(state.view, update), endedWithSession };
}

/** Events for a session key that open has not returned yet are kept (bounded) until it has. */
const maxEarlyEvents = 200;

export interface AgentCallSessionHandle {
  connection: Connection;
  state: SessionState;
  /** Opens a new session (after a failure, or after the last one ended): the view starts empty. */
  reopen: () => void;
  /** Applies updates the renderer knows about without main (the session was already gone in main). */
  applyLocal: (updates: SessionUpdate[]) => void;
}

/**
 * One AgentCall session with an agent: `agentcall.open`, then the `agentcall.update` events of its
 * session key folded with `applySessionUpdate`. The logic always sees the newest state (a ref);
 * React renders it at most once per animation frame, so a reply streaming many deltas a second
 * costs one render per frame (`useFrameState`, as in the Talkie chat).
 *
 * A session belongs to the screen: leaving the screen, or opening a new one, ends it in main
 * (`agentcall.end`), so no agent keeps a session (and its pending requests) nobody can see.
 */
export function useAgentCallSession(api: AgentDeskApi, agentId: string): AgentCallSessionHandle {
  const [connection, setConnection] = useState<Connection>({ status: 'connecting' });
  const { shown: state, latestRef, change: changeState, showNow } = useFrameState<SessionState>(initialSessionState);
  const [attempt, setAttempt] = useState(0);
  /** The session key this screen follows; undefined while opening. */
  const sessionKey = useRef<string | undefined>(undefined);
  /** Events that arrived while `agentcall.open` was on its way (null when not opening). */
  const early = useRef<EventPayload<'agentcall.update'>[] | null>(null);
  /** Sessions that ended already (main needs no agentcall.end for them). */
  const endedKeys = useRef(new Set<string>());

  const change = useCallback(
    (update: (current: SessionState) => SessionState) => {
      changeState(update);
      if (latestRef.current.view.phase === 'ended' && sessionKey.current !== undefined) endedKeys.current.add(sessionKey.current);
    },
    [changeState, latestRef],
  );

  // Subscribed before the first open is sent (effects run in order).
  useEffect(
    () =>
      api.agentcall.onUpdate((payload) => {
        const key = sessionKey.current;
        if (key === undefined) {
          if (early.current && early.current.length < maxEarlyEvents) early.current.push(payload);
          return;
        }
        if (payload.sessionKey !== key) return;
        change((current) => payload.updates.reduce(foldUpdate, current));
      }),
    [api, change],
  );

  useEffect(() => {
    let active = true;
    let opened: string | undefined;
    const ended = endedKeys.current;
    sessionKey.current = undefined;
    early.current = [];
    void call(() => api.agentcall.open({ agentId })).then((result) => {
      if (!active) {
        // The screen went away (or a newer open started) while this one was on its way.
        if (result.ok) void call(() => api.agentcall.end({ sessionKey: result.value.sessionKey }));
        return;
      }
      const buffered = early.current ?? [];
      early.current = null;
      if (!result.ok) {
        setConnection({ status: 'failed', error: result.error });
        return;
      }
      const { sessionKey: key, agent, updates } = result.value;
      opened = key;
      sessionKey.current = key;
      change((current) => {
        let next = updates.reduce(foldUpdate, current);
        for (const payload of buffered) if (payload.sessionKey === key) next = payload.updates.reduce(foldUpdate, next);
        return next;
      });
      setConnection({ status: 'open', sessionKey: key, agent });
    });
    return () => {
      active = false;
      sessionKey.current = undefined;
      early.current = null;
      if (opened !== undefined && !ended.has(opened)) void call(() => api.agentcall.end({ sessionKey: opened as string }));
    };
  }, [api, agentId, attempt, change]);

  const reopen = useCallback(() => {
    // The old view (its thumbnails, proposals and focus) is gone at once, not a frame later.
    showNow(initialSessionState);
    setConnection({ status: 'connecting' });
    setAttempt((value) => value + 1);
  }, [showNow]);

  const applyLocal = useCallback((updates: SessionUpdate[]) => change((current) => updates.reduce(foldUpdate, current)), [change]);

  return { connection, state, reopen, applyLocal };
}
