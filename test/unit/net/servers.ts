import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { NetError, type NetPolicy } from '../../../src/main/net/guarded-fetch';

/** What a test server saw of one request. */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestHttpServer {
  /** http://127.0.0.1:port */
  origin: string;
  port: number;
  requests: Recorded[];
}

export interface TestRawServer {
  port: number;
  /** TCP connections accepted. */
  connections: number;
  /** The first bytes each connection sent (for TLS: the ClientHello, with the SNI name in clear). */
  firstData: Buffer[];
}

type Handler = (request: Recorded, res: ServerResponse, req: IncomingMessage) => void;

/**
 * Servers on 127.0.0.1:0 that are closed (with all their connections) after each test.
 * `http` records each request (with its body) before calling the handler; `raw` hands over bare sockets.
 */
export function useServers() {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function http(handler: Handler): Promise<TestHttpServer> {
    const requests: Recorded[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
        requests.push(recorded);
        handler(recorded, res, req);
      });
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, port, requests };
  }

  async function raw(onSocket: (socket: Socket, firstData: Buffer) => void = () => undefined): Promise<TestRawServer> {
    const sockets = new Set<Socket>();
    const state: TestRawServer = { port: 0, connections: 0, firstData: [] };
    const server = createNetServer((socket) => {
      state.connections++;
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
      socket.once('data', (data) => {
        state.firstData.push(data);
        onSocket(socket, data);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    state.port = (server.address() as AddressInfo).port;
    return state;
  }

  return { http, raw };
}

/** A resolver that answers from a table (a name → addresses, or a function per call) and counts calls. */
export function fakeDns(table: Record<string, string[] | ((call: number) => string[])>) {
  const calls: string[] = [];
  const lookup: NonNullable<NetPolicy['lookup']> = async (hostname) => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = typeof entry === 'function' ? entry(calls.filter((name) => name === hostname).length) : entry;
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return { calls, lookup };
}

/** The NetError a promise rejected with (fails the test when it resolved or threw something else). */
export async function netError(promise: Promise<unknown>): Promise<NetError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof NetError) return error;
    throw error;
  }
  throw new Error('expected a NetError, but the promise resolved');
}

/** A port on 127.0.0.1 where nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function nextTurn(ms = 10): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
