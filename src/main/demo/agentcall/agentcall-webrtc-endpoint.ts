import type { IncomingMessage, ServerResponse } from 'node:http';
import * as ndc from 'node-datachannel';
import { sessionStartSchema } from '../../../shared/agentcall/protocol';
import { checkEventsChannel, sessionIdHeader } from '../../../shared/agentcall/webrtc-profile';
import { keepUntilExit } from '../../platform/keep-until-exit';
import type { Logger } from '../../platform/logger';
import { EnergyVad } from '../voice/energy-vad';
import { createEspeakTts, type TextToSpeech } from '../../speech/espeak-tts';
import { resample } from '../../speech/pcm';
import { createPocketsphinxStt, type SpeechToText } from '../../speech/pocketsphinx-stt';
import { gatheredDescription, offerAudioMid } from '../voice/realtime-provider';
import { OpusRtpReceiver, OpusRtpSender, opusPayloadType, opusRate, type Playback } from '../voice/rtp-opus';
import { AgentCallDemoSession, demoCommands, type AgentCallModalities } from './agentcall-demo-agent';

/**
 * The demo agent's `agentcall-webrtc-0.1` endpoint (agent-owned voice): `POST /agui/webrtc` takes the
 * app's SDP offer and answers with one sendrecv Opus track; the app's `agentcall.events` channel
 * (subprotocol `agentcall-agui-dc-0.1`) then carries the same JSON messages and envelopes as the
 * WebSocket, handled by the same session logic (agentcall-demo-agent.ts). The agent speaks every
 * `speech.segment` with espeak-ng as Opus RTP, and hears with the Talkie demo's offline recognizer
 * (pocketsphinx, here with this agent's commands as its grammar): an explicit audio turn's audio
 * between `audio.turn.start` and `.commit`, or, without explicit turns, what its energy VAD marks.
 *
 * The POST's rules, as the profile states them: `Content-Type: application/sdp` (415), `Accept`
 * naming application/sdp (406), an `AgentCall-Session-ID` (400, and `session.start` must carry the
 * same id), the bearer when the card declares one (401), an offer ≤ 64 KiB (413), the answer as
 * `application/sdp` (201). A channel with another label or subprotocol is closed unused. The call
 * ends with its channel or peer; nothing it learned survives it (no resume).
 * node-datachannel rules: loopback only, strong refs kept until exit (else reception silently stops), nothing thrown
 * inside its callbacks; the process owner calls ndc.cleanup().
 */

export const agentCallWebrtcPath = '/agui/webrtc';
const offerMaxBytes = 64 * 1024;
/** How long a call may wait for the app's agentcall.events channel. */
const channelOpenMs = 30_000;

/** This agent's commands, as the recognizer's closed grammar ("teach object <name>" is free text: typed only). */
export const agentCallGrammar = [
  '#JSGF V1.0;',
  'grammar agentcall_demo;',
  `public <command> = ${[demoCommands.scan, demoCommands.photo, demoCommands.confirm, demoCommands.cancel, 'hello'].join(' | ')};`,
  '',
].join('\n');

export interface AgentCallVoiceEngines {
  tts: TextToSpeech;
  stt: SpeechToText;
}

export interface AgentCallWebrtcOptions {
  modalities: AgentCallModalities;
  log: Logger;
  /** Checks the request's bearer (undefined when the card declares none). */
  authorize?: (request: IncomingMessage) => boolean;
  /** Default: espeak-ng and pocketsphinx from Debian, as child processes. */
  speech?: AgentCallVoiceEngines;
  maxCalls?: number;
  /** The pause between the parts of "tell me a story" (ms; tests). Default: the demo agent's. */
  storyPartMs?: number;
}

export interface AgentCallWebrtcEndpoint {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  readonly openCalls: number;
  /** Every client text message received on any call's channel, in order (tests). */
  readonly received: string[];
  /** RMS (0–1) of the app's audio per received packet, across calls (tests). */
  readonly audioLevels: number[];
  close(): void;
}

interface Call {
  pc: ndc.PeerConnection;
  track: ndc.Track;
  remoteTrack?: ndc.Track;
  channel?: ndc.DataChannel;
  session?: AgentCallDemoSession;
  sender: OpusRtpSender;
  receiver: OpusRtpReceiver;
  vad: EnergyVad;
  /** Audio of the open explicit turn. */
  turnAudio?: Int16Array[];
  playback?: Playback;
  speaking: Promise<void>;
  closed: boolean;
}

function sendText(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: { message } });
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...headers });
  response.end(body);
}

