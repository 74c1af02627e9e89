import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A WebSocket "agent" on 127.0.0.1 whose behaviour each test writes by hand: hostile frames,
 * refusals at the upgrade, silence. It records what the client sent and how it upgraded.
 */
export interface ScriptedAgent {
  /** ws://127.0.0.1:<port>/agui */
  url: string;
  port: number;
  /** Text frames received from the client, parsed as JSON where possible. */
  received: unknown[];
  /** The upgrade requests: path (with query) and Authorization header. */
  upgrades: { path: string; authorization?: string }[];
  /** Resolves with the next client socket. */
  nextSocket(): Promise<WebSocket>;
  /** Resolves once `count` frames were received. */
  waitForFrames(count: number): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface ScriptedAgentOptions {
  /** Answer the upgrade with this HTTP status instead of accepting it. */
  refuseWith?: number;
  /** Called for each accepted socket. */
  onConnection?: (socket: WebSocket, request: IncomingMessage) => void;
  /** Do not answer pings (ws answers them automatically otherwise). */
  ignorePings?: boolean;
  /** Serve this A2A Agent Card at /.well-known/agent-card.json (`{{agui}}` in strings becomes this agent's ws:// URL's http:// form). */
  card?: unknown;
}

const open: ScriptedAgent[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((agent) => agent.close()));
});

export async function startScriptedAgent(options: ScriptedAgentOptions = {}): Promise<ScriptedAgent> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    if (options.card !== undefined && request.url === '/.well-known/agent-card.json') {
      const { port } = server.address() as AddressInfo;
      const body = JSON.stringify(options.card).replaceAll('{{agui}}', `http://127.0.0.1:${port}/agui`);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
      return;
    }
    response.writeHead(404).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true, autoPong: !options.ignorePings });
  const received: unknown[] = [];
  const upgrades: ScriptedAgent['upgrades'] = [];
  const socketWaiters: ((socket: WebSocket) => void)[] = [];
  const pendingSockets: WebSocket[] = [];
  const frameWaiters: { count: number; resolve: (frames: unknown[]) => void }[] = [];
  const checkFrames = () => {
    for (const waiter of [...frameWaiters]) {
      if (received.length >= waiter.count) {
        frameWaiters.splice(frameWaiters.indexOf(waiter), 1);
        waiter.resolve(received.slice());
      }
    }
  };
  server.on('upgrade', (request, socket, head) => {
    upgrades.push({ path: request.url ?? '', ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
    if (options.refuseWith !== undefined) {
      socket.end(`HTTP/1.1 ${options.refuseWith} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '<binary>' : (data as Buffer).toString('utf8');
        try {
          received.push(JSON.parse(text));
        } catch {
          received.push(text);
        }
        checkFrames();
      });
      options.onConnection?.(ws, request);
      const waiter = socketWaiters.shift();
      if (waiter) waiter(ws);
      else pendingSockets.push(ws);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const agent: ScriptedAgent = {
    url: `ws://127.0.0.1:${port}/agui`,
    port,
    received,
    upgrades,
    nextSocket: () => {
      const ready = pendingSockets.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => socketWaiters.push(resolve));
    },
    waitForFrames: (count) =>
      new Promise((resolve) => {
        frameWaiters.push({ count, resolve });
        checkFrames();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        for (const socket of sockets) socket.destroy();
        wss.close();
        server.close(() => resolve());
      }),
  };
  open.push(agent);
  return agent;
}
