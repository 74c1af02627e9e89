import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 with a hand-written handler, without vitest: benchmarks use it
 * directly and close it themselves; tests use `startServer` (http-server.ts), which closes it after each test.
 */
export interface TestServer {
  url: string;
  origin: string;
  /** Every request seen: method, path and the Authorization header (to prove where tokens went). */
  requests: { method: string; path: string; authorization?: string }[];
  close(): Promise<void>;
}

export async function startLoopbackServer(handler: (request: IncomingMessage, response: ServerResponse, server: TestServer) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    record.requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    });
    handler(request, response, record);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const record: TestServer = {
    url: `http://127.0.0.1:${port}/`,
    origin: `http://127.0.0.1:${port}`,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return record;
}

/** A minimal Talkie manifest for `origin`, with overrides. */
export function manifestFor(origin: string, overrides: Record<string, unknown> = {}) {
  return {
    spec: 'talkie/1',
    issuer: origin,
    serverId: 'hostile.test',
    name: 'Hostile test server',
    auth: { oauth: { issuer: `${origin}/oauth` }, token: {} },
    endpoints: {
      run: '/run',
      threads: '/threads',
      thread: '/threads/{threadId}',
      cancelRun: '/runs/{runId}/cancel',
      status: '/status',
      action: '/actions/{actionId}',
      decision: '/actions/{actionId}/decision',
    },
    testMode: true,
    ...overrides,
  };
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
