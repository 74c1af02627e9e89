import { mkdir } from 'node:fs/promises';
import type { HardwareStatus } from '../../shared/ipc/contract';
import { createDispatcher, type Dispatcher, type Handlers } from '../ipc/dispatcher';
import { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';
import { AgentRegistry } from './agent-registry';
import { openExternalLink, type OpenExternal } from './external-links';
import { MediaPermissions } from './media-permissions';
import { SettingsService } from './settings-service';

export interface AppServicesOptions {
  userDataDir: string;
  shell: 'electron' | 'web';
  version: string;
  openExternal: OpenExternal;
  log: Logger;
}

/**
 * Every main-side service, started the same way by the Electron app and the web shell, and the
 * contract handlers that expose them. Nothing in here imports Electron.
 */
export interface AppServices {
  dispatcher: Dispatcher;
  events: EventBus;
  media: MediaPermissions;
  /** Messages for the user gathered at start-up (for example a settings file moved aside). */
  notices: readonly string[];
}

export async function startAppServices(options: AppServicesOptions): Promise<AppServices> {
  const { log } = options;
  await mkdir(options.userDataDir, { recursive: true, mode: 0o700 });
  const events = new EventBus(log);
  const notices: string[] = [];
  const settings = await SettingsService.open(options.userDataDir, events, notices);
  const agents = await AgentRegistry.open(options.userDataDir, events, notices);
  const media = new MediaPermissions();
  for (const notice of notices) log.warn('startup', notice);

  const hardwareStatus = (): HardwareStatus => ({
    nfc: { state: 'unavailable', readers: [], detail: 'NFC reader support is not part of this version yet.' },
  });

  const handlers: Handlers = {
    'app.info': () => ({ name: 'AgentDesk', version: options.version, shell: options.shell, platform: process.platform, notices: [...notices] }),
    'settings.get': () => settings.get(),
    'settings.update': ({ patch }) => settings.update(patch),
    'agents.list': () => ({ agents: agents.list() }),
    'agents.add': async ({ address }) => ({ agent: await agents.add(address, { allowLocalHttp: settings.get().developer.allowLocalHttp }) }),
    'agents.remove': async ({ id }) => ({ agents: await agents.remove(id) }),
    'hardware.status': () => hardwareStatus(),
    'external.open': async ({ url }, context) => {
      await openExternalLink(url, context.hasRecentUserGesture(), options.openExternal);
      return { opened: true as const };
    },
    'media.arm': ({ kinds }) => ({ armed: media.arm(kinds) }),
    'media.disarm': ({ kinds }) => ({ armed: media.disarm(kinds) }),
  };

  return { dispatcher: createDispatcher(handlers, log), events, media, notices };
}
