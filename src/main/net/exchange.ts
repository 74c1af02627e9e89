import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { bareHost, pinnedLookup, resolveCheckedAddresses, type CheckedAddress, type NetPolicy } from './address-policy';
import { describeUrl, formatDuration, NetError, type NetErrorCode } from './net-error';
import { Listeners } from '../../shared/base/listeners';

export interface Timeouts {
  /** Resolving and connecting (DNS, TCP, TLS), per hop. */
  connectMs: number;
  /** From connecting to the complete response headers, per hop. */
  firstByteMs: number;
  /** No body data while the caller waits for it (whole bodies and streams). */
  idleMs: number;
  /**
   * A body read whole (bytes, text, json): from the start of the read to its last byte, however the
   * bytes trickle in (code body_deadline). A streamed body (stream()) has only the idle timeout.
   */
  bodyMs: number;
}

/** One request on one connection, no redirects: what the redirect loop sends per hop. */
export interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

type Phase = 'connect' | 'tls' | 'wait' | 'body';

/**
 * One HTTP exchange over a fresh connection to the checked address. Owns the timers, the abort listener
 * and the socket; the first failure wins, destroys the socket and is what every later read sees.
 */
export class Exchange {
  private request: ClientRequest | undefined;
  private res: IncomingMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private failed: NetError | undefined;
  private done = false;
  private readonly failureListeners = new Listeners<[NetError]>();
  private readonly onAbort = () => this.fail(this.error('aborted', `The request to ${this.url.host} was cancelled.`));

  private constructor(
    readonly url: URL,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Resolves and checks the address, connects, sends the request and waits for the response headers. */
  static async open(hop: Hop, policy: NetPolicy, timeouts: Timeouts, signal: AbortSignal | undefined): Promise<Exchange> {
    const exchange = new Exchange(hop.url, signal);
    if (signal?.aborted) throw exchange.error('aborted', `The request to ${hop.url.host} was cancelled.`);
    signal?.addEventListener('abort', exchange.onAbort, { once: true });
    await exchange.connect(hop, policy, timeouts);
    return exchange;
  }

  get response(): IncomingMessage {
    if (!this.res) throw new Error('The exchange has no response yet.');
    return this.res;
  }

  get failure(): NetError | undefined {
    return this.failed;
  }

  /** Fails the exchange once: stops timers, destroys the socket, tells the readers. Later calls are ignored. */
  fail(error: NetError): void {
    if (this.failed || this.done) return;
    this.failed = error;
    this.cleanUp();
    this.request?.destroy();
    this.failureListeners.emit(error);
    this.failureListeners.clear();
  }

  /** The body was read to its end: stop listening to the signal. */
  finish(): void {
    if (this.failed || this.done) return;
    this.done = true;
    this.cleanUp();
  }

  /** Closes the connection without a visible error (redirect hops, a stream the caller stopped reading). */
  close(): void {
    this.fail(this.error('aborted', `The request to ${this.url.host} was closed.`));
  }

  onFailure(listener: (error: NetError) => void): void {
    if (this.failed) listener(this.failed);
    else this.failureListeners.subscribe(listener);
  }

  startTimer(ms: number, makeError: () => NetError): void {
    this.clearTimer();
    this.timer = setTimeout(() => this.fail(makeError()), ms);
  }

  /** A deadline beside the phase timer (connect, first byte, idle): it runs until the exchange ends. */
  startDeadline(ms: number, makeError: () => NetError): void {
    if (this.failed || this.done) return;
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.fail(makeError()), ms);
  }

  clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  error(code: NetErrorCode, message: string, cause?: unknown): NetError {
    return new NetError(code, message, describeUrl(this.url), cause === undefined ? undefined : { cause });
  }

