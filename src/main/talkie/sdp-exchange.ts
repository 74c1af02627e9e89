import type { NetPolicy } from '../net/guarded-fetch';
import { postSdp, sdpPostDefaults, SdpPostError } from '../net/sdp-post';

/**
 * Talkie 1 §10.1 signalling: the renderer's SDP offer goes to `signaling.url` (already checked by
 * checkSignalingUrl) with `Authorization: Bearer <clientSecret>`, and only the SDP answer comes back.
 * The POST itself is the shared one (net/sdp-post.ts, also AgentCall's): no redirect is followed (the
 * secret is sent on the first hop only and never to a Location), the answer is capped and read within
 * a deadline, and it must be application/sdp. This file keeps Talkie's failure codes and words.
 */
export const sdpLimits = {
  /** An SDP offer from the renderer. */
  offerBytes: 64 * 1024,
  /** The provider's SDP answer; a larger one is refused before it is read whole. */
  answerBytes: sdpPostDefaults.answerBytes,
  firstByteMs: sdpPostDefaults.firstByteMs,
  bodyMs: sdpPostDefaults.bodyMs,
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
  /** The network layer failed (address refused, timeouts, too large, …). */
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
  const host = URL.canParse(url) ? new URL(url).host : 'the speech provider';
  try {
    return await postSdp({ url, offer, policy, bearer: clientSecret, who: 'The speech provider', ...(signal === undefined ? {} : { signal }) });
  } catch (error) {
    if (!(error instanceof SdpPostError)) throw error;
    switch (error.code) {
      case 'unauthorized':
        throw new SdpError('secret_rejected', `The speech provider ${host} refused the voice session's key (401); start a new call.`, true);
      case 'redirected':
        throw new SdpError(
          'redirected',
          error.status === undefined ? error.message : `The speech provider ${host} answered with a redirect, which is never followed for voice.`,
          false,
        );
      case 'forbidden':
      case 'refused':
        throw new SdpError('refused', `The speech provider ${host} refused the call (HTTP ${error.status ?? 0}).`, error.retryable);
      case 'not_sdp':
        throw new SdpError('not_sdp', error.message, false);
      case 'too_large':
      case 'network':
        throw new SdpError('network', error.message, error.retryable);
    }
  }
}
