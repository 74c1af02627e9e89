import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import * as ndc from 'node-datachannel';
import OpusScript from 'opusscript';
import { httpErrors, sendError, TalkieHttpError } from '../http-util';

/**
 * The demo's offline stand-in for an openai-realtime/1 provider (#16): `POST /v1/realtime/calls` takes
 * the app's SDP offer (bearer = a client secret the demo minted), answers with one sendrecv Opus track
 * and the `oai-events` data channel, plays a scripted reply and measures the audio it receives.
 * node-datachannel rules (voice-brief §5a): loopback only, strong refs to PC/track/DC, never throw in its
 * callbacks, close() then ndc.cleanup() (the owner of the process calls cleanup).
 */
export const realtimeCallsPath = '/v1/realtime/calls';
const sampleRate = 48_000;
const windowSamples = sampleRate / 10; // 100 ms
const sdpMaxBytes = 64 * 1024;

export interface RealtimeProviderOptions {
  /** Client secrets the demo minted; only these open a call. */
  readonly isClientSecret: (secret: string) => boolean;
  /** What the scripted assistant says in answer to each `response.create`. */
  readonly replyTranscript?: string;
}

interface Call {
  readonly pc: ndc.PeerConnection;
  readonly track: ndc.Track;
  channel?: ndc.DataChannel;
  remoteTrack?: ndc.Track;
  decoder: OpusScript;
  sumSquares: number;
  samples: number;
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

/** The Opus payload of an RTP packet, or undefined for RTCP and malformed packets. */
export function rtpPayload(packet: Buffer): Buffer | undefined {
  if (packet.length < 12) return undefined;
  const first = packet.readUInt8(0);
  if (first >> 6 !== 2) return undefined;
  const payloadType = packet.readUInt8(1) & 0x7f;
  if (payloadType >= 72 && payloadType <= 76) return undefined; // RTCP (SR/RR/SDES/BYE/APP)
  let offset = 12 + (first & 0x0f) * 4;
  if (first & 0x10) {
    if (packet.length < offset + 4) return undefined;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  const end = first & 0x20 ? packet.length - packet.readUInt8(packet.length - 1) : packet.length;
  return end > offset ? packet.subarray(offset, end) : undefined;
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

export function createRealtimeProvider(options: RealtimeProviderOptions): RealtimeProvider {
  const calls: Call[] = [];
  const clientMessages: unknown[] = [];
  const energy: number[] = [];
  const reply = options.replyTranscript ?? 'Hello from the demo voice.';
  let responses = 0;

  const send = (call: Call, event: Record<string, unknown>): void => {
    try {
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
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'response.create') {
      responses += 1;
      const id = `resp_demo_${responses}`;
      const itemId = `item_demo_${responses}`;
      send(call, { type: 'response.created', response: { id, status: 'in_progress' } });
      send(call, { type: 'response.output_audio_transcript.done', response_id: id, item_id: itemId, transcript: reply });
      send(call, { type: 'response.done', response: { id, status: 'completed' } });
    }
  };

  const onAudio = (call: Call, packet: Buffer): void => {
    try {
      const payload = rtpPayload(packet);
      if (!payload) return;
      const pcm = call.decoder.decode(payload);
      for (let i = 0; i + 1 < pcm.length; i += 2) {
        const sample = pcm.readInt16LE(i) / 32768;
        call.sumSquares += sample * sample;
        call.samples += 1;
        if (call.samples === windowSamples) {
          energy.push(Math.sqrt(call.sumSquares / call.samples));
          call.sumSquares = 0;
          call.samples = 0;
        }
      }
    } catch {
      // a packet opusscript cannot decode is skipped; never throw inside node-datachannel callbacks
    }
  };

  const answer = (offer: string): Promise<string> => {
    const pc = new ndc.PeerConnection(`demo-realtime-${calls.length + 1}`, { iceServers: [], bindAddress: '127.0.0.1' });
    const audio = new ndc.Audio('0', 'SendRecv');
    audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
    audio.addSSRC(0x5ea1_0001 + calls.length, 'demo-provider', 'demo-stream', 'demo-audio');
    const call: Call = { pc, track: pc.addTrack(audio), decoder: new OpusScript(sampleRate, 1), sumSquares: 0, samples: 0 };
    calls.push(call);
    pc.onTrack((track) => {
      call.remoteTrack = track; // strong ref, or reception stops (§5a)
      try {
        track.setMediaHandler(new ndc.RtcpReceivingSession());
        track.onMessage((message) => onAudio(call, message));
      } catch {
        // never throw inside node-datachannel callbacks
      }
    });
    call.track.onMessage((message) => onAudio(call, message));
    pc.onDataChannel((channel) => {
      if (channel.getLabel() !== 'oai-events' || call.channel) return;
      call.channel = channel;
      const greet = (): void =>
        send(call, {
          type: 'session.created',
          session: { id: `sess_demo_${calls.indexOf(call) + 1}`, audio: { input: { turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true, silence_duration_ms: 500 } } } },
        });
      channel.onMessage((message) => onClientMessage(call, typeof message === 'string' ? message : Buffer.from(message as ArrayBuffer).toString('utf8')));
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
        const sdp = await answer(offer);
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
        try {
          call.channel?.close();
          call.track.close();
          call.remoteTrack?.close();
          call.pc.close();
        } catch {
          // already closed
        }
        call.decoder.delete();
      }
    },
  };
}
