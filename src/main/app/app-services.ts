import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { NfcScanResult } from '../../shared/nfc/ipc-schemas';
import type { ObjectPassport } from '../../shared/agentcall/passport';
import { eventChannelPrefix } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
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
import { CallShortcut, type GlobalKeys } from '../talkie/call-shortcut';
import { callShortcut } from '../../shared/talkie/voice/call-shortcut';
import { createDispatcher, type Dispatcher, type Handlers } from '../ipc/dispatcher';
import { EventBus } from '../ipc/event-bus';
import { joinHandlerTables } from '../ipc/handler-table';
import type { Logger } from '../platform/logger';
import { photoHandlers } from '../photo/photo-handlers';
import { PhotoService } from '../photo/photo-service';
import { AgentRegistry } from '../store/agent-registry';
import type { OpenExternal } from './external-links';
import { deviceKeyFileEnv, deviceKeyNotice, loadDeviceKey, userDeviceKeyFileName } from '../nfc/device-key';
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
import { AdminPinGate, adminPinLockoutFileName } from '../policy/admin-pin-gate';
import { AdminSession } from '../policy/admin-session';
import { systemDevicePolicyPath } from '../policy/device-policy-file';
import { basicRecognizerFromEnvironment, recognizerFromEnvironment, SpeechService, type Recognizer } from '../speech/speech-service';
import { speechHandlers, type ChooseFolder } from '../speech/speech-handlers';
import { SpeechModels } from '../speech/speech-models';
import type { SpeechEngineLauncher } from '../speech/engine-client';
import { LogRing, ringLogger } from '../platform/log-ring';
import { persistRecentLog } from '../store/recent-log-file';
import { diagnosticsHandlers } from './diagnostics';
import {
  agentSettingsMethods,
  agentSettingsOpen,
  guardAdmin,
  guardAgentSettings,
  guarded,
  guardSettingsUpdate,
  policyHandlers,
  refuseDemo,
  refusedMedia,
  startAgentIdOf,
  withFilePickerPolicy,
  withVoicePolicy,
  type ActiveDevicePolicy,
} from './policy-handlers';
import { Kiosk, kioskHandlers, visitorAnswers } from './kiosk';
import { startConversations } from './conversations';
import { talkieConversationHandlers } from './talkie-conversation';
import { conversationHandlers } from '../conversation/conversation-handlers';
import type { ConversationActivity } from '../../shared/updates/update-rules';

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
  /** Tests: where AgentCall sessions get tag observations and their passports (default: the NFC service); given, NFC is offered to the agent. */
  agentCallNfc?: { onResult(listener: (result: NfcScanResult, passport?: ObjectPassport) => void): () => void };
  /** For tests: how long to keep reloading a thread after a dropped stream. */
  talkieRecovery?: { delaysMs: readonly number[] };
  /**
   * The NFC reader service: Electron passes a utilityProcess launcher, plain Node uses a child
   * process; 'off' (tests that do not need NFC) starts no reader process.
   */
  nfc?: 'off' | { launcher?: ReaderLauncher };
  /** True where the OS delivers AgentDesk's private-use scheme to this app (Electron registers it). */
  receivesPrivateUseRedirects?: boolean;
  /** The system's global keys (Electron's globalShortcut) for a voice call's shortcut; the web shell has none. */
  globalKeys?: GlobalKeys;
  /** Where downloads go: Electron asks with a save dialog; default: a free name in ~/Downloads. */
  chooseDownloadPath?: ChooseDownloadPath;
  /**
   * Speech recognition (#17): the speech engine process's launcher (Electron: a utilityProcess; default: a
   * Node child) and the folder chooser of Settings → Speech → Import (Electron; the web shell has none).
   */
  speech?: { launcher?: SpeechEngineLauncher; chooseFolder?: ChooseFolder };
  /**
   * The device policy in force (issue #18), loaded by the entry (`loadDevicePolicy`); none: an
   * unmanaged machine. A policy that failed never gets here: the entry refuses to start, or in kiosk
   * mode runs `policyFailedServices` instead.
   */
  devicePolicy?: ActiveDevicePolicy;
  /** Kiosk mode from `--kiosk` (the policy's `"kiosk": true` counts too): `kiosk.*` works, downloads are refused. */
  kiosk?: boolean;
  /** Tests: the clock of the admin PIN's lockout and unlock. */
  adminClock?: () => number;
  /**
   * The recent log for diagnostics: an entry that already feeds `log` into a ring passes it here
   * (its own lines are then in it too); without one, the services keep their own.
   */
  logRing?: LogRing;
}

