import * as ndc from 'node-datachannel';
import { afterAll, describe, expect, it } from 'vitest';
import { concatSamples, rms } from '../../../src/main/speech/pcm';
import { OpusRtpReceiver, OpusRtpSender, opusPayloadType, rtpPacket, rtpPayload } from '../../../src/main/demo/voice/rtp-opus';
import { withoutCandidates } from '../../../src/main/cli/voice-peer';
import { gatheredDescription } from '../../../src/main/demo/voice/realtime-provider';
import { espeak48k, speechUnavailableReason } from '../../support/speech';

/**
 * The demo provider's mouth (#16): espeak-ng speech → 48 kHz → Opus in 20 ms frames → RTP on a
 * node-datachannel track, paced in real time → received and decoded by another node-datachannel peer.
 */
const unavailable = speechUnavailableReason(['espeak-ng']);
if (unavailable) console.log(`RTP/Opus loopback test skipped: ${unavailable}`);

const peers: ndc.PeerConnection[] = [];
const keep: unknown[] = []; // strong refs: a collected track silently stops receiving
afterAll(() => {
  for (const pc of peers) pc.close();
  ndc.cleanup();
});

/**
 * The app (receiver) offers one sendrecv Opus track; the provider (sender) answers with its own SSRC.
 * A node-datachannel offerer sometimes closes itself before the answer ("Got a remote candidate without ICE
 * transport", see realtime-provider.test.ts): then the pair is made again, up to 5 times.
 */
async function connectPair(): Promise<{ providerTrack: ndc.Track; payloadType: number; packets: { at: number; packet: Buffer }[] }> {
  for (let attempt = 1; ; attempt += 1) {
    const app = new ndc.PeerConnection('rtp-app', { iceServers: [], bindAddress: '127.0.0.1' });
    const provider = new ndc.PeerConnection('rtp-provider', { iceServers: [], bindAddress: '127.0.0.1' });
    peers.push(app, provider);
    const appAudio = new ndc.Audio('0', 'SendRecv');
    appAudio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
    appAudio.addSSRC(4242, 'app', 'app-stream', 'app-audio');
    const appTrack = app.addTrack(appAudio);
    const packets: { at: number; packet: Buffer }[] = [];
    appTrack.onMessage((message) => packets.push({ at: performance.now(), packet: Buffer.from(message) }));
    // Without host candidates, as `agentdesk conformance` offers: the answerer cannot start the handshake first.
    const offer = withoutCandidates(await gatheredDescription(app, () => app.setLocalDescription()));
    const payloadType = opusPayloadType(offer) ?? 111;
    const providerAudio = new ndc.Audio('0', 'SendRecv');
    providerAudio.addOpusCodec(payloadType, 'minptime=10;useinbandfec=1');
    providerAudio.addSSRC(0x5ea10001, 'demo-provider', 'demo-stream', 'demo-audio');
    const providerTrack = provider.addTrack(providerAudio);
    const answer = await gatheredDescription(provider, () => provider.setRemoteDescription(offer, 'offer'));
    const opened = new Promise<void>((resolve) => providerTrack.onOpen(resolve));
    try {
      app.setRemoteDescription(answer, 'answer');
    } catch (error) {
      if (attempt === 5 || !String(error).includes('without ICE transport')) throw error;
      continue;
    }
    keep.push(appTrack, providerTrack);
    await opened;
    return { providerTrack, payloadType, packets };
  }
}

describe('RTP and Opus helpers', () => {
  it('writes and reads the RTP header; finds the offered Opus payload type', () => {
    const packet = rtpPacket({ payloadType: 109, sequence: 0x1_0005, timestamp: 2 ** 32 + 7, ssrc: 0xdeadbeef, marker: true }, Buffer.from([1, 2, 3]));
    expect([...packet.subarray(0, 12)]).toEqual([0x80, 0x80 | 109, 0x00, 0x05, 0, 0, 0, 7, 0xde, 0xad, 0xbe, 0xef]);
    expect(rtpPayload(packet)).toEqual(Buffer.from([1, 2, 3]));
    expect(rtpPayload(Buffer.from([0x80, 200, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9]))).toBeUndefined(); // RTCP SR
    expect(opusPayloadType('v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 109 0\r\na=rtpmap:109 opus/48000/2\r\n')).toBe(109);
    expect(opusPayloadType('v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=rtpmap:0 PCMU/8000\r\n')).toBeUndefined();
  });
});

describe.skipIf(unavailable !== undefined)('espeak-ng over Opus RTP between two node-datachannel peers', { timeout: 60_000 }, () => {
  it('arrives whole, in order, with a steady clock, paced in real time and as loud as the source', async () => {
    const speech = await espeak48k('I can search contacts or send the offer.');
    const { providerTrack, payloadType, packets } = await connectPair();
    const sender = new OpusRtpSender(0x5ea10001, payloadType, (packet) => providerTrack.sendMessageBinary(packet));
    const started = performance.now();
    let sendingTook = 0;
    await new Promise<void>((resolve) =>
      sender.play(speech, () => {
        sendingTook = performance.now() - started;
        resolve();
      }),
    );
    await expect.poll(() => packets.length, { timeout: 5000 }).toBeGreaterThanOrEqual(Math.ceil(speech.length / 960));
    sender.close();

    const receiver = new OpusRtpReceiver();
    const decoded = concatSamples(packets.map(({ packet }) => receiver.decode(packet) ?? new Int16Array(0)));
    receiver.close();
    const headers = packets.map(({ packet }) => ({
      marker: packet[1]! >> 7,
      type: packet[1]! & 0x7f,
      sequence: packet.readUInt16BE(2),
      timestamp: packet.readUInt32BE(4),
      ssrc: packet.readUInt32BE(8),
    }));
    const audioMs = (speech.length / 48_000) * 1000;
    const receivingTook = packets.at(-1)!.at - packets[0]!.at;
    console.log(
      `RTP/Opus: ${packets.length} packets for ${audioMs.toFixed(0)} ms of speech; sending took ${sendingTook.toFixed(0)} ms (×${(sendingTook / audioMs).toFixed(2)}), ` +
        `arrivals spread over ${receivingTook.toFixed(0)} ms; RMS source ${rms(speech).toFixed(4)}, received ${rms(decoded).toFixed(4)}`,
    );
    expect(packets).toHaveLength(Math.ceil(speech.length / 960));
    expect(headers.every((header, i) => header.type === payloadType && header.ssrc === 0x5ea10001 && header.marker === (i === 0 ? 1 : 0))).toBe(true);
    expect(
      headers.every(
        (header, i) =>
          i === 0 || (header.sequence === ((headers[i - 1]!.sequence + 1) & 0xffff) && header.timestamp === (headers[i - 1]!.timestamp + 960) >>> 0),
      ),
    ).toBe(true);
    // Paced, not dumped: the packets go out over (about) the length of the speech.
    expect(sendingTook / audioMs).toBeGreaterThan(0.9);
    expect(receivingTook / audioMs).toBeGreaterThan(0.8);
    expect(rms(decoded) / rms(speech)).toBeGreaterThan(0.85);
    expect(rms(decoded) / rms(speech)).toBeLessThan(1.15);
  });
});
