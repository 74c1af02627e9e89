/**
 * The guarded network layer: every HTTP request main makes for a protocol (manifests, OAuth, AG-UI runs,
 * SSE, SDP) goes through here.
 *
 * - HTTPS only; http:// only under the development setting (NetPolicy.allowLocalHttp) and only to
 *   localhost, 127.0.0.1 and private LAN hosts.
 * - The host is resolved once, every address is checked (loopback, private, link-local need the development
 *   setting or an explicit allowedPrivateHosts entry; metadata, unspecified, multicast and reserved
 *   addresses are always refused) and the connection goes to the checked address: a rebinding DNS
 *   server cannot swap it. TLS still checks the certificate against the host name.
 * - Redirects are followed only within the same origin (at most 5); never across origins.
 * - Timeouts for connect (DNS + TCP + TLS), first byte (response headers) and idle (while reading), and a
 *   deadline for a body read whole (bodyMs), so a body trickled a byte at a time cannot hold a caller forever;
 *   a streamed body (SSE, downloads) has only the idle timeout.
 * - A size cap per use, enforced while reading, before anything is parsed.
 * - A bearer token goes only to its issuer origin, and never on a request after a redirect.
 * - Every failure is a NetError with a stable code and a message that names the host, never a secret.
 */
import { checkUrl, classifyAddress, type AddressClass, type NetPolicy } from './address-policy';
import { BodyReader, Exchange, type Timeouts } from './exchange';
import { describeUrl, formatAmount, formatBytes, formatDuration, NetError, type NetErrorCode } from './net-error';

export { classifyAddress, NetError, type AddressClass, type NetErrorCode, type NetPolicy, type Timeouts };
export { pinnedLookup, type CheckedAddress } from './address-policy';

export const defaultTimeouts: Readonly<Omit<Timeouts, 'bodyMs'>> = { connectMs: 10_000, firstByteMs: 30_000, idleMs: 60_000 };

/** The shortest default body deadline: what every small document gets (manifest, card, logo, OAuth, an error body). */
export const minBodyDeadlineMs = 20_000;

/**
 * The default deadline for a body read whole, by kind of request, and the kind is its size cap: 20 s for
 * documents (up to 1.25 MiB), and 1 s per 64 KiB the cap allows above that (Talkie's 4 MiB answers: 64 s).
 * `timeouts.bodyMs` overrides it.
 */
export function defaultBodyDeadlineMs(maxBytes: number): number {
  return Math.max(minBodyDeadlineMs, Math.ceil(maxBytes / (64 * 1024)) * 1000);
}

/** Same-origin redirects followed at most. */
export const maxRedirects = 5;

/** guardedFetch's cap when the caller gives none. */
export const defaultFetchMaxBytes = 1024 * 1024;

export interface GuardedRequest {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH'; // default GET
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Size cap for this use; reading past it fails with too_large before anything is parsed. */
  maxBytes: number;
  timeouts?: Partial<Timeouts>;
  /**
   * 'same-origin' (default): follow up to 5 same-origin redirects; a cross-origin one fails with cross_origin_redirect.
   * 'error': any redirect fails: with cross_origin_redirect when it is cross-origin, with protocol_error otherwise.
   */
  redirect?: 'same-origin' | 'error';
  /** A bearer token bound to an origin: sent as Authorization only when the request URL's origin equals `origin`, and never on a request after a redirect. */
  bearer?: { token: string; origin: string };
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The final URL after same-origin redirects. */
  url: string;
  /** Whole body, at most maxBytes (else NetError too_large), within timeouts.bodyMs (else body_deadline). */
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>; // protocol_error on invalid JSON
  /** Streaming body (SSE, downloads): chunks as they come; only the idle timeout applies (no body deadline); the total is NOT capped (callers cap per event); cancel() aborts. */
  stream(): AsyncIterable<Uint8Array>;
  cancel(): void;
}

