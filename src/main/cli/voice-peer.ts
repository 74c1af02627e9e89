import * as ndc from 'node-datachannel';
import type { AgentCallCard } from '../../shared/agentcall/card';
import { connectNodeDataChannel, type DataChannelConnection } from '../agentcall/datachannel-transport';
import { postAgentCallOffer, SignallingError } from '../agentcall/webrtc-signalling';
import type { NetPolicy } from '../net/guarded-fetch';
import { keepUntilExit } from '../platform/keep-until-exit';
import type { Logger } from '../platform/logger';
import { gatheredDescription } from '../demo/voice/realtime-provider';

/**
 * A Node stand-in for the app's side of a Talkie 1 voice call (§10.1): a node-datachannel offerer on
 * 127.0.0.1 with what the app offers, one sendrecv Opus track (48 kHz, `minptime=10;useinbandfec=1`,
 * no stereo) and the `oai-events` data channel. It sends no audio. node-datachannel rules: strong refs to
 * the PC, track and channel (held here until close: a wrapper nothing references is collected and
 * reception silently stops), nothing thrown inside its callbacks, close() here and ndc.cleanup() once
 * by whoever owns the process.
 *
 * The offer goes without its host candidates (`a=candidate` lines; `a=end-of-candidates` stays): the
 * provider learns the address from this peer's own connectivity checks (peer-reflexive), as it does
 * for Chromium's mDNS-hidden host candidates. With them, a fast full-ICE answerer on loopback reaches
 * this peer before the SDP answer is applied: its DTLS handshake then arrives before the remote
 * fingerprint is known, which libdatachannel fails ("DTLS alert: unknown CA", the peer closes, and
 * setRemoteDescription throws "Got a remote candidate without ICE transport"; seen in about 4 of 10
 * runs under vitest), or its early checks fail and ICE retries a second later (offer → open ~1,010 ms
 * instead of ~80 ms in 10 of 12 loopback runs measured here).
 */
export interface VoiceOfferer {
  /** The complete offer (ICE gathering done). */
  readonly offer: string;
  /** Resolves when `oai-events` opens; rejects when it closes or fails first. */
  readonly opened: Promise<void>;
  /** The first text message on `oai-events` (the provider's first event). */
  readonly firstMessage: Promise<string>;
  /** Every text message on `oai-events` goes here too, after the first is recorded. */
  onMessage?: (text: string) => void;
  /** Applies the SDP answer (throws what setRemoteDescription throws). */
  accept(answer: string): void;
  /** Sends one text message on `oai-events` (false when it is not open or sending failed). */
  send(text: string): boolean;
  close(): void;
}

export const opusProfile = 'minptime=10;useinbandfec=1';

/**
 * The peer both offerers make: one sendrecv Opus track and one data channel, on 127.0.0.1, offered
 * without host candidates once gathering is done; closed (and kept until exit) if that fails.
 */
async function offeringPeer(name: string, ssrc: number, label: string, init?: ndc.DataChannelInitConfig) {
  const pc = new ndc.PeerConnection(name, { iceServers: [], bindAddress: '127.0.0.1' });
  const audio = new ndc.Audio('0', 'SendRecv');
  audio.addOpusCodec(111, opusProfile);
  audio.addSSRC(ssrc, 'agentdesk', 'agentdesk-stream', 'agentdesk-audio');
  const track = pc.addTrack(audio);
  const channel = init ? pc.createDataChannel(label, init) : pc.createDataChannel(label);
  const close = () => {
    keepUntilExit(pc, track, channel);
    for (const step of [() => channel.close(), () => track.close(), () => pc.close()]) {
      try {
        step();
      } catch {
        // already closed
      }
    }
  };
  try {
    const offer = withoutCandidates(await gatheredDescription(pc, () => pc.setLocalDescription()));
    return { pc, track, channel, close, offer };
  } catch (error) {
    close();
    throw error;
  }
}

