import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { NfcScanResult } from '../../shared/nfc/ipc-schemas';
import { ServiceError } from '../../shared/ipc/errors';
import { nfcSettingsOf } from '../../shared/settings/settings';
import type { OAuthPort } from '../auth/oauth-port';
import { createTalkieOAuth, privateUseScheme } from '../auth/talkie-oauth';
import { createTokenStore } from '../auth/token-store';
import { AgentCallService } from '../agentcall/agentcall-service';
import { agentcallHandlers } from '../agentcall/agentcall-handlers';
import { AguiService } from '../agui/agui-service';
import { aguiHandlers } from '../agui/agui-handlers';
import { openSecretStore, type SecretStore } from '../secrets/secret-store';
import { uniquePath, type ChooseDownloadPath } from '../talkie/download';
import { EndpointApprovals } from '../talkie/endpoint-approvals';
import { talkieHandlers } from '../talkie/talkie-handlers';
import { TalkieService, type DemoPort } from '../talkie/talkie-service';
import { VoiceService } from '../talkie/voice-service';
import { createDispatcher, type Dispatcher, type Handlers } from '../ipc/dispatcher';
import { EventBus } from '../ipc/event-bus';
import { joinHandlerTables } from '../ipc/handler-table';
import type { Logger } from '../platform/logger';
import { photoHandlers } from '../photo/photo-handlers';
import { PhotoService } from '../photo/photo-service';
import { AgentRegistry } from '../store/agent-registry';
import type { OpenExternal } from './external-links';
import { deviceKeyFileEnv, loadDeviceKey } from '../nfc/device-key';
import { nfcHandlers } from '../nfc/nfc-handlers';
import { NfcService } from '../nfc/nfc-service';
import { linuxDistroIds } from '../nfc/os-release';
import { ReaderSupervisor, type ReaderLauncher } from '../nfc/reader-supervisor';
import { agentsHandlers } from './agents-handlers';
import { appHandlers } from './app-handlers';
import { demoHandlers } from './demo-handlers';
import { MediaPermissions } from './media-permissions';
import { reasonInWords } from '../store/json-file-store';
import { Notices } from '../store/notices';
import { SettingsService } from '../store/settings-service';
import { UiMemory } from './ui-memory';
import { WebPagesService, webPagesSource } from './web-pages';

export interface AppServicesOptions {
  userDataDir: string;
  shell: 'electron' | 'web';
  version: string;
  openExternal: OpenExternal;
  log: Logger;
  /** Where tokens live; default: the OS keychain, or memory with a reason when none is reachable. */
  secrets?: SecretStore;
  /** The built-in demo agent; default: the real demo server on 127.0.0.1, started on first use. */
  demo?: DemoPort;
  /** Browser sign-in; default: OAuth 2.1 + PKCE through the guarded network layer. */
  oauth?: OAuthPort;
  /** Tests: where AgentCall sessions get tag observations (default: the NFC service); given, NFC is offered to the agent. */
  agentCallNfc?: { onResult(listener: (result: NfcScanResult) => void): () => void };
  /** For tests: how long to keep reloading a thread after a dropped stream. */
  talkieRecovery?: { delaysMs: readonly number[] };
  /**
   * The NFC reader service: Electron passes a utilityProcess launcher, plain Node uses a child
   * process; 'off' (tests that do not need NFC) starts no reader process.
   */
  nfc?: 'off' | { launcher?: ReaderLauncher };
  /** True where the OS delivers AgentDesk's private-use scheme to this app (Electron registers it). */
  receivesPrivateUseRedirects?: boolean;
  /** Where downloads go: Electron asks with a save dialog; default: a free name in ~/Downloads. */
  chooseDownloadPath?: ChooseDownloadPath;
}

/** The web shell's downloads: no dialog in a plain browser page, so a free name in ~/Downloads. */
export const downloadsFolderPath: ChooseDownloadPath = async (name) => {
  const folder = join(homedir(), 'Downloads');
  await mkdir(folder, { recursive: true });
  return uniquePath(folder, name);
};

/**
 * Every main-side service, started the same way by the Electron app and the web shell, and the
 * contract handlers that expose them. Nothing in here imports Electron.
 */
export interface AppServices {
  dispatcher: Dispatcher;
  events: EventBus;
  media: MediaPermissions;
  /** Staged photos: the AgentCall session takes them by id, and calls discardAll() when it ends or fails. */
  photos: PhotoService;
  /** Messages for the user (for example a settings file moved aside, a save that failed); see notices.ts. */
  notices: Notices;
  /** Stops what the services started (the built-in demo agent). */
  dispose(): Promise<void>;
}