  private cleanUp(): void {
    this.clearTimer();
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  /** Rejects with the exchange's failure as soon as there is one. */
  private whenFailed(): Promise<never> {
    const failed = new Promise<never>((_resolve, reject) => this.onFailure(reject));
    failed.catch(() => undefined);
    return failed;
  }

  private async connect(hop: Hop, policy: NetPolicy, timeouts: Timeouts): Promise<void> {
    const { url } = hop;
    const failed = this.whenFailed();
    // The connect timeout covers DNS, TCP and TLS.
    this.startTimer(timeouts.connectMs, () =>
      this.error('connect_timeout', `Could not connect to ${url.host}: the connection timed out after ${formatDuration(timeouts.connectMs)}.`),
    );
    let checked: CheckedAddress[];
    try {
      checked = await Promise.race([resolveCheckedAddresses(url, policy), failed]);
    } catch (error) {
      this.fail(error instanceof NetError ? error : this.error('dns_failed', `Could not find ${url.host}.`, error));
      throw this.failed ?? error;
    }
    if (this.failed) throw this.failed; // timed out or aborted just as the answer came

    const host = bareHost(url);
    const secure = url.protocol === 'https:';
    const options: RequestOptions = {
      host,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      method: hop.method,
      path: `${url.pathname}${url.search}`,
      headers: hop.headers satisfies OutgoingHttpHeaders,
      // A fresh connection per exchange: no pooled socket to an address checked for another request, no proxy agent.
      agent: false,
      lookup: pinnedLookup(host, checked),
    };
    if (secure) {
      // The certificate is checked against the name, whatever address the name was pinned to.
      if (isIP(host) === 0) options.servername = host;
      options.rejectUnauthorized = true; // also when NODE_TLS_REJECT_UNAUTHORIZED=0 is set
    }

    let phase: Phase = 'connect';
    const connected = () => {
      phase = 'wait';
      this.startTimer(timeouts.firstByteMs, () =>
        this.error('first_byte_timeout', `${url.host} did not answer within ${formatDuration(timeouts.firstByteMs)}.`),
      );
    };
    let request: ClientRequest;
    try {
      request = (secure ? httpsRequest : httpRequest)(options);
    } catch (error) {
      // Node validates header names and values synchronously; the message never repeats a value.
      const invalid = this.error('protocol_error', `The request to ${url.host} could not be sent: it has an invalid header or method.`, error);
      this.fail(invalid);
      throw invalid;
    }
    this.request = request;
    request.on('socket', (socket) => {
      socket.once('connect', () => {
        if (secure) phase = 'tls';
        else connected();
      });
      if (secure) socket.once('secureConnect', connected);
    });
    request.on('error', (error) => {
      // Once the whole body has arrived, what happens to the socket does not matter (e.g. bytes after the body).
      if (this.res?.complete) return;
      this.fail(this.mapError(error, phase));
    });
    const response = new Promise<void>((resolve) =>
      request.once('response', (res: IncomingMessage) => {
        // Synchronously: the parser may report an error about bytes after a complete body in the same tick.
        phase = 'body';
        this.clearTimer();
        this.res = res;
        res.on('error', (error) => {
          if (!res.complete) this.fail(this.mapError(error, 'body'));
        });
        res.on('close', () => {
          if (!res.complete) this.fail(this.mapError(undefined, 'body'));
        });
        resolve();
      }),
    );
    request.end(hop.body);
    await Promise.race([response, failed]);
  }

  private mapError(error: unknown, phase: Phase): NetError {
    if (error instanceof NetError) return error;
    const host = this.url.host;
    const code = typeof (error as { code?: unknown } | undefined)?.code === 'string' ? (error as { code: string }).code : '';
    const suffix = code ? ` (${code})` : '';
    if (code.startsWith('HPE_')) return this.error('protocol_error', `${host} sent an invalid HTTP response${suffix}.`, error);
    if (phase === 'tls' || isTlsCode(code)) {
      return this.error('tls_failed', `Could not connect securely to ${host}: ${tlsReason(code)}${suffix}.`, error);
    }
    if (phase === 'connect') return this.error('connect_failed', `Could not connect to ${host}: ${connectReason(code)}${suffix}.`, error);
    if (phase === 'wait') return this.error('connect_failed', `${host} closed the connection without answering${suffix}.`, error);
    return this.error('connect_failed', `The connection to ${host} was lost before the whole response arrived${suffix}.`, error);
  }
}

function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('CERT_') ||
    code.startsWith('UNABLE_TO_') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'HOSTNAME_MISMATCH' ||
    code === 'EPROTO'
  );
}

function tlsReason(code: string): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return 'its certificate is for a different name';
  if (code === 'CERT_HAS_EXPIRED') return 'its certificate has expired';
  if (code === 'CERT_NOT_YET_VALID') return 'its certificate is not valid yet';
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN' || code.startsWith('UNABLE_TO_')) {
    return 'its certificate is not trusted';
  }
  return 'the secure connection could not be set up';
}

function connectReason(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    case 'ECONNRESET':
      return 'the connection was reset';
    default:
      return 'the connection failed';
  }
}

/**
 * Pulls the body chunk by chunk with backpressure (the socket is paused between reads). The idle timer runs
 * only while a caller waits for data, so a slow consumer is never mistaken for a silent server.
 */
export class BodyReader {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private waiter: { resolve: (chunk: Uint8Array | null) => void; reject: (error: NetError) => void } | undefined;

  constructor(
    private readonly exchange: Exchange,
    private readonly idleMs: number,
  ) {
    const res = exchange.response;
    res.pause();
    res.on('data', (chunk: Buffer) => {
      res.pause();
      exchange.clearTimer();
      const view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const waiter = this.waiter;
      this.waiter = undefined;
      if (waiter) waiter.resolve(view);
      else this.queue.push(view);
    });
    res.on('end', () => {
      this.ended = true;
      exchange.finish();
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.resolve(null);
    });
    exchange.onFailure((error) => {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.reject(error);
    });
  }

  /** The next chunk, or null at the end of the body. */
  next(): Promise<Uint8Array | null> {
    const failure = this.exchange.failure;
    if (failure) return Promise.reject(failure);
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      const host = this.exchange.url.host;
      this.exchange.startTimer(this.idleMs, () => this.exchange.error('idle_timeout', `${host} stopped sending data for ${formatDuration(this.idleMs)}.`));
      this.exchange.response.resume();
    });
  }
}