/** The events of a conversation, whatever its protocol (the updater's "quiet" watches them). */
function isConversationEvent(channel: string): boolean {
  return channel.startsWith(eventChannelPrefix) && /^(?:conversation|talkie|agui|agentcall|voice)\./.test(channel.slice(eventChannelPrefix.length));
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
  /** The administrator entered the device policy's PIN (and it has not run out): kiosk keys and closing work again. */
  adminUnlocked(): boolean;
  /** What goes on in the conversations now (a run, a queued message, a voice call) and when anything last did: the updater's rule (issue #28). */
  activity(): ConversationActivity;
  /** Calls `listener` after each kiosk reset that ended everything; answers the way to stop. */
  onKioskReset(listener: () => void): () => void;
  /** Stops what the services started (the built-in demo agent). */
  dispose(): Promise<void>;
}

/**
 * The composition root, floor by floor: the ground (stores, secrets, tokens), the protocol and
 * hardware services on it (NFC's events wired as it starts), one handler table from each folder's
 * own, and a dispose.
 */
export async function startAppServices(given: AppServicesOptions): Promise<AppServices> {
  const logRing = given.logRing ?? new LogRing();
  const options = { ...given, logRing, log: given.logRing ? given.log : ringLogger(given.log, logRing) };
  const ground = await openGround(options);
  // The recent log is saved beside the settings, for `agentdesk diagnostics` (entries redacted as the ring kept them).
  const recentLog = await persistRecentLog(logRing, options.userDataDir);
  const services = await startServices(options, ground);
  const kioskResets = new Set<() => void>();
  // The last time any protocol's conversation sent the page something (an answer streaming, a voice call's events): what "quiet" means for the updater.
  let lastConversationEventAt: number | undefined;
  const watching = ground.events.connect((channel) => {
    if (isConversationEvent(channel)) lastConversationEventAt = Date.now();
  });
  return {
    dispatcher: createDispatcher(
      handlerTable(options, ground, services, () => kioskResets.forEach((listener) => listener())),
      options.log,
    ),
    events: ground.events,
    media: ground.media,
    photos: ground.photos,
    notices: ground.notices,
    adminUnlocked: () => ground.admin.unlockedByPin(),
    activity: () => {
      const conversations = services.conversations.activity();
      const times = [conversations.lastActivityAt, lastConversationEventAt].filter((time): time is number => time !== undefined);
      return { busy: conversations.busy || services.voice.openCalls() > 0, lastActivityAt: times.length > 0 ? Math.max(...times) : undefined };
    },
    onKioskReset: (listener) => {
      kioskResets.add(listener);
      return () => kioskResets.delete(listener);
    },
    dispose: async () => {
      watching();
      await disposeServices(ground, services);
      await recentLog.flush();
    },
  };
}

type Ground = Awaited<ReturnType<typeof openGround>>;
type Services = Awaited<ReturnType<typeof startServices>>;
type BuiltInDemo = ReturnType<typeof builtInDemo>;

/**
 * The ground floor: the event bus, notices, the user-data folder and what it keeps (settings, the
 * agent list, Talkie's endpoint approvals), media permissions, photos, secrets and tokens; in this
 * order, which is also the order of their notices.
 */
