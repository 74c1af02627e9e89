import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  decodeWireFrame,
  encodeWireFrame,
  maxPageFrameBytes,
  pageFrameSchema,
  webShellCloseCodes,
  webShellIpcPath,
  webShellProtocol,
  webShellSessionFragment,
  webShellSessionProtocolPrefix,
  type PageFrame,
} from '../../shared/ipc/web-shell-protocol';
import { fail } from '../../shared/base/errors';
import type { CallContext } from '../ipc/dispatcher';
import { pageSecurityHeaders } from '../platform/content-security-policy';
import type { Logger } from '../platform/logger';
import { readStaticFile } from '../platform/static-files';
import type { AppServices } from '../app/app-services';

export interface WebShellOptions {
  /** The built renderer (out/renderer). */
  rendererDir: string;
  services: AppServices;
  log: Logger;
  /** 0 (default) picks a free port. */
  port?: number;
  /** How long a launch code stays usable if nobody opens it (default 2 minutes). */
  launchCodeTtlMs?: number;
  /** How long a session lives while no page is connected to it (default defaultSessionGraceMs). */
  sessionGraceMs?: number;
  /** Open connections at most besides the pages' sockets (default defaultMaxConnections). */
  maxConnections?: number;
  /** How soon a connection without a whole request, or one where nothing moves, is closed (default defaultIdleCloseMs). */
  idleCloseMs?: number;
}

export interface WebShell {
  /** http://127.0.0.1:PORT — the page's origin. */
  origin: string;
  /** The first launch URL (see newLaunchUrl): `npm start` opens or prints it. */
  launchUrl: string;
  /**
   * A fresh launch URL, `origin/launch?code=…`: the code works once, within launchCodeTtlMs.
   * The first browser to open it gets a session; any later request with it gets none.
   */
  newLaunchUrl(): string;
  /** Resolves when a launch code was first exchanged for a session. */
  launched: Promise<void>;
  close(): Promise<void>;
}

/** How long a launch code works if nobody opens it. */
export const defaultLaunchCodeTtlMs = 120_000;
/** Pending launch codes at most (each newLaunchUrl adds one; used and expired ones go). */
const maxLaunchCodes = 4;
const launchPath = '/launch';
/**
 * A session ends when no page has been connected to it for this long: time for the first page to
 * load after the launch, for a reload, and for the page watchdog to bring a crashed page back.
 * There is no bound while a page is connected (a kiosk runs for weeks, a desk for a working day).
 */
export const defaultSessionGraceMs = 60_000;
/**
 * Connections at most besides the pages' sockets: the page loads with a few (Chromium opens up to
 * 6 per host). One more closes the oldest, so a flood cannot use up the process's file descriptors
 * (about 20,000 held connections did: settings could not be saved) nor keep the page out.
 */
export const defaultMaxConnections = 64;
/**
 * A connection that has not sent a whole request within about this long, or where nothing moves
 * (a client that does not read its answer), is closed; after its answer a connection closes at once
 * (no keep-alive). Measured with Node 20: a silent, a header-trickling and a body-trickling
 * connection close ~1.0 s after they opened, one not reading a 30 MiB answer within 2 s; with
 * Node's defaults (headersTimeout 10 s, checked every 30 s) they stayed 30 s, idle keep-alive 6 s.
 */
export const defaultIdleCloseMs = 1000;
/** Logged at most this often while connections over the cap are being closed. */
const floodWarningEveryMs = 10_000;

interface Session {
  secret: string;
  /** The page connected now (one at a time). */
  page?: WebSocket;
  /** Since when no page is connected (the launch, or when the last page's socket closed). */
  idleSince: number;
}

/**
 * Hosts the app page on 127.0.0.1 and gives it the same API as the Electron preload, over a
 * WebSocket. Only the page that opened the launch URL may drive it:
 * - the launch URL carries a one-time code (never a long-lived secret; never on a command line:
 *   main hands it to Chromium in a file only the user can read). GET /launch?code=… exchanges it,
 *   once and within a short time, for a new session: a redirect to `/#session=SECRET`. A fragment
 *   is never sent to a server; the page's bridge moves SECRET into its tab's sessionStorage, which
 *   no other origin (another port included) can read or set, and out of the address bar. No
 *   cookie: cookies ignore ports, so a server on another port of 127.0.0.1 would receive or
 *   overwrite it. A spent, expired or wrong code gets the page without a session;
 * - the WebSocket upgrade must offer SECRET as a subprotocol (`agentdesk.session.SECRET` beside
 *   `agentdesk`, the only protocol answered), otherwise it is refused (401) before any frame is
 *   read: there are no unauthenticated sockets. One page at a time: a newer socket of the session
 *   replaces the older one. A session with no page connected for sessionGraceMs ends;
 * - the Host header must be this shell's own address (defeats DNS rebinding) and the upgrade's
 *   Origin must be this shell's origin (defeats other web pages), otherwise 403;
 * - every other connection is short-lived: closed after its answer, or after idleCloseMs without a
 *   whole request or without progress, and at most maxConnections of them (one more closes the oldest).
 */
