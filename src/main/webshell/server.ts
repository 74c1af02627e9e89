import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { maxPageFrameBytes, pageFrameSchema, webShellCloseCodes, webShellIpcPath } from '../../shared/ipc/web-shell-protocol';
import type { CallContext } from '../ipc/dispatcher';
import { pageSecurityHeaders } from '../platform/content-security-policy';
import type { Logger } from '../platform/logger';
import { readStaticFile } from '../platform/static-files';
import type { AppServices } from '../services/app-services';

export interface WebShellOptions {
  /** The built renderer (out/renderer). */
  rendererDir: string;
  services: AppServices;
  log: Logger;
  /** 0 (default) picks a free port. */
  port?: number;
  /** How long a new socket has to say hello with the secret. */
  helloTimeoutMs?: number;
}

export interface WebShell {
  /** http://127.0.0.1:PORT — the page's origin. */
  origin: string;
  /** The URL to open: the origin plus the launch secret in the fragment (never sent to any server). */
  launchUrl: string;
  close(): Promise<void>;
}

/**
 * Hosts the app page on 127.0.0.1 and gives it the same API as the Electron preload, over a
 * WebSocket. Only the page this shell served may drive it:
 * - the launch secret travels in the URL fragment, which browsers never send over the network;
 *   the page sends it as its first frame; without it the socket is closed (4401);
 * - the Host header must be this shell's own address (defeats DNS rebinding) and the upgrade's
 *   Origin must be this shell's origin (defeats other web pages and local tools without a browser
 *   origin), otherwise the upgrade is refused with 403.
 */
export async function startWebShell(options: WebShellOptions): Promise<WebShell> {
  const { services, log } = options;
  const secret = randomBytes(32).toString('base64url');
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPageFrameBytes, perMessageDeflate: false });
  const server = createServer((request, response) => void serveFile(request, response));
  let origin = '';
  let hostHeader = '';

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== webShellIpcPath || request.headers.host !== hostHeader || request.headers.origin !== origin) {
      log.warn('webshell', 'refused a WebSocket connection that is not from the app page');
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hostHeader = `127.0.0.1:${port}`;
  origin = `http://${hostHeader}`;

  async function serveFile(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.host !== hostHeader) return void end(response, 421, 'Misdirected request');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void end(response, 405, 'Method not allowed');
    const path = (request.url ?? '/').split('?')[0] ?? '/';
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

  function accept(ws: WebSocket): void {
    sockets.add(ws);
    let disconnectEvents: (() => void) | undefined;
    const helloTimer = setTimeout(() => ws.close(webShellCloseCodes.unauthorized, 'no hello'), options.helloTimeoutMs ?? 5000);
    const send = (frame: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const frame = isBinary ? undefined : parseFrame(data);
      if (!frame) return ws.close(webShellCloseCodes.badFrame, 'bad frame');
      if (disconnectEvents === undefined) {
        if (frame.t !== 'hello' || !sameSecret(frame.secret, secret)) return ws.close(webShellCloseCodes.unauthorized, 'unauthorized');
        clearTimeout(helloTimer);
        disconnectEvents = services.events.connect((channel, payload) => send({ t: 'event', channel, payload }));
        return send({ t: 'ready' });
      }
      if (frame.t !== 'call') return ws.close(webShellCloseCodes.badFrame, 'unexpected hello');
      // The web shell sees no input events; the page's bridge reports its transient user activation per call.
      const context: CallContext = { hasRecentUserGesture: () => frame.activation === true };
      void services.dispatcher.dispatch(frame.channel, frame.payload, context).then((result) => send({ t: 'result', id: frame.id, result }));
    });
    ws.on('close', () => {
      clearTimeout(helloTimer);
      disconnectEvents?.();
      sockets.delete(ws);
    });
    ws.on('error', (error) => log.warn('webshell', 'page socket error', error));
  }

  return {
    origin,
    launchUrl: `${origin}/#k=${secret}`,
    close: async () => {
      for (const ws of sockets) ws.close(webShellCloseCodes.goingAway, 'shutting down');
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseFrame(data: RawData) {
  try {
    const parsed = pageFrameSchema.safeParse(JSON.parse(data.toString()));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function end(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}
