import {
  agentSettingsAccess,
  filePickerAllowed,
  forcedSettings,
  idleAgentHoldSeconds,
  normalizedUrl,
  type DevicePolicy,
} from '../../shared/device-policy/device-policy';
import type { DevicePolicyStatus } from '../../shared/device-policy/ipc-schemas';
import { ServiceError } from '../../shared/base/errors';
import type { SettingsPatch } from '../../shared/settings/settings';
import type { HandlerTable } from '../ipc/handler-table';
import type { AdminSession } from '../policy/admin-session';
import type { DevicePolicyLoad } from '../policy/device-policy-file';
import { lockedAgentId } from '../store/agent-registry';
import type { MediaPermissions } from './media-permissions';

/** The device policy in force for this run (or none): what startAppServices is given, with where each key came from when the entry loaded it. */
export type ActiveDevicePolicy = { file: string; policy: DevicePolicy } & Partial<
  Pick<Extract<DevicePolicyLoad, { state: 'active' }>, 'layers' | 'sources' | 'conflicts'>
>;

/** `policy.*`: what the page may know of the device policy, and the admin PIN. */
export function policyHandlers({
  devicePolicy,
  admin,
  kiosk = false,
}: {
  devicePolicy: ActiveDevicePolicy | undefined;
  admin: AdminSession;
  kiosk?: boolean;
}): HandlerTable<'policy'> {
  return {
    'policy.status': () => policyStatus(devicePolicy, kiosk),
    'policy.unlockAdmin': ({ pin }) => admin.unlock(pin),
  };
}

/** `kioskFlag`: started with `--kiosk` (kiosk mode with or without the policy's `"kiosk": true`). */
export function policyStatus(devicePolicy: ActiveDevicePolicy | undefined, kioskFlag = false): DevicePolicyStatus {
  if (!devicePolicy) return kioskFlag ? { state: 'none', kiosk: true } : { state: 'none' };
  const { policy, file } = devicePolicy;
  const startAgentId = startAgentIdOf(devicePolicy);
  return {
    state: 'active',
    file,
    kiosk: policy.kiosk === true || kioskFlag,
    agentsLocked: policy.agents !== undefined,
    ...(startAgentId ? { startAgentId } : {}),
    forced: forcedSettings(policy).map((forced) => forced.key),
    camera: policy.camera?.allowed !== false,
    filePicker: filePickerAllowed(policy, kioskFlag),
    voice: policy.voice?.allowed !== false,
    adminPin: policy.admin !== undefined,
    ...(policy.idleResetSeconds !== undefined ? { idleResetSeconds: policy.idleResetSeconds, idleAgentHoldSeconds: idleAgentHoldSeconds(policy) } : {}),
    ...(policy.voice?.mode !== undefined ? { voiceMode: policy.voice.mode } : {}),
  };
}

/** The policy's start agent: its id in the (locked) agent list. */
export function startAgentIdOf(devicePolicy: ActiveDevicePolicy | undefined): string | undefined {
  const start = devicePolicy?.policy.agents?.start;
  if (start === undefined) return undefined;
  const url = normalizedUrl(start);
  return 'url' in url ? lockedAgentId(url.url) : undefined;
}

/** Camera and microphone the policy refuses, with the words the page shows. */
export function refusedMedia(devicePolicy: ActiveDevicePolicy | undefined): ConstructorParameters<typeof MediaPermissions>[0] {
  if (!devicePolicy) return {};
  const { policy, file } = devicePolicy;
  return {
    ...(policy.camera?.allowed === false ? { camera: `The administrator's device policy (${file}) does not allow the camera.` } : {}),
    ...(policy.voice?.allowed === false ? { microphone: `The administrator's device policy (${file}) does not allow voice (the microphone).` } : {}),
  };
}

/** The settings a patch changes that sit behind the admin PIN (everything but dismissing notices and a voice consent, which are the user's own answers). */
export function needsAdmin(patch: SettingsPatch): boolean {
  return ['language', 'appearance', 'developer', 'signIn', 'nfc', 'voiceShortcut', 'voice'].some(
    (key) => (patch as Record<string, unknown>)[key] !== undefined,
  );
}

