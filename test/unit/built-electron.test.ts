import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { eventNames, methodChannel, methodNames } from '../../src/shared/ipc/contract';
import { ensureBuilt, mainEntry, preloadEntry, root } from '../support/built';

/**
 * Electron's security checklist over what ships: the BUILT main process (out/main) and preload
 * (out/preload), not the sources. The main bundle runs against the recording fake of `electron`;
 * the preload runs with a `require` that offers nothing but a fake `electron`. A missing or
 * older build is built first (npx electron-vite build); a failed build fails here, loudly.
 */
ensureBuilt();

const bundleFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? bundleFiles(join(dir, entry.name)) : entry.name.endsWith('.js') ? [join(dir, entry.name)] : [],
  );
const mainBundle = bundleFiles(join(root, 'out/main'))
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');

const fake = await vi.hoisted(async () => (await import('../support/fake-electron')).createFakeElectron());
vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));

fake.state.userData = await mkdtemp(join(tmpdir(), 'agentdesk-built-electron-'));
await import(/* @vite-ignore */ mainEntry);
await vi.waitFor(() => expect(fake.state.windows).toHaveLength(1), { timeout: 20_000 });
const window = fake.state.windows[0]!;
const contents = window.webContents;

function invoke(channel: string, payload: unknown, senderFrame: unknown = contents.mainFrame) {
  const handler = fake.state.ipc.get(channel);
  return handler ? handler({ senderFrame, sender: contents }, payload) : undefined;
}