export async function startAppServices(options: AppServicesOptions): Promise<AppServices> {
  const { log } = options;
  const events = new EventBus(log);
  const notices = new Notices(log, events);
  // Without its folder AgentDesk still starts (defaults in memory); every save then says why it failed.
  await mkdir(options.userDataDir, { recursive: true, mode: 0o700 }).catch((error: unknown) =>
    notices.push(`AgentDesk cannot create its folder ${options.userDataDir} (${reasonInWords(error)}): defaults are in use and nothing can be saved this session.`),
  );
  const settings = await SettingsService.open(options.userDataDir, events, notices);
  const agents = await AgentRegistry.open(options.userDataDir, events, notices);
  const approvals = await EndpointApprovals.open(options.userDataDir, notices);
  const media = new MediaPermissions();
  const photos = new PhotoService({ log });
  const secrets = options.secrets ?? (await openSecretStore());
  if (secrets.kind === 'memory' && secrets.reason) notices.push(secrets.reason);

  const demoServers: { close(): Promise<void> }[] = [];
  const demoPort: DemoPort = options.demo ?? {
    start: async () => {
      // Loaded on first use, so a run that never opens the demo never loads it (nor oidc-provider, its Authorization Server).
      const { startDemo } = await import('../demo/start-demo');
      // Its threads live in the user-data folder, so they survive an app restart (its port and token do not).
      const server = await startDemo({ log, notices, persistPath: join(options.userDataDir, 'demo-agent.json') });
      demoServers.push(server);
      log.info('demo', `built-in demo agent on ${server.baseUrl}`);
      return { baseUrl: server.baseUrl, token: server.token, agentCallCardUrl: server.agentCallCardUrl, aguiUrl: server.aguiUrl };
    },
  };
  // One demo for all of its sides (Talkie, AgentCall, plain AG-UI), started on first use; a failed start may be retried.
  let demoStarted: ReturnType<DemoPort['start']> | undefined;
  const demo: DemoPort = {
    start: () =>
      (demoStarted ??= demoPort.start().catch((error: unknown) => {
        demoStarted = undefined;
        throw error;
      })),
  };
  /** The address of one of the demo's sides (starting the demo on first use), or not_found when this run has none. */
  const demoSideUrl = async (side: 'aguiUrl' | 'agentCallCardUrl'): Promise<string> => {
    const url = (await demo.start())[side];
    if (!url) throw new ServiceError('not_found', `The built-in demo has no ${side === 'aguiUrl' ? 'plain AG-UI' : 'AgentCall'} side in this run.`);
    return url;
  };
  const tokens = createTokenStore(secrets);
  const agui = await AguiService.open(
    {
      userDataDir: options.userDataDir,
      agents,
      settings,
      events,
      tokens,
      log,
      demoUrl: () => demoSideUrl('aguiUrl'),
    },
    notices,
  );
  const oauth =
    options.oauth ??
    createTalkieOAuth({
      tokens,
      openBrowser: options.openExternal,
      allowLocalHttp: () => settings.get().developer.allowLocalHttp,
      // The web shell cannot receive app-scheme links, so it always uses the loopback redirect.
      redirect: () => (settings.get().signIn?.redirect === 'private-use' && options.receivesPrivateUseRedirects ? { privateUseScheme } : 'loopback'),
      log,
    });
  const talkie = new TalkieService({
    agents,
    settings,
    events,
    tokens,
    tokenStorage: secrets.kind === 'memory' ? { kind: 'memory', ...(secrets.reason ? { reason: secrets.reason.slice(0, 500) } : {}) } : { kind: 'keychain' },
    demo,
    oauth,
    ...(options.talkieRecovery ? { recovery: options.talkieRecovery } : {}),
    chooseDownloadPath: options.chooseDownloadPath ?? downloadsFolderPath,
    approvals,
    log,
  });
  const voice = new VoiceService({ talkie, log });

  const nfc =
    options.nfc === 'off'
      ? undefined
      : new NfcService({
          readers: new ReaderSupervisor({ log, ...(options.nfc?.launcher ? { launcher: options.nfc.launcher } : {}) }),
          deviceKey: () => {
            const keyFile = process.env[deviceKeyFileEnv];
            return loadDeviceKey(keyFile ? { keyFile } : { secrets });
          },
          settings: () => nfcSettingsOf(settings.get()),
          log,
          distro: linuxDistroIds(),
        });
  if (nfc) {
    nfc.onStatus((status) => events.emit('hardware.changed', { nfc: status }));
    nfc.onResult((result) => events.emit('nfc.scanResult', result));
    // Reader feedback goes to the reader process, kiosk scanning off disarms; debounce is read per tap.
    settings.onChanged(() => nfc.settingsChanged());
    nfc.start();
  }
  const agentCall = new AgentCallService({
    agents,
    settings,
    events,
    tokens,
    photos,
    log,
    demoCardUrl: () => demoSideUrl('agentCallCardUrl'),
    // Not "a reader is connected now": a session outlives that, and a reader plugged in later must be usable.
    nfcOffered: () => options.agentCallNfc !== undefined || (nfc !== undefined && nfc.status().service !== 'failed'),
    ...(options.agentCallNfc
      ? { onNfcResult: options.agentCallNfc.onResult }
      : nfc
        ? { onNfcResult: (listener: (result: NfcScanResult) => void) => nfc.onResult(listener) }
        : {}),
  });
  const webPages = new WebPagesService({
    source: webPagesSource({ agents, allowLocalHttp: () => settings.get().developer.allowLocalHttp, demoAgentCallCardUrl: async () => (await demo.start()).agentCallCardUrl }),
  });
  // Methods the contract marks `gesture` are checked once, in the dispatcher, before these run.
  // Each folder answers its own methods; the types prove each contract method is answered exactly once.
  const handlers: Handlers = joinHandlerTables(
    appHandlers({ version: options.version, shell: options.shell, notices, settings, uiMemory: new UiMemory(), openExternal: options.openExternal, media }),
    agentsHandlers({ agents, settings, agui, webPages }),
    nfcHandlers({ nfc }),
    photoHandlers({ photos }),
    demoHandlers({ talkie, demo, demoSideUrl }),
    aguiHandlers({ agui }),
    agentcallHandlers({ agentCall }),
    talkieHandlers({ talkie, voice }),
  );

  return {
    dispatcher: createDispatcher(handlers, log),
    events,
    media,
    photos,
    notices,
    dispose: async () => {
      await voice.endAll();
      await agentCall.dispose();
      await agui.dispose();
      photos.discardAll();
      await Promise.all([...demoServers.splice(0).map((server) => server.close()), nfc?.dispose()]);
    },
  };
}
