import { createContext, useContext } from 'react';
import type { DevicePolicyStatus } from '../../shared/device-policy/ipc-schemas';

type ActiveStatus = Extract<DevicePolicyStatus, { state: 'active' }>;

/**
 * The device policy as main reports it (`policy.status`), for every screen that shows less under it:
 * the locked agent list, kiosk mode (links as addresses only, no downloads), the admin PIN, the voice
 * mode. Main enforces each of these; the screens only stop offering what main would refuse.
 */
export const PolicyContext = createContext<DevicePolicyStatus>({ state: 'none' });

export function usePolicy(): DevicePolicyStatus {
  return useContext(PolicyContext);
}

/** What the screens need to know, whatever the status's shape. */
export interface PolicyView {
  kiosk: boolean;
  agentsLocked: boolean;
  adminPin: boolean;
  startAgentId: string | undefined;
  idleResetSeconds: number | undefined;
  voiceMode: 'hands-free' | 'push-to-talk' | undefined;
  /** The settings the policy sets. */
  forced: ActiveStatus['forced'];
}

export function policyView(status: DevicePolicyStatus): PolicyView {
  if (status.state === 'active') {
    return {
      kiosk: status.kiosk,
      agentsLocked: status.agentsLocked,
      adminPin: status.adminPin,
      startAgentId: status.startAgentId,
      idleResetSeconds: status.kiosk ? status.idleResetSeconds : undefined,
      voiceMode: status.voiceMode,
      forced: status.forced,
    };
  }
  return { kiosk: status.state === 'none' && status.kiosk === true, agentsLocked: false, adminPin: false, startAgentId: undefined, idleResetSeconds: undefined, voiceMode: undefined, forced: [] };
}

export function usePolicyView(): PolicyView {
  return policyView(usePolicy());
}
