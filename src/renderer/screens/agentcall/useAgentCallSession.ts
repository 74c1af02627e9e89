import { useEffect, useMemo, useSyncExternalStore } from 'react';
import type { AgentCallAgent, AgentCallOpenResponse } from '../../../shared/agentcall/ipc-schemas';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../shared/agentcall/session-view';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { EventPayload } from '../../../shared/ipc/contract';
import { Listeners } from '../../../shared/listeners';
import type { IpcError } from '../../../shared/ipc/errors';
import { FrameBatch } from '../../hooks/useFrameState';
import { call } from '../../hooks/useLiveResource';

export type Connection =
  | { status: 'connecting' }
  | { status: 'failed'; error: IpcError }
  /** A WebRTC card (agent-owned voice): no session until the user calls. */
  | { status: 'call'; agent: AgentCallAgent }
  | { status: 'open'; sessionKey: string; agent: AgentCallAgent };

/** The session as the screen shows it: the engine's view plus what only the renderer knows. */
export interface SessionState {
  view: SessionView;
  /** Proposals that were still shown when the session ended (the view calls them invalidated too). */
  endedWithSession: ReadonlySet<string>;
  /**
   * When each item (by `itemTimeKey`) reached this screen, in ms since the epoch. AgentCall's events
   * carry no time, and the session is live (main ends an old one when a new one opens), so the
   * moment an item arrived is when it was said, to the minute: that is the time the screen shows.
   */
  times: ReadonlyMap<string, number>;
}

export const initialSessionState: SessionState = { view: emptySessionView, endedWithSession: new Set(), times: new Map() };

export function itemTimeKey(item: { kind: string; id: string }): string {
  return `${item.kind}:${item.id}`;
}

/** Folds one update, remembering which shown proposal the end of the session (not a new object) invalidated. */
export function foldUpdate(state: SessionState, update: SessionUpdate): SessionState {
  let endedWithSession = state.endedWithSession;
  if (update.type === 'ended' && state.view.phase !== 'ended') {
    const shown = state.view.items.filter((item) => item.kind === 'teaching' && item.state === 'shown').map((item) => item.id);
    if (shown.length > 0) endedWithSession = new Set([...endedWithSession, ...shown]);
  }
  return { view: applySessionUpdate(state.view, update), endedWithSession, times: state.times };
}

/**
 * `foldUpdate` that also notes `now` as the time of each item the update added (an item changed in
 * place keeps its first time); the times of items the session's bounds removed go with them.
 */
export function foldUpdateAt(now: number): (state: SessionState, update: SessionUpdate) => SessionState {
  return (state, update) => {
    const next = foldUpdate(state, update);
    if (next.view.items === state.view.items) return next;
    let times: Map<string, number> | undefined;
    if (next.view.removedItems !== state.view.removedItems) {
      const kept = new Set(next.view.items.map(itemTimeKey));
      times = new Map([...state.times].filter(([key]) => kept.has(key)));
    }
    for (const item of next.view.items) {
      const key = itemTimeKey(item);
      if (state.times.has(key) || times?.has(key)) continue;
      times ??= new Map(state.times);
      times.set(key, now);
    }
    return times ? { ...next, times } : next;
  };
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
  /** A call is starting: its session's first events are kept until `adoptCall`. */
  beginCall: () => void;
  /** The call's session is established (`agentcall.callOpened`'s answer): it is this screen's session now, starting empty. */
  adoptCall: (response: AgentCallOpenResponse) => void;
}

interface Snapshot {
  connection: Connection;
  state: SessionState;
}

/**
 * One agent's AgentCall session in this page: `agentcall.open`, then the `agentcall.update` events
 * of its session key folded with `applySessionUpdate`. It lives beside the screen, not in it: Back
 * leaves the session running (main keeps the connection; this keeps the conversation), and coming
 * back to the agent shows the same live conversation. End (or an ended session) is what ends it.
 * The logic always sees the newest state; screens are told at most once per animation frame, so a
 * reply streaming many deltas a second costs one render per frame (as in the Talkie chat's useChat).
 */
