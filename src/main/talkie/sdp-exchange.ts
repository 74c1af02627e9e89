import { guardedRequest, mediaTypeOf, NetError, type NetPolicy } from '../net/guarded-fetch';

/**
 * Talkie §10.1 signalling: the renderer's SDP offer goes to `signaling.url` (already checked by
 * checkSignalingUrl) with `Authorization: Bearer <clientSecret>`, and only the SDP answer comes back.
 * Through the guarded layer: no redirect is followed (the secret is sent on the first hop only and
 * never to a Location), the answer is capped and read within a deadline, and it must be application/sdp.
 */
export const sdpLimits = {
  /** An SDP offer from the renderer. */
  offerBytes: 64 * 1024,
  /** The provider's SDP answer; a larger one is refused before it is read whole. */
  answerBytes: 128 * 1024,
  /** Connect and wait for the answer's headers (the provider allocates the call first). */
  firstByteMs: 15_000,
  /** The whole answer, however it trickles in. */
  bodyMs: 10_000,
} as const;

export type SdpFailureCode =
  /** 401 from the provider: the secret is spent or expired; start a new voice session. */
  | 'secret_rejected'
  /** A 3xx: redirects are never followed on the SDP POST. */
  | 'redirected'
  /** Another non-2xx answer. */
  | 'refused'
  /** 2xx but not application/sdp, or not an SDP body. */
  | 'not_sdp'
  /** The network layer failed (address refused, timeouts, too large, a same-origin redirect, …). */
  | 'network';

export class SdpError extends Error {
  constructor(
    readonly code: SdpFailureCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SdpError';
  }
}

/** POSTs one SDP offer; returns the answer text, or throws SdpError (whose message never carries the secret). */
export async function postSdpOffer(url: string, clientSecret: string, offer: string, policy: NetPolicy, signal?: AbortSignal): Promise<string> {
  const target = new URL(url);
  let response;
  try {
    response = await guardedRequest(
      {
        url: target.href,
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp', Accept: 'application/sdp' },
        body: offer,
        maxBytes: sdpLimits.answerBytes,
        redirect: 'error',
        bearer: { token: clientSecret, origin: target.origin },
        timeouts: { firstByteMs: sdpLimits.firstByteMs, bodyMs: sdpLimits.bodyMs },
        ...(signal === undefined ? {} : { signal }),
      },
      policy,
    );
  } catch (error) {
    throw fromNet(error, target);
  }
  const { status } = response;
  if (status < 200 || status >= 300) {
    response.cancel();
    if (status === 401) throw new SdpError('secret_rejected', `The speech provider ${target.host} refused the voice session's key (401); start a new call.`, true);
    if (status >= 300 && status < 400) throw new SdpError('redirected', `The speech provider ${target.host} answered with a redirect, which is never followed for voice.`, false);
    throw new SdpError('refused', `The speech provider ${target.host} refused the call (HTTP ${status}).`, status >= 500 || status === 429);
  }
  const type = mediaTypeOf(response);
  if (type !== 'application/sdp') {
    response.cancel();
    throw new SdpError('not_sdp', `The speech provider ${target.host} did not answer with an SDP description (${type.slice(0, 80) || 'no content type'}).`, false);
  }
  let answer: string;
  try {
    answer = new TextDecoder('utf-8', { fatal: true }).decode(await response.bytes());
  } catch (error) {
    if (error instanceof NetError) throw fromNet(error, target);
    throw new SdpError('not_sdp', `The speech provider ${target.host} sent an SDP answer that is not text.`, false);
  }
  if (!answer.startsWith('v=0')) throw new SdpError('not_sdp', `The speech provider ${target.host} sent an answer that is not an SDP description.`, false);
  return answer;
}

function fromNet(error: unknown, target: URL): SdpError {
  if (error instanceof NetError) {
    if (error.code === 'cross_origin_redirect' || error.code === 'too_many_redirects') return new SdpError('redirected', error.message, false);
    const permanent = ['invalid_url', 'insecure_scheme', 'blocked_address', 'too_large'].includes(error.code);
    return new SdpError('network', error.message, !permanent);
  }
  return new SdpError('network', `The speech provider ${target.host} could not be reached.`, true);
}
