import type { AgentCallOpenResponse } from '../../../../shared/agentcall/ipc-schemas';
import { eventsChannel } from '../../../../shared/agentcall/webrtc-profile';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import { call } from '../../../hooks/useLiveResource';
import { classify, iceGathered, mediaDevices, MicrophoneError, openMicrophone, stopTracks, type MicrophoneProblem } from '../../../voice/call-media';

/**
 * One agentcall-webrtc-0.1 call from the renderer (agent-owned voice). The renderer owns the
 * RTCPeerConnection — the microphone (echo cancellation on, the same plumbing as Talkie voice:
 * voice/call-media.ts), the agent's audio, and the ordered `agentcall.events` channel with subprotocol
 * `agentcall-agui-dc-0.1` — and main owns everything else. The channel is only relayed: each message
 * that arrives goes to main unparsed (`agentcall.callMessage`; a binary or oversized one only as
 * refused), and only text main emits (`agentcall.channelSend`) is put on it. The offer goes to main
 * (`agentcall.callOffer`), which POSTs it; once the channel is open, `agentcall.callOpened` starts the
 * session, after which it is an ordinary AgentCall session addressed by its key.
 *
 * Push to talk (when the card supports explicit turns): `pressTalk` opens an audio turn and then the
 * microphone; `releaseTalk` stops the microphone first, then commits; `cancelTalk` (Esc, the window
 * losing focus) stops it, then cancels. Without explicit turns the microphone is open for the whole
 * call and the agent detects turns itself. A channel that closes or a connection that fails or
 * disconnects ends the session: nothing is resumed.
 */

export type CallProblem = { kind: 'microphone'; problem: MicrophoneProblem } | { kind: 'refused'; error: IpcError } | { kind: 'turn'; error: IpcError };

export interface AgentCallCallHandlers {
  /** The session is established (as `agentcall.open` answers). */
  opened(response: AgentCallOpenResponse): void;
  /** The call could not be made, or it ended (problem undefined: hung up or ended by the agent). */
  ended(problem?: CallProblem): void;
  /** The agent's voice, for an <audio> element (Chromium decodes a remote track only when something plays it). */
  remoteAudio?(stream: MediaStream): void;
  /** The microphone's stream (at the start, and again after a switch), for a level meter. */
  microphone?(stream: MediaStream): void;
  /** The remembered microphone was gone: the default one is used (forget it). */
  microphoneForgotten?(): void;
  /** Push to talk was pressed but main opened no turn (e.g. the agent did not stop answering): nothing was sent. */
  turnRefused?(error: IpcError): void;
}

/** The most a relayed text message may be (UTF-16 units): anything longer goes to main as refused. */
const maxRelayedChars = 256 * 1024;
const iceGatheringMs = 3_000;
/** How long a hang-up waits for the channel to send what it holds and close, before the connection closes anyway. */
const drainMs = 1_000;