async function openGround(options: AppServicesOptions) {
  const { log } = options;
  const events = new EventBus(log);
  const notices = new Notices(log, events);
  // Without its folder AgentDesk still starts (defaults in memory); every save then says why it failed.
  await mkdir(options.userDataDir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    const reason = reasonInWords(error);
    notices.push({
      code: 'folder_unavailable',
      params: { folder: options.userDataDir },
      detail: reason,
      message: `AgentDesk cannot create its folder ${options.userDataDir} (${reason}): defaults are in use and nothing can be saved this session.`,
    });
  });
  const { devicePolicy } = options;
  // The device policy first: the settings in force and the agent list follow it.
  const settings = await SettingsService.open(options.userDataDir, events, notices, devicePolicy);
  const lockedAgents = devicePolicy?.policy.agents;
  const agents = await AgentRegistry.open(
    options.userDataDir,
    events,
    notices,
    lockedAgents ? { agents: lockedAgents.list, file: devicePolicy.file } : undefined,
  );
  const pinHash = devicePolicy?.policy.admin?.pinHash;
  const clock = options.adminClock ?? Date.now;
  const admin = new AdminSession(
    pinHash ? await AdminPinGate.open({ file: join(options.userDataDir, adminPinLockoutFileName), pinHash, notices, now: clock }) : undefined,
    clock,
  );
  const approvals = await EndpointApprovals.open(options.userDataDir, notices);
  const media = new MediaPermissions(refusedMedia(devicePolicy));
  const photos = new PhotoService({ log });
  const secrets = options.secrets ?? (await openSecretStore());
  if (secrets.kind === 'memory' && secrets.reason)
    notices.push({ code: 'keychain_memory', ...(secrets.problem === undefined ? {} : { detail: secrets.problem }), message: secrets.reason });
  const tokens = createTokenStore(secrets);
  return { log, events, notices, settings, agents, admin, approvals, media, photos, secrets, tokens };
}

/** The protocol and hardware services, in the order they start. */
async function startServices(options: AppServicesOptions, ground: Ground) {
  const { agents, settings } = ground;
  const demo = builtInDemo(options, ground);
  const agui = await AguiService.open(
    { userDataDir: options.userDataDir, agents, settings, tokens: ground.tokens, log: ground.log, demoUrl: () => demo.sideUrl('aguiUrl') },
    ground.notices,
  );
  const { talkie, voice } = startTalkie(options, ground, demo);
  const nfc = startNfc(options, ground);
  const agentCall = startAgentCall(options, ground, demo, nfc);
  const webPages = new WebPagesService({
    source: webPagesSource({
      agents,
      allowLocalHttp: () => settings.get().developer.allowLocalHttp,
      demoAgentCallCardUrl: async () => (await demo.start()).agentCallCardUrl,
    }),
  });
  const speechModels = await SpeechModels.open({
    userDataDir: options.userDataDir,
    log: ground.log,
    notices: ground.notices,
    ...(options.speech?.launcher ? { launcher: options.speech.launcher } : {}),
  });
  const testRecognizer = speechRecognizerFromEnv(ground.notices);
  const speech = new SpeechService({
    // The test/demo recognizer (AGENTDESK_SPEECH_RECOGNIZER) when set, else the imported model, else
    // pocketsphinx's basic English one where it is installed (not with AGENTDESK_SPEECH_RECOGNIZER=none).
    recognizer: () => testRecognizer() ?? speechModels.recognizer(),
    basic: basicRecognizerFromEnvironment(),
    imported: () => speechModels.info('recognition'),
    voice: () => speechModels.voice(),
    importedVoice: () => speechModels.info('voice'),
    log: ground.log,
    folderChooser: options.speech?.chooseFolder !== undefined,
  });
  const { conversations, talkie: talkieConversations } = startConversations({
    agents,
    settings,
    events: ground.events,
    log: ground.log,
    talkie,
    agui,
    agentCall,
  });
  return { demo, agui, talkie, voice, nfc, agentCall, webPages, speech, speechModels, conversations, talkieConversations };
}

/** `AGENTDESK_SPEECH_RECOGNIZER` (tests and the demo): a bad value is a notice, and no recognizer is used. */
function speechRecognizerFromEnv(notices: Notices): () => Recognizer | undefined {
  try {
    const recognizer = recognizerFromEnvironment();
    return () => recognizer;
  } catch (error) {
    notices.push({ code: 'speech_recognizer_invalid', message: error instanceof Error ? error.message : String(error) });
    return () => undefined;
  }
}

/** `AGENTDESK_DEMO_VOICE_SECONDS`: a shorter (or longer) demo call, to see its warning and its end; a bad value is a notice, and the default stays. */
async function demoVoiceFromEnv(notices: Notices): Promise<{ maxSeconds: number } | undefined> {
  const { demoVoiceSecondsEnv, parseDemoVoiceSeconds } = await import('../demo/voice/voice-sessions');
  const text = process.env[demoVoiceSecondsEnv];
  if (text === undefined || text === '') return undefined;
  try {
    return { maxSeconds: parseDemoVoiceSeconds(text, demoVoiceSecondsEnv) };
  } catch (error) {
    const reason = (error as Error).message;
    notices.push({ code: 'demo_voice_seconds_invalid', detail: reason, message: `${reason} The demo's voice calls last 300 s.` });
    return undefined;
  }
}

