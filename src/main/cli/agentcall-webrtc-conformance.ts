import { parseServerFrame } from '../../shared/agentcall/protocol';
import type { AgentCallConnection } from '../agentcall/connection';
import { maxAnswerBytes, sessionIdHeader } from '../../shared/agentcall/webrtc-profile';
import { postAgentCallOffer } from '../agentcall/webrtc-signalling';
import { postSdp, SdpPostError } from '../net/sdp-post';
import type { CheckResult } from './checks';
import {
  AnswerNotApplied,
  CallFailed,
  callAgentCallAgent,
  createAgentCallOfferer,
  offerAndAccept,
  within,
  type AgentCallCallOptions,
  type AgentCallOfferer,
} from './voice-peer';

/**
 * `agentdesk conformance` for an agentcall-webrtc-0.1 card (loaded, with node-datachannel, only for
 * such a card): a real WebRTC call from a node-datachannel peer on 127.0.0.1 offering what the app
 * offers (one sendrecv Opus track, 48 kHz, and the ordered `agentcall.events` channel with subprotocol
 * `agentcall-agui-dc-0.1`), through AgentDesk's own SDP POST (webrtc-signalling.ts: application/sdp,
 * AgentCall-Session-ID, Accept, the bearer only when the card requires it, no redirect, the answer
 * ≤ 128 KiB and the profile in it). The reference-proof sequence then runs on that channel; the agent
 * must open no data channel of its own during it (the profile has exactly one). More calls check the
 * profile from the agent's side: a channel with another subprotocol is not served, a first message
 * other than session.start is not answered with a session, and when the card requires a bearer an
 * offer without one is refused (the SDP POST is then made directly, without the app's own refusal to
 * send it). The request's headers are the client's part of the profile: they are what AgentDesk's
 * own signalling sends (tested in webrtc-signalling.test.ts), so the agent is offered exactly that.
 */

export const webrtcSteps = {
  offer: 'webrtc: SDP offer answered (application/sdp, ≤ 128 KiB, no redirect, Opus 48 kHz sendrecv + data channel)',
  channel: 'webrtc: agentcall.events open (label, subprotocol agentcall-agui-dc-0.1, ordered)',
  oneChannel: 'webrtc: one data channel (the agent opened none of its own)',
  wrongProtocol: 'webrtc: a channel with another subprotocol is not served',
  firstMessage: 'webrtc: the first message must be session.start',
  bearer: 'webrtc: an offer without the bearer token is refused',
} as const;

export interface WebrtcCall {
  connection: AgentCallConnection;
  offerer: AgentCallOfferer;
  /** Data channels the agent opened itself, so far. */
  agentChannels: readonly { label: string; protocol: string }[];
}

/** The call's options as the CLI's own call takes them (voice-peer.ts), without its log name. */
type CallOptions = Omit<AgentCallCallOptions, 'name'>;

/** The call the sequence runs on; reports the offer and channel steps. Undefined when it could not be made. */
export async function openWebrtcCall(options: CallOptions, report: (result: CheckResult) => void): Promise<WebrtcCall | undefined> {
  try {
    const call = await callAgentCallAgent({ ...options, name: 'agentdesk-conformance' });
    const retried =
      call.retried === undefined ? '' : `; made twice: AgentDesk's own peer refused the first answer (${call.retried}), libdatachannel's race, not the agent`;
    report({
      name: webrtcSteps.offer,
      ok: true,
      detail: `${call.answerBytes} bytes of application/sdp, AgentCall-Session-ID ${options.sessionId}${options.card.bearerRequired ? ', bearer in the Authorization header' : ''}${retried}`,
    });
    report({ name: webrtcSteps.channel, ok: true, detail: `${call.offerer.channel.getLabel()} / ${call.offerer.channel.getProtocol()}` });
    return { connection: call.connection, offerer: call.offerer, agentChannels: call.agentChannels };
  } catch (error) {
    if (!(error instanceof CallFailed)) throw error;
    if (error.step === 'channel') report({ name: webrtcSteps.offer, ok: true, detail: `answered, AgentCall-Session-ID ${options.sessionId}` });
    report({ name: error.step === 'offer' ? webrtcSteps.offer : webrtcSteps.channel, ok: false, detail: error.message });
    return undefined;
  }
}

/** After the sequence ran on the call: the profile's one channel is the app's; the agent opened none. */
export function reportChannels(call: WebrtcCall, report: (result: CheckResult) => void): void {
  const extra = call.agentChannels;
  report(
    extra.length === 0
      ? { name: webrtcSteps.oneChannel, ok: true, detail: 'only the app’s agentcall.events channel was open during the whole sequence' }
      : {
          name: webrtcSteps.oneChannel,
          ok: false,
          detail: `the agent opened ${extra.length} data channel${extra.length === 1 ? '' : 's'} of its own (${extra.map((channel) => `${JSON.stringify(channel.label.slice(0, 64))}${channel.protocol ? ` / ${JSON.stringify(channel.protocol.slice(0, 64))}` : ''}`).join(', ')}); the profile has exactly one, the app's agentcall.events`,
        },
  );
}