/** A response's media type: its Content-Type without parameters, lower-cased ('' when there is none). */
export function mediaTypeOf(response: Pick<GuardedResponse, 'headers'>): string {
  return (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** What guardedFetch needs beyond GuardedRequest: any method, and fetch's redirect: 'manual'. */
interface InternalRequest extends Omit<GuardedRequest, 'method' | 'redirect'> {
  method?: string;
  redirect?: 'same-origin' | 'error' | 'manual';
}

/**
 * Sends one request under the policy and returns once the response headers are in. Read the body (bytes,
 * text, json or stream) or call cancel(): the connection stays open until one of them finishes.
 */
export function guardedRequest(request: GuardedRequest, policy: NetPolicy): Promise<GuardedResponse> {
  return send(request, policy);
}

/** Headers the layer sets itself; a caller's value for them is ignored. */
const controlledHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'accept-encoding',
  'proxy-connection',
]);
/** Never sent again after a redirect. */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization'];
/** Dropped with the body when a redirect turns the request into a GET. */
const bodyHeaders = ['content-type', 'content-encoding', 'content-language', 'content-location'];
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

async function send(request: InternalRequest, policy: NetPolicy): Promise<GuardedResponse> {
  const { maxBytes } = request;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new TypeError('guardedRequest: maxBytes must be a non-negative integer.');
  const timeouts = resolveTimeouts(request.timeouts, maxBytes);
  if (typeof request.url !== 'string' || !URL.canParse(request.url)) {
    throw new NetError('invalid_url', 'The address is not a valid URL.');
  }
  let url = new URL(request.url);
  url.hash = '';
  let method = (request.method ?? 'GET').toUpperCase();
  let body = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : request.body;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const key = name.toLowerCase();
    if (!controlledHeaders.has(key)) headers[key] = value;
  }
  const redirectMode = request.redirect ?? 'same-origin';

  for (let redirects = 0; ; redirects++) {
    checkUrl(url, policy);
    const hopHeaders: Record<string, string> = { ...headers, 'accept-encoding': 'identity' };
    if (redirects === 0 && request.bearer && sameOrigin(request.bearer.origin, url)) {
      hopHeaders.authorization = `Bearer ${request.bearer.token}`;
    }
    if (body !== undefined) hopHeaders['content-length'] = String(body.byteLength);
    const exchange = await Exchange.open({ url, method, headers: hopHeaders, ...(body === undefined ? {} : { body }) }, policy, timeouts, request.signal);
    const res = exchange.response;
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (redirectMode === 'manual' || !redirectStatuses.has(status) || location === undefined) {
      return createResponse(exchange, url, maxBytes, timeouts);
    }

    exchange.close();
    if (!URL.canParse(location, url.href)) {
      throw new NetError('protocol_error', `${url.host} redirected to an address that is not a valid URL.`, describeUrl(url));
    }
    const target = new URL(location, url.href);
    target.hash = '';
    if (target.origin !== url.origin) {
      const where = target.origin === 'null' ? `a ${target.protocol} address` : target.origin;
      throw new NetError(
        'cross_origin_redirect',
        `${url.host} redirected to ${where}, another site. AgentDesk does not follow redirects to other sites.`,
        describeUrl(url),
      );
    }
    if (redirectMode === 'error') {
      throw new NetError('protocol_error', `${url.host} answered with a redirect, which is not allowed for this request.`, describeUrl(url));
    }
    if (redirects >= maxRedirects) {
      throw new NetError('too_many_redirects', `${url.host} redirected more than ${maxRedirects} times.`, describeUrl(url));
    }
    if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      for (const name of bodyHeaders) delete headers[name];
    }
    for (const name of credentialHeaders) delete headers[name];
    url = target;
  }
}

function resolveTimeouts(partial: Partial<Timeouts> | undefined, maxBytes: number): Timeouts {
  const timeouts = { ...defaultTimeouts, bodyMs: defaultBodyDeadlineMs(maxBytes), ...partial };
  for (const [name, value] of Object.entries(timeouts)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`guardedRequest: timeouts.${name} must be a positive number of milliseconds.`);
    }
  }
  return timeouts;
}

function sameOrigin(origin: string, url: URL): boolean {
  return URL.canParse(origin) && new URL(origin).origin === url.origin && url.origin !== 'null';
}

