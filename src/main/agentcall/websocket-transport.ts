import { TransportError, type AgentCallConnection, type TransportClose } from './connection';
import { ConnectionSignals, outgoingFrame } from './connection-signals';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { maxFrameBytes, type ClientMessage } from '../../shared/agentcall/protocol';
import type { NetPolicy } from '../net/address-policy';
import { describeUrl, formatDuration, NetError } from '../net/net-error';
import { pinnedLookup, resolveGuardedAddress } from '../net/websocket-guard';
import type { Logger } from '../platform/logger';

/**
 * The AgentCall `agentcall-agui-ws-0.1` transport: one WebSocket to the agent's AG-UI URL.
 *
 * - The URL is checked by the guarded network layer before connecting (scheme, DNS once, IP class)
 *   and the socket connects to exactly the checked address; redirects are never followed.
 * - A bearer token goes only in the upgrade's Authorization header, never in the URL.
 * - Frames from the agent: at most 128 KiB (ws enforces `maxPayload` before anything is parsed,
 *   closing with 1009), UTF-8 text only (a binary frame closes the session with 1003).
 * - A ping every 30 s; an agent that answers none of two pings in a row is considered gone.
 */

export interface ConnectOptions {
  /** ws:// or wss:// (derived from the card's AG-UI URL). */
  url: string;
  policy: NetPolicy;
  /** Sent as `Authorization: Bearer …` on the upgrade request only. */
  bearerToken?: string;
  log: Logger;
  /** Resolve + connect + TLS + upgrade (default 10 s). */
  handshakeTimeoutMs?: number;
  /** Ping interval (default 30 s). */
  pingIntervalMs?: number;
}

export const defaultHandshakeTimeoutMs = 10_000;
export const defaultPingIntervalMs = 30_000;

export async function connectAgentCall(options: ConnectOptions): Promise<AgentCallConnection> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new NetError('invalid_url', 'The agent’s AG-UI address is not a valid URL.');
  }
  if (url.username !== '' || url.password !== '') throw new NetError('invalid_url', 'The agent’s AG-UI address must not contain a user name or password.');
  const checked = await resolveGuardedAddress(url, options.policy);
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? defaultHandshakeTimeoutMs;
  const headers: Record<string, string> = {};
  if (options.bearerToken !== undefined) headers.Authorization = `Bearer ${options.bearerToken}`;
  const socket = new WebSocket(url, {
    lookup: pinnedLookup(url.hostname, checked),
    followRedirects: false,
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
    handshakeTimeout: handshakeTimeoutMs,
    headers,
  });
  const where = describeUrl(url);

  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      socket.removeAllListeners('open');
      socket.terminate();
      reject(error);
    };
    socket.once('open', () => {
      socket.removeAllListeners('unexpected-response');
      socket.removeAllListeners('error');
      resolve();
    });
    socket.on('unexpected-response', (_request, response: IncomingMessage) => {
      response.resume();
      fail(upgradeRefused(response.statusCode ?? 0, url));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      fail(connectError(error, url, handshakeTimeoutMs));
    });
  });
  options.log.info('agentcall', `connected to ${where}`);
  return new Connection(socket, options);
}

function upgradeRefused(status: number, url: URL): TransportError {
  const host = url.host;
  if (status === 401) return new TransportError('sign_in_required', `${host} asks you to sign in before it opens a session (HTTP 401).`);
  if (status === 403) return new TransportError('not_allowed', `${host} refused the session (HTTP 403).`);
  if (status >= 300 && status < 400)
    return new TransportError('connect_failed', `${host} answered with a redirect (HTTP ${status}); AgentDesk does not follow redirects for agent sessions.`);
  return new TransportError('server_error', `${host} did not accept the WebSocket session (HTTP ${status}).`);
}

