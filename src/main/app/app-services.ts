import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, type HardwareStatus } from '../../shared/ipc/contract';
import type { NfcScanResult } from '../../shared/nfc/ipc-schemas';
import { ServiceError } from '../../shared/ipc/errors';
import { nfcSettingsOf } from '../../shared/settings/settings';
import type { OAuthPort } from '../auth/oauth-port';
import { createTalkieOAuth, privateUseScheme } from '../auth/talkie-oauth';
import { createTokenStore } from '../auth/token-store';
import { AgentCallService } from '../agentcall/agentcall-service';
import { AguiService } from '../agui/agui-service';
import { a2aAgentView, identifyAgent } from '../agents/identify-agent';
import { openSecretStore, type SecretStore } from '../secrets/secret-store';
import { uniquePath, type ChooseDownloadPath } from '../talkie/download';
import { EndpointApprovals } from '../talkie/endpoint-approvals';
import { TalkieService, type DemoPort } from '../talkie/talkie-service';
import { VoiceService } from '../talkie/voice-service';
import { createDispatcher, type Dispatcher, type Handlers } from '../ipc/dispatcher';
import { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';
import { PhotoError } from '../photo/photo-errors';
import { PhotoService } from '../photo/photo-service';
import { AgentRegistry } from '../store/agent-registry';
import { openExternalLink, type OpenExternal } from './external-links';
import { deviceKeyFileEnv, loadDeviceKey } from '../nfc/device-key';
import { NfcService } from '../nfc/nfc-service';
import { linuxDistroIds } from '../nfc/os-release';
import { ReaderSupervisor, type ReaderLauncher } from '../nfc/reader-supervisor';
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
  const nfcOff = () => new ServiceError('not_allowed', 'NFC is turned off in this run of AgentDesk.');
  const hardwareStatus = (): HardwareStatus => ({
    nfc: nfc ? nfc.status() : { state: 'unavailable', readers: [], detail: 'NFC is turned off in this run of AgentDesk.' },
  });

  /** A refused picture is the user's to fix: `invalid_image` with the pipeline's message (never bytes, never sharp's text). */
  const photoCall = async <T>(field: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PhotoError) throw new ServiceError('invalid_image', error.message, field);
      throw error;
    }
  };

  const uiMemory = new UiMemory();
  // Methods the contract marks `gesture` are checked once, in the dispatcher, before these run.
  const handlers: Handlers = {
    'ui.restore': () => uiMemory.restore(),
    'ui.saveScreen': ({ screen }) => uiMemory.saveScreen(screen),
    'ui.saveDraft': ({ key, text }) => uiMemory.saveDraft(key, text),
    'app.info': () => ({ name: 'AgentDesk', version: options.version, shell: options.shell, platform: process.platform, notices: notices.list() }),
    'settings.get': () => settings.get(),
    'settings.update': ({ patch }) => settings.update(patch),
    'agents.list': () => ({ agents: agents.list() }),
    'agents.add': async ({ address, kind }) => ({ agent: await agents.add(address, { allowLocalHttp: settings.get().developer.allowLocalHttp, ...(kind === 'agui' ? { protocol: 'agui' as const } : {}) }) }),
    'agents.remove': async ({ id }) => {
      const list = await agents.remove(id);
      await agui.forget(id);
      return { agents: list };
    },
    'agents.restore': async ({ agent, index }) => ({ agents: await agents.restore(agent, index) }),
    'hardware.status': () => hardwareStatus(),
    'external.open': async ({ url }) => {
      await openExternalLink(url, options.openExternal);
      return { opened: true as const };
    },
    'media.arm': ({ kinds }) => ({ armed: media.arm(kinds) }),
    'media.disarm': ({ kinds }) => ({ armed: media.disarm(kinds) }),
    'photo.stage': (request) => photoCall(request.kind === 'file' ? '/bytes' : '/rgba', () => photos.stageRequest(request)),
    'photo.discard': ({ photoId }) => ({ discarded: photos.discard(photoId) }),
    'nfc.arm': async ({ timeoutMs }) => {
      if (!nfc) throw nfcOff();
      return nfc.arm(timeoutMs === undefined ? {} : { timeoutMs });
    },
    'nfc.cancel': ({ scanId }) => {
      if (!nfc) throw nfcOff();
      return nfc.cancel(scanId);
    },
    'nfc.kiosk': ({ active }) => {
      if (!nfc) throw nfcOff();
      nfc.setKioskActive(active);
      return { armed: nfc.status().scan?.armed ?? false };
    },
    'demo.open': () => talkie.openDemo(),
    'demo.openAgentCall': async () => {
      await demo.start();
      return { agentId: builtInAgentCallDemoId };
    },
    'demo.openAgui': async () => {
      await demoSideUrl('aguiUrl');
      return { agentId: builtInAguiDemoId };
    },
    'agui.open': ({ agentId }) => agui.open(agentId),
    'agui.send': ({ agentId, messageId, text }) => agui.send(agentId, { messageId, text }),
    'agui.resume': ({ agentId, answers }) => agui.resume(agentId, answers),
    'agui.retry': ({ agentId }) => agui.retry(agentId),
    'agui.cancel': ({ agentId }) => agui.cancel(agentId),
    'agui.newThread': ({ agentId }) => agui.newThread(agentId),
    'agui.setForwardedProps': ({ agentId, json }) => agui.setForwardedProps(agentId, json),
    'agui.useToken': ({ agentId, token }) => agui.useToken(agentId, token),
    'agents.identify': async ({ agentId }) => {
      if (agentId === builtInDemoAgentId) return { protocol: 'talkie' as const };
      if (agentId === builtInAgentCallDemoId) return { protocol: 'agentcall' as const };
      if (agentId === builtInAguiDemoId) return { protocol: 'agui' as const };
      const agent = agents.get(agentId);
      // A plain AG-UI endpoint has no documents to read: it is what the user added it as.
      if (agent.protocol === 'agui') return { protocol: 'agui' as const };
      const identified = await identifyAgent(agent.url, { allowLocalHttp: settings.get().developer.allowLocalHttp });
      if (identified.protocol !== 'a2a') return { protocol: identified.protocol };
      // A plain A2A agent is listed by its card's name from now on.
      await agents.setName(agent.id, identified.a2a.name);
      return { protocol: 'a2a' as const, agent: a2aAgentView(identified) };
    },
    'agents.webPages': ({ agentId }) => webPages.webPages(agentId),
    'agentcall.open': ({ agentId }) => agentCall.open(agentId),
    'agentcall.useToken': ({ agentId, token }) => agentCall.useToken(agentId, token),
    'agentcall.sendText': ({ sessionKey, text }) => agentCall.sendText(sessionKey, text),
    'agentcall.sendObservation': ({ sessionKey, ...request }) => agentCall.sendObservation(sessionKey, request),
    'agentcall.answerProposal': ({ sessionKey, proposalId, answer }) => agentCall.answerProposal(sessionKey, proposalId, answer),
    'agentcall.decline': ({ sessionKey }) => agentCall.decline(sessionKey),
    'agentcall.cancel': ({ sessionKey }) => agentCall.cancel(sessionKey),
    'agentcall.end': ({ sessionKey }) => agentCall.end(sessionKey),
    'talkie.connect': ({ agentId }) => talkie.connect(agentId),
    'talkie.acceptEndpoints': ({ agentId }) => talkie.acceptEndpoints(agentId),
    'talkie.useToken': ({ agentId, token }) => talkie.useToken(agentId, token),
    'talkie.signIn': ({ agentId }) => talkie.signIn(agentId),
    'talkie.cancelSignIn': ({ agentId }) => talkie.cancelSignIn(agentId),
    'talkie.openSignInLink': ({ agentId }) => talkie.openSignInLink(agentId),
    'talkie.signOut': ({ agentId }) => talkie.signOut(agentId),
    'talkie.status': ({ agentId }) => talkie.status(agentId),
    'talkie.send': ({ agentId, threadId, messageId, text }) => talkie.send(agentId, { threadId, messageId, text }),
    'talkie.cancel': ({ agentId, runKey }) => talkie.cancel(agentId, runKey),
    'talkie.threads': ({ agentId }) => talkie.threads(agentId),
    'talkie.thread': ({ agentId, threadId }) => talkie.thread(agentId, threadId),
    'talkie.deleteThread': ({ agentId, threadId }) => talkie.deleteThread(agentId, threadId),
    'talkie.action': ({ agentId, actionId }) => talkie.action(agentId, actionId),
    'talkie.download': ({ agentId, downloadId, url, name }) => talkie.download(agentId, { downloadId, url, name }),
    'talkie.decide': ({ agentId, actionId, decision }) => talkie.decide(agentId, actionId, decision),
    'talkie.voiceStart': ({ agentId, threadId, locale }) => voice.start(agentId, { threadId, locale }),
    'talkie.voiceOffer': ({ callId, sdp }) => voice.offer(callId, sdp),
    'talkie.voiceTool': ({ callId, providerCallId, name, arguments: args }) => voice.tool(callId, { providerCallId, name, arguments: args }),
    'talkie.voiceDecide': ({ callId, actionId, paramsHash, decision }) => voice.decide(callId, { actionId, paramsHash, decision }),
    'talkie.voiceTranscript': ({ callId, role, text, itemId }) => voice.transcript(callId, { role, text, itemId }),
    'talkie.voiceUsage': ({ callId, seconds }) => voice.usage(callId, seconds),
    'talkie.voiceEnd': ({ callId, seconds }) => voice.end(callId, seconds),
  };

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
