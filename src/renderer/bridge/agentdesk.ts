import { buildApi, type AgentDeskApi } from '../../shared/ipc/api';
import { createWebSocketTransport } from './web-socket-transport';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the web shell, where connectBridge() builds it. */
    readonly agentdesk?: AgentDeskApi;
  }
}

export type Bridge =
  | { kind: 'electron' | 'web'; api: AgentDeskApi; closed?: Promise<number>; connected?: Promise<boolean> }
  | { kind: 'missing' };

/**
 * The renderer's only way to the rest of the app. In Electron it is the preload's
 * `window.agentdesk`; in the web shell the same API is built from the contract over a WebSocket,
 * authenticated by the session cookie the shell set when this browser opened the launch link
 * (HttpOnly: the page itself never holds a secret). `connected` tells whether the shell took it.
 */
export function connectBridge(): Bridge {
  if (window.agentdesk) return { kind: 'electron', api: window.agentdesk };
  const transport = createWebSocketTransport(window.location);
  return { kind: 'web', api: buildApi(transport), closed: transport.closed, connected: transport.connected };
}