/** The agent-side profile checks, each on a call of its own. */
export async function webrtcProfileChecks(options: Omit<CallOptions, 'sessionId'>, report: (result: CheckResult) => void): Promise<void> {
  // A channel with another subprotocol: the agent should not run a session on it.
  {
    let offerer: AgentCallOfferer | undefined;
    try {
      ({ offerer } = await offerAndAccept(
        () => createAgentCallOfferer({ name: 'agentdesk-conformance-protocol', protocol: 'agentcall-agui-dc-9.9' }),
        (made) =>
          postAgentCallOffer({
            card: options.card,
            sessionId: `conformance-proto-${Date.now()}`,
            offer: made.offer,
            policy: options.policy,
            ...(options.token === undefined ? {} : { bearerToken: options.token }),
          }),
      ));
      const outcome = await served(
        offerer,
        JSON.stringify({ type: 'session.start', sessionId: 'conformance-protocol', clientCapabilities: { physicalObservations: { modalities: [] } } }),
        options.timeoutMs,
      );
      report(
        outcome === 'established'
          ? {
              name: webrtcSteps.wrongProtocol,
              ok: true,
              warning: true,
              detail: 'the agent established a session on a channel with subprotocol agentcall-agui-dc-9.9; the profile names exactly agentcall-agui-dc-0.1',
            }
          : { name: webrtcSteps.wrongProtocol, ok: true, detail: outcome },
      );
    } catch (error) {
      // Refusing the whole offer is also not serving it; AgentDesk's own peer failing proves nothing.
      if (error instanceof AnswerNotApplied) report({ name: webrtcSteps.wrongProtocol, ok: false, detail: error.message });
      else report({ name: webrtcSteps.wrongProtocol, ok: true, detail: `the offer was refused (${(error as Error).message.slice(0, 160)})` });
    } finally {
      offerer?.close();
    }
  }
  // A first message other than session.start.
  {
    let offerer: AgentCallOfferer | undefined;
    try {
      ({ offerer } = await offerAndAccept(
        () => createAgentCallOfferer({ name: 'agentdesk-conformance-first' }),
        (made) =>
          postAgentCallOffer({
            card: options.card,
            sessionId: `conformance-first-${Date.now()}`,
            offer: made.offer,
            policy: options.policy,
            ...(options.token === undefined ? {} : { bearerToken: options.token }),
          }),
      ));
      const outcome = await served(offerer, JSON.stringify({ type: 'user.turn', turn: 1, text: 'hello' }), options.timeoutMs);
      report(
        outcome === 'established'
          ? { name: webrtcSteps.firstMessage, ok: false, detail: 'the agent answered a user.turn sent before session.start with session.established' }
          : outcome.startsWith('no answer')
            ? { name: webrtcSteps.firstMessage, ok: true, warning: true, detail: `${outcome}; an agent should refuse it (failure or closing the channel)` }
            : { name: webrtcSteps.firstMessage, ok: true, detail: outcome },
      );
    } catch (error) {
      report({ name: webrtcSteps.firstMessage, ok: false, detail: `the call could not be made: ${(error as Error).message.slice(0, 240)}` });
    } finally {
      offerer?.close();
    }
  }
  // The bearer the card requires: an offer without it must not get a call.
  if (!options.card.bearerRequired) {
    report({ name: webrtcSteps.bearer, ok: true, skipped: true, detail: 'the card requires no bearer token' });
  } else {
    const offerer = await createAgentCallOfferer({ name: 'agentdesk-conformance-bearer' });
    try {
      // Not through postAgentCallOffer, which never sends an offer without the bearer a card requires.
      await postSdp({
        url: options.card.aguiUrl,
        offer: offerer.offer,
        policy: options.policy,
        headers: { [sessionIdHeader]: `conformance-bearer-${Date.now()}` },
        maxAnswerBytes,
        who: 'The agent',
      });
      report({
        name: webrtcSteps.bearer,
        ok: false,
        detail: 'the agent answered an SDP offer that carried no Authorization header, though its card requires a bearer token',
      });
    } catch (error) {
      if (!(error instanceof SdpPostError)) throw error;
      if (error.code === 'unauthorized' || error.code === 'forbidden')
        report({ name: webrtcSteps.bearer, ok: true, detail: `refused with HTTP ${error.status}` });
      else if (error.status !== undefined)
        report({ name: webrtcSteps.bearer, ok: true, warning: true, detail: `refused with HTTP ${error.status}; a missing credential is 401` });
      else report({ name: webrtcSteps.bearer, ok: false, detail: `the offer could not be sent: ${error.message.slice(0, 200)}` });
    } finally {
      offerer.close();
    }
  }
}

/** Sends `first` once the channel opens and says what the agent did: established, a failure, closed, or nothing. */
async function served(offerer: AgentCallOfferer, first: string, timeoutMs: number): Promise<'established' | string> {
  try {
    await within(offerer.opened, timeoutMs, 'not opened');
  } catch {
    return 'the agent did not open the channel';
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    const done = (outcome: string) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    offerer.channel.onMessage((message) => {
      try {
        if (typeof message !== 'string') return done('the agent sent a binary message');
        const parsed = parseServerFrame(message);
        if (!parsed.ok) return done(`the agent sent a malformed frame (${parsed.code})`);
        if (parsed.event?.type === 'session.established') return done('established');
        if (parsed.event?.type === 'failure') return done(`refused with failure ${parsed.event.code.slice(0, 64)}`);
      } catch {
        // never throw inside node-datachannel callbacks
      }
    });
    offerer.channel.onClosed(() => done('the agent closed the channel'));
    // An agent that ends the whole call (pc.close()) may leave the channel's own close unreported.
    offerer.pc.onStateChange((state) => {
      if (state === 'closed' || state === 'failed' || state === 'disconnected') done(`the agent closed the channel (the call is ${state})`);
    });
    // A close that came while `opened` was being awaited went to the handler set before this one: it is
    // seen here, not lost (it would have looked like no answer at all).
    if (!offerer.channel.isOpen()) return done('the agent closed the channel');
    try {
      offerer.channel.sendMessage(first);
    } catch {
      done('the channel closed before the message could be sent');
    }
  });
}
