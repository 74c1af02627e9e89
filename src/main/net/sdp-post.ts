import { guardedRequest, mediaTypeOf, NetError, type NetPolicy, type Timeouts } from './guarded-fetch';

/**
 * One WebRTC signalling POST (WHIP-like: the offer in, the answer out), shared by Talkie 1 §10.1 voice
 * (talkie/sdp-exchange.ts) and AgentCall's `agentcall-webrtc-0.1` (agentcall/webrtc-signalling.ts).
 * Through the guarded layer, so the URL gets the same checks as every other request main makes:
 * https (http only under the development setting, to local hosts), DNS resolved once and every address
 * checked, the connection pinned to the checked address, connect/first-byte/body timeouts. On top:
 *
 * - `Content-Type: application/sdp` and `Accept: application/sdp`, plus the caller's extra headers;
 * - the bearer (when given) only in the Authorization header of this one request;
 * - no redirect is followed, of any kind (a 3xx is an answer, refused as `redirected`);
 * - the answer is at most `maxAnswerBytes`, counted while it is read (a larger one is refused before
 *   it is whole), within the body deadline, UTF-8, `application/sdp`, starting with `v=0`.
 *
 * Messages name `who` ("The speech provider 127.0.0.1:4000", "The agent agent.example"), never the bearer.
 */
export interface SdpPost {
  url: string;
  offer: string;
  policy: NetPolicy;
  /** Sent as `Authorization: Bearer …` on this request only. */
  bearer?: string;
  /** Extra request headers (e.g. AgentCall-Session-ID). */
  headers?: Record<string, string>;
  /** Default 128 KiB. */
  maxAnswerBytes?: number;
  timeouts?: Partial<Timeouts>;
  signal?: AbortSignal;
  /** How messages name the answering side: "The speech provider", "The agent". */
  who: string;
}

export const sdpPostDefaults = {
  answerBytes: 128 * 1024,
  /** Connect and wait for the answer's headers (the answering side allocates the call first). */
  firstByteMs: 15_000,
  /** The whole answer, however it trickles in. */
  bodyMs: 10_000,
} as const;

export type SdpPostFailure =
  /** 401: the credential was refused. */
  | 'unauthorized'
  /** 403. */
  | 'forbidden'
  /** A 3xx: never followed. */
  | 'redirected'
  /** Another non-2xx answer. */
  | 'refused'
  /** 2xx but not application/sdp, not UTF-8, or not an SDP body. */
  | 'not_sdp'
  /** The answer is larger than the cap. */
  | 'too_large'
  /** The network layer failed (address refused, insecure scheme, timeouts, …). */
  | 'network';

export class SdpPostError extends Error {
  constructor(
    readonly code: SdpPostFailure,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The network layer's code when `code` is `network` or `too_large`. */
    readonly netCode?: NetError['code'],
  ) {
    super(message);
    this.name = 'SdpPostError';
  }
}

/** POSTs the offer; returns the answer text, or throws SdpPostError. */
export async function postSdp(post: SdpPost): Promise<string> {
  if (typeof post.url !== 'string' || !URL.canParse(post.url))
    throw new SdpPostError('network', 'The signalling address is not a valid URL.', false, undefined, 'invalid_url');
  const target = new URL(post.url);
  const who = `${post.who} ${target.host}`;
  const maxBytes = post.maxAnswerBytes ?? sdpPostDefaults.answerBytes;
  let response;
  try {
    response = await guardedRequest(
      {
        url: target.href,
        method: 'POST',
        headers: { ...post.headers, 'Content-Type': 'application/sdp', Accept: 'application/sdp' },
        body: post.offer,
        maxBytes,
        redirect: 'error',
        ...(post.bearer === undefined ? {} : { bearer: { token: post.bearer, origin: target.origin } }),
        timeouts: { firstByteMs: sdpPostDefaults.firstByteMs, bodyMs: sdpPostDefaults.bodyMs, ...post.timeouts },
        ...(post.signal === undefined ? {} : { signal: post.signal }),
      },
      post.policy,
    );
  } catch (error) {
    throw fromNet(error, who);
  }
  const { status } = response;
  if (status < 200 || status >= 300) {
    response.cancel();
    if (status === 401) throw new SdpPostError('unauthorized', `${who} refused the credential (HTTP 401).`, true, status);
    if (status === 403) throw new SdpPostError('forbidden', `${who} refused the call (HTTP 403).`, false, status);
    if (status >= 300 && status < 400)
      throw new SdpPostError('redirected', `${who} answered with a redirect (HTTP ${status}), which is never followed for a WebRTC offer.`, false, status);
    throw new SdpPostError('refused', `${who} refused the call (HTTP ${status}).`, status >= 500 || status === 429, status);
  }
  const type = mediaTypeOf(response);
  if (type !== 'application/sdp') {
    response.cancel();
    throw new SdpPostError('not_sdp', `${who} did not answer with an SDP description (${type.slice(0, 80) || 'no content type'}).`, false, status);
  }
  let answer: string;
  try {
    answer = new TextDecoder('utf-8', { fatal: true }).decode(await response.bytes());
  } catch (error) {
    if (error instanceof NetError) throw fromNet(error, who);
    throw new SdpPostError('not_sdp', `${who} sent an SDP answer that is not text.`, false, status);
  }
  if (!answer.startsWith('v=0')) throw new SdpPostError('not_sdp', `${who} sent an answer that is not an SDP description.`, false, status);
  return answer;
}

function fromNet(error: unknown, who: string): SdpPostError {
  if (error instanceof NetError) {
    // A same-origin redirect under redirect: 'error' is the layer's protocol_error naming the redirect.
    const redirect =
      error.code === 'cross_origin_redirect' || error.code === 'too_many_redirects' || (error.code === 'protocol_error' && /redirect/i.test(error.message));
    if (redirect) return new SdpPostError('redirected', error.message, false, undefined, error.code);
    if (error.code === 'too_large') return new SdpPostError('too_large', error.message, false, undefined, error.code);
    const permanent = ['invalid_url', 'insecure_scheme', 'blocked_address'].includes(error.code);
    return new SdpPostError('network', error.message, !permanent, undefined, error.code);
  }
  return new SdpPostError('network', `${who} could not be reached.`, true);
}
