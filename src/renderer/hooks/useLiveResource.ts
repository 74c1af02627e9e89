import { useCallback, useEffect, useState } from 'react';
import type { Unsubscribe } from '../../shared/ipc/api';
import type { IpcError, IpcResult } from '../../shared/base/errors';

export type Resource<T> = { status: 'loading' } | { status: 'ready'; value: T } | { status: 'error'; error: IpcError };

export interface LiveResource<T> {
  state: Resource<T>;
  /** Loads again (after a failure). */
  reload: () => void;
  /** Replaces the value with a fresher one, for example the answer of an update. */
  set: (value: T) => void;
  /** Changes the current value, if there is one, from the latest state (not a render's copy). */
  update: (change: (value: T) => T) => void;
}

/**
 * A value main owns: loaded once, then kept current by its change event. The event is subscribed
 * before the load is sent; IPC delivers events and answers in order, so whatever arrives last is
 * the freshest and simply wins. A failed load never replaces a value an event already delivered.
 *
 * `load` and `subscribe` must be stable (wrap them in useCallback).
 */
export function useLiveResource<T>(load: () => Promise<IpcResult<T>>, subscribe?: (listener: (value: T) => void) => Unsubscribe): LiveResource<T> {
  const [state, setState] = useState<Resource<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let active = true;
    const unsubscribe = subscribe?.((value) => {
      if (active) setState({ status: 'ready', value });
    });
    const settle = (result: IpcResult<T>) => {
      if (!active) return;
      if (result.ok) setState({ status: 'ready', value: result.value });
      else setState((previous) => (previous.status === 'ready' ? previous : { status: 'error', error: result.error }));
    };
    load().then(settle, (cause: unknown) =>
      settle({ ok: false, error: { code: 'internal', message: cause instanceof Error ? cause.message : String(cause) } }),
    );
    return () => {
      active = false;
      unsubscribe?.();
    };
  }, [load, subscribe, attempt]);

  const reload = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);
  const set = useCallback((value: T) => setState({ status: 'ready', value }), []);
  const update = useCallback(
    (change: (value: T) => T) => setState((previous) => (previous.status === 'ready' ? { status: 'ready', value: change(previous.value) } : previous)),
    [],
  );
  return { state, reload, set, update };
}

/** Calls an API method and turns a rejected promise (a broken transport) into an `internal` failure. */
export async function call<T>(invoke: () => Promise<IpcResult<T>>): Promise<IpcResult<T>> {
  try {
    return await invoke();
  } catch (cause) {
    return { ok: false, error: { code: 'internal', message: cause instanceof Error ? cause.message : String(cause) } };
  }
}
