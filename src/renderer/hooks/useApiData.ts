import { useCallback } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { AgentEntry, HardwareStatus, MethodResponse } from '../../shared/ipc/contract';
import type { Settings } from '../../shared/settings/settings';
import { call, useLiveResource, type LiveResource } from './useLiveResource';

export function useSettings(api: AgentDeskApi): LiveResource<Settings> {
  const load = useCallback(() => call(() => api.settings.get()), [api]);
  const subscribe = useCallback((listener: (value: Settings) => void) => api.settings.onChanged(listener), [api]);
  return useLiveResource(load, subscribe);
}

export function useAgents(api: AgentDeskApi): LiveResource<AgentEntry[]> {
  const load = useCallback(async () => {
    const result = await call(() => api.agents.list());
    return result.ok ? { ok: true as const, value: result.value.agents } : result;
  }, [api]);
  const subscribe = useCallback((listener: (value: AgentEntry[]) => void) => api.agents.onChanged((payload) => listener(payload.agents)), [api]);
  return useLiveResource(load, subscribe);
}

export function useHardwareStatus(api: AgentDeskApi): LiveResource<HardwareStatus> {
  const load = useCallback(() => call(() => api.hardware.status()), [api]);
  const subscribe = useCallback((listener: (value: HardwareStatus) => void) => api.hardware.onChanged(listener), [api]);
  return useLiveResource(load, subscribe);
}

export type AppInfo = MethodResponse<'app.info'>;

export function useAppInfo(api: AgentDeskApi): LiveResource<AppInfo> {
  const load = useCallback(() => call(() => api.app.info()), [api]);
  return useLiveResource(load);
}