class AgentCallSession {
  private snapshot: Snapshot = { connection: { status: 'connecting' }, state: initialSessionState };
  private latest: SessionState = initialSessionState;
  private readonly listeners = new Listeners();
  /** The session key followed; undefined while opening. */
  private sessionKey: string | undefined;
  /** Events that arrived while `agentcall.open` was on its way (null when not opening). */
  private early: EventPayload<'agentcall.update'>[] | null = null;
  /** Bumped by every open: an older open's late answer is ended, not shown. */
  private generation = 0;
  private readonly frame = new FrameBatch(() => this.publish({ ...this.snapshot, state: this.latest }));
  private opened = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly api: AgentDeskApi,
    private readonly agentId: string,
  ) {
    // Subscribed before the first open is sent; for as long as the page lives (or the kiosk's reset).
    this.unsubscribe = api.agentcall.onUpdate((payload) => {
      const key = this.sessionKey;
      if (key === undefined) {
        if (this.early && this.early.length < maxEarlyEvents) this.early.push(payload);
        return;
      }
      if (payload.sessionKey !== key) return;
      this.change((current) => payload.updates.reduce(foldUpdateAt(Date.now()), current));
    });
  }

  readonly subscribe = (listener: () => void): (() => void) => this.listeners.subscribe(listener);

  readonly getSnapshot = (): Snapshot => this.snapshot;

  /** A screen shows this session: the first one opens it, and one after a failed open tries again. */
  attach(): void {
    if (!this.opened || this.snapshot.connection.status === 'failed') this.open();
  }

  readonly reopen = (): void => {
    this.open();
  };

  /** The kiosk's reset: the conversation is dropped and no more updates are followed. */
  forget(): void {
    this.unsubscribe();
    this.frame.cancel();
    this.generation += 1;
    this.sessionKey = undefined;
    this.early = null;
    this.latest = initialSessionState;
    this.snapshot = { connection: { status: 'connecting' }, state: initialSessionState };
  }

  readonly applyLocal = (updates: SessionUpdate[]): void => this.change((current) => updates.reduce(foldUpdateAt(Date.now()), current));

  readonly beginCall = (): void => {
    if (this.snapshot.connection.status !== 'call') return;
    this.generation += 1;
    this.sessionKey = undefined;
    this.early = [];
  };

  readonly adoptCall = (response: AgentCallOpenResponse): void => {
    const buffered = this.early ?? [];
    this.early = null;
    // Nothing of an earlier call stays (no resume): the view starts empty.
    this.frame.cancel();
    const { sessionKey: key, agent, updates } = response;
    this.sessionKey = key;
    const fold = foldUpdateAt(Date.now());
    let next = updates.reduce(fold, initialSessionState);
    for (const payload of buffered) if (payload.sessionKey === key) next = payload.updates.reduce(fold, next);
    this.latest = next;
    this.publish({ connection: { status: 'open', sessionKey: key, agent }, state: next });
  };

  private open(): void {
    this.opened = true;
    const generation = ++this.generation;
    const previous = this.sessionKey;
    const previousEnded = this.latest.view.phase === 'ended';
    // The old view (its thumbnails, proposals and focus) is gone at once, not a frame later.
    this.frame.cancel();
    this.latest = initialSessionState;
    this.sessionKey = undefined;
    this.early = [];
    this.publish({ connection: { status: 'connecting' }, state: initialSessionState });
    // A session still running in main is ended (main would end it on open as well).
    if (previous !== undefined && !previousEnded) void call(() => this.api.agentcall.end({ sessionKey: previous }));
    const api = this.api;
    void (async () => {
      // A WebRTC card is called, not opened: the screen offers Call.
      const card = await call(() => api.agentcall.card({ agentId: this.agentId }));
      if (generation !== this.generation) return;
      if (card.ok && card.value.agent.voice.transport === 'webrtc') {
        this.early = null;
        this.publish({ connection: { status: 'call', agent: card.value.agent }, state: initialSessionState });
        return;
      }
      this.finishOpen(generation, await call(() => api.agentcall.open({ agentId: this.agentId })));
    })();
  }

  private finishOpen(generation: number, result: Awaited<ReturnType<AgentDeskApi['agentcall']['open']>>): void {
    const api = this.api;
    if (generation !== this.generation) {
      // A newer open started while this one was on its way.
      if (result.ok) void call(() => api.agentcall.end({ sessionKey: result.value.sessionKey }));
      return;
    }
    const buffered = this.early ?? [];
    this.early = null;
    if (!result.ok) {
      this.publish({ connection: { status: 'failed', error: result.error }, state: this.latest });
      return;
    }
    const { sessionKey: key, agent, updates } = result.value;
    this.sessionKey = key;
    const fold = foldUpdateAt(Date.now());
    let next = updates.reduce(fold, this.latest);
    for (const payload of buffered) if (payload.sessionKey === key) next = payload.updates.reduce(fold, next);
    this.latest = next;
    this.publish({ connection: { status: 'open', sessionKey: key, agent }, state: next });
  }

  private change(update: (current: SessionState) => SessionState): void {
    this.latest = update(this.latest);
    this.frame.request();
  }

  private publish(next: Snapshot): void {
    this.snapshot = next;
    this.listeners.emit();
  }
}

/** The sessions of one page (one api), by agent. */
const sessionsByApi = new WeakMap<AgentDeskApi, Map<string, AgentCallSession>>();

/**
 * The kiosk's reset: every conversation this page holds is dropped (main ended the sessions), so the
 * start agent's next screen opens a new session with an empty transcript.
 */
export function forgetAgentCallSessions(api: AgentDeskApi): void {
  for (const session of sessionsByApi.get(api)?.values() ?? []) session.forget();
  sessionsByApi.delete(api);
}

function sessionOf(api: AgentDeskApi, agentId: string): AgentCallSession {
  let sessions = sessionsByApi.get(api);
  if (!sessions) {
    sessions = new Map();
    sessionsByApi.set(api, sessions);
  }
  let session = sessions.get(agentId);
  if (!session) {
    session = new AgentCallSession(api, agentId);
    sessions.set(agentId, session);
  }
  return session;
}

/**
 * The agent's AgentCall session as a screen shows it. Leaving the screen does not end the session
 * (Back, then the agent again: the same live conversation); End does, and so does a new session.
 */
export function useAgentCallSession(api: AgentDeskApi, agentId: string): AgentCallSessionHandle {
  const session = useMemo(() => sessionOf(api, agentId), [api, agentId]);
  const { connection, state } = useSyncExternalStore(session.subscribe, session.getSnapshot);
  useEffect(() => session.attach(), [session]);
  return { connection, state, reopen: session.reopen, applyLocal: session.applyLocal, beginCall: session.beginCall, adoptCall: session.adoptCall };
}
