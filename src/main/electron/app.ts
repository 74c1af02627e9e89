import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  protocol,
  session,
  shell,
  utilityProcess,
  type IpcMainInvokeEvent,
  type WebContents,
} from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { completePrivateUseRedirect } from '../auth/oauth-client';
import { privateUseScheme } from '../auth/talkie-oauth';
import { utilityProcessLauncher } from '../nfc/utility-process-launcher';
import { builtReaderEntryPath } from '../nfc/built-entry';
import type { MainToEngine } from '../../shared/speech/engine-protocol';
import { methodChannel, methodNames } from '../../shared/ipc/contract';
import { fail } from '../../shared/base/errors';
import { pageSecurityHeaders } from '../platform/content-security-policy';
import { createLogger } from '../platform/logger';
import { LogRing, ringLogger } from '../platform/log-ring';
import { readStaticFile } from '../platform/static-files';
import type { AppServices } from '../app/app-services';
import { startAppServicesUnderPolicy } from '../app/start-under-policy';
import { CrashReloadPolicy, crashLoopMessage } from './crash-reload';
import { HangWatch, KioskGuard, kioskCrashReloadDelayMs, loginItemSettings } from './kiosk';
import { startUpdates } from './updater';
import {
  appEntryUrl,
  appHost,
  appScheme,
  decidePermissionCheck,
  decidePermissionRequest,
  isAppUrl,
  secureWebPreferences,
  UserGestureTracker,
} from './security';

/**
 * The Electron app: the only file besides security.ts and the preload that imports Electron.
 * It wires Electron to the same services the web shell uses; every decision it makes is one of
 * the policies in security.ts. The README's security checklist points at the lines here.
 */
export interface ElectronAppPaths {
  rendererDir: string;
  preloadPath: string;
}

const defaultPaths = (): ElectronAppPaths => ({
  rendererDir: fileURLToPath(new URL('../renderer', import.meta.url)),
  preloadPath: fileURLToPath(new URL('../preload/index.cjs', import.meta.url)),
});

/** The device policy's command-line options: `--policy FILE` (or `--policy=FILE`) and `--kiosk`; tests also name the system location. */
export interface ElectronPolicyStart {
  policyFile?: string | undefined;
  kiosk?: boolean;
  systemPolicyPath?: string;
}

export function policyArguments(argv: readonly string[]): ElectronPolicyStart {
  const index = argv.findIndex((argument) => argument === '--policy' || argument.startsWith('--policy='));
  const policyFile = index < 0 ? undefined : argv[index]!.startsWith('--policy=') ? argv[index]!.slice('--policy='.length) : argv[index + 1];
  return { policyFile, kiosk: argv.includes('--kiosk') };
}

