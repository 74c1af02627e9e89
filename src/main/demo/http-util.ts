import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TalkieErrorBody } from './talkie-types';

/** A Talkie 1 §3 error: thrown anywhere in a handler, turned into `{ error: { code, message, retryable } }` with `status`. */
export class TalkieHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryable = false,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'TalkieHttpError';
  }
}

export const httpErrors = {
  invalid: (message: string) => new TalkieHttpError(400, 'invalid_request', message),
  unauthorized: (message: string, invalidToken: boolean) =>
    new TalkieHttpError(401, 'unauthorized', message, false, {
      'WWW-Authenticate': invalidToken ? 'Bearer realm="talkie", error="invalid_token"' : 'Bearer realm="talkie"',
    }),
  notFound: (message = 'Not found.') => new TalkieHttpError(404, 'not_found', message),
  /** Talkie 1 §3 has no code for 405; `invalid_request` is the closest ("malformed input"). */
  method: (allowed: readonly string[]) =>
    new TalkieHttpError(405, 'invalid_request', `Use ${allowed.join(' or ')} here.`, false, { Allow: allowed.join(', ') }),
  conflict: (message: string) => new TalkieHttpError(409, 'conflict', message),
  stale: (message: string) => new TalkieHttpError(409, 'stale', message),
  expired: (message: string) => new TalkieHttpError(410, 'expired', message),
  tooLarge: (message: string, closeConnection = false) => new TalkieHttpError(413, 'too_large', message, false, closeConnection ? { Connection: 'close' } : {}),
  quota: (message: string) => new TalkieHttpError(429, 'quota_exceeded', message, false),
  internal: (message = 'Something went wrong in the demo server.') => new TalkieHttpError(500, 'internal', message, true),
};

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  response.end(text);
}

export function sendError(response: ServerResponse, error: TalkieHttpError): void {
  const body: TalkieErrorBody = { error: { code: error.code, message: error.message, retryable: error.retryable } };
  sendJson(response, error.status, body, error.headers);
}

/**
 * Reads a JSON body of at most `limit` bytes. A larger body is drained (up to 8× the limit, then the
 * socket is dropped) so the client reads the 413 instead of a reset connection.
 */
export function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit * 8) {
    request.resume();
    return Promise.reject(httpErrors.tooLarge('The request body is too large.', true));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let ended = false;
    request.on('data', (data: Buffer) => {
      size += data.length;
      if (over || size > limit) {
        over = true;
        chunks.length = 0;
        if (size > limit * 8) request.destroy();
        return;
      }
      chunks.push(data);
    });
    request.on('end', () => {
      ended = true;
      if (over) return reject(httpErrors.tooLarge('The request body is too large.', true));
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return reject(httpErrors.invalid('The request body must be JSON.'));
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(httpErrors.invalid('The request body is not valid JSON.'));
      }
    });
    request.on('error', (error) => reject(error));
    request.on('close', () => {
      if (!ended) reject(httpErrors.tooLarge('The request body is too large.', true));
    });
  });
}

/** Ids from the client end up in URLs and stored data: non-empty, ≤ 200 characters, no control characters. */
export function checkId(id: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  if (id === '' || id.length > 200 || /[\u0000-\u001f\u007f]/.test(id)) throw httpErrors.invalid(`The ${what} must be 1–200 printable characters.`);
}

/** The bearer token of an `Authorization` header, or undefined. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer[ ]+([^\s]+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * The Host header values a demo server on 127.0.0.1:`port` answers to: its own address and
 * `localhost:<port>`. Any other Host (a DNS-rebinding page names its own host) gets 421.
 */
export function ownHosts(host: string, port: number): string[] {
  return [`${host}:${port}`, `localhost:${port}`];
}

/** Listens on `host` (a free port unless one is given) and resolves with the port, or rejects (port in use…). */
export function listenOnLoopback(server: Server, host: string, port = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts a `text/event-stream` answer (no caching, no proxy buffering) and returns a writer that
 * does nothing once the response has ended or its socket is gone.
 */
export function openEventStream(response: ServerResponse): (text: string) => void {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
    'X-Content-Type-Options': 'nosniff',
  });
  response.flushHeaders();
  return (text: string) => {
    if (!response.writableEnded && !response.destroyed) response.write(text);
  };
}