export async function createVoiceOfferer(name = 'agentdesk-voice'): Promise<VoiceOfferer> {
  const { pc, channel, close, offer } = await offeringPeer(name, 0x0a6e_7d00, 'oai-events');
  let openedResolve!: () => void;
  let openedReject!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => ((openedResolve = resolve), (openedReject = reject)));
  let firstResolve!: (text: string) => void;
  let firstReject!: (error: Error) => void;
  const firstMessage = new Promise<string>((resolve, reject) => ((firstResolve = resolve), (firstReject = reject)));
  // Whoever does not wait for them must not get an unhandled rejection (it would end the process).
  opened.catch(() => undefined);
  firstMessage.catch(() => undefined);
  const offerer: VoiceOfferer = {
    offer,
    opened,
    firstMessage,
    accept: (answer) => pc.setRemoteDescription(answer, 'answer'),
    send(text) {
      try {
        return channel.isOpen() && channel.sendMessage(text);
      } catch {
        return false;
      }
    },
    close,
  };
  // The channel cannot open before the answer is applied, so its callbacks are set now.
  const ended = (what: string) => {
    openedReject(new Error(`the oai-events data channel ${what} before it opened`));
    firstReject(new Error(`the oai-events data channel ${what} before any event arrived`));
  };
  channel.onOpen(() => openedResolve());
  channel.onClosed(() => ended('closed'));
  channel.onError((error) => ended(`failed (${error.slice(0, 200)})`));
  channel.onMessage((message) => {
    if (typeof message !== 'string') return;
    firstResolve(message);
    try {
      offerer.onMessage?.(message);
    } catch {
      // never throw inside node-datachannel callbacks
    }
  });
  return offerer;
}

/** The description without its `a=candidate` lines (see createVoiceOfferer). */
export function withoutCandidates(sdp: string): string {
  return sdp
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('a=candidate:'))
    .join('\r\n');
}

/** `promise`, or a rejection with `message` after `ms` (the timer is cleared either way). */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Frees node-datachannel's threads so the process can exit: once, after every peer is closed. */
export function releaseWebRtc(): void {
  ndc.cleanup();
}

/**
 * The app's side of an agentcall-webrtc-0.1 call, in Node: one sendrecv Opus track (48 kHz,
 * `minptime=10;useinbandfec=1`, no stereo) and the ordered, reliable `agentcall.events` channel with
 * subprotocol `agentcall-agui-dc-0.1`, offered on 127.0.0.1 without host candidates (see
 * createVoiceOfferer). The channel's callbacks are left to its user (connectNodeDataChannel sets them);
 * only `opened` is tracked here, through the peer's state. Kept until exit once closed.
 */
export interface AgentCallOfferer {
  readonly offer: string;
  readonly pc: ndc.PeerConnection;
  readonly channel: ndc.DataChannel;
  readonly track: ndc.Track;
  /** Resolves when the channel is open; rejects when the peer fails or closes first. */
  readonly opened: Promise<void>;
  accept(answer: string): void;
  close(): void;
}

export async function createAgentCallOfferer(options: { label?: string; protocol?: string; name?: string } = {}): Promise<AgentCallOfferer> {
  const { pc, track, channel, close, offer } = await offeringPeer(options.name ?? 'agentdesk-agentcall', 0x0a6e_7d01, options.label ?? 'agentcall.events', {
    protocol: options.protocol ?? 'agentcall-agui-dc-0.1',
  });
  const opened = new Promise<void>((resolve, reject) => {
    channel.onOpen(() => resolve());
    channel.onClosed(() => reject(new Error('the agentcall.events data channel closed before it opened')));
    channel.onError((error) => reject(new Error(`the agentcall.events data channel failed (${error.slice(0, 200)})`)));
  });
  opened.catch(() => undefined);
  return { offer, pc, channel, track, opened, accept: (answer) => pc.setRemoteDescription(answer, 'answer'), close };
}

/** Which step of a call failed: the SDP POST (and the answer's profile), or the channel opening. */
export class CallFailed extends Error {
  constructor(
    readonly step: 'offer' | 'channel',
    message: string,
    /** The signalling's code when the offer step failed (webrtc-signalling.ts). */
    readonly code?: SignallingError['code'],
  ) {
    super(message);
    this.name = 'CallFailed';
  }
}

export interface AgentCallCallOptions {
  card: AgentCallCard;
  policy: NetPolicy;
  /** Sent only when the card requires a bearer token. */
  token: string | undefined;
  /** AgentCall-Session-ID; session.start must carry the same. */
  sessionId: string;
  /** How long the channel may take to open once the answer is applied. */
  timeoutMs: number;
  log: Logger;
  name?: string;
}

export interface AgentCallCall {
  /** The open agentcall.events channel as the session engine's connection. */
  readonly connection: DataChannelConnection;
  readonly offerer: AgentCallOfferer;
  /** The answer's size in UTF-8 bytes. */
  readonly answerBytes: number;
  /** Data channels the agent opened itself (closed at once: the profile has one channel, the app's). */
  readonly agentChannels: readonly { label: string; protocol: string }[];
  /** Set when the call had to be made twice (offerAndAccept). */
  readonly retried?: string;
  /** Closes the channel and the peer (idempotent). */
  close(): void;
}