export async function startElectronApp(
  paths: ElectronAppPaths = defaultPaths(),
  policyStart: ElectronPolicyStart = policyArguments(process.argv),
): Promise<void> {
  // The recent log for diagnostics (Settings → Save diagnostics…) hears the window's lines too.
  const logRing = new LogRing();
  const log = ringLogger(createLogger(), logRing);

  // Single instance: a second launch focuses the first window instead of opening another app.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  // Checklist 4: every renderer is sandboxed, even ones created by mistake.
  app.enableSandbox();
  // Checklist 18: app:// is a standard, secure origin (before `ready`, as Electron requires).
  protocol.registerSchemesAsPrivileged([{ scheme: appScheme, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

  // Sign-in can come back as dev.agentdesk.app:/oauth/callback (RFC 8252 §7.1): macOS delivers it as
  // open-url, Windows and Linux start a second instance with it on the command line.
  app.setAsDefaultProtocolClient(privateUseScheme);
  app.on('open-url', (event, url) => {
    event.preventDefault();
    completePrivateUseRedirect(url);
  });

  // Checklist 13, 14, 11/12: no navigation, no new windows, no <webview>, in any web contents.
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));

  await app.whenReady();

  const gestures = new UserGestureTracker();
  // The device policy (issue #18) first: one that cannot be used runs nothing (kiosk mode: only its error screen).
  const started = await startAppServicesUnderPolicy(
    {
      userDataDir: app.getPath('userData'),
      shell: 'electron',
      version: app.getVersion(),
      // Checklist 15: only through openExternalLink (https:), as external.open, which needs a user gesture.
      openExternal: (url) => shell.openExternal(url),
      receivesPrivateUseRedirects: true,
      // The NFC reader runs in its own utilityProcess: a native crash or a hung PC/SC call never stops the app.
      nfc: { launcher: utilityProcessLauncher((path, args, forkOptions) => utilityProcess.fork(path, args, forkOptions)) },
      // A voice call's shortcut, heard while AgentDesk is in the background; taken only during a connected call.
      globalKeys: {
        register: (accelerator, onPress) => globalShortcut.register(accelerator, onPress),
        unregister: (accelerator) => globalShortcut.unregister(accelerator),
      },
      // Talkie 1 §6 downloads: the user picks where the file goes.
      chooseDownloadPath: async (name) => {
        const options = { defaultPath: join(app.getPath('downloads'), name) };
        const result = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
        return result.canceled ? undefined : result.filePath;
      },
      // Speech recognition: sherpa-onnx loads the imported model in its own utilityProcess (a corrupt model aborts that process, not the app).
      speech: {
        launcher: utilityProcessLauncher<MainToEngine>(
          (path, args, forkOptions) => utilityProcess.fork(path, args, forkOptions),
          builtReaderEntryPath(import.meta.url, 'speech-engine.js'),
          'AgentDesk speech engine',
        ),
        chooseFolder: async (what, purpose) => {
          const thing = purpose === 'voice' ? 'Voice' : 'Speech model';
          const options =
            what === 'archive'
              ? {
                  title: `${thing} archive`,
                  properties: ['openFile' as const],
                  filters: [{ name: 'sherpa-onnx model archives', extensions: ['bz2', 'tbz2', 'gz', 'tgz', 'tar'] }],
                }
              : { title: `${thing} folder`, properties: ['openDirectory' as const] };
          const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
          return result.canceled ? undefined : result.filePaths[0];
        },
      },
      log,
      logRing,
    },
    policyStart,
  );
  if ('refused' in started) {
    // Outside kiosk mode: refuse to start, saying why (a window of its own: a desktop launch has no terminal).
    log.error('policy', started.refused);
    dialog.showErrorBox('AgentDesk cannot start', started.refused);
    app.exit(1);
    return;
  }
  const { services, kiosk } = started;
  // Kiosk mode (issue #18): the decisions live in kiosk.ts; here they are only wired to Electron's events.
  const guard = new KioskGuard({ kiosk, platform: process.platform, adminUnlocked: () => services.adminUnlocked(), log });
  if (kiosk) Menu.setApplicationMenu(null);
  app.on('before-quit', () => guard.appQuitting());
  // Windows and macOS: a kiosk policy starts AgentDesk at login (Linux: `agentdesk kiosk install`).
  const loginItem = loginItemSettings({
    platform: process.platform,
    policy: started.policy.state === 'active' ? { kiosk: started.policy.policy.kiosk === true } : started.policy.state,
  });
  if (loginItem) app.setLoginItemSettings(loginItem);
  // Updates only from the feed a device policy names (issue #28); the decisions are src/main/updates/.
  const updates = await startUpdates({
    policy: started.policy.state === 'active' ? started.policy.policy : undefined,
    version: app.getVersion(),
    services,
    log,
  }).catch((error: unknown) => {
    log.error('updates', `the updater could not start: ${(error as Error).message}`);
    return undefined;
  });
  app.on('will-quit', () => updates?.dispose());

  protocol.handle(appScheme, async (request) => {
    const url = new URL(request.url);
    const file = url.host === appHost ? await readStaticFile(paths.rendererDir, url.pathname) : undefined;
    if (!file) return new Response('Not found', { status: 404 });
    // Checklist 7: the CSP travels as a header with every file of the page.
    return new Response(new Uint8Array(file.body), { headers: { ...pageSecurityHeaders, 'Content-Type': file.contentType } });
  });

  // Checklist 5: camera/microphone only for the app's own origin, only while the UI armed them.
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
    const mediaTypes = 'mediaTypes' in details ? details.mediaTypes : undefined;
    callback(decidePermissionRequest(permission, details.requestingUrl, mediaTypes, services.media));
  });
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    decidePermissionCheck(permission, requestingOrigin, 'mediaType' in details ? details.mediaType : undefined, services.media),
  );
  session.defaultSession.setDevicePermissionHandler(() => false);

  let window: BrowserWindow | undefined;
  registerIpc(services, () => window, gestures);

  const createWindow = () => {
    window = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 800,
      minHeight: 600,
      title: 'AgentDesk',
      backgroundColor: '#f6f7f9',
      // Kiosk mode (device policy or --kiosk): full screen, no window controls, no menu bar, no developer tools.
      ...guard.windowOptions(),
      show: false,
      webPreferences: { ...secureWebPreferences, ...(guard.devTools() ? {} : { devTools: false }), preload: paths.preloadPath },
    });
    const current = window;
    const disconnect = services.events.connect((channel, payload) => current.webContents.send(channel, payload));
    current.webContents.on('input-event', (_event, input) => gestures.observe(input.type));
    // Kiosk keys (src/shared/device-policy/kiosk-keys.ts): Alt+F4, Ctrl/Cmd+W, Ctrl/Cmd+Q, F11, … do nothing until the admin unlock.
    current.webContents.on('before-input-event', (event, input) => {
      if (guard.blocksInput(input)) event.preventDefault();
    });
    current.webContents.on('context-menu', (event) => {
      if (guard.refusesContextMenu()) event.preventDefault();
    });
    current.on('close', (event) => {
      if (guard.refusesClose()) event.preventDefault();
    });
    current.on('leave-full-screen', () => {
      if (guard.returnsToFullScreen() && !current.isDestroyed()) current.setKiosk(true);
    });
    // A hung renderer: given up after a grace time, crashed and reloaded like a crashed one.
    const hang = new HangWatch();
    current.webContents.on('unresponsive', () =>
      hang.unresponsive(() => {
        if (current.isDestroyed()) return;
        log.warn('window', 'the renderer does not respond: ending it, to reload it as after a crash');
        current.webContents.forcefullyCrashRenderer();
      }),
    );
    current.webContents.on('responsive', () => hang.responsive());
    // A crashed or killed renderer is reloaded (its state comes back from main), at most 3 times a minute.
    const crashes = new CrashReloadPolicy();
    current.webContents.on('render-process-gone', (_event, details) => {
      const decision = crashes.decide(details.reason);
      if (decision === 'ignore' || current.isDestroyed()) return;
      log.warn(
        'window',
        `the renderer process is gone (${details.reason}, exit code ${details.exitCode}): ${decision === 'reload' ? 'reloading' : guard.kiosk ? 'reloading after a pause (kiosk)' : 'asking'}`,
      );
      if (decision === 'reload') return current.webContents.reload();
      // A kiosk asks no one: it keeps reloading, each time after a pause.
      if (guard.kiosk) return void setTimeout(() => current.isDestroyed() || current.webContents.reload(), kioskCrashReloadDelayMs);
      const { message, detail, buttons } = crashLoopMessage(app.getLocale());
      void dialog.showMessageBox(current, { type: 'error', message, detail, buttons, defaultId: 0, cancelId: 1, noLink: true }).then(({ response }) => {
        if (current.isDestroyed()) return;
        if (response !== 0) return app.quit();
        crashes.reset();
        current.webContents.reload();
      });
    });
    current.once('ready-to-show', () => current.show());
    current.on('closed', () => {
      disconnect();
      if (window === current) window = undefined;
    });
    void current.loadURL(appEntryUrl);
  };

  app.on('second-instance', (_event, argv) => {
    const redirect = argv.find((argument) => argument.startsWith(`${privateUseScheme}:`));
    if (redirect) completePrivateUseRedirect(redirect);
    if (!window) return createWindow();
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    globalShortcut.unregisterAll();
    void services.dispose();
  });
  app.on('activate', () => {
    if (!window) createWindow();
  });
  createWindow();
}

export function guardWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * Checklist 17: one handler per contract method, each refusing callers that are not the main
 * frame of the app window on the app origin. Channels the contract does not declare have no
 * handler: Electron rejects an invoke on them (and the preload offers none).
 */
function registerIpc(services: AppServices, currentWindow: () => BrowserWindow | undefined, gestures: UserGestureTracker): void {
  const context = { hasRecentUserGesture: () => gestures.hasRecentGesture() };
  for (const method of methodNames) {
    const channel = methodChannel(method);
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, payload: unknown) => {
      if (!isTrustedSender(event, currentWindow())) {
        return fail('forbidden_sender', `${method}: refused, the caller is not the AgentDesk window.`);
      }
      return services.dispatcher.dispatch(channel, payload, context);
    });
  }
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>, window: BrowserWindow | undefined): boolean {
  const frame = event.senderFrame;
  if (!frame || !window || event.sender !== window.webContents) return false;
  return frame === window.webContents.mainFrame && isAppUrl(frame.url);
}
