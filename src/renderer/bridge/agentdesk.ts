import { buildApi, type AgentDeskApi } from '../../shared/ipc/api';
import { createWebSocketTransport } from './web-socket-transport';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the web shell, where connectBridge() builds it. */
    readonly agentdesk?: AgentDeskApi;
  }
}

const secretKey = 'agentdesk.launchSecret';

export type Bridge =
  | { kind: 'electron' | 'web'; api: AgentDeskApi; closed?: Promise<number> }
  | { kind: 'missing' };

/**
 * The renderer's only way to the rest of the app. In Electron it is the preload's
 * `window.agentdesk`; in the web shell the same API is built from the contract over a WebSocket,
 * authenticated by the launch secret from the URL fragment (kept in sessionStorage for reloads
 * and removed from the address bar at once).
 */
export function connectBridge(): Bridge {
  if (window.agentdesk) return { kind: 'electron', api: window.agentdesk };
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('k');
  if (fromHash) {
    sessionStorage.setItem(secretKey, fromHash);
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
  }
  const secret = fromHash ?? sessionStorage.getItem(secretKey);
  if (!secret) return { kind: 'missing' };
  const transport = createWebSocketTransport(secret, window.location);
  return { kind: 'web', api: buildApi(transport), closed: transport.closed };
}
