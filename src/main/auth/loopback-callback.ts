import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback redirect receiver of RFC 8252 §7.3: `http://127.0.0.1:<random port><path>`.
 * - listens on 127.0.0.1 only, on a port the OS picks;
 * - answers only `GET <path>` whose Host is exactly `127.0.0.1:<port>` (a page elsewhere cannot
 *   reach it through DNS rebinding); anything else gets 404/405/400 and does not count;
 * - hands each such request's query to `onCallback`, which says whether it is the answer the
 *   sign-in waits for (its `state`). The answer gets a short static page (no script) and the
 *   listener closes, so a second callback finds nothing listening. Any other request is answered
 *   (400, no page) and ignored: the listener keeps waiting. The port is visible to every local
 *   user (`/proc/net/tcp`) and the path is the registered one, so another user can send a
 *   callback first; it must not end the sign-in.
 *
 * The path is the one registered for the client (`/oauth/callback`), with no random segment:
 * OAuth 2.1 and RFC 8252 §7.3 let only the port of a loopback redirect URI vary, and an AS that
 * follows them (oidc-provider, the demo's) refuses any other path with `invalid_redirect_uri`.
 * What no other user can guess is the `state` (32 random bytes), which the caller checks.
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

export const ignoredCallbackText = 'This answer does not belong to the sign-in AgentDesk is waiting for; it was ignored.\n';

export async function startLoopbackReceiver(options: {
  path: string;
  /** True: this is the answer (it gets the page, the listener closes); false: it is answered and ignored. */
  onCallback(params: URLSearchParams): boolean;
}): Promise<CallbackReceiver> {
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
    const params = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    if (!options.onCallback(params)) {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' }).end(ignoredCallbackText);
      return;
    }
    handled = true;
    res.on('finish', close);
    res.writeHead(200, pageHeaders).end(callbackPage);
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
