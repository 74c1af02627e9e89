/**
 * A recording fake of the `electron` module for the main process: what the app registered
 * (IPC handlers, protocol handlers, permission handlers, app events), the windows it opened and
 * what it asked of the shell. Used by the tests that load the main module without Electron.
 */
export type Handler = (...args: unknown[]) => unknown;

export function createFakeElectron() {
  const state = {
    /** dialog.showErrorBox calls and app.exit codes (a start refused by the device policy). */
    errorBoxes: [] as { title: string; content: string }[],
    exitCodes: [] as number[],
    userData: '',
    singleInstance: true,
    order: [] as string[],
    appEvents: new Map<string, Handler>(),
    ipc: new Map<string, Handler>(),
    protocolHandlers: new Map<string, Handler>(),
    privileged: [] as unknown[],
    windows: [] as FakeWindow[],
    permissionRequest: undefined as Handler | undefined,
    permissionCheck: undefined as Handler | undefined,
    devicePermission: undefined as Handler | undefined,
    openExternal: [] as string[],
    quit: 0,
    sandbox: 0,
    protocolClients: [] as string[],
    utilityForks: [] as { path: string; options: unknown }[],
    messageBoxes: [] as Record<string, unknown>[],
    messageBoxAnswer: 0,
    /** Global keys the app holds now (globalShortcut), and every register/unregister in order. */
    globalKeys: new Map<string, Handler>(),
    globalKeyLog: [] as string[],
    /** Menu.setApplicationMenu calls and app.setLoginItemSettings calls. */
    menus: [] as unknown[],
    loginItems: [] as unknown[],
  };
  class FakeContents {
    events = new Map<string, Handler>();
    sent: unknown[][] = [];
    windowOpenHandler: Handler | undefined;
    reloads = 0;
    mainFrame = { url: 'app://agentdesk/index.html' };
    on(event: string, handler: Handler) {
      this.events.set(event, handler);
      return this;
    }
    send(...args: unknown[]) {
      this.sent.push(args);
    }
    reload() {
      this.reloads++;
    }
    crashes = 0;
    forcefullyCrashRenderer() {
      this.crashes++;
    }
    setWindowOpenHandler(handler: Handler) {
      this.windowOpenHandler = handler;
    }
  }
  class FakeWindow {
    webContents = new FakeContents();
    loaded: string[] = [];
    events = new Map<string, Handler>();
    constructor(readonly options: Record<string, unknown>) {
      state.windows.push(this);
      state.order.push('window');
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    once(event: string, handler: Handler) {
      this.events.set(event, handler);
    }
    on(event: string, handler: Handler) {
      this.events.set(event, handler);
    }
    show() {}
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {}
    kioskCalls: boolean[] = [];
    setKiosk(flag: boolean) {
      this.kioskCalls.push(flag);
    }
  }
  const electron = {
    app: {
      requestSingleInstanceLock: () => state.singleInstance,
      quit: () => void state.quit++,
      exit: (code = 0) => void state.exitCodes.push(code),
      enableSandbox: () => void state.sandbox++,
      on: (event: string, handler: Handler) => void state.appEvents.set(event, handler),
      whenReady: () => {
        state.order.push('ready');
        return Promise.resolve();
      },
      getPath: () => state.userData,
      getVersion: () => '9.9.9',
      getLocale: () => 'en-US',
      setAsDefaultProtocolClient: (scheme: string) => void state.protocolClients.push(scheme),
      setLoginItemSettings: (settings: unknown) => void state.loginItems.push(settings),
    },
    Menu: { setApplicationMenu: (menu: unknown) => void state.menus.push(menu) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => {
        state.order.push('registerSchemes');
        state.privileged.push(...schemes);
      },
      handle: (scheme: string, handler: Handler) => void state.protocolHandlers.set(scheme, handler),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: Handler) => void (state.permissionRequest = handler),
        setPermissionCheckHandler: (handler: Handler) => void (state.permissionCheck = handler),
        setDevicePermissionHandler: (handler: Handler) => void (state.devicePermission = handler),
      },
    },
    ipcMain: { handle: (channel: string, handler: Handler) => void state.ipc.set(channel, handler) },
    // The NFC reader's utilityProcess: recorded, and quiet (it never answers, like a reader still starting).
    utilityProcess: {
      fork: (path: string, _args: string[], options: unknown) => {
        state.utilityForks.push({ path, options });
        return {
          pid: 1,
          stderr: null,
          postMessage: () => undefined,
          kill: () => true,
          on() {
            return this;
          },
        };
      },
    },
    shell: { openExternal: async (url: string) => void state.openExternal.push(url) },
    dialog: {
      showErrorBox: (title: string, content: string) => void state.errorBoxes.push({ title, content }),
      showMessageBox: async (_window: unknown, options: Record<string, unknown>) => {
        state.messageBoxes.push(options);
        return { response: state.messageBoxAnswer };
      },
    },
    globalShortcut: {
      register: (accelerator: string, handler: Handler) => {
        state.globalKeyLog.push(`register ${accelerator}`);
        if (state.globalKeys.has(accelerator)) return false;
        state.globalKeys.set(accelerator, handler);
        return true;
      },
      unregister: (accelerator: string) => {
        state.globalKeyLog.push(`unregister ${accelerator}`);
        state.globalKeys.delete(accelerator);
      },
      unregisterAll: () => {
        state.globalKeyLog.push('unregisterAll');
        state.globalKeys.clear();
      },
    },
    BrowserWindow: FakeWindow,
  };
  return { state, electron, FakeContents };
}

export type FakeElectron = ReturnType<typeof createFakeElectron>;

/** Clears what the fake recorded, for the next start. */
export function resetFakeElectron({ state }: FakeElectron): void {
  state.errorBoxes.length = 0;
  state.exitCodes.length = 0;
  state.singleInstance = true;
  state.order.length = 0;
  state.appEvents.clear();
  state.ipc.clear();
  state.protocolHandlers.clear();
  state.privileged.length = 0;
  state.windows.length = 0;
  state.openExternal.length = 0;
  state.quit = 0;
  state.sandbox = 0;
  state.protocolClients.length = 0;
  state.utilityForks.length = 0;
  state.messageBoxes.length = 0;
  state.messageBoxAnswer = 0;
  state.globalKeys.clear();
  state.globalKeyLog.length = 0;
  state.menus.length = 0;
  state.loginItems.length = 0;
}