/** A setting behind the admin PIN (the speech model): refused while the policy's PIN is not entered. */
export function guardAdmin(admin: AdminSession): void {
  if (!admin.isOpen()) throw new ServiceError('not_allowed', "Settings are behind the administrator's PIN (device policy).");
}

/** The contract methods that change an agent's connection settings (see `agentSettingsAccess`). */
export const agentSettingsMethods = ['agui.useToken', 'agui.setForwardedProps', 'agentcall.useToken', 'talkie.useToken', 'talkie.signOut'] as const;

/**
 * An agent's connection settings on a kiosk are the administrator's (`agentSettingsAccess`): a change
 * needs the admin PIN entered (guardAdmin, as Settings), and a kiosk without a PIN refuses it.
 * Outside kiosk mode they are the user's.
 */
export function guardAgentSettings(admin: AdminSession, kiosk: boolean): void {
  const access = agentSettingsAccess(kiosk, admin.pinRequired);
  if (access === 'user') return;
  if (access === 'policy')
    throw new ServiceError(
      'not_allowed',
      "An agent's connection settings on a kiosk are the administrator's, and this kiosk's device policy has no admin PIN: they cannot be changed here.",
    );
  guardAdmin(admin);
}

/** Whether an agent's connection settings may change now (what `guardAgentSettings` would let through). */
export function agentSettingsOpen(admin: AdminSession, kiosk: boolean): boolean {
  const access = agentSettingsAccess(kiosk, admin.pinRequired);
  return access === 'user' || (access === 'admin' && admin.isOpen());
}

/** The table with `methods` guarded: each runs only after `guard` passes (it throws to refuse). */
export function guarded<T extends object>(table: T, methods: readonly string[], guard: () => void): T {
  const result = { ...table } as Record<string, unknown>;
  for (const method of methods) {
    const handler = (table as Record<string, unknown>)[method];
    if (typeof handler !== 'function') continue;
    result[method] = (...args: unknown[]) => {
      guard();
      return (handler as (...given: unknown[]) => unknown)(...args);
    };
  }
  return result as T;
}

/** `settings.update` under the admin PIN: refused while the policy's PIN is not entered. */
export function guardSettingsUpdate(admin: AdminSession, patch: SettingsPatch): void {
  if (needsAdmin(patch)) guardAdmin(admin);
}

/** `voice.allowed: false`: a voice call is refused before main asks the server for a voice session. */
export function withVoicePolicy<T extends HandlerTable<'talkie'>>(table: T, devicePolicy: ActiveDevicePolicy | undefined): T {
  if (devicePolicy?.policy.voice?.allowed !== false) return table;
  const message = `The administrator's device policy (${devicePolicy.file}) does not allow voice.`;
  return {
    ...table,
    'talkie.voiceStart': () => {
      throw new ServiceError('not_allowed', message);
    },
  };
}

/**
 * `camera.filePicker` off (the default in kiosk mode): a photo from a file is refused, so no file of
 * the machine's reaches an agent whatever the page does (the page shows no file chooser: PolicyView.filePicker).
 */
export function withFilePickerPolicy<T extends HandlerTable<'photo'>>(table: T, devicePolicy: ActiveDevicePolicy | undefined, kiosk: boolean): T {
  if (filePickerAllowed(devicePolicy?.policy, kiosk)) return table;
  const message = devicePolicy
    ? `The administrator's device policy (${devicePolicy.file}) does not allow photos from files here: take one with the camera.`
    : 'A kiosk takes photos with the camera, not from files.';
  return {
    ...table,
    'photo.stage': (request) => {
      if (request.kind === 'file') throw new ServiceError('not_allowed', message, '/kind');
      return table['photo.stage'](request);
    },
  };
}

/** The built-in demo is another address: a locked list refuses it. */
export function refuseDemo(devicePolicy: ActiveDevicePolicy | undefined): HandlerTable<'demo'> | undefined {
  if (!devicePolicy?.policy.agents) return undefined;
  const refuse = () => {
    throw new ServiceError('not_allowed', `The agent list is set by the administrator's device policy (${devicePolicy.file}): the built-in demo is not on it.`);
  };
  return { 'demo.open': refuse, 'demo.openAgentCall': refuse, 'demo.openAgui': refuse };
}
