import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback redirect receiver of RFC 8252 §7.3: `http://127.0.0.1:<random port><path>`.
 * - listens on 127.0.0.1 only, on a port the OS picks;
 * - answers only `GET <path>` whose Host is exactly `127.0.0.1:<port>` (a page elsewhere cannot
 *   reach it through DNS rebinding); anything else gets 404/405/400 and does not count;
 * - takes one callback: it answers the browser with a short static page (no script), hands the
 *   query to `onCallback`, and closes, so a second callback finds nothing listening.
 */
export interface CallbackReceiver {
  /** `http://127.0.0.1:<port><path>`, the redirect_uri of this flow. */
  readonly redirectUri: string;
  /** Stops listening (idempotent). */
  close(): void;
}

export const callbackPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>AgentDesk sign-in</title>
<style>body{font:16px system-ui,sans-serif;margin:15vh auto;max-width:32em;padding:0 1em;text-align:center;color:#222}</style>
</head>
<body><h1>AgentDesk</h1><p>You can close this window and return to AgentDesk.</p></body>
</html>
`;

const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  Connection: 'close',
};

export async function startLoopbackReceiver(options: { path: string; onCallback(params: URLSearchParams): void }): Promise<CallbackReceiver> {
  let handled = false;
  let closed = false;
  const server = createServer((req, res) => {
    const verdict = check(req);
    if (verdict !== 200) {
      res.writeHead(verdict, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' }).end();
      return;
    }
    if (handled) {
      res.writeHead(410, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('This sign-in has already been answered.\n');
      return;
    }
    handled = true;
    const params = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    res.on('finish', close);
    res.writeHead(200, pageHeaders).end(callbackPage);
    options.onCallback(params);
  });
  const close = () => {
    if (closed) return;
    closed = true;
    server.close();
    server.closeAllConnections();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;

  function check(req: IncomingMessage): 200 | 400 | 404 | 405 {
    if (req.headers.host !== host) return 400;
    const path = (req.url ?? '').split('?')[0];
    if (path !== options.path) return 404;
    if (req.method !== 'GET') return 405;
    return 200;
  }

  return { redirectUri: `http://${host}${options.path}`, close };
}