/** The built-in demo: one for all of its sides (Talkie, AgentCall, plain AG-UI), started on first use; a failed start may be retried. */
function builtInDemo(options: AppServicesOptions, { log, notices }: Pick<Ground, 'log' | 'notices'>) {
  const servers: { close(): Promise<void> }[] = [];
  const port: DemoPort = options.demo ?? {
    start: async () => {
      // Loaded on first use, so a run that never opens the demo never loads it (nor oidc-provider, its Authorization Server).
      const { startDemo } = await import('../demo/start-demo');
      // Its threads live in the user-data folder, so they survive an app restart (its port and token do not).
      const voice = await demoVoiceFromEnv(notices);
      const server = await startDemo({ log, notices, persistPath: join(options.userDataDir, 'demo-agent.json'), ...(voice ? { voice } : {}) });
      servers.push(server);
      log.info('demo', `built-in demo agent on ${server.baseUrl}`);
      return { baseUrl: server.baseUrl, token: server.token, agentCallCardUrl: server.agentCallCardUrl, aguiUrl: server.aguiUrl };
    },
  };
  let started: ReturnType<DemoPort['start']> | undefined;
  // A device policy's locked agent list has no built-in demo: every way to it (demo.*, a demo id in talkie.*, agentcall.*, agui.*) ends here.
  const lockedBy = options.devicePolicy?.policy.agents ? options.devicePolicy.file : undefined;
  const start: DemoPort['start'] = () => {
    if (lockedBy !== undefined)
      return Promise.reject(
        new ServiceError('not_allowed', `The agent list is set by the administrator's device policy (${lockedBy}): the built-in demo is not on it.`),
      );
    return (started ??= port.start().catch((error: unknown) => {
      started = undefined;
      throw error;
    }));
  };
  return {
    start,
    /** The address of one of the demo's sides (starting the demo on first use), or not_found when this run has none. */
    sideUrl: async (side: 'aguiUrl' | 'agentCallCardUrl'): Promise<string> => {
      const url = (await start())[side];
      if (!url) throw new ServiceError('not_found', `The built-in demo has no ${side === 'aguiUrl' ? 'plain AG-UI' : 'AgentCall'} side in this run.`);
      return url;
    },
    /** Stops the demo servers this run started. */
    close: () => servers.splice(0).map((server) => server.close()),
  };
}

/** Talkie 1 (with its sign-in) and its §10 voice on top of it. */
function startTalkie(options: AppServicesOptions, ground: Ground, demo: DemoPort) {
  const { settings, secrets, tokens, log } = ground;
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
    agents: ground.agents,
    settings,
    events: ground.events,
    tokens,
    // The cause alone ("Secret Service not running"): the screen says the rest in the user's language.
    tokenStorage:
      secrets.kind === 'memory'
        ? { kind: 'memory', ...((secrets.problem ?? secrets.reason) ? { reason: (secrets.problem ?? secrets.reason ?? '').slice(0, 500) } : {}) }
        : { kind: 'keychain' },
    demo,
    oauth,
    ...(options.talkieRecovery ? { recovery: options.talkieRecovery } : {}),
    chooseDownloadPath: options.chooseDownloadPath ?? downloadsFolderPath,
    approvals: ground.approvals,
    ...(isKiosk(options) ? { signInHere: () => ({ browser: false, pastedToken: agentSettingsOpen(ground.admin, true) }) } : {}),
    log,
  });
  const shortcut = new CallShortcut({
    keys: options.globalKeys,
    accelerator: () => settings.get().voice?.shortcut ?? callShortcut,
    onPress: (callId) => ground.events.emit('talkie.voiceShortcutPressed', { callId }),
  });
  const voice = new VoiceService({ talkie, log, shortcut });
  return { talkie, voice };
}

