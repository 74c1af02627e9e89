import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { methodChannel, methodNames } from '../../../src/shared/ipc/contract';
import { resetFakeElectron } from '../../support/fake-electron';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The Electron binary cannot run here, so this loads the real main module against a recording
 * fake of the `electron` module and checks Electron's security checklist item by item.
 */

const fake = await vi.hoisted(async () => (await import('../../support/fake-electron')).createFakeElectron());

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));

const { policyArguments, startElectronApp } = await import('../../../src/main/electron/app');
const tempDir = useTempDirs();

async function start() {
  const root = await tempDir();
  const rendererDir = join(root, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>AgentDesk</title>');
  await writeFile(join(root, 'secret.txt'), 'outside');
  fake.state.userData = join(root, 'user-data');
  await startElectronApp({ rendererDir, preloadPath: '/app/out/preload/index.cjs' });
  const window = fake.state.windows[0]!;
  return { window, contents: window.webContents };
}

/** Calls an IPC handler the way Electron would, from the app window's main frame by default. */
function invoke(channel: string, payload: unknown, sender: { frame?: unknown; contents?: unknown } = {}) {
  const window = fake.state.windows[0]!;
  const handler = fake.state.ipc.get(channel);
  if (!handler) return undefined;
  const senderFrame = 'frame' in sender ? sender.frame : window.webContents.mainFrame;
  return handler({ senderFrame, sender: sender.contents ?? window.webContents }, payload);
}

beforeEach(() => resetFakeElectron(fake));

describe('Electron security checklist', () => {
  it('2-4, 6, 8-11: the window is isolated, sandboxed, without Node, with web security and no webview', async () => {
    const { window } = await start();
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      preload: '/app/out/preload/index.cjs',
    });
    expect(window.options.webPreferences).not.toHaveProperty('enableBlinkFeatures');
    expect(fake.state.sandbox).toBe(1);
  });

  it('1, 18: the page comes from the app:// custom protocol, registered as secure before ready, never file://', async () => {
    const { window } = await start();
    expect(fake.state.privileged).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    expect(fake.state.order.indexOf('registerSchemes')).toBeLessThan(fake.state.order.indexOf('ready'));
    expect(window.loaded).toEqual(['app://agentdesk/index.html']);
  });

  it('7, 18: the protocol serves the renderer with the CSP header and nothing outside it', async () => {
    await start();
    const handle = fake.state.protocolHandlers.get('app')!;
    const page = (await handle(new Request('app://agentdesk/index.html'))) as Response;
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    // No JavaScript eval or inline script ('wasm-unsafe-eval' only compiles WebAssembly: the voice detector's runtime).
    expect(csp).not.toMatch(/'unsafe-inline'|'unsafe-eval'|https?:/);
    for (const url of ['app://agentdesk/../secret.txt', 'app://agentdesk/%2e%2e/secret.txt', 'app://other/index.html']) {
      expect(((await handle(new Request(url))) as Response).status, url).toBe(404);
    }
  });

  it('13, 14, 11/12: navigation, redirects, new windows and webviews are denied in every web contents', async () => {
    await start();
    const contents = new fake.FakeContents();
    fake.state.appEvents.get('web-contents-created')!({}, contents);
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      contents.events.get(event)!({ preventDefault });
      expect(preventDefault, event).toHaveBeenCalled();
    }
    expect(contents.windowOpenHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' });
  });

  it('5: camera/microphone only for the app origin, only while the UI armed them; every other permission refused', async () => {
    await start();
    const request = (permission: string, requestingUrl: string, mediaTypes?: string[]) =>
      new Promise<boolean>((resolve) => fake.state.permissionRequest!({}, permission, resolve, { requestingUrl, mediaTypes }));
    expect(await request('media', 'app://agentdesk/index.html', ['video'])).toBe(false);
    expect(await invoke(methodChannel('media.arm'), { kinds: ['camera'] })).toMatchObject({ ok: true });
    expect(await request('media', 'app://agentdesk/index.html', ['video'])).toBe(true);
    expect(fake.state.permissionCheck!({}, 'media', 'app://agentdesk', { mediaType: 'video' })).toBe(true);
    expect(await request('media', 'app://agentdesk/index.html', ['video', 'audio'])).toBe(false);
    expect(await request('media', 'https://evil.example/', ['video'])).toBe(false);
    expect(await request('media', 'app://agentdesk.evil/index.html', ['video'])).toBe(false);
    for (const permission of ['geolocation', 'notifications', 'clipboard-read', 'openExternal', 'midiSysex', 'pointerLock']) {
      expect(await request(permission, 'app://agentdesk/index.html'), permission).toBe(false);
      expect(fake.state.permissionCheck!({}, permission, 'app://agentdesk', {}), permission).toBe(false);
    }
    await invoke(methodChannel('media.disarm'), { kinds: ['camera'] });
    expect(await request('media', 'app://agentdesk/index.html', ['video'])).toBe(false);
    expect(fake.state.devicePermission!({})).toBe(false);
  });

  it('15: shell.openExternal only for https: links right after the user clicked or typed', async () => {
    const { contents } = await start();
    expect(await invoke(methodChannel('external.open'), { url: 'https://example.com/' })).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    contents.events.get('input-event')!({}, { type: 'mouseMove' });
    expect(await invoke(methodChannel('external.open'), { url: 'https://example.com/' })).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    contents.events.get('input-event')!({}, { type: 'mouseDown' });
    expect(await invoke(methodChannel('external.open'), { url: 'http://example.com/' })).toMatchObject({ ok: false, error: { code: 'unsafe_url' } });
    expect(await invoke(methodChannel('external.open'), { url: 'https://example.com/' })).toEqual({ ok: true, value: { opened: true } });
    expect(fake.state.openExternal).toEqual(['https://example.com/']);
  });

  it('17: one handler per contract method; callers other than the app main frame are refused; payloads validated', async () => {
    const { contents } = await start();
    expect([...fake.state.ipc.keys()].sort()).toEqual(methodNames.map(methodChannel).sort());
    expect(await invoke(methodChannel('agents.list'), {})).toEqual({ ok: true, value: { agents: [] } });
    const foreignFrame = { url: 'https://evil.example/' };
    const subFrameOnAppOrigin = { url: 'app://agentdesk/index.html' };
    for (const sender of [{ frame: foreignFrame }, { frame: subFrameOnAppOrigin }, { contents: new fake.FakeContents() }, { frame: null }]) {
      expect(await invoke(methodChannel('agents.list'), {}, sender as never)).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
    }
    contents.mainFrame.url = 'app://agentdesk.evil/index.html';
    expect(await invoke(methodChannel('agents.list'), {})).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
    contents.mainFrame.url = 'app://agentdesk/index.html';
    expect(await invoke(methodChannel('agents.add'), { address: 42 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(invoke('agentdesk:shell.exec', {})).toBeUndefined();
  });

  it('pushes contract events to the window', async () => {
    const { contents } = await start();
    await invoke(methodChannel('agents.add'), { address: 'crm.example.com' });
    expect(contents.sent).toEqual([['agentdesk:event:agents.changed', { agents: [expect.objectContaining({ display: 'crm.example.com' })] }]]);
  });

  it("registers the app's private-use scheme for sign-in redirects and takes them from a second instance or open-url", async () => {
    await start();
    expect(fake.state.protocolClients).toEqual(['dev.agentdesk.app']);
    expect(fake.state.appEvents.has('open-url')).toBe(true);
    const preventDefault = vi.fn();
    fake.state.appEvents.get('open-url')!({ preventDefault }, 'dev.agentdesk.app:/oauth/callback?code=x&state=unknown');
    expect(preventDefault).toHaveBeenCalled();
    // An unknown state completes nothing and does not throw; a second instance is focused as usual.
    expect(() => fake.state.appEvents.get('second-instance')!({}, ['agentdesk', 'dev.agentdesk.app:/oauth/callback?code=y&state=nope'])).not.toThrow();
  });

  it('runs the NFC reader in its own utilityProcess (a native crash cannot take the app down)', async () => {
    await start();
    expect(fake.state.utilityForks).toEqual([
      { path: expect.stringMatching(/nfc-reader\.js$/), options: expect.objectContaining({ serviceName: 'AgentDesk NFC reader' }) },
    ]);
  });

  it('single instance: a second launch quits at once and focuses the first window', async () => {
    fake.state.singleInstance = false;
    await startElectronApp({ rendererDir: '/nonexistent', preloadPath: '/nonexistent.cjs' });
    expect(fake.state.quit).toBe(1);
    expect(fake.state.windows).toEqual([]);
    expect(fake.state.ipc.size).toBe(0);
    fake.state.singleInstance = true;
    await start();
    expect(fake.state.appEvents.has('second-instance')).toBe(true);
  });

  it('a crashed renderer is reloaded, at most three times a minute; then the user chooses Reload or Quit', async () => {
    const { contents } = await start();
    const gone = (reason: string) => contents.events.get('render-process-gone')!({}, { reason, exitCode: 1 });
    gone('clean-exit');
    expect(contents.reloads).toBe(0);
    for (const reason of ['crashed', 'oom', 'killed']) gone(reason);
    expect(contents.reloads).toBe(3);
    expect(fake.state.messageBoxes).toEqual([]);
    // The fourth crash within the minute: no reload on its own, the user is asked.
    gone('crashed');
    await vi.waitFor(() => expect(contents.reloads).toBe(4));
    expect(fake.state.messageBoxes).toEqual([expect.objectContaining({ message: 'The AgentDesk window keeps crashing.', buttons: ['Reload', 'Quit'] })]);
    // Reload starts the count again; asked once more, Quit quits.
    for (let n = 0; n < 3; n++) gone('crashed');
    expect(contents.reloads).toBe(7);
    fake.state.messageBoxAnswer = 1;
    gone('crashed');
    await vi.waitFor(() => expect(fake.state.quit).toBe(1));
    expect(contents.reloads).toBe(7);
    expect(fake.state.messageBoxes).toHaveLength(2);
  });
});

describe('the device policy in the Electron app', () => {
  async function startWithPolicy(policyText: string | undefined, options: { kiosk?: boolean } = {}) {
    const root = await tempDir();
    const rendererDir = join(root, 'renderer');
    await mkdir(rendererDir, { recursive: true });
    await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>AgentDesk</title>');
    fake.state.userData = join(root, 'user-data');
    const systemPolicyPath = join(root, 'policy.json');
    if (policyText !== undefined) await writeFile(systemPolicyPath, policyText);
    await startElectronApp({ rendererDir, preloadPath: '/app/out/preload/index.cjs' }, { systemPolicyPath, kiosk: options.kiosk === true });
    return systemPolicyPath;
  }

  it('takes --policy FILE (or --policy=FILE) and --kiosk from the command line', () => {
    expect(policyArguments(['electron', '.', '--policy', '/etc/p.json', '--kiosk'])).toEqual({ policyFile: '/etc/p.json', kiosk: true });
    expect(policyArguments(['electron', '.', '--policy=/tmp/p.json'])).toEqual({ policyFile: '/tmp/p.json', kiosk: false });
    expect(policyArguments(['electron', '.'])).toEqual({ policyFile: undefined, kiosk: false });
  });

  it('outside kiosk mode, refuses to start with a policy it cannot use: an error box naming the file and the problem, exit 1, no window, no IPC', async () => {
    const file = await startWithPolicy('{"policyVersion": 3}');
    expect(fake.state.errorBoxes).toEqual([
      { title: 'AgentDesk cannot start', content: expect.stringContaining(`device policy ${file} cannot be used: policyVersion 3 is not a version`) },
    ]);
    expect(fake.state.exitCodes).toEqual([1]);
    expect(fake.state.windows).toEqual([]);
    expect(fake.state.ipc.size).toBe(0);
  });

  it('in kiosk mode, opens a kiosk window whose page learns only the failure (policy.status) and runs nothing else', async () => {
    const file = await startWithPolicy('{"policyVersion": 1, "kiosk": true, "camera": {"allowed": "no"}}');
    expect(fake.state.errorBoxes).toEqual([]);
    expect(fake.state.windows[0]!.options).toMatchObject({ kiosk: true });
    expect(await invoke(methodChannel('policy.status'), {})).toEqual({
      ok: true,
      value: { state: 'failed', file, message: expect.stringContaining('camera.allowed: ') },
    });
    expect(await invoke(methodChannel('agents.list'), {})).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
  });

  it('opens a kiosk window for a valid kiosk policy, and a normal one without a policy', async () => {
    await startWithPolicy('{"policyVersion": 1, "kiosk": true}');
    expect(fake.state.windows[0]!.options).toMatchObject({ kiosk: true });
    expect(await invoke(methodChannel('policy.status'), {})).toMatchObject({ ok: true, value: { state: 'active', kiosk: true } });
    resetFakeElectron(fake);
    await startWithPolicy(undefined);
    expect(fake.state.windows[0]!.options).not.toHaveProperty('kiosk');
    expect(await invoke(methodChannel('policy.status'), {})).toEqual({ ok: true, value: { state: 'none' } });
  });

  it('kiosk mode: no menu or developer tools; kiosk keys, closing and leaving full screen refused until the admin PIN; a hung or crash-looping renderer reloads without asking', async () => {
    const { hashAdminPin } = await import('../../../src/main/policy/admin-pin');
    await startWithPolicy(JSON.stringify({ policyVersion: 1, kiosk: true, admin: { pinHash: await hashAdminPin('2468') } }));
    const window = fake.state.windows[0]!;
    const contents = window.webContents;
    expect(window.options).toMatchObject({ kiosk: true, fullscreen: true, webPreferences: expect.objectContaining({ devTools: false }) });
    expect(fake.state.menus).toEqual([null]);
    // Linux: no login item (agentdesk kiosk install writes the autostart entry).
    expect(fake.state.loginItems).toEqual([]);

    const press = (key: string, modifiers: Record<string, boolean> = {}) => {
      const event = {
        defaultPrevented: false,
        preventDefault() {
          this.defaultPrevented = true;
        },
      };
      contents.events.get('before-input-event')!(event, { type: 'keyDown', key, control: false, alt: false, shift: false, meta: false, ...modifiers });
      return event.defaultPrevented;
    };
    const closeWindow = () => {
      const event = {
        defaultPrevented: false,
        preventDefault() {
          this.defaultPrevented = true;
        },
      };
      window.events.get('close')!(event);
      return event.defaultPrevented;
    };
    expect([press('F4', { alt: true }), press('w', { control: true }), press('q', { control: true }), press('F11')]).toEqual([true, true, true, true]);
    expect(press('a')).toBe(false);
    expect(closeWindow()).toBe(true);
    window.events.get('leave-full-screen')!();
    expect(window.kioskCalls).toEqual([true]);

    // The administrator's PIN (typed: a real key press seen by main) unlocks them.
    contents.events.get('input-event')!({}, { type: 'keyDown' });
    expect(await invoke(methodChannel('policy.unlockAdmin'), { pin: '2468' })).toMatchObject({ ok: true, value: { unlocked: true } });
    expect(press('F4', { alt: true })).toBe(false);
    expect(closeWindow()).toBe(false);

    vi.useFakeTimers();
    try {
      contents.events.get('unresponsive')!();
      vi.advanceTimersByTime(2000);
      expect(contents.crashes).toBe(1);
      const gone = () => contents.events.get('render-process-gone')!({}, { reason: 'crashed', exitCode: 1 });
      for (let n = 0; n < 4; n++) gone();
      expect(contents.reloads).toBe(3);
      vi.advanceTimersByTime(3000);
      expect(contents.reloads).toBe(4);
      expect(fake.state.messageBoxes).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
