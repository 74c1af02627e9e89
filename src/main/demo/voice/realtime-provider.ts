import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import * as ndc from 'node-datachannel';
import { keepUntilExit } from '../../platform/keep-until-exit';
import { httpErrors, sendError, TalkieHttpError } from '../http-util';
import { DemoConversation, type ProviderEvent, type SpeechEngines } from './demo-conversation';
import { createEspeakTts } from '../../speech/espeak-tts';
import type { VadSettings } from './energy-vad';
import { createPocketsphinxStt } from '../../speech/pocketsphinx-stt';
import { OpusRtpReceiver, OpusRtpSender, opusPayloadType, opusRate } from './rtp-opus';

export { rtpPayload } from './rtp-opus';
export type { SpeechEngines } from './demo-conversation';

/**
 * The demo's offline stand-in for an openai-realtime/1 provider (#16): `POST /v1/realtime/calls` takes
 * the app's SDP offer (bearer = a client secret the demo minted) and answers with one sendrecv Opus track
 * and the `oai-events` data channel. It listens (energy VAD, pocketsphinx with the demo's grammar) and
 * speaks (espeak-ng as Opus RTP); the turns are in demo-conversation.ts.
 * node-datachannel rules: loopback only, strong refs to PC/track/DC (else reception silently stops), never throw in its
 * callbacks, close() then ndc.cleanup() (the owner of the process calls cleanup).
 */
export const realtimeCallsPath = '/v1/realtime/calls';
const windowSamples = opusRate / 10; // 100 ms
const sdpMaxBytes = 64 * 1024;

export interface RealtimeProviderOptions {
  /** Client secrets the demo minted; only these open a call. */
  readonly isClientSecret: (secret: string) => boolean;
  /** What the assistant says to a `response.create` with no new user turn and no tool output to read. */
  readonly replyTranscript?: string;
  /** The recognizer and the voice (default: pocketsphinx and espeak-ng from Debian, as child processes). */
  readonly speech?: SpeechEngines;
  /** The session's language for a client secret ("cs": the demo speaks Czech). Default English. */
  readonly localeFor?: (clientSecret: string) => string | undefined;
  /** Turn detection tuning (tests). */
  readonly vad?: Partial<VadSettings>;
  /**
   * What happened, for the demo's log: each turn, transcription, function call and playback event by
   * type, with the loudest packet of microphone audio since the previous one (never audio or words).
   */
  readonly log?: (message: string) => void;
}

/** The provider events the log names (the rest would only repeat them). */
const loggedEvents = new Set([
  'input_audio_buffer.speech_started',
  'input_audio_buffer.speech_stopped',
  'conversation.item.input_audio_transcription.completed',
  'conversation.item.input_audio_transcription.failed',
  'response.function_call_arguments.done',
  'output_audio_buffer.started',
  'output_audio_buffer.stopped',
  'output_audio_buffer.cleared',
]);

interface Call {
  readonly number: number;
  readonly pc: ndc.PeerConnection;
  readonly track: ndc.Track;
  channel?: ndc.DataChannel;
  remoteTrack?: ndc.Track;
  readonly receiver: OpusRtpReceiver;
  readonly sender: OpusRtpSender;
  readonly conversation: DemoConversation;
  readonly watch: ReturnType<typeof setInterval>;
  lastAudioAt: number;
  sumSquares: number;
  samples: number;
  /** The loudest packet (RMS, 10–20 ms of audio) since the last logged event. */
  loudest: number;
}

