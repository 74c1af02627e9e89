import type { ApiTransport, Unsubscribe } from '../../shared/ipc/api';
import { fail } from '../../shared/base/errors';
import { Listeners } from '../../shared/base/listeners';
import { decodeWireFrame, encodeWireFrame, webShellIpcPath, webShellProtocol, webShellSessionProtocolPrefix } from '../../shared/ipc/web-shell-protocol';

type ServerFrame = { t: 'ready' } | { t: 'result'; id: number; result: unknown } | { t: 'event'; channel: string; payload: unknown };

/**
 * The web shell's side of the bridge: the session secret (from the launch link, kept in this tab)
 * authenticates the socket, offered as a subprotocol on the upgrade; the shell says `ready`, answers
 * calls and pushes events. Calls made before `ready` wait for it; when the socket closes every
 * pending call resolves with `disconnected`. `connected` is false when the shell refused the page
 * (no session, or one that ended) or is gone.
 */
export function createWebSocketTransport(
  location: { host: string; protocol: string },
  secret: string | undefined,
): ApiTransport & { closed: Promise<number>; connected: Promise<boolean> } {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // Without a secret the shell refuses the socket (and logs it); the page then says it is not connected.
  const protocols = secret === undefined ? [webShellProtocol] : [webShellProtocol, `${webShellSessionProtocolPrefix}${secret}`];
  const socket = new WebSocket(`${scheme}//${location.host}${webShellIpcPath}`, protocols);
  // Frames that carry bytes arrive binary (see encodeWireFrame); read them without a Blob's extra hop.
  socket.binaryType = 'arraybuffer';
  const pending = new Map<number, (result: unknown) => void>();
  const listeners = new Map<string, Listeners<[unknown]>>();
  let nextId = 1;
  let isClosed = false;
  let markConnected: (connected: boolean) => void = () => undefined;
  const connected = new Promise<boolean>((resolve) => (markConnected = resolve));
  const ready = connected.then(() => undefined);
  let markClosed: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (markClosed = resolve));

  socket.addEventListener('message', (message: MessageEvent) => {
    const data: unknown = message.data;
    const decoded = typeof data === 'string' ? decodeWireFrame(data) : data instanceof ArrayBuffer ? decodeWireFrame(new Uint8Array(data)) : undefined;
    if (!decoded?.ok) return;
    if (typeof decoded.value !== 'object' || decoded.value === null) return;
    const frame = decoded.value as ServerFrame;
    if (frame.t === 'ready') markConnected(true);
    else if (frame.t === 'result') {
      pending.get(frame.id)?.(frame.result);
      pending.delete(frame.id);
    } else if (frame.t === 'event') {
      listeners.get(frame.channel)?.emit(frame.payload);
    }
  });
  socket.addEventListener('close', (event: CloseEvent) => {
    isClosed = true;
    for (const resolve of pending.values()) resolve(fail('disconnected', 'The connection to AgentDesk was lost. Restart the app.'));
    pending.clear();
    markConnected(false);
    markClosed(event.code);
  });

  return {
    closed,
    connected,
    async invoke(channel, request) {
      // Read now, inside the click or key handler that made the call (it lasts a few seconds), not after waiting for the socket.
      const activation = navigator.userActivation?.isActive === true;
      await ready;
      if (isClosed) return fail('disconnected', 'The connection to AgentDesk was lost. Restart the app.');
      const id = nextId++;
      let frame: string | Uint8Array<ArrayBuffer>;
      try {
        // A request holding bytes (a camera frame) goes as one binary frame, the bytes as they are.
        frame = encodeWireFrame({ t: 'call', id, channel, payload: request, activation });
      } catch (error) {
        return fail('invalid_request', error instanceof RangeError ? error.message : 'The request could not be sent.');
      }
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(frame);
      });
    },
    subscribe(channel, listener): Unsubscribe {
      const channelListeners = listeners.get(channel) ?? new Listeners<[unknown]>();
      listeners.set(channel, channelListeners);
      return channelListeners.subscribe(listener);
    },
  };
}