/**
 * A real agentcall-webrtc-0.1 call from Node, as the app makes it (no audio is sent on the track):
 * the offerer above, the SDP POST through AgentDesk's own signalling (webrtc-signalling.ts: headers,
 * no redirect, answer ≤ 128 KiB and its profile), the answer applied, and the channel, once open,
 * as a DataChannelConnection (which checks its label and subprotocol). For `agentdesk chat` and
 * `agentdesk conformance`. Throws CallFailed naming the step; the peer is closed then.
 */
export async function callAgentCallAgent(options: AgentCallCallOptions): Promise<AgentCallCall> {
  const agentChannels: { label: string; protocol: string }[] = [];
  let placed: Placed<AgentCallOfferer>;
  try {
    placed = await offerAndAccept(
      async () => {
        const offerer = await createAgentCallOfferer({ name: options.name ?? 'agentdesk-cli' });
        // Set before the answer is applied: the agent may open a channel as soon as the call is up.
        offerer.pc.onDataChannel((channel) => {
          keepUntilExit(channel);
          try {
            agentChannels.push({ label: channel.getLabel(), protocol: channel.getProtocol() });
            channel.close();
          } catch {
            // never throw inside node-datachannel callbacks
          }
        });
        return offerer;
      },
      (offerer) =>
        postAgentCallOffer({
          card: options.card,
          sessionId: options.sessionId,
          offer: offerer.offer,
          policy: options.policy,
          ...(options.token === undefined ? {} : { bearerToken: options.token }),
        }),
    );
  } catch (error) {
    if (error instanceof AnswerNotApplied) throw new CallFailed('channel', error.message);
    throw error instanceof SignallingError
      ? new CallFailed('offer', `${error.code}: ${error.message}`, error.code)
      : new CallFailed('offer', (error as Error).message);
  }
  const { offerer, answer } = placed;
  try {
    await within(offerer.opened, options.timeoutMs, `the channel did not open within ${Math.round(options.timeoutMs / 1000)} s`);
    const connection = connectNodeDataChannel(offerer.channel, offerer.pc, options.log);
    const close = () => {
      if (connection.isOpen) connection.close();
      offerer.close();
    };
    return {
      connection,
      offerer,
      answerBytes: new TextEncoder().encode(answer).byteLength,
      agentChannels,
      ...(placed.retried === undefined ? {} : { retried: placed.retried }),
      close,
    };
  } catch (error) {
    offerer.close();
    throw new CallFailed('channel', (error as Error).message);
  }
}

/** This process's own peer could not apply the agent's answer (setRemoteDescription threw). */
export class AnswerNotApplied extends Error {
  constructor(message: string) {
    super(`AgentDesk's node-datachannel peer could not apply the agent's answer: ${message.slice(0, 200)}`);
    this.name = 'AnswerNotApplied';
  }
}

/**
 * libdatachannel's own race in a busy process: a peer refuses a well-formed answer with "Got a remote
 * candidate without ICE transport" (reproduced with bare peers and no AgentDesk code; the tests' retryPeerRace
 * in test/unit/demo/voice-helpers.ts meets it too). It is this process's stand-in for the app's peer
 * (Chromium in the app) failing, not the agent.
 */
const ownPeerRace = /without ICE transport/;

export interface Placed<T> {
  offerer: T;
  answer: string;
  /** Set when the first try met libdatachannel's race (its message): the call was made again. */
  retried?: string;
}

/**
 * Makes an offerer, sends its offer (`post`: the agent's answer; whatever it throws is thrown as it is,
 * the offerer closed) and applies the answer. When this process's own peer refuses the answer with
 * libdatachannel's race, the call is made once more with a new peer and a new POST, and `retried` says
 * so; any other failure to apply it, or the race twice, throws AnswerNotApplied.
 */
export async function offerAndAccept<T extends { offer: string; accept(answer: string): void; close(): void }>(
  make: () => Promise<T>,
  post: (offerer: T) => Promise<string>,
): Promise<Placed<T>> {
  let retried: string | undefined;
  for (let attempt = 1; ; attempt++) {
    const offerer = await make();
    let answer: string;
    try {
      answer = await post(offerer);
    } catch (error) {
      offerer.close();
      throw error;
    }
    try {
      offerer.accept(answer);
      return { offerer, answer, ...(retried === undefined ? {} : { retried }) };
    } catch (error) {
      offerer.close();
      const message = (error as Error).message;
      if (attempt >= 2 || !ownPeerRace.test(message)) throw new AnswerNotApplied(message);
      retried = message.slice(0, 160);
    }
  }
}