describe('Electron security checklist, over the built out/main and out/preload', () => {
  it('1, 18: the page is app://agentdesk/index.html from a secure standard scheme registered before ready, never file://', () => {
    expect(window.loaded).toEqual(['app://agentdesk/index.html']);
    expect(fake.state.privileged).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    expect(fake.state.order.indexOf('registerSchemes')).toBeLessThan(fake.state.order.indexOf('ready'));
    expect(mainBundle).not.toMatch(/loadFile\(|loadURL\(\s*[`'"]file:/);
  });

  it('2-4, 6, 8-10: webPreferences isolate and sandbox the window, without Node, with web security', () => {
    expect(window.options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      preload: preloadEntry,
    });
    expect(fake.state.sandbox).toBe(1);
    // Nowhere in the bundle is a weaker preference written, nor any Blink feature enabled.
    expect(mainBundle).not.toMatch(
      /enableBlinkFeatures|nodeIntegration\w*:\s*(true|!0)|contextIsolation:\s*(false|!1)|sandbox:\s*(false|!1)|webSecurity:\s*(false|!1)|allowRunningInsecureContent:\s*(true|!0)|experimentalFeatures:\s*(true|!0)|webviewTag:\s*(true|!0)/,
    );
  });

  it('5: permission requests: media only for the app origin while armed; every other permission and device refused', async () => {
    const request = (permission: string, requestingUrl: string, mediaTypes?: string[]) =>
      new Promise<boolean>((resolve) => fake.state.permissionRequest!({}, permission, resolve, { requestingUrl, mediaTypes }));
    expect(await request('media', 'app://agentdesk/index.html', ['video'])).toBe(false);
    expect(await invoke(methodChannel('media.arm'), { kinds: ['camera'] })).toMatchObject({ ok: true });
    expect(await request('media', 'app://agentdesk/index.html', ['video'])).toBe(true);
    expect(await request('media', 'https://evil.example/', ['video'])).toBe(false);
    for (const permission of ['geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      expect(await request(permission, 'app://agentdesk/index.html'), permission).toBe(false);
      expect(fake.state.permissionCheck!({}, permission, 'app://agentdesk', {}), permission).toBe(false);
    }
    await invoke(methodChannel('media.disarm'), { kinds: ['camera'] });
    expect(fake.state.devicePermission!({})).toBe(false);
  });

  it('7: the built renderer is served with the Content Security Policy header', async () => {
    const page = (await fake.state.protocolHandlers.get('app')!(new Request('app://agentdesk/index.html'))) as Response;
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    // No JavaScript eval or inline script ('wasm-unsafe-eval' only compiles WebAssembly: the voice detector's runtime).
    expect(csp).not.toMatch(/'unsafe-inline'|'unsafe-eval'|https?:/);
    expect(((await fake.state.protocolHandlers.get('app')!(new Request('app://agentdesk/../package.json'))) as Response).status).toBe(404);
  });

  it('11-14: no navigation, redirects, webviews or new windows in any web contents', () => {
    const other = new fake.FakeContents();
    fake.state.appEvents.get('web-contents-created')!({}, other);
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      other.events.get(event)!({ preventDefault });
      expect(preventDefault, event).toHaveBeenCalled();
    }
    expect(other.windowOpenHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
  });

  it('15: shell.openExternal is called in one place, reached through external.open: https only, after a real input event', async () => {
    expect(mainBundle.match(/shell\.openExternal\b/g)).toHaveLength(1);
    expect(await invoke(methodChannel('external.open'), { url: 'https://example.com/' })).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    contents.events.get('input-event')!({}, { type: 'mouseDown' });
    expect(await invoke(methodChannel('external.open'), { url: 'file:///etc/passwd' })).toMatchObject({ ok: false, error: { code: 'unsafe_url' } });
    expect(await invoke(methodChannel('external.open'), { url: 'https://example.com/' })).toEqual({ ok: true, value: { opened: true } });
    expect(fake.state.openExternal).toEqual(['https://example.com/']);
  });

  it('16: Electron is pinned to one exact version', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies.electron).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('17: one handler per contract method, refusing any sender but the app window’s main frame', async () => {
    expect([...fake.state.ipc.keys()].sort()).toEqual(methodNames.map(methodChannel).sort());
    expect(await invoke(methodChannel('agents.list'), {})).toMatchObject({ ok: true });
    for (const frame of [{ url: 'https://evil.example/' }, { url: 'app://agentdesk/index.html' }, null]) {
      expect(await invoke(methodChannel('agents.list'), {}, frame), JSON.stringify(frame)).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
    }
  });

  it('19: the fuses of electron-builder.json', () => {
    const config = JSON.parse(readFileSync(join(root, 'electron-builder.json'), 'utf8')) as { electronFuses: Record<string, boolean>; asar: boolean };
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  it('20, 4: the built preload requires only electron and exposes only the contract’s API on window.agentdesk', async () => {
    const required: string[] = [];
    const exposed = new Map<string, unknown>();
    const invoked: string[] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, value: unknown) => void exposed.set(key, value) },
      ipcRenderer: { invoke: async (channel: string) => void invoked.push(channel), on: () => undefined, removeListener: () => undefined },
    };
    const module = { exports: {} };
    const load = new Function('require', 'module', 'exports', readFileSync(preloadEntry, 'utf8')) as (
      require: (name: string) => unknown,
      module: unknown,
      exports: unknown,
    ) => void;
    load(
      (name) => {
        required.push(name);
        if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
        return electron;
      },
      module,
      module.exports,
    );
    expect([...new Set(required)]).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['agentdesk']);
    const api = exposed.get('agentdesk') as Record<string, Record<string, (arg?: unknown) => unknown>>;
    expect(Object.isFrozen(api)).toBe(true);
    const expected = new Set([...methodNames, ...eventNames].map((name) => name.split('.')[0]));
    expect(new Set(Object.keys(api))).toEqual(expected);
    const members = Object.entries(api).flatMap(([namespace, functions]) => Object.keys(functions).map((member) => `${namespace}.${member}`));
    expect(members.length).toBe(methodNames.length + eventNames.length);
    for (const method of methodNames) {
      const [namespace, member] = method.split('.') as [string, string];
      await api[namespace]![member]!({});
    }
    expect(invoked).toEqual(methodNames.map(methodChannel));
    for (const key of ['invoke', 'send', 'on', 'ipcRenderer', 'require', 'process']) expect(api).not.toHaveProperty(key);
  });

  it('takes no global key at start (a voice call takes its shortcut while connected), and gives every one back when the app quits', async () => {
    expect(fake.state.globalKeyLog).toEqual([]);
    fake.state.globalKeys.set('CommandOrControl+Shift+Space', () => undefined);
    await fake.state.appEvents.get('will-quit')!({});
    expect(fake.state.globalKeyLog).toEqual(['unregisterAll']);
    expect(fake.state.globalKeys.size).toBe(0);
  });
});
