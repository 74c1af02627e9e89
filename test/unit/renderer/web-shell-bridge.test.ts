import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectBridge, takeSessionSecret } from '../../../src/renderer/bridge/agentdesk';
import { webShellSessionStorageKey } from '../../../src/shared/ipc/web-shell-protocol';

const secret = 'q0Wk3-_yT5mZ8sP2vN7xR4cB9dF1gH6jK0lA3sD5fG8';

/** Stands in for the browser's WebSocket: records what the bridge asked for, and never connects. */
class RecordingWebSocket extends EventTarget {
  static opened: { url: string; protocols: string[] }[] = [];
  binaryType = 'blob';
  constructor(url: string, protocols: string[] = []) {
    super();
    RecordingWebSocket.opened.push({ url, protocols });
  }
  send(): void {}
  close(): void {}
}

afterEach(() => {
  vi.unstubAllGlobals();
  RecordingWebSocket.opened = [];
  window.sessionStorage.clear();
  window.history.replaceState(null, '', '/');
});

describe('the web shell bridge keeps the session secret in this tab only', () => {
  it('moves the secret from the launch redirect’s fragment into sessionStorage and out of the address bar', () => {
    window.history.replaceState({ kept: true }, '', `/?lang=cs#session=${secret}`);
    expect(takeSessionSecret(window)).toBe(secret);
    expect(window.location.hash).toBe('');
    expect(window.location.search).toBe('?lang=cs');
    expect(window.history.state).toEqual({ kept: true });
    expect(window.sessionStorage.getItem(webShellSessionStorageKey)).toBe(secret);
    // A reload of the tab (or the watchdog's reload of a crashed one) finds it again.
    expect(takeSessionSecret(window)).toBe(secret);
  });

  it('has no session without the fragment or the tab’s copy, and takes nothing that is not a secret’s shape', () => {
    expect(takeSessionSecret(window)).toBeUndefined();
    window.history.replaceState(null, '', '/#session=a,b c');
    expect(takeSessionSecret(window)).toBeUndefined();
    expect(window.location.hash).toBe('');
  });

  it('offers the secret as a WebSocket subprotocol beside the fixed protocol name, and only the name without a session', () => {
    vi.stubGlobal('WebSocket', RecordingWebSocket);
    window.history.replaceState(null, '', `/#session=${secret}`);
    expect(connectBridge().kind).toBe('web');
    window.sessionStorage.clear();
    connectBridge();
    expect(RecordingWebSocket.opened).toEqual([
      { url: `ws://${window.location.host}/ipc`, protocols: ['agentdesk', `agentdesk.session.${secret}`] },
      { url: `ws://${window.location.host}/ipc`, protocols: ['agentdesk'] },
    ]);
  });
});