export class AgentCallCall {
  private pc: RTCPeerConnection | undefined;
  private channel: RTCDataChannel | undefined;
  private stream: MediaStream | undefined;
  private track: MediaStreamTrack | undefined;
  private callKey: string | undefined;
  private sessionKey: string | undefined;
  private explicitTurns = false;
  private muted = false;
  private talking: Promise<boolean> | undefined;
  private finished = false;
  /** Main has already let the call go (it closed the channel, or was told the channel is gone). */
  private mainLetGo = false;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly api: AgentDeskApi,
    private readonly agentId: string,
    private readonly handlers: AgentCallCallHandlers,
    /** The microphone to use (undefined: the system default). */
    private deviceId?: string,
  ) {}

  /** True while push to talk is held (an audio turn is open or opening). */
  get isTalking(): boolean {
    return this.talking !== undefined;
  }

  get usesPushToTalk(): boolean {
    return this.explicitTurns;
  }

  /** Starts the call: microphone, offer, answer, channel, session. Call it from the user's click. */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      this.finish(error instanceof CallRefused ? { kind: 'refused', error: error.error } : { kind: 'microphone', problem: classify(error) });
    }
  }

  /** True once the session is established over the call's channel. */
  get connected(): boolean {
    return this.sessionKey !== undefined && !this.finished;
  }

  /** The microphone sends nothing while muted (the track is disabled); an open audio turn is cancelled. */
  async setMuted(muted: boolean): Promise<void> {
    this.muted = muted;
    if (muted && this.talking) await this.cancelTalk();
    if (this.track) this.track.enabled = !muted && this.sessionKey !== undefined && !this.explicitTurns;
  }

  /** Another microphone on the same connection (replaceTrack: no new offer); it sends only when the old one would have. */
  async selectMicrophone(deviceId: string | undefined): Promise<void> {
    this.deviceId = deviceId;
    const devices = mediaDevices();
    const sender = this.pc?.getSenders()[0];
    if (!devices || !sender || this.finished) return;
    const { stream } = await openMicrophone(devices, deviceId);
    const track = stream.getAudioTracks()[0];
    if (this.finished || !track) return stopTracks(stream);
    track.enabled = this.track?.enabled ?? false;
    await sender.replaceTrack(track);
    const old = this.stream;
    this.stream = stream;
    this.track = track;
    stopTracks(old);
    this.handlers.microphone?.(stream);
  }

  /**
   * Push to talk pressed: an audio turn opens, then the microphone. While the agent answers, main
   * first stops that answer (a barge-in) and opens the turn once it has ended. A turn main does not
   * open is said (`turnRefused`) and the press is over: releasing it sends nothing.
   */
  pressTalk(): void {
    const key = this.sessionKey;
    if (!key || !this.explicitTurns || this.talking || this.finished || this.muted) return;
    const opening: Promise<boolean> = call(() =>
      this.api.agentcall.audioTurn({ sessionKey: key, action: 'start', microphoneStopped: !this.microphoneOn }),
    ).then((result) => {
      const current = this.talking === opening;
      if (!result.ok) {
        if (current) this.talking = undefined;
        if (!this.finished) this.handlers.turnRefused?.(result.error);
        return false;
      }
      // Released (or pressed again) meanwhile: the microphone stays as endTalk left it.
      if (current && this.track) this.track.enabled = true;
      return true;
    });
    this.talking = opening;
  }

  /** Push to talk released: the microphone stops, then the turn is committed. */
  async releaseTalk(): Promise<void> {
    await this.endTalk('commit');
  }

  /** Esc, or the window lost focus: the microphone stops, then the turn is cancelled. */
  async cancelTalk(): Promise<void> {
    await this.endTalk('cancel');
  }

  /** Hang up: the session ends (session.end), the channel and the peer close. */
  async hangUp(): Promise<void> {
    if (this.finished) return;
    if (this.talking) await this.cancelTalk();
    const key = this.sessionKey;
    if (key) await call(() => this.api.agentcall.end({ sessionKey: key }));
    this.finish();
  }

  private get microphoneOn(): boolean {
    return this.track?.enabled === true && this.track.readyState === 'live';
  }

  private async endTalk(action: 'commit' | 'cancel'): Promise<void> {
    const opening = this.talking;
    if (!opening) return;
    this.talking = undefined;
    // The microphone stops before the turn ends (the spec's order), whatever main answers.
    if (this.track) this.track.enabled = false;
    const key = this.sessionKey;
    if (!(await opening) || !key) return;
    await call(() => this.api.agentcall.audioTurn({ sessionKey: key, action, microphoneStopped: !this.microphoneOn }));
  }

  private async connect(): Promise<void> {
    const devices = mediaDevices();
    if (!devices || typeof RTCPeerConnection === 'undefined') throw new MicrophoneError('unavailable');
    const arm = await call(() => this.api.media.arm({ kinds: ['microphone'] }));
    if (!arm.ok) throw new MicrophoneError('denied');
    const { stream, forgotten } = await openMicrophone(devices, this.deviceId);
    if (this.finished) return stopTracks(stream);
    this.stream = stream;
    if (forgotten) this.handlers.microphoneForgotten?.();
    const track = stream.getAudioTracks()[0];
    if (!track) throw new MicrophoneError('noMicrophone');
    // Closed until the call knows whether it is push to talk.
    track.enabled = false;
    this.track = track;
    this.handlers.microphone?.(stream);

    const pc = new RTCPeerConnection({ iceServers: [] });
    this.pc = pc;
    pc.addTransceiver(track, { direction: 'sendrecv', streams: [stream] });
    pc.addEventListener('track', (event) => this.handlers.remoteAudio?.(event.streams[0] ?? new MediaStream([event.track])));
    pc.addEventListener('connectionstatechange', () => {
      // ICE trouble is not a resume: the session ends.
      if (pc.connectionState === 'failed' || pc.connectionState === 'disconnected') this.channelGone(`the connection ${pc.connectionState}`, false);
    });
    const channel = pc.createDataChannel(eventsChannel.label, { protocol: eventsChannel.protocol, ordered: true });
    this.channel = channel;

    await pc.setLocalDescription(await pc.createOffer());
    await iceGathered(pc, iceGatheringMs);
    if (this.finished) return;
    const offered = await call(() => this.api.agentcall.callOffer({ agentId: this.agentId, sdp: pc.localDescription?.sdp ?? '' }));
    if (!offered.ok) throw new CallRefused(offered.error);
    const { callKey, sdp, explicitTurns } = offered.value;
    this.callKey = callKey;
    // Hung up while main was POSTing the offer: main holds a pending call for it; it is dropped now, not at its timeout.
    if (this.finished) return this.letMainGo('hung up while connecting');
    this.explicitTurns = explicitTurns;
    this.unsubscribe.push(
      this.api.agentcall.onChannelSend((payload) => {
        if (payload.callKey !== callKey || channel.readyState !== 'open') return;
        try {
          channel.send(payload.text);
        } catch {
          this.channelGone('sending failed', false);
        }
      }),
      this.api.agentcall.onChannelClose((payload) => {
        if (payload.callKey !== callKey) return;
        this.mainLetGo = true;
        this.finish();
      }),
    );
    channel.addEventListener('message', (event: MessageEvent) => {
      const data: unknown = event.data;
      const message =
        typeof data === 'string' ? (data.length > maxRelayedChars ? { refused: 'too_large' as const } : { text: data }) : { refused: 'binary' as const };
      void call(() => this.api.agentcall.callMessage({ callKey, ...message }));
    });
    channel.addEventListener('close', () => this.channelGone('closed', true));
    // Settled by a close too (a hang-up before the channel opened), so nothing waits for ever.
    const open = new Promise<void>((resolve) => {
      if (channel.readyState === 'open' || channel.readyState === 'closed') resolve();
      else {
        channel.addEventListener('open', () => resolve(), { once: true });
        channel.addEventListener('close', () => resolve(), { once: true });
      }
    });
    await pc.setRemoteDescription({ type: 'answer', sdp });
    await open;
    if (this.finished) return;
    const opened = await call(() => this.api.agentcall.callOpened({ callKey }));
    if (!opened.ok) throw new CallRefused(opened.error);
    if (this.finished) {
      // Hung up while the session was starting: it ends at once (main was told the channel is gone, but the session may have won the race).
      const sessionKey = opened.value.sessionKey;
      await call(() => this.api.agentcall.end({ sessionKey }));
      return;
    }
    this.sessionKey = opened.value.sessionKey;
    // Without explicit turns the agent listens all the time.
    if (!explicitTurns && this.track) this.track.enabled = !this.muted;
    this.handlers.opened(opened.value);
  }

  private channelGone(why: string, clean: boolean): void {
    if (this.finished || !this.callKey) return;
    this.letMainGo(why, clean);
    this.finish();
  }

  /** Tells main the call's channel is gone (once): main drops its pending call or ends the session, and forgets the call. */
  private letMainGo(why: string, clean = true): void {
    const key = this.callKey;
    if (!key || this.mainLetGo) return;
    this.mainLetGo = true;
    void call(() => this.api.agentcall.callClosed({ callKey: key, why, clean }));
  }

  private finish(problem?: CallProblem): void {
    if (this.finished) return;
    this.finished = true;
    this.talking = undefined;
    // A call main answered but whose session never started (hung up while connecting) is dropped in main at once.
    if (this.sessionKey === undefined) this.letMainGo('hung up while connecting');
    for (const off of this.unsubscribe.splice(0)) off();
    stopTracks(this.stream);
    // The channel closes first, and the connection once it has: a channel's close sends what it still
    // holds (session.end on a hang-up) before its stream is reset, while closing the connection at once
    // aborts the association and can drop it. A peer that never confirms the close waits drainMs at most.
    // (Neither close() throws: on something already closed it does nothing.)
    const { channel, pc } = this;
    const closePeer = () => pc?.close();
    if (channel?.readyState === 'open') {
      const timer = setTimeout(closePeer, drainMs);
      channel.addEventListener(
        'close',
        () => {
          clearTimeout(timer);
          closePeer();
        },
        { once: true },
      );
      channel.close();
    } else {
      channel?.close();
      closePeer();
    }
    void call(() => this.api.media.disarm({ kinds: ['microphone'] }));
    this.handlers.ended(problem);
  }
}

class CallRefused extends Error {
  constructor(readonly error: IpcError) {
    super(error.message);
  }
}