/** The NFC service with its events wired and started, or none in a run without NFC. */
function startNfc(options: AppServicesOptions, { settings, secrets, events, notices, log }: Ground): NfcService | undefined {
  if (options.nfc === 'off') return undefined;
  const nfc = new NfcService({
    readers: new ReaderSupervisor({ log, ...(options.nfc?.launcher ? { launcher: options.nfc.launcher } : {}) }),
    deviceKey: async () => {
      // The device policy's key file wins over the environment's; without either, the keychain, or where none is reachable a file of the app's own.
      const keyFile = options.devicePolicy?.policy.deviceKeyFile ?? process.env[deviceKeyFileEnv];
      const key = await loadDeviceKey(keyFile ? { keyFile } : { secrets, userKeyFile: join(options.userDataDir, userDeviceKeyFileName) });
      const notice = deviceKeyNotice(key);
      if (notice)
        notices.push({
          code: notice.code,
          ...(notice.file ? { params: { file: notice.file } } : {}),
          ...(notice.detail ? { detail: notice.detail } : {}),
          message: notice.message,
        });
      return key;
    },
    settings: () => nfcSettingsOf(settings.get()),
    log,
    distro: linuxDistroIds(),
  });
  // Wired before the AgentCall service subscribes to its results, so the bus hears a tag first.
  wireNfcEvents(nfc, { settings, events });
  nfc.start();
  return nfc;
}

/** NFC's events on the bus (reader status as hardware.changed, tag results as nfc.scanResult), and settings changes to the reader. */
function wireNfcEvents(nfc: NfcService, { settings, events }: Pick<Ground, 'settings' | 'events'>): void {
  nfc.onStatus((status) => events.emit('hardware.changed', { nfc: status }));
  nfc.onResult((result) => events.emit('nfc.scanResult', result));
  // Reader feedback goes to the reader process, kiosk scanning off disarms; debounce is read per tap.
  settings.onChanged(() => nfc.settingsChanged());
}

/** AgentCall sessions, offered NFC when this run has it (or a test stands in for it). */
function startAgentCall(options: AppServicesOptions, ground: Ground, demo: Pick<BuiltInDemo, 'sideUrl'>, nfc: NfcService | undefined): AgentCallService {
  return new AgentCallService({
    agents: ground.agents,
    settings: ground.settings,
    events: ground.events,
    tokens: ground.tokens,
    photos: ground.photos,
    log: ground.log,
    demoCardUrl: () => demo.sideUrl('agentCallCardUrl'),
    // Not "a reader is connected now": a session outlives that, and a reader plugged in later must be usable.
    nfcOffered: () => options.agentCallNfc !== undefined || (nfc !== undefined && nfc.status().service !== 'failed'),
    ...(options.agentCallNfc
      ? { onNfcResult: options.agentCallNfc.onResult }
      : nfc
        ? {
            onNfcResult: (listener: (result: NfcScanResult, passport?: ObjectPassport) => void) =>
              nfc.onResult((result, _timing, passport) => listener(result, passport)),
          }
        : {}),
  });
}

