/**
 * Every failure of the guarded network layer is one of these codes plus a message for people.
 * Codes are stable (callers and tests key on them); messages name the host and may change.
 * Messages never contain header values, tokens, query strings or bodies.
 */
export type NetErrorCode =
  /** The URL cannot be parsed, has an unsupported scheme, or carries a user name or password. */
  | 'invalid_url'
  /** http:// (or ws://) without the development setting, or to a host it does not cover. */
  | 'insecure_scheme'
  /** The host is, or resolves to, an address the policy does not allow (loopback, private, metadata…). */
  | 'blocked_address'
  /** The host name did not resolve. */
  | 'dns_failed'
  /** The TCP connection failed or was lost (refused, reset, unreachable, closed early). */
  | 'connect_failed'
  /** The TLS handshake failed (untrusted or mismatched certificate, protocol failure). */
  | 'tls_failed'
  /** Resolving and connecting (including TLS) took longer than `connectMs`. */
  | 'connect_timeout'
  /** The response headers did not arrive within `firstByteMs` after connecting. */
  | 'first_byte_timeout'
  /** No body data arrived for `idleMs` while the caller was waiting for it. */
  | 'idle_timeout'
  /** A body read whole did not arrive within `bodyMs`, however its bytes trickled in. */
  | 'body_deadline'
  /** The body is larger than the caller's `maxBytes`. */
  | 'too_large'
  /** The server redirected to another origin; such redirects are never followed. */
  | 'cross_origin_redirect'
  /** More than five same-origin redirects. */
  | 'too_many_redirects'
  /** The caller's signal aborted, or the caller cancelled the response. */
  | 'aborted'
  /** The server answered with something that is not valid HTTP, or a body that is not valid JSON. */
  | 'protocol_error';

export class NetError extends Error {
  /**
   * @param url The address involved, without its query string or fragment (which may carry secrets).
   */
  constructor(
    readonly code: NetErrorCode,
    message: string,
    readonly url?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NetError';
  }
}

/** `https://host:port/path`: what NetError.url carries. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** "10 s", "1.5 s", "200 ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** "64 KiB", "1 MiB", "500 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** "5 bytes", "12 KB", "1.5 MB": an amount received, rounded for people. */
export function formatAmount(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const megabytes = bytes / (1024 * 1024);
  return `${megabytes < 10 ? megabytes.toFixed(1) : Math.round(megabytes)} MB`;
}
