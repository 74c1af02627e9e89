import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import { startLoopbackServer, type TestServer } from './loopback-server';

export { json, manifestFor, type TestServer } from './loopback-server';

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A real HTTP server on 127.0.0.1 with a hand-written handler (hostile servers, fixtures), closed after each test. */
export async function startServer(handler: (request: IncomingMessage, response: ServerResponse, server: TestServer) => void): Promise<TestServer> {
  const server = await startLoopbackServer(handler);
  open.push(server);
  return server;
}

/**
 * A server that sends its answer too slowly: the headers at once, then `body` one byte every `everyMs`
 * (each byte well inside any idle timeout), until the body is out or the client goes away.
 */
export function trickle(response: ServerResponse, body: string, options: { everyMs?: number; contentType?: string } = {}): void {
  const bytes = Buffer.from(body);
  response.writeHead(200, { 'Content-Type': options.contentType ?? 'application/json', 'Content-Length': bytes.length });
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed || sent >= bytes.length) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    response.write(bytes.subarray(sent, sent + 1));
    sent += 1;
  }, options.everyMs ?? 200);
  response.on('close', () => clearInterval(timer));
}
