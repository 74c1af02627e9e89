import { boundedNotice } from '../../shared/ipc/notices';
import { methodNames } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import { createDispatcher, type Handlers } from '../ipc/dispatcher';
import { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';
import { PhotoService } from '../photo/photo-service';
import { loadDevicePolicy, type DevicePolicyLoad } from '../policy/device-policy-file';
import { Notices } from '../store/notices';
import { startAppServices, type AppServices, type AppServicesOptions } from './app-services';
import { MediaPermissions } from './media-permissions';

/** How an entry started: the services (`kiosk`: full-screen kiosk window), or the message it refuses to start with. */
export type PolicyStart = { services: AppServices; kiosk: boolean; policy: DevicePolicyLoad } | { refused: string; policy: DevicePolicyLoad };

/**
 * What every entry (Electron, the web shell) does at start: load the device policy (`--policy FILE`
 * or the system location; `--kiosk`), then start the services under it. A policy that cannot be
 * used never starts them: outside kiosk mode the entry refuses to start with the message (and exits
 * non-zero), in kiosk mode it gets `policyFailedServices` (the page shows the error screen).
 */
export async function startAppServicesUnderPolicy(
  options: AppServicesOptions,
  start: { policyFile?: string | undefined; kiosk?: boolean; systemPolicyPath?: string },
): Promise<PolicyStart> {
  const policy = await loadDevicePolicy({
    file: start.policyFile,
    kiosk: start.kiosk === true,
    ...(start.systemPolicyPath ? { systemPath: start.systemPolicyPath } : {}),
  });
  if (policy.state === 'failed') {
    if (!policy.kiosk) return { refused: policy.message, policy };
    return { services: policyFailedServices(policy, options), kiosk: true, policy };
  }
  if (policy.state === 'none') return { services: await startAppServices({ ...options, kiosk: start.kiosk === true }), kiosk: start.kiosk === true, policy };
  options.log.info('policy', `device policy ${policy.file} in force${policy.policy.kiosk ? ' (kiosk mode)' : ''}`);
  // A key set in two places to different values: the higher place wins, and the log says so (issue #28: never silently).
  for (const conflict of policy.conflicts) {
    options.log.warn(
      'policy',
      `device policy conflict: ${conflict.key} is taken from ${conflict.source}; ${conflict.overridden.map((other) => other.source).join(', ')} set${conflict.overridden.length === 1 ? 's' : ''} it otherwise`,
    );
  }
  const { file, policy: active, layers, sources, conflicts } = policy;
  return {
    services: await startAppServices({ ...options, devicePolicy: { file, policy: active, layers, sources, conflicts }, kiosk: start.kiosk === true }),
    kiosk: policy.policy.kiosk === true || start.kiosk === true,
    policy,
  };
}

/**
 * Kiosk mode with a policy that cannot be used: nothing runs. No settings, agents, network,
 * NFC or demo are opened; every method answers `not_allowed` with the policy's message, except
 * `policy.status` (the error screen's text) and `app.info`.
 */
export function policyFailedServices(
  failure: Extract<DevicePolicyLoad, { state: 'failed' }>,
  options: { shell: 'electron' | 'web'; version: string; log: Logger },
): AppServices {
  const events = new EventBus(options.log);
  const notices = new Notices(options.log, events);
  options.log.error('policy', failure.message);
  const refuse = () => {
    throw new ServiceError('not_allowed', failure.message);
  };
  const handlers = Object.fromEntries(methodNames.map((method) => [method, refuse])) as unknown as Handlers;
  handlers['policy.status'] = () => ({ state: 'failed', file: failure.file, message: failure.message });
  handlers['app.info'] = () => ({
    name: 'AgentDesk',
    version: options.version,
    shell: options.shell,
    platform: process.platform,
    notices: [boundedNotice({ code: 'policy_failed', params: { file: failure.file }, detail: failure.message, message: failure.message })],
  });
  return {
    dispatcher: createDispatcher(handlers, options.log),
    events,
    media: new MediaPermissions({ camera: failure.message, microphone: failure.message }),
    photos: new PhotoService({ log: options.log }),
    notices,
    // No policy could be read, so no PIN: nothing unlocks the kiosk from the screen (an administrator fixes the file).
    adminUnlocked: () => false,
    activity: () => ({ busy: false, lastActivityAt: undefined }),
    onKioskReset: () => () => false,
    dispose: async () => undefined,
  };
}