export interface RealtimeProvider {
  /** Handles `POST /v1/realtime/calls`; false when the path is not its own. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
  /** Every client message received on `oai-events`, parsed (or `{ unparsable: text }`). */
  readonly clientMessages: unknown[];
  /** RMS (0–1) of the received audio per 100 ms, in order, across calls. */
  energy(): readonly number[];
  /** Calls (peer connections) created so far. */
  callCount(): number;
  /** Closes every peer connection (the caller then runs ndc.cleanup() once). */
  close(): void;
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readSdp(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (data: Buffer) => {
      size += data.length;
      if (size > sdpMaxBytes) {
        request.destroy();
        reject(httpErrors.tooLarge('The SDP offer is too large.', true));
        return;
      }
      chunks.push(data);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** How long a peer may take to gather its loopback candidates before its description is given up on. */
const gatheringTimeoutMs = 10_000;

/**
 * Starts negotiation with `begin` (setLocalDescription or setRemoteDescription) and resolves with the
 * local SDP once ICE gathering is complete. node-datachannel sometimes reaches "complete" without
 * calling onGatheringStateChange (measured here: about half the time, when gathering finishes
 * within a few milliseconds on loopback), so the state is also read every 10 ms.
 */
export function gatheredDescription(pc: ndc.PeerConnection, begin: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (): void => {
      if (settled || pc.gatheringState() !== 'complete') return;
      settled = true;
      clearInterval(poll);
      clearTimeout(limit);
      const description = pc.localDescription();
      if (description) resolve(description.sdp);
      else reject(new Error('ICE gathering completed without a local description.'));
    };
    const poll = setInterval(finish, 10);
    const limit = setTimeout(() => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      reject(new Error(`ICE gathering did not complete within ${gatheringTimeoutMs} ms.`));
    }, gatheringTimeoutMs);
    pc.onGatheringStateChange(() => finish());
    try {
      begin();
    } catch (error) {
      settled = true;
      clearInterval(poll);
      clearTimeout(limit);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** The mid of the offer's audio section (Chromium numbers m-lines in the order they were added). */
export function offerAudioMid(sdp: string): string | undefined {
  const section = sdp.split(/\r?\n(?=m=)/).find((part) => part.startsWith('m=audio'));
  return section ? /^a=mid:(\S{1,32})$/m.exec(section)?.[1] : undefined;
}

export function createRealtimeProvider(options: RealtimeProviderOptions): RealtimeProvider {
  const calls: Call[] = [];
  let callsMade = 0;
  const clientMessages: unknown[] = [];
  const energy: number[] = [];
  const ownEngines = options.speech === undefined;
  const speech: SpeechEngines = options.speech ?? { tts: createEspeakTts(), stt: createPocketsphinxStt() };

  const send = (call: Call, event: ProviderEvent): void => {
    try {
      if (options.log && loggedEvents.has(event.type)) {
        options.log(`voice call ${call.number}: ${event.type} (microphone RMS up to ${call.loudest.toFixed(3)} since the last event)`);
        call.loudest = 0;
      }
      if (call.channel?.isOpen()) call.channel.sendMessage(JSON.stringify(event));
    } catch {
      // never throw inside node-datachannel callbacks
    }
  };

  const onClientMessage = (call: Call, text: string): void => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = { unparsable: text.slice(0, 200) };
    }
    clientMessages.push(message);
    try {
      call.conversation.clientMessage(message);
    } catch {
      // never throw inside node-datachannel callbacks
    }
  };

  const onAudio = (call: Call, packet: Buffer): void => {
    try {
      const pcm = call.receiver.decode(packet);
      if (!pcm) return;
      call.lastAudioAt = performance.now();
      let packetSquares = 0;
      for (const value of pcm) {
        const sample = value / 32768;
        packetSquares += sample * sample;
        call.sumSquares += sample * sample;
        call.samples += 1;
        if (call.samples === windowSamples) {
          energy.push(Math.sqrt(call.sumSquares / call.samples));
          call.sumSquares = 0;
          call.samples = 0;
        }
      }
      if (pcm.length > 0) call.loudest = Math.max(call.loudest, Math.sqrt(packetSquares / pcm.length));
      call.conversation.audioIn(pcm);
    } catch {
      // never throw inside node-datachannel callbacks
    }
  };

  const answer = (offer: string, clientSecret: string): Promise<string> => {
    callsMade += 1;
    const number = callsMade;
    const pc = new ndc.PeerConnection(`demo-realtime-${number}`, { iceServers: [], bindAddress: '127.0.0.1' });
    const payloadType = opusPayloadType(offer) ?? 111;
    const audio = new ndc.Audio(offerAudioMid(offer) ?? '0', 'SendRecv');
    audio.addOpusCodec(payloadType, 'minptime=10;useinbandfec=1');
    const ssrc = 0x5ea1_0000 + number;
    audio.addSSRC(ssrc, 'demo-provider', 'demo-stream', 'demo-audio');
    const track = pc.addTrack(audio);
    const sender = new OpusRtpSender(ssrc, payloadType, (packet) => {
      if (track.isOpen()) track.sendMessageBinary(packet);
    });
    const locale = options.localeFor?.(clientSecret);
    const made: { call?: Call } = {}; // the conversation emits only once the call (and its channel) exists
    const conversation = new DemoConversation({
      callNumber: number,
      emit: (event) => {
        if (made.call) send(made.call, event);
      },
      audioOut: sender,
      speech,
      ...(locale === undefined ? {} : { locale }),
      ...(options.vad ? { vad: options.vad } : {}),
      ...(options.replyTranscript === undefined ? {} : { defaultReply: options.replyTranscript }),
    });
    // A turn ends by silence; when the app stops sending audio altogether, it ends by time.
    const watch = setInterval(() => {
      if (conversation.speaking && performance.now() - current.lastAudioAt > conversation.silenceMs()) conversation.audioStopped();
    }, 100);
    watch.unref();
    const current: Call = {
      number,
      pc,
      track,
      receiver: new OpusRtpReceiver(),
      sender,
      conversation,
      watch,
      lastAudioAt: performance.now(),
      sumSquares: 0,
      samples: 0,
      loudest: 0,
    };
    made.call = current;
    calls.push(current);
    pc.onTrack((remote) => {
      current.remoteTrack = remote; // strong ref: a collected track silently stops receiving
      try {
        remote.setMediaHandler(new ndc.RtcpReceivingSession());
        remote.onMessage((message) => onAudio(current, message));
      } catch {
        // never throw inside node-datachannel callbacks
      }
    });
    track.onMessage((message) => onAudio(current, message));
    pc.onDataChannel((channel) => {
      if (channel.getLabel() !== 'oai-events' || current.channel) return;
      current.channel = channel;
      channel.onMessage((message) => onClientMessage(current, typeof message === 'string' ? message : Buffer.from(message as ArrayBuffer).toString('utf8')));
      const greet = (): void => {
        try {
          conversation.open();
        } catch {
          // never throw inside node-datachannel callbacks
        }
      };
      if (channel.isOpen()) greet();
      else channel.onOpen(greet);
    });
    return gatheredDescription(pc, () => {
      try {
        pc.setRemoteDescription(offer, 'offer');
      } catch (error) {
        throw httpErrors.invalid(`The SDP offer was refused: ${error instanceof Error ? error.message : String(error)}`);
      }
    }).catch((error: unknown) => {
      throw error instanceof TalkieHttpError ? error : httpErrors.internal('The demo provider made no SDP answer.');
    });
  };

  return {
    clientMessages,
    energy: () => energy,
    callCount: () => calls.length,
    async handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== realtimeCallsPath) return false;
      try {
        if (request.method !== 'POST') throw httpErrors.method(['POST']);
        const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
        if (!bearer) throw httpErrors.unauthorized('A client secret (Bearer) is required.', false);
        if (!options.isClientSecret(bearer)) throw httpErrors.unauthorized('This client secret is not one the demo minted.', true);
        if (!/^application\/sdp\b/i.test(request.headers['content-type'] ?? '')) throw httpErrors.invalid('The offer must be application/sdp.');
        const offer = await readSdp(request);
        if (!offer.startsWith('v=0')) throw httpErrors.invalid('The body is not an SDP offer.');
        const sdp = await answer(offer, bearer);
        response.writeHead(201, { 'Content-Type': 'application/sdp', 'Content-Length': Buffer.byteLength(sdp), 'Cache-Control': 'no-store' });
        response.end(sdp);
      } catch (error) {
        if (request.readableEnded === false) request.resume();
        sendError(response, error instanceof TalkieHttpError ? error : httpErrors.internal());
      }
      return true;
    },
    close() {
      for (const call of calls.splice(0)) {
        keepUntilExit(call);
        clearInterval(call.watch);
        call.conversation.close();
        try {
          call.channel?.close();
          call.track.close();
          call.remoteTrack?.close();
          call.pc.close();
        } catch {
          // already closed
        }
        call.sender.close();
        call.receiver.close();
      }
      if (ownEngines) speech.stt.close();
    },
  };
}
