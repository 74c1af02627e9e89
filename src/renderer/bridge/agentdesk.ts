import { buildApi, type AgentDeskApi } from '../../shared/ipc/api';
import { webShellSessionFragment, webShellSessionSecretPattern, webShellSessionStorageKey } from '../../shared/ipc/web-shell-protocol';
import { createWebSocketTransport } from './web-socket-transport';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the web shell, where connectBridge() builds it. */
    readonly agentdesk?: AgentDeskApi;
  }
}

export type Bridge = { kind: 'electron' | 'web'; api: AgentDeskApi; closed?: Promise<number>; connected?: Promise<boolean> } | { kind: 'missing' };

/**
 * The web shell session's secret, for this tab. The launch link's redirect brings it in the
 * address's fragment (`#session=…`, which the browser never sends to a server): it moves into this
 * tab's sessionStorage (only this origin, port included, can read or set it) and out of the address
 * bar. A reload, or the page watchdog's reload of a crashed tab, finds it there; a new tab does not
 * (a duplicated one gets the browser's copy). Undefined: this page has no session.
 */
export function takeSessionSecret(where: Pick<Window, 'location' | 'history' | 'sessionStorage'>): string | undefined {
  const prefix = `#${webShellSessionFragment}=`;
  const { hash, pathname, search } = where.location;
  const fromLink = hash.startsWith(prefix) ? hash.slice(prefix.length) : undefined;
  if (fromLink !== undefined) where.history.replaceState(where.history.state, '', `${pathname}${search}`);
  let secret = fromLink;
  try {
    if (fromLink !== undefined) where.sessionStorage.setItem(webShellSessionStorageKey, fromLink);
    else secret = where.sessionStorage.getItem(webShellSessionStorageKey) ?? undefined;
  } catch {
    // Storage turned off in this browser: the page works until it is reloaded.
  }
  return secret !== undefined && webShellSessionSecretPattern.test(secret) ? secret : undefined;
}

/**
 * The renderer's only way to the rest of the app. In Electron it is the preload's
 * `window.agentdesk`; in the web shell the same API is built from the contract over a WebSocket,
 * authenticated by the session secret this tab got from the launch link (takeSessionSecret).
 * `connected` tells whether the shell took it.
 */
export function connectBridge(): Bridge {
  if (window.agentdesk) return { kind: 'electron', api: window.agentdesk };
  const transport = createWebSocketTransport(window.location, takeSessionSecret(window));
  return { kind: 'web', api: buildApi(transport), closed: transport.closed, connected: transport.connected };
}
