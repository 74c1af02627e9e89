import type { AgentCallCard } from '../../shared/agentcall/card';
import { checkAnswerSdp, maxAnswerBytes, sessionIdHeader } from '../../shared/agentcall/webrtc-profile';
import type { NetPolicy, Timeouts } from '../net/guarded-fetch';
import { postSdp, SdpPostError } from '../net/sdp-post';

/**
 * `agentcall-webrtc-0.1` signalling (spec "WebSocket and WebRTC"): main POSTs the renderer's SDP offer
 * as `application/sdp` to the card's AG-UI URL with `AgentCall-Session-ID` and `Accept:
 * application/sdp`, the bearer in the Authorization header only when the card requires one, follows
 * no redirect and accepts an `application/sdp` answer of at most 128 KiB — through the guarded network
 * layer, so the URL gets the same https, DNS/IP and timeout checks as the WebSocket transport
 * (net/sdp-post.ts). The answer must then show the profile: one sendrecv Opus 48 kHz track and one
 * data channel (webrtc-profile.ts checkAnswerSdp). Nothing here logs or returns the token.
 */

export const maxOfferBytes = 64 * 1024;

export type SignallingErrorCode =
  | 'not_webrtc'
  | 'offer_too_large'
  | 'offer_invalid'
  | 'sign_in_required'
  | 'not_allowed'
  | 'redirected'
  | 'server_error'
  | 'not_sdp'
  | 'answer_too_large'
  | 'answer_invalid'
  | 'network'
  | 'insecure_scheme';

export class SignallingError extends Error {
  constructor(
    readonly code: SignallingErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SignallingError';
  }
}

export interface AgentCallOffer {
  card: AgentCallCard;
  /** The session's id (`session.start`'s sessionId), sent as AgentCall-Session-ID. */
  sessionId: string;
  offer: string;
  policy: NetPolicy;
  /** Sent only when the card requires a bearer token. */
  bearerToken?: string;
  signal?: AbortSignal;
  /** For tests: the network layer's timeouts (default: connect 10 s, answer headers 15 s, answer body 10 s). */
  timeouts?: Partial<Timeouts>;
}

/** Returns the agent's SDP answer, checked against the profile, or throws SignallingError. */
export async function postAgentCallOffer(request: AgentCallOffer): Promise<string> {
  const { card } = request;
  if (card.transport !== 'webrtc') throw new SignallingError('not_webrtc', `${card.name} does not offer the agentcall-webrtc-0.1 profile.`, false);
  if (new TextEncoder().encode(request.offer).byteLength > maxOfferBytes)
    throw new SignallingError('offer_too_large', `The SDP offer is larger than ${maxOfferBytes / 1024} KiB.`, false);
  if (!request.offer.startsWith('v=0')) throw new SignallingError('offer_invalid', 'The SDP offer is not an SDP description.', false);
  if (card.bearerRequired && request.bearerToken === undefined) {
    throw new SignallingError('sign_in_required', `${card.name} requires a bearer token; add one before calling.`, false);
  }
  let answer: string;
  try {
    answer = await postSdp({
      url: card.aguiUrl,
      offer: request.offer,
      policy: request.policy,
      headers: { [sessionIdHeader]: request.sessionId },
      ...(card.bearerRequired && request.bearerToken !== undefined ? { bearer: request.bearerToken } : {}),
      maxAnswerBytes,
      who: 'The agent',
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.timeouts === undefined ? {} : { timeouts: request.timeouts }),
    });
  } catch (error) {
    if (!(error instanceof SdpPostError)) throw error;
    throw fromPost(error);
  }
  const problems = checkAnswerSdp(answer);
  if (problems.length > 0)
    throw new SignallingError(
      'answer_invalid',
      `${card.name}'s SDP answer does not fit the agentcall-webrtc-0.1 profile: ${problems.map((problem) => problem.message).join(' ')}`,
      false,
    );
  return answer;
}

function fromPost(error: SdpPostError): SignallingError {
  switch (error.code) {
    case 'unauthorized':
      return new SignallingError('sign_in_required', error.message.replace('refused the credential', 'asks you to sign in'), false);
    case 'forbidden':
      return new SignallingError('not_allowed', error.message, false);
    case 'redirected':
      return new SignallingError('redirected', error.message, false);
    case 'refused':
      return new SignallingError('server_error', error.message, error.retryable);
    case 'not_sdp':
      return new SignallingError('not_sdp', error.message, false);
    case 'too_large':
      return new SignallingError('answer_too_large', `The agent's SDP answer is larger than ${maxAnswerBytes / 1024} KiB; it was refused.`, false);
    case 'network':
      return new SignallingError(error.netCode === 'insecure_scheme' ? 'insecure_scheme' : 'network', error.message, error.retryable);
  }
}
