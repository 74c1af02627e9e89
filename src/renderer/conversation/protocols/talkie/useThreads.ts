import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { MethodResponse } from '../../../../shared/ipc/contract';
import type { IpcError, IpcResult } from '../../../../shared/base/errors';
import { call } from '../../../hooks/useLiveResource';

export type ThreadSummary = MethodResponse<'talkie.threads'>['threads'][number];

export interface Threads {
  /** Newest first, as the server lists them; undefined until the first answer. */
  threads: ThreadSummary[] | undefined;
  error: IpcError | undefined;
  refresh: () => void;
  remove: (threadId: string) => Promise<IpcResult<unknown>>;
}

/**
 * The agent's threads (Talkie 1 §9): loaded once `enabled` (the server's steps are done) and again after
 * every run of this agent ends.
 */
export function useThreads(api: AgentDeskApi, agentId: string, enabled: boolean, onError: (error: IpcError) => void): Threads {
  const [threads, setThreads] = useState<ThreadSummary[] | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const [version, setVersion] = useState(0);
  const reportError = useRef(onError);
  useEffect(() => {
    reportError.current = onError;
  }, [onError]);

  useEffect(() => {
    if (!enabled) return undefined;
    let active = true;
    void call(() => api.talkie.threads({ agentId })).then((result) => {
      if (!active) return;
      if (result.ok) {
        setThreads(result.value.threads);
        setError(undefined);
      } else {
        setError(result.error);
        reportError.current(result.error);
      }
    });
    return () => {
      active = false;
    };
  }, [api, agentId, enabled, version]);

  useEffect(
    () =>
      api.talkie.onRunEnded((payload) => {
        if (payload.agentId === agentId) setVersion((n) => n + 1);
      }),
    [api, agentId],
  );

  const refresh = useCallback(() => setVersion((n) => n + 1), []);
  const remove = useCallback(
    async (threadId: string) => {
      const result = await call(() => api.talkie.deleteThread({ agentId, threadId }));
      if (result.ok) setThreads(result.value.threads);
      else reportError.current(result.error);
      return result;
    },
    [api, agentId],
  );
  return { threads, error, refresh, remove };
}