export async function startWebShell(options: WebShellOptions): Promise<WebShell> {
  const { services, log } = options;
  const launchCodeTtlMs = options.launchCodeTtlMs ?? defaultLaunchCodeTtlMs;
  const sessionGraceMs = options.sessionGraceMs ?? defaultSessionGraceMs;
  const maxConnections = options.maxConnections ?? defaultMaxConnections;
  const idleCloseMs = options.idleCloseMs ?? defaultIdleCloseMs;
  /** code → when it stops working. */
  const launchCodes = new Map<string, number>();
  /** Sessions handed out by a code exchange. */
  const sessions = new Set<Session>();
  const sockets = new Set<WebSocket>();
  /** Open connections other than the pages' sockets, oldest first. */
  const connections = new Set<Socket>();
  let lastFloodWarning = -Infinity;
  let markLaunched: () => void = () => undefined;
  const launched = new Promise<void>((resolve) => (markLaunched = resolve));
  // The page's socket answers with the fixed protocol name only (offering it is checked in sessionOf), never the secret.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPageFrameBytes, perMessageDeflate: false, handleProtocols: () => webShellProtocol });
  // Node checks headersTimeout and requestTimeout only every connectionsCheckingInterval (30 s by default).
  const checkEveryMs = Math.max(10, Math.round(idleCloseMs / 4));
  const server = createServer({ connectionsCheckingInterval: checkEveryMs }, (request, response) => {
    // No keep-alive: a connection closes once its answer is sent, so none sits idle between requests.
    response.setHeader('Connection', 'close');
    void serveFile(request, response);
  });
  server.headersTimeout = idleCloseMs - checkEveryMs;
  server.requestTimeout = idleCloseMs - checkEveryMs;
  // Nothing read or written for this long (a client not reading its answer): closed.
  server.timeout = idleCloseMs;
  let origin = '';
  let hostHeader = '';

  server.on('connection', (socket: Socket) => {
    if (connections.size >= maxConnections) {
      const oldest = connections.values().next().value as Socket;
      connections.delete(oldest);
      oldest.destroy();
      if (Date.now() - lastFloodWarning >= floodWarningEveryMs) {
        lastFloodWarning = Date.now();
        log.warn('webshell', `more than ${maxConnections} connections at once (another program on this computer?): closing the oldest`);
      }
    }
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== webShellIpcPath || request.headers.host !== hostHeader || request.headers.origin !== origin) {
      log.warn('webshell', 'refused a WebSocket connection that is not from the app page');
      return refuseUpgrade(socket, '403 Forbidden');
    }
    const session = sessionOf(request);
    if (session === undefined) {
      log.warn('webshell', 'refused a WebSocket connection without a session of this shell (no secret, a wrong one, or one that ended)');
      return refuseUpgrade(socket, '401 Unauthorized');
    }
    // The page's socket: no longer one of the short-lived connections (ws turns its idle timeout off).
    connections.delete(socket as Socket);
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws, session));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hostHeader = `127.0.0.1:${port}`;
  origin = `http://${hostHeader}`;

  function newLaunchUrl(): string {
    const now = Date.now();
    for (const [code, expires] of launchCodes) if (expires <= now) launchCodes.delete(code);
    while (launchCodes.size >= maxLaunchCodes) launchCodes.delete(launchCodes.keys().next().value as string);
    const code = randomBytes(32).toString('base64url');
    launchCodes.set(code, now + launchCodeTtlMs);
    return `${origin}${launchPath}?code=${code}`;
  }

  /** GET /launch?code=…: the one exchange of a code for a new session, then the page with its secret in the fragment. */
  function exchange(request: IncomingMessage, response: ServerResponse): void {
    const code = new URL(request.url ?? '/', origin).searchParams.get('code') ?? '';
    const found = [...launchCodes.keys()].find((candidate) => sameSecret(code, candidate));
    const headers: Record<string, string> = { Location: '/', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'Content-Length': '0' };
    const valid = found !== undefined && (launchCodes.get(found) ?? 0) > Date.now();
    if (found !== undefined) launchCodes.delete(found);
    if (valid) {
      const secret = randomBytes(32).toString('base64url');
      sessions.add({ secret, idleSince: Date.now() });
      headers.Location = `/#${webShellSessionFragment}=${secret}`;
      markLaunched();
    } else {
      log.warn('webshell', 'refused a launch link that was already used, has expired or was never issued');
    }
    response.writeHead(303, headers);
    response.end();
  }

  /** The live session whose secret the upgrade offers beside the fixed protocol name; sessions without a page for too long end here. */
  function sessionOf(request: IncomingMessage): Session | undefined {
    const now = Date.now();
    for (const session of sessions) {
      if (session.page === undefined && now - session.idleSince >= sessionGraceMs) {
        sessions.delete(session);
        log.info('webshell', `a session ended: no page was connected to it for ${Math.round(sessionGraceMs / 1000)} s`);
      }
    }
    const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim());
    if (!offered.includes(webShellProtocol)) return undefined;
    const given = offered
      .filter((protocol) => protocol.startsWith(webShellSessionProtocolPrefix))
      .map((protocol) => protocol.slice(webShellSessionProtocolPrefix.length));
    return [...sessions].find((session) => given.some((secret) => sameSecret(secret, session.secret)));
  }

  async function serveFile(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.host !== hostHeader) return void end(response, 421, 'Misdirected request');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void end(response, 405, 'Method not allowed');
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === launchPath && request.method === 'GET') return exchange(request, response);
    const file = await readStaticFile(options.rendererDir, path);
    if (!file) return void end(response, 404, 'Not found');
    response.writeHead(200, {
      ...pageSecurityHeaders,
      'Content-Type': file.contentType,
      'Content-Length': file.body.length,
      'Cache-Control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
  }

  function accept(ws: WebSocket, session: Session): void {
    // One page per session: a reload's new socket (or a duplicated tab, which the browser gives a copy of the secret) replaces the older one.
    session.page?.close(webShellCloseCodes.replaced, 'replaced by a newer page');
    session.page = ws;
    sockets.add(ws);
    // Text for plain frames, one binary frame for those that carry bytes (an event's audio, say).
    const send = (frame: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      try {
        ws.send(encodeWireFrame(frame));
      } catch (error) {
        // Only what a binary frame cannot carry (encodeWireFrame's RangeError); a call still gets its answer.
        log.error('webshell', 'a frame for the page could not be encoded', error);
        const id = (frame as { t?: unknown; id?: unknown }).t === 'result' ? (frame as { id: number }).id : undefined;
        if (id !== undefined)
          ws.send(JSON.stringify({ t: 'result', id, result: fail('internal', 'The answer could not be sent to the page. Details are in the app log.') }));
      }
    };
    const disconnectEvents = services.events.connect((channel, payload) => send({ t: 'event', channel, payload }));
    send({ t: 'ready' });

    // ws refuses frames over maxPageFrameBytes (closing with 1009) before this sees them.
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const frame = parseFrame(data, isBinary);
      if (!frame.ok) {
        log.warn('webshell', `closed the page socket: ${frame.reason}`);
        return ws.close(webShellCloseCodes.badFrame, `bad frame: ${frame.reason}`.slice(0, 120));
      }
      // The web shell sees no input events; the page's bridge reports its transient user activation per call.
      const { id, channel, payload, activation } = frame.value;
      const context: CallContext = { hasRecentUserGesture: () => activation === true };
      void services.dispatcher.dispatch(channel, payload, context).then((result) => send({ t: 'result', id, result }));
    });
    ws.on('close', () => {
      disconnectEvents();
      sockets.delete(ws);
      if (session.page !== ws) return;
      session.page = undefined;
      session.idleSince = Date.now();
    });
    ws.on('error', (error) => log.warn('webshell', 'page socket error', error));
  }

  return {
    origin,
    launchUrl: newLaunchUrl(),
    newLaunchUrl,
    launched,
    close: async () => {
      for (const ws of sockets) ws.close(webShellCloseCodes.goingAway, 'shutting down');
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A page's frame: JSON text, or a binary frame whose bytes stay views of what arrived (no copy). */
function parseFrame(data: RawData, isBinary: boolean): { ok: true; value: PageFrame } | { ok: false; reason: string } {
  const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  const decoded = decodeWireFrame(isBinary ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : buffer.toString());
  if (!decoded.ok) return decoded;
  const parsed = pageFrameSchema.safeParse(decoded.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: 'not a call of the web shell protocol' };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Answers and closes at once: a refused client that never closes its end holds nothing here. */
function refuseUpgrade(socket: Duplex, status: string): void {
  // Node's own error listener left the socket with the upgrade; a reset now must not throw.
  socket.on('error', () => undefined);
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
}

function end(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}
