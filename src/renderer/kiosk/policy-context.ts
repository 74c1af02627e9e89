import { createContext, useContext } from 'react';
import { agentSettingsAccess, filePickerAllowed } from '../../shared/device-policy/device-policy';
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
  /** Kiosk: how long the agent's own activity may hold the idle countdown off past `idleResetSeconds`. */
  idleAgentHoldSeconds: number | undefined;
  /**
   * Photos from files: "Choose a picture…" (the system's file dialog) and a dropped picture. False (the
   * policy's `camera.filePicker`, off by default in kiosk mode): the control is absent, and main refuses
   * a file's photo (`photo.stage` kind `file`).
   */
  filePicker: boolean;
  /**
   * Who may change an agent's connection settings (bearer token, forwardedProps, a pasted token, a
   * sign-out): `user`; on a kiosk `admin` (offer them behind the admin PIN) or `policy` (a kiosk without
   * a PIN: absent). Main refuses them otherwise (`agentSettingsAccess`).
   */
  agentSettings: 'user' | 'admin' | 'policy';
  /** Voice (`voice.allowed`): false, no control that opens the microphone is offered (Talk by voice, Call). */
  voice: boolean;
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
      idleAgentHoldSeconds: status.kiosk ? status.idleAgentHoldSeconds : undefined,
      filePicker: status.filePicker ?? filePickerAllowed(undefined, status.kiosk),
      agentSettings: agentSettingsAccess(status.kiosk, status.adminPin),
      voice: status.voice,
      voiceMode: status.voiceMode,
      forced: status.forced,
    };
  }
  const kiosk = status.state === 'none' && status.kiosk === true;
  // A policy that failed runs nothing (the error screen), so nothing is offered there either.
  const filePicker = status.state === 'none' && filePickerAllowed(undefined, kiosk);
  return {
    kiosk,
    agentsLocked: false,
    adminPin: false,
    startAgentId: undefined,
    idleResetSeconds: undefined,
    idleAgentHoldSeconds: undefined,
    filePicker,
    agentSettings: agentSettingsAccess(kiosk, false),
    voice: status.state === 'none',
    voiceMode: undefined,
    forced: [],
  };
}

export function usePolicyView(): PolicyView {
  return policyView(usePolicy());
}
