import { randomInt } from 'node:crypto';
import OpusScript from 'opusscript';
import { bytesFromInt16, int16FromBytes } from '../../speech/pcm';

/**
 * Opus over RTP for the demo provider (#16): node-datachannel carries whole RTP packets but codes no
 * audio, so opusscript (libopus in WebAssembly) encodes and decodes 20 ms frames of
 * 48 kHz mono and this file writes and reads the 12-byte RTP header (RFC 3550; Opus RTP is RFC 7587).
 */
export const opusRate = 48_000;
export const frameSamples = 960; // 20 ms
const frameMs = 20;
/** Packets sent ahead of real time, so the receiver's jitter buffer never runs dry at the start. */
const leadPackets = 3;

/** The payload type the offer gave `opus/48000` (Chromium: 111), or undefined when it offered no Opus. */
export function opusPayloadType(sdp: string): number | undefined {
  const match = /^a=rtpmap:(\d{1,3}) opus\/48000/im.exec(sdp);
  const type = match ? Number(match[1]) : Number.NaN;
  return type >= 0 && type <= 127 ? type : undefined;
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

export function rtpPacket(header: { payloadType: number; sequence: number; timestamp: number; ssrc: number; marker: boolean }, payload: Buffer): Buffer {
  const packet = Buffer.alloc(12 + payload.length);
  packet[0] = 0x80; // version 2, no padding, no extension, no CSRC
  packet[1] = (header.marker ? 0x80 : 0) | (header.payloadType & 0x7f);
  packet.writeUInt16BE(header.sequence & 0xffff, 2);
  packet.writeUInt32BE(header.timestamp >>> 0, 4);
  packet.writeUInt32BE(header.ssrc >>> 0, 8);
  payload.copy(packet, 12);
  return packet;
}

/** 20 ms Opus frames of 48 kHz mono PCM (the last one padded with silence). */
export function encodeOpusFrames(encoder: OpusScript, pcm: Int16Array): Buffer[] {
  const frames: Buffer[] = [];
  for (let start = 0; start < pcm.length; start += frameSamples) {
    const frame = new Int16Array(frameSamples);
    frame.set(pcm.subarray(start, start + frameSamples));
    frames.push(Buffer.from(encoder.encode(bytesFromInt16(frame), frameSamples)));
  }
  return frames;
}

export interface Playback {
  /** Stops sending at once; `onEnd` is not called. */
  stop(): void;
  readonly packetsSent: number;
}

/**
 * One outgoing Opus stream (one SSRC): sequence numbers and timestamps run on across responses, and the
 * timestamp jumps over the silence between them as a real sender's clock does.
 */
export class OpusRtpSender {
  private readonly encoder = new OpusScript(opusRate, 1, OpusScript.Application.VOIP);
  private sequence = randomInt(0x10000);
  private timestamp = randomInt(0x1_0000_0000);
  private lastEnd: number | undefined;
  private current: (Playback & { halt(): void }) | undefined;

  constructor(
    readonly ssrc: number,
    readonly payloadType: number,
    private readonly send: (packet: Buffer) => void,
  ) {}

  /** Sends `pcm` (48 kHz mono) paced in real time, each 20 ms frame encoded as it is due; `onEnd` once the last packet has gone out. */
  play(pcm: Int16Array, onEnd: () => void): Playback {
    this.current?.halt();
    const total = Math.ceil(pcm.length / frameSamples);
    const started = performance.now();
    if (this.lastEnd !== undefined) this.timestamp += Math.round(Math.max(0, started - this.lastEnd) * (opusRate / 1000));
    let sent = 0;
    let finished = false;
    const sendDue = (): void => {
      const due = Math.min(total, Math.floor((performance.now() - started) / frameMs) + leadPackets);
      for (; sent < due && !finished; sent += 1) {
        const frame = new Int16Array(frameSamples);
        frame.set(pcm.subarray(sent * frameSamples, (sent + 1) * frameSamples));
        const payload = Buffer.from(this.encoder.encode(bytesFromInt16(frame), frameSamples));
        const packet = rtpPacket(
          { payloadType: this.payloadType, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc, marker: sent === 0 },
          payload,
        );
        this.sequence = (this.sequence + 1) & 0xffff;
        this.timestamp = (this.timestamp + frameSamples) >>> 0;
        try {
          this.send(packet);
        } catch {
          // a closed track: the stream ends by time as it would have
        }
      }
    };
    const timer = setInterval(() => {
      sendDue();
      if (sent === total && performance.now() - started >= total * frameMs) {
        halt();
        onEnd();
      }
    }, frameMs / 2);
    const halt = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      this.lastEnd = performance.now();
      if (this.current === playback) this.current = undefined;
    };
    const playback = {
      stop: halt,
      halt,
      get packetsSent() {
        return sent;
      },
    };
    this.current = playback;
    sendDue();
    return playback;
  }

  close(): void {
    this.current?.halt();
    this.encoder.delete();
  }
}

/** Decodes one received RTP packet to 48 kHz mono PCM, or undefined (RTCP, not Opus, undecodable). */
export class OpusRtpReceiver {
  private readonly decoder = new OpusScript(opusRate, 1);

  decode(packet: Buffer): Int16Array | undefined {
    const payload = rtpPayload(packet);
    if (!payload) return undefined;
    try {
      return int16FromBytes(this.decoder.decode(payload));
    } catch {
      return undefined;
    }
  }

  close(): void {
    this.decoder.delete();
  }
}