function connectError(error: NodeJS.ErrnoException, url: URL, timeoutMs: number): Error {
  if (error instanceof NetError) return error;
  const message = error.message ?? '';
  if (/timed out/i.test(message))
    return new NetError('connect_timeout', `Could not connect to ${url.host} within ${formatDuration(timeoutMs)}.`, describeUrl(url));
  if (error.code === 'ENOTFOUND') return new NetError('dns_failed', `${url.hostname} could not be resolved.`, describeUrl(url));
  if (/certificate|SSL|TLS/i.test(message) || (error.code ?? '').startsWith('ERR_TLS') || (error.code ?? '').includes('CERT')) {
    return new NetError('tls_failed', `The secure connection to ${url.host} failed (${error.code ?? 'TLS error'}).`, describeUrl(url));
  }
  return new NetError('connect_failed', `Could not connect to ${url.host} (${error.code ?? 'connection failed'}).`, describeUrl(url));
}

class Connection implements AgentCallConnection {
  private readonly signals = new ConnectionSignals();
  private localError: TransportError | undefined;
  /** The code this side closed with because of a rule (reported instead of what the agent answered). */
  private localCode: number | undefined;
  private awaitingPong = 0;
  private readonly pingTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: ConnectOptions,
  ) {
    socket.on('message', (data, isBinary) => {
      if (this.signals.closed || this.localError) return;
      if (isBinary) {
        this.fail(
          new TransportError('binary_frame', 'The agent sent a binary frame; AgentCall 0.1 sessions carry JSON text only.'),
          1003,
          'binary frames are not accepted',
        );
        return;
      }
      const frame = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data).toString('utf8');
      this.signals.frame(frame);
    });
    socket.on('pong', () => {
      this.awaitingPong = 0;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        this.localError ??= new TransportError('frame_too_large', `The agent sent a frame larger than ${maxFrameBytes / 1024} KiB; the session was closed.`);
        this.localCode ??= 1009; // ws has sent this close code itself
      } else {
        this.localError ??= new TransportError('connect_failed', `The connection to the agent failed (${error.code ?? 'error'}).`);
      }
    });
    socket.on('close', (code, reasonBuffer) => this.finish(code, reasonBuffer.toString('utf8')));
    this.pingTimer = setInterval(() => {
      if (this.awaitingPong >= 2) {
        this.fail(new TransportError('not_responding', 'The agent stopped answering; the session was closed.'), 1001, 'no answer to pings');
        socket.terminate();
        return;
      }
      this.awaitingPong += 1;
      try {
        socket.ping();
      } catch {
        // Closing already; the close handler reports it.
      }
    }, options.pingIntervalMs ?? defaultPingIntervalMs);
    this.pingTimer.unref?.();
  }

  get isOpen(): boolean {
    return this.signals.closed === undefined && this.socket.readyState === WebSocket.OPEN;
  }

  send(message: ClientMessage): void {
    if (!this.isOpen) throw new TransportError('connect_failed', 'The session is closed.');
    this.socket.send(outgoingFrame(message));
  }

  close(code = 1000, reason = ''): void {
    if (this.signals.closed) return;
    this.socket.close(code, reason);
    // An agent that never answers the close frame is cut off after a short grace period.
    setTimeout(() => this.socket.terminate(), 2_000).unref?.();
  }

  onFrame(listener: (frame: string) => void): () => void {
    return this.signals.onFrame(listener);
  }

  onClose(listener: (close: TransportClose) => void): () => void {
    return this.signals.onClose(listener);
  }

  private fail(error: TransportError, code: number, reason: string): void {
    this.localError ??= error;
    this.localCode ??= code;
    this.options.log.warn('agentcall', `closing the session: ${error.code}`);
    this.socket.close(code, reason);
    setTimeout(() => this.socket.terminate(), 2_000).unref?.();
  }

  private finish(code: number, reason: string): void {
    if (this.signals.closed) return;
    clearInterval(this.pingTimer);
    this.signals.end({ code: this.localCode ?? code, reason: reason.slice(0, 123), ...(this.localError ? { error: this.localError } : {}) }, () =>
      this.options.log.info('agentcall', `session connection closed (${code})`),
    );
  }
}
