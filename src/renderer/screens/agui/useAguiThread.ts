import { useCallback, useEffect, useRef, useState } from 'react';
import type { AguiServerSettings, AguiServerView } from '../../../shared/agui/ipc-schemas';
import { stampNewItems } from '../../../shared/agui/item-times';
import { beginRun } from '../../../shared/agui/run-model';
import { applyThreadUpdate, firstItemOf, type AguiThreadUpdate } from '../../../shared/agui/thread-update';
import { prependEarlier, type AguiThreadWindow } from '../../../shared/agui/thread-window';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { EventPayload } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import { useFrameState } from '../../hooks/useFrameState';
import { call } from '../../hooks/useLiveResource';

export type AguiConnection = { status: 'opening' } | { status: 'failed'; error: IpcError } | { status: 'open'; server: AguiServerSettings };

/** Updates of a run whose runId main has not answered yet are kept (bounded) until it has. */
const maxEarlyUpdates = 200;

export interface AguiThreadHandle {
  connection: AguiConnection;
  /** The page's window of main's thread as the screen shows it (rendered at most once per animation frame). */
  thread: AguiThreadWindow | undefined;
  /** Opens the server again (after a failure). */
  reopen: () => void;
  /** Replaces the server's settings, and its thread when the answer carries one (newThread, openThread; not setForwardedProps, useToken). */
  replaceServer: (view: AguiServerView | AguiServerSettings) => void;
  /** Changes the thread locally (the user's message shown at once). */
  changeThread: (change: (thread: AguiThreadWindow) => AguiThreadWindow) => void;
  /** "Show earlier": asks main for the items before the window and puts them before it. */
  showEarlier: () => Promise<IpcError | undefined>;
  /**
   * A request that starts a run is on its way: updates of a run this screen does not know yet are
   * kept until `runStarted` names it (or `requestSettled` says it failed).
   */
  requestStarting: () => void;
  /** Main answered with the new run's id: the thread begins it (unless its updates got here first) and kept updates are applied. */
  runStarted: (runId: string, resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled' }[]) => void;
  /** The request failed: kept updates are dropped. */
  requestSettled: () => void;
}

/**
 * One plain AG-UI server's thread: `agui.open`, then what main's fold of each run changed
 * (`agui.update`, applied with `applyThreadUpdate`: main folds, the renderer shows) and the
 * authoritative window at the end of each run (`agui.runEnded`). The page holds a window of main's
 * thread (its newest items; earlier ones with `showEarlier`, `agui.earlier`). An update made for
 * another state of the thread than the one shown is refused, and the thread waits for the run's end. The logic
 * always sees the newest thread; React renders it at most once per animation frame
 * (`useFrameState`), so a run streaming many deltas a second costs one render per frame.
 */
export function useAguiThread(api: AgentDeskApi, agentId: string): AguiThreadHandle {
  const [connection, setConnection] = useState<AguiConnection>({ status: 'opening' });
  const { shown: thread, latestRef, change: changeFrame, showNow } = useFrameState<AguiThreadWindow | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  /** The run this screen follows (its updates are applied); undefined when none is known. */
  const activeRun = useRef<string | undefined>(undefined);
  /** Requests (send, resume, retry) on their way: while any is, unknown runs' updates are kept. */
  const starting = useRef(0);
  const early = useRef<EventPayload<'agui.update'>[]>([]);

  const change = useCallback(
    (update: (current: AguiThreadWindow) => AguiThreadWindow) => changeFrame((current) => (current === undefined ? current : update(current))),
    [changeFrame],
  );

  const apply = useCallback((update: AguiThreadUpdate) => change((current) => applyThreadUpdate(current, update) ?? current), [change]);

  // Subscribed before the open is sent (effects run in order).
  useEffect(() => {
    const offUpdate = api.agui.onUpdate((payload) => {
      if (payload.agentId !== agentId || latestRef.current === undefined) return;
      if (payload.runId === activeRun.current) return apply(payload.update);
      if (starting.current > 0 && early.current.length < maxEarlyUpdates) early.current.push(payload);
    });
    const offEnded = api.agui.onRunEnded((payload) => {
      if (payload.agentId !== agentId || latestRef.current === undefined) return;
      // The end of an older run after a newer one began changes nothing here.
      if (activeRun.current !== undefined && payload.runId !== activeRun.current) return;
      early.current = early.current.filter((kept) => kept.runId !== payload.runId);
      changeFrame(() => payload.thread);
    });
    return () => {
      offUpdate();
      offEnded();
    };
  }, [api, agentId, apply, changeFrame, latestRef]);

  useEffect(() => {
    let active = true;
    latestRef.current = undefined;
    activeRun.current = undefined;
    early.current = [];
    void call(() => api.agui.open({ agentId })).then((result) => {
      if (!active) return;
      if (!result.ok) {
        setConnection({ status: 'failed', error: result.error });
        return;
      }
      const { thread: opened, ...server } = result.value;
      if (opened.runState === 'running' || opened.runState === 'starting') activeRun.current = opened.runId;
      showNow(opened);
      setConnection({ status: 'open', server });
    });
    return () => {
      active = false;
    };
  }, [api, agentId, attempt, latestRef, showNow]);

  const reopen = useCallback(() => {
    setConnection({ status: 'opening' });
    showNow(undefined);
    setAttempt((value) => value + 1);
  }, [showNow]);

  const replaceServer = useCallback(
    (view: AguiServerView | AguiServerSettings) => {
      const { endpoint, hasToken, forwardedProps } = view;
      setConnection({ status: 'open', server: { endpoint, hasToken, forwardedProps } });
      if (!('thread' in view)) return;
      const next = view.thread;
      activeRun.current = next.runState === 'running' || next.runState === 'starting' ? next.runId : undefined;
      early.current = [];
      changeFrame(() => next);
    },
    [changeFrame],
  );

  const requestStarting = useCallback(() => {
    starting.current += 1;
  }, []);

  const requestSettled = useCallback(() => {
    starting.current = Math.max(0, starting.current - 1);
    if (starting.current === 0) early.current = [];
  }, []);

  const runStarted = useCallback(
    (runId: string, resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[]) => {
      starting.current = Math.max(0, starting.current - 1);
      activeRun.current = runId;
      const kept = early.current.filter((payload) => payload.runId === runId);
      early.current = starting.current === 0 ? [] : early.current.filter((payload) => payload.runId !== runId);
      change((current) => {
        // Its updates (or its end) may have arrived before the answer: the thread is already further on.
        if (current.runId === runId && current.runState !== 'idle') return current;
        // The answers it records get this screen's time; main's own (the same minute) comes with the run's end.
        return stampNewItems(current, beginRun(current, { runId, ...(resume === undefined ? {} : { resume }) }), Date.now());
      });
      for (const payload of kept) apply(payload.update);
    },
    [apply, change],
  );

  const showEarlier = useCallback(async () => {
    const current = latestRef.current;
    if (current === undefined || (current.earlierItems ?? 0) === 0) return undefined;
    const result = await call(() => api.agui.earlier({ agentId, threadId: current.threadId, before: firstItemOf(current) }));
    if (!result.ok) return result.error;
    // Items that no longer join the window (the thread moved on meanwhile) are left out; the next run's end sends it again.
    change((shown) => (shown.threadId === current.threadId ? (prependEarlier(shown, result.value) ?? shown) : shown));
    return undefined;
  }, [api, agentId, change, latestRef]);

  return { connection, thread, reopen, replaceServer, changeThread: change, requestStarting, runStarted, requestSettled, showEarlier };
}