function readOffer(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (data: Buffer) => {
      size += data.length;
      if (size > offerMaxBytes) {
        // Answer 413 now; the rest is drained (not kept), and the connection closes after the answer.
        request.off('data', onData);
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(data);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export function createAgentCallWebrtcEndpoint(options: AgentCallWebrtcOptions): AgentCallWebrtcEndpoint {
  const calls = new Set<Call>();
  const received: string[] = [];
  const audioLevels: number[] = [];
  const ownEngines = options.speech === undefined;
  const speech: AgentCallVoiceEngines = options.speech ?? { tts: createEspeakTts(), stt: createPocketsphinxStt({ grammar: agentCallGrammar }) };
  const maxCalls = options.maxCalls ?? 4;
  let calling = 0;

  const safely = (what: string, step: () => void): void => {
    try {
      step();
    } catch (error) {
      options.log.warn('demo', `AgentCall WebRTC: ${what} failed`, error);
    }
  };

  const transcribe = async (audio: Int16Array): Promise<string> => {
    if (audio.length === 0) return '';
    try {
      return await speech.stt.transcribe({ sampleRate: opusRate, samples: audio });
    } catch (error) {
      options.log.warn('demo', 'AgentCall WebRTC: the recognizer failed', error);
      return '';
    }
  };

  const speak = (call: Call, text: string): void => {
    call.speaking = call.speaking.then(async () => {
      if (call.closed) return;
      try {
        const voice = await speech.tts.synthesize(text);
        if (call.closed) return;
        const pcm = resample(voice.samples, voice.sampleRate, opusRate);
        await new Promise<void>((resolve) => {
          call.playback = call.sender.play(pcm, resolve);
        });
      } catch (error) {
        options.log.warn('demo', 'AgentCall WebRTC: speaking failed', error);
      }
    });
  };

  const end = (call: Call): void => {
    if (call.closed) return;
    call.closed = true;
    calls.delete(call);
    keepUntilExit(call);
    call.session?.dispose();
    call.playback?.stop();
    for (const step of [() => call.channel?.close(), () => call.track.close(), () => call.remoteTrack?.close(), () => call.pc.close()]) {
      try {
        step();
      } catch {
        // already closed
      }
    }
    call.sender.close();
    call.receiver.close();
  };

  const onAudio = (call: Call, packet: Buffer): void => {
    safely('audio', () => {
      const pcm = call.receiver.decode(packet);
      if (!pcm || pcm.length === 0) return;
      let squares = 0;
      for (const value of pcm) squares += (value / 32768) ** 2;
      audioLevels.push(Math.sqrt(squares / pcm.length));
      if (audioLevels.length > 10_000) audioLevels.splice(0, 5_000);
      const session = call.session;
      if (!session) return;
      if (session.explicitAudioTurns) {
        // Only what arrives inside an explicit turn counts; the client stops its microphone before commit.
        if (call.turnAudio && call.turnAudio.length < 15 * 50) call.turnAudio.push(pcm);
        return;
      }
      for (const event of call.vad.push(pcm)) {
        if (event.type === 'speech_started') call.playback?.stop();
        if (event.type === 'speech_stopped') void transcribe(event.audio).then((words) => session.heard(words));
      }
    });
  };

  const onChannel = (call: Call, channel: ndc.DataChannel, sessionId: string): void => {
    const wrong = checkEventsChannel({ label: channel.getLabel(), protocol: channel.getProtocol() });
    if (wrong || call.channel) {
      options.log.warn('demo', `AgentCall WebRTC: a data channel was refused (${wrong ?? 'a second channel'})`);
      keepUntilExit(channel);
      safely('closing a refused channel', () => channel.close());
      return;
    }
    call.channel = channel;
    let first = true;
    const session = new AgentCallDemoSession({
      modalities: options.modalities,
      log: options.log,
      ...(options.storyPartMs === undefined ? {} : { storyPartMs: options.storyPartMs }),
      io: {
        send: (envelope) => {
          safely('sending', () => {
            if (channel.isOpen()) channel.sendMessage(JSON.stringify(envelope));
          });
          if (envelope.event.type === 'speech.segment') speak(call, envelope.event.text);
        },
        close: () => end(call),
      },
      voice: {
        turnStarted: () => {
          call.playback?.stop();
          call.turnAudio = [];
        },
        turnEnded: async (_turn, outcome) => {
          const audio = call.turnAudio ?? [];
          call.turnAudio = undefined;
          if (outcome === 'cancel') return '';
          const total = audio.reduce((sum, part) => sum + part.length, 0);
          const joined = new Int16Array(total);
          let at = 0;
          for (const part of audio) {
            joined.set(part, at);
            at += part.length;
          }
          return transcribe(joined);
        },
      },
    });
    call.session = session;
    channel.onMessage((message) => {
      safely('a message', () => {
        if (typeof message !== 'string') {
          // Binary is not part of the profile: the session ends, as a WebSocket closes with 1003.
          end(call);
          return;
        }
        received.push(message);
        if (first) {
          first = false;
          // The first message names the session the SDP POST named.
          let parsed: unknown;
          try {
            parsed = JSON.parse(message);
          } catch {
            parsed = undefined;
          }
          const start = sessionStartSchema.safeParse(parsed);
          if (start.success && start.data.sessionId !== sessionId) {
            channel.sendMessage(
              JSON.stringify({
                sequence: 1,
                event: {
                  type: 'failure',
                  code: 'session_id_mismatch',
                  message: `session.start names ${start.data.sessionId.slice(0, 64)}, the offer named ${sessionId.slice(0, 64)}.`,
                },
              }),
            );
            end(call);
            return;
          }
        }
        void session.receive(message);
      });
    });
    channel.onClosed(() => end(call));
  };

  const answer = (offer: string, sessionId: string): Promise<string> => {
    const pc = new ndc.PeerConnection(`demo-agentcall-${calls.size + 1}`, { iceServers: [], bindAddress: '127.0.0.1' });
    const payloadType = opusPayloadType(offer) ?? 111;
    const audio = new ndc.Audio(offerAudioMid(offer) ?? '0', 'SendRecv');
    audio.addOpusCodec(payloadType, 'minptime=10;useinbandfec=1');
    const ssrc = 0x5ea2_0000 + calls.size;
    audio.addSSRC(ssrc, 'demo-agentcall', 'demo-agentcall-stream', 'demo-agentcall-audio');
    const track = pc.addTrack(audio);
    const call: Call = {
      pc,
      track,
      sender: new OpusRtpSender(ssrc, payloadType, (packet) => {
        if (track.isOpen()) track.sendMessageBinary(packet);
      }),
      receiver: new OpusRtpReceiver(),
      vad: new EnergyVad(),
      speaking: Promise.resolve(),
      closed: false,
    };
    calls.add(call);
    // A caller that never opens its channel gives the call up (it would hold a slot and a peer).
    setTimeout(() => {
      if (!call.channel) end(call);
    }, channelOpenMs).unref();
    pc.onTrack((remote) => {
      call.remoteTrack = remote; // strong ref: a collected track silently stops receiving
      safely('the app track', () => {
        remote.setMediaHandler(new ndc.RtcpReceivingSession());
        remote.onMessage((message) => onAudio(call, message));
      });
    });
    track.onMessage((message) => onAudio(call, message));
    pc.onDataChannel((channel) => safely('the app channel', () => onChannel(call, channel, sessionId)));
    pc.onStateChange((state) => {
      // ICE trouble is not a resume: the call and its session end.
      if (state === 'disconnected' || state === 'failed' || state === 'closed') safely('ending the call', () => end(call));
    });
    return gatheredDescription(pc, () => pc.setRemoteDescription(offer, 'offer')).catch((error: unknown) => {
      end(call);
      throw error;
    });
  };

  return {
    get openCalls() {
      return calls.size;
    },
    received,
    audioLevels,
    async handle(request, response) {
      if (request.method !== 'POST') return sendText(response, 405, 'POST an SDP offer here.', { Allow: 'POST' });
      if (options.authorize && !options.authorize(request)) {
        request.resume();
        return sendText(response, 401, 'A bearer token is required.', { 'WWW-Authenticate': 'Bearer realm="agentcall"' });
      }
      if (!/^application\/sdp\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
        request.resume();
        return sendText(response, 415, 'The offer must be application/sdp.');
      }
      if (!/(^|,)\s*application\/sdp\s*(;|,|$)/i.test(request.headers.accept ?? '')) {
        request.resume();
        return sendText(response, 406, 'Accept must name application/sdp.');
      }
      const sessionId = request.headers[sessionIdHeader.toLowerCase()];
      if (typeof sessionId !== 'string' || !sessionStartSchema.shape.sessionId.safeParse(sessionId).success) {
        request.resume();
        return sendText(response, 400, `${sessionIdHeader} must name the session (letters, digits and . _ : ~ -, at most 128).`);
      }
      if (calls.size + calling >= maxCalls) {
        request.resume();
        return sendText(response, 503, 'Too many calls.');
      }
      calling += 1;
      try {
        const offer = await readOffer(request);
        if (offer === undefined) return sendText(response, 413, `The offer is larger than ${offerMaxBytes / 1024} KiB.`, { Connection: 'close' });
        if (!offer.startsWith('v=0')) return sendText(response, 400, 'The body is not an SDP offer.');
        let sdp: string;
        try {
          sdp = await answer(offer, sessionId);
        } catch (error) {
          options.log.warn('demo', 'AgentCall WebRTC: no answer to an offer', error);
          return sendText(response, 400, 'The SDP offer was refused.');
        }
        response.writeHead(201, { 'Content-Type': 'application/sdp', 'Content-Length': Buffer.byteLength(sdp), 'Cache-Control': 'no-store' });
        response.end(sdp);
      } finally {
        calling -= 1;
      }
    },
    close() {
      for (const call of [...calls]) end(call);
      if (ownEngines) speech.stt.close();
    },
  };
}
