import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { AguiThreadList } from '../../../shared/agui/ipc-schemas';
import type { IpcError, IpcResult } from '../../../shared/base/errors';
import { call } from '../../hooks/useLiveResource';

export interface AguiThreads {
  list: AguiThreadList | undefined;
  error: IpcError | undefined;
  refresh: () => void;
  remove: (threadId: string) => Promise<IpcResult<AguiThreadList>>;
}

/**
 * A plain AG-UI agent's threads (`agui.threads`: the open one and the earlier ones main keeps):
 * loaded on open, again when the open thread changes (New chat, another one opened) and when a run
 * of the open conversation ends (`running` goes false: a new thread's first message names it).
 */
export function useAguiThreadList(api: AgentDeskApi, agentId: string, currentThreadId: string | undefined, running: boolean): AguiThreads {
  const [list, setList] = useState<AguiThreadList | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (currentThreadId === undefined) return undefined;
    let active = true;
    void call(() => api.agui.threads({ agentId })).then((result) => {
      if (!active) return;
      if (result.ok) {
        setList(result.value);
        setError(undefined);
      } else setError(result.error);
    });
    return () => {
      active = false;
    };
  }, [api, agentId, currentThreadId, version]);

  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) setVersion((n) => n + 1);
    wasRunning.current = running;
  }, [running]);

  const refresh = useCallback(() => setVersion((n) => n + 1), []);
  const remove = useCallback(
    async (threadId: string) => {
      const result = await call(() => api.agui.deleteThread({ agentId, threadId }));
      if (result.ok) setList(result.value);
      return result;
    },
    [api, agentId],
  );
  return { list, error, refresh, remove };
}