/** Every contract method's handler, each folder contributing its own table (the types prove each method is answered exactly once). */
function handlerTable(options: AppServicesOptions, ground: Ground, services: Services, kioskReset: () => void): Handlers {
  const { notices, settings, agents, admin, media, photos } = ground;
  const { demo, agui, talkie, voice, nfc, agentCall, webPages, speech, speechModels, conversations, talkieConversations } = services;
  const speechTable = speechHandlers({
    speech,
    models: speechModels,
    events: ground.events,
    ...(options.speech?.chooseFolder ? { chooseFolder: options.speech.chooseFolder } : {}),
  });
  const uiMemory = new UiMemory();
  const app = appHandlers({ version: options.version, shell: options.shell, notices, settings, uiMemory, openExternal: options.openExternal, media });
  const kioskMode = isKiosk(options);
  const kiosk = new Kiosk({
    kiosk: kioskMode,
    startAgentId: startAgentIdOf(options.devicePolicy),
    voice,
    conversations,
    agentCall,
    photos,
    uiMemory,
    admin,
    ...(kioskMode ? { answers: visitorAnswers(settings, ground.approvals) } : {}),
    log: ground.log,
    onReset: kioskReset,
  });
  // What Talkie's methods answer is folded into the open conversation too (a decision, a voice call's lines).
  const talkieTable = withVoicePolicy(
    talkieConversationHandlers(talkieHandlers({ talkie, voice }), { talkie: talkieConversations, conversations }),
    options.devicePolicy,
  );
  // On a kiosk an agent's connection settings are the administrator's (tokens, forwardedProps, a sign-out).
  const agentSettings = <T extends object>(table: T): T => guarded(table, agentSettingsMethods, () => guardAgentSettings(admin, kioskMode));
  // Methods the contract marks `gesture` are checked once, in the dispatcher, before these run.
  return joinHandlerTables(
    {
      ...app,
      // A kiosk opens no web pages or other windows (the page shows addresses only).
      ...(kioskMode ? { 'external.open': refuseKioskLink } : {}),
      // The device policy's admin PIN guards the user's settings.
      'settings.update': (request) => {
        guardSettingsUpdate(admin, request.patch);
        return app['settings.update'](request);
      },
    },
    policyHandlers({ devicePolicy: options.devicePolicy, admin, kiosk: kioskMode }),
    kioskHandlers(kiosk),
    agentsHandlers({ agents, settings, agui, talkie, webPages }),
    nfcHandlers({ nfc }),
    withFilePickerPolicy(photoHandlers({ photos }), options.devicePolicy, kioskMode),
    diagnosticsHandlers({
      admin,
      log: ground.log,
      choosePath: options.chooseDownloadPath ?? downloadsFolderPath,
      collect: async () => ({
        app: { name: 'AgentDesk', version: options.version, shell: options.shell },
        policy: options.devicePolicy
          ? { state: 'active', layers: [], sources: {}, conflicts: [], ...options.devicePolicy }
          : { state: 'none', file: systemDevicePolicyPath() },
        settings: settings.get(),
        tokenStorage: { kind: ground.secrets.kind, problem: ground.secrets.kind === 'memory' ? (ground.secrets.problem ?? ground.secrets.reason) : undefined },
        nfc: nfc ? nfc.status() : { state: 'not_started', detail: 'NFC is off in this run.' },
        media: media.state(),
        notices: notices.list(),
        logs: options.logRing?.list() ?? [],
      }),
    }),
    refuseDemo(options.devicePolicy) ?? demoHandlers({ talkie, demo, demoSideUrl: demo.sideUrl }),
    agentSettings(aguiHandlers({ agui })),
    agentSettings(agentcallHandlers({ agentCall })),
    conversationHandlers(conversations),
    // A kiosk opens nothing over itself: no downloads, and no browser sign-in (its agents are signed in by the administrator or need none).
    agentSettings(
      kioskMode
        ? { ...talkieTable, 'talkie.download': refuseKioskDownload, 'talkie.signIn': refuseKioskSignIn, 'talkie.openSignInLink': refuseKioskSignIn }
        : talkieTable,
    ),
    {
      ...speechTable,
      // The speech model is a setting of the device: behind the device policy's admin PIN like the others.
      'speech.importModel': (request) => {
        guardAdmin(admin);
        return speechTable['speech.importModel'](request);
      },
      'speech.removeModel': (request) => {
        guardAdmin(admin);
        return speechTable['speech.removeModel'](request);
      },
    },
  );
}

/** Kiosk mode: the policy's `"kiosk": true`, or `--kiosk`. */
function isKiosk(options: AppServicesOptions): boolean {
  return options.kiosk === true || options.devicePolicy?.policy.kiosk === true;
}

/** A kiosk opens nothing in the system browser. */
function refuseKioskLink(): never {
  throw new ServiceError('not_allowed', 'A kiosk does not open web pages.');
}

/** A kiosk opens no system browser over itself, for a sign-in either. */
function refuseKioskSignIn(): never {
  throw new ServiceError('not_allowed', 'A kiosk does not sign in through the browser; the administrator sets up its agents.');
}

/** A kiosk opens no file dialogs and writes nothing to the user's folders: downloads are refused. */
function refuseKioskDownload(): never {
  throw new ServiceError('not_allowed', 'A kiosk does not download files.');
}

/** Stops what the services started: voice calls, AgentCall sessions, AG-UI runs, staged photos, the demo and the NFC reader. */
async function disposeServices({ photos }: Ground, { voice, agentCall, agui, demo, nfc, speech, speechModels, conversations }: Services): Promise<void> {
  speechModels.dispose();
  speech.dispose();
  await voice.endAll();
  await conversations.closeAll();
  await agentCall.dispose();
  await agui.dispose();
  photos.discardAll();
  await Promise.all([...demo.close(), nfc?.dispose()]);
}
