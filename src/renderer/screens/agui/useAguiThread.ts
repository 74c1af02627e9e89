import { useCallback, useEffect, useRef, useState } from 'react';
import type { AguiServerView } from '../../../shared/agui/ipc-schemas';
import { applyAguiEvent, beginRun, type AguiThreadView } from '../../../shared/agui/run-model';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { EventPayload } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import { call } from '../../hooks/useLiveResource';

export type AguiConnection = { status: 'opening' } | { status: 'failed'; error: IpcError } | { status: 'open'; server: Omit<AguiServerView, 'thread'> };

/** Event batches of a run whose runId main has not answered yet are kept (bounded) until it has. */
const maxEarlyBatches = 200;

export interface AguiThreadHandle {
  connection: AguiConnection;
  /** The thread as the screen shows it (rendered at most once per animation frame). */
  thread: AguiThreadView | undefined;
  /** Opens the server again (after a failure). */
  reopen: () => void;
  /** Replaces the server's settings and thread with an answer of main (newThread, setForwardedProps, useToken). */
  replaceServer: (view: AguiServerView, options?: { keepThread?: boolean }) => void;
  /** Changes the thread locally (the user's message shown at once). */
  changeThread: (change: (thread: AguiThreadView) => AguiThreadView) => void;
  /**
   * A request that starts a run is on its way: events of a run this screen does not know yet are
   * kept until `runStarted` names it (or `requestSettled` says it failed).
   */
  requestStarting: () => void;
  /** Main answered with the new run's id: the thread begins it (unless its events got here first) and kept events are applied. */
  runStarted: (runId: string, resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled' }[]) => void;
  /** The request failed: kept events are dropped. */
  requestSettled: () => void;
}

/**
 * One plain AG-UI server's thread: `agui.open`, then the raw AG-UI events of its runs (`agui.events`)
 * folded with the same `applyAguiEvent` main uses, and the authoritative thread at the end of
 * each run (`agui.runEnded`). The logic always sees the newest thread (a ref); React renders it at
 * most once per animation frame, so a run streaming many deltas a second costs one render per frame.
 */
export function useAguiThread(api: AgentDeskApi, agentId: string): AguiThreadHandle {
  const [connection, setConnection] = useState<AguiConnection>({ status: 'opening' });
  const [thread, setThread] = useState<AguiThreadView | undefined>();
  const [attempt, setAttempt] = useState(0);
  const latest = useRef<AguiThreadView | undefined>(undefined);
  /** The run this screen follows (its events are folded); undefined when none is known. */
  const activeRun = useRef<string | undefined>(undefined);
  /** Requests (send, resume, retry) on their way: while any is, unknown runs' events are kept. */
  const starting = useRef(0);
  const early = useRef<EventPayload<'agui.events'>[]>([]);

  const frame = useRef<{ scheduled: boolean; id?: number }>({ scheduled: false });
  const publish = useCallback(() => {
    if (frame.current.scheduled) return;
    frame.current.scheduled = true;
    frame.current.id = requestAnimationFrame(() => {
      frame.current.scheduled = false;
      setThread(latest.current);
    });
  }, []);
  const change = useCallback(
    (update: (current: AguiThreadView) => AguiThreadView) => {
      if (latest.current === undefined) return;
      latest.current = update(latest.current);
      publish();
    },
    [publish],
  );
  useEffect(() => {
    const pending = frame.current;
    return () => {
      if (pending.scheduled && pending.id !== undefined) cancelAnimationFrame(pending.id);
      pending.scheduled = false;
    };
  }, []);

  const fold = useCallback((events: readonly unknown[]) => change((current) => events.reduce<AguiThreadView>((view, event) => applyAguiEvent(view, event), current)), [change]);

  // Subscribed before the open is sent (effects run in order).
  useEffect(() => {
    const offEvents = api.agui.onEvents((payload) => {
      if (payload.agentId !== agentId || latest.current === undefined) return;
      if (payload.runId === activeRun.current) return fold(payload.events);
      if (starting.current > 0 && early.current.length < maxEarlyBatches) early.current.push(payload);
    });
    const offEnded = api.agui.onRunEnded((payload) => {
      if (payload.agentId !== agentId || latest.current === undefined) return;
      // The end of an older run after a newer one began changes nothing here.
      if (activeRun.current !== undefined && payload.runId !== activeRun.current) return;
      early.current = early.current.filter((batch) => batch.runId !== payload.runId);
      latest.current = payload.thread;
      publish();
    });
    return () => {
      offEvents();
      offEnded();
    };
  }, [api, agentId, fold, publish]);

  useEffect(() => {
    let active = true;
    latest.current = undefined;
    activeRun.current = undefined;
    early.current = [];
    void call(() => api.agui.open({ agentId })).then((result) => {
      if (!active) return;
      if (!result.ok) {
        setConnection({ status: 'failed', error: result.error });
        return;
      }
      const { thread: opened, ...server } = result.value;
      latest.current = opened;
      if (opened.runState === 'running' || opened.runState === 'starting') activeRun.current = opened.runId;
      setThread(opened);
      setConnection({ status: 'open', server });
    });
    return () => {
      active = false;
    };
  }, [api, agentId, attempt]);

  const reopen = useCallback(() => {
    setConnection({ status: 'opening' });
    setThread(undefined);
    setAttempt((value) => value + 1);
  }, []);

  const replaceServer = useCallback(
    (view: AguiServerView, options: { keepThread?: boolean } = {}) => {
      const { thread: next, ...server } = view;
      setConnection({ status: 'open', server });
      if (options.keepThread) return;
      activeRun.current = next.runState === 'running' || next.runState === 'starting' ? next.runId : undefined;
      early.current = [];
      latest.current = next;
      publish();
    },
    [publish],
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
      const kept = early.current.filter((batch) => batch.runId === runId);
      early.current = starting.current === 0 ? [] : early.current.filter((batch) => batch.runId !== runId);
      change((current) => {
        // Its events (or its end) may have arrived before the answer: the thread is already further on.
        if (current.runId === runId && current.runState !== 'idle') return current;
        return beginRun(current, { runId, ...(resume === undefined ? {} : { resume }) });
      });
      for (const batch of kept) fold(batch.events);
    },
    [change, fold],
  );

  return { connection, thread, reopen, replaceServer, changeThread: change, requestStarting, runStarted, requestSettled };
}