function createResponse(exchange: Exchange, url: URL, maxBytes: number, timeouts: Timeouts): GuardedResponse {
  const res = exchange.response;
  const reader = new BodyReader(exchange, timeouts.idleMs);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let used: 'whole' | 'stream' | undefined;
  let whole: Promise<Uint8Array> | undefined;
  const readWhole = (): Promise<Uint8Array> => {
    if (used === 'stream') return Promise.reject(new TypeError('The response body is already being read as a stream.'));
    used = 'whole';
    whole ??= readCapped(exchange, reader, headers['content-length'], maxBytes, timeouts.bodyMs);
    return whole;
  };
  return {
    status: res.statusCode ?? 0,
    headers,
    url: url.href,
    bytes: readWhole,
    text: async () => new TextDecoder().decode(await readWhole()),
    json: async () => {
      const bytes = await readWhole();
      try {
        return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
      } catch (error) {
        throw new NetError('protocol_error', `${url.host} answered with data that is not valid JSON.`, describeUrl(url), { cause: error });
      }
    },
    stream: () => {
      if (used !== undefined) throw new TypeError('The response body has already been read.');
      used = 'stream';
      return streamBody(exchange, reader);
    },
    cancel: () => exchange.fail(exchange.error('aborted', `The request to ${url.host} was cancelled.`)),
  };
}

async function readCapped(exchange: Exchange, reader: BodyReader, contentLength: string | undefined, maxBytes: number, bodyMs: number): Promise<Uint8Array> {
  const tooLarge = () => exchange.error('too_large', `${exchange.url.host} sent more than ${formatBytes(maxBytes)}, the most allowed here.`);
  if (contentLength !== undefined && /^\d+$/.test(contentLength.trim()) && Number(contentLength.trim()) > maxBytes) {
    const error = tooLarge();
    exchange.fail(error);
    throw error;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  exchange.startDeadline(bodyMs, () =>
    exchange.error('body_deadline', `${exchange.url.host} sent its answer too slowly: ${formatAmount(total)} in ${formatDuration(bodyMs)}.`),
  );
  for (;;) {
    const chunk = await reader.next();
    if (chunk === null) break;
    total += chunk.byteLength;
    if (total > maxBytes) {
      const error = tooLarge();
      exchange.fail(error);
      throw error;
    }
    chunks.push(chunk);
  }
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

async function* streamBody(exchange: Exchange, reader: BodyReader): AsyncGenerator<Uint8Array, void, undefined> {
  let ended = false;
  try {
    for (;;) {
      const chunk = await reader.next();
      if (chunk === null) {
        ended = true;
        return;
      }
      yield chunk;
    }
  } finally {
    // The caller stopped iterating early (break, return, throw): close the connection.
    if (!ended) exchange.close();
  }
}

/** Statuses whose Response must have a null body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch-compatible function over guardedRequest (for oauth4webapi's customFetch): same policy, maxBytes cap,
 * no cross-origin redirects. Failures reject with NetError (not TypeError). redirect: 'manual' returns the 3xx
 * response as it is; 'error' fails on any redirect; 'follow' (the default) follows same-origin redirects only.
 * The body is read whole (capped) before the Response is returned.
 */
export function guardedFetch(policy: NetPolicy, options: { maxBytes?: number; timeouts?: Partial<Timeouts> } = {}): typeof fetch {
  const maxBytes = options.maxBytes ?? defaultFetchMaxBytes;
  const fetchFunction = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let request: Request;
    try {
      request = new Request(input, init);
    } catch (error) {
      throw new NetError('invalid_url', 'The request could not be made: the address or its options are not valid.', undefined, { cause: error });
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const response = await send(
      {
        url: request.url,
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        maxBytes,
        ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
        redirect: request.redirect === 'manual' ? 'manual' : request.redirect === 'error' ? 'error' : 'same-origin',
        signal: request.signal,
      },
      policy,
    );
    if (response.status < 200 || response.status > 599) {
      response.cancel();
      const final = new URL(response.url);
      throw new NetError('protocol_error', `${final.host} answered with an invalid HTTP status (${response.status}).`, describeUrl(final));
    }
    const bytes = nullBodyStatuses.has(response.status) ? null : await response.bytes();
    if (bytes === null) response.cancel();
    const result = new Response(bytes, { status: response.status, headers: response.headers });
    Object.defineProperty(result, 'url', { value: response.url });
    Object.defineProperty(result, 'redirected', { value: response.url !== request.url });
    return result;
  };
  return fetchFunction as typeof fetch;
}
