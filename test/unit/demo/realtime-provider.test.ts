import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as ndc from 'node-datachannel';
import OpusScript from 'opusscript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeProvider, gatheredDescription, realtimeCallsPath, sameSecret, type RealtimeProvider } from '../../../src/main/demo/voice/realtime-provider';
import { parseRealtimeMessage } from '../../../src/shared/talkie/voice/realtime-events';

const secret = 'ek_demo_test';
let provider: RealtimeProvider;
let server: Server;
let url: string;
const appPeers: ndc.PeerConnection[] = [];
const keep: unknown[] = []; // strong refs to the app side's tracks and channels (§5a)

beforeAll(async () => {
  provider = createRealtimeProvider({ isClientSecret: (given) => sameSecret(given, secret), replyTranscript: 'Scripted reply.' });
  server = createServer((request, response) => {
    void provider.handle(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${realtimeCallsPath}`;
});

afterAll(async () => {
  for (const pc of appPeers) pc.close();
  provider.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  ndc.cleanup();
});

/** The "app" side: an offerer with one sendrecv Opus track and the `oai-events` channel. */
async function appOffer(): Promise<{ pc: ndc.PeerConnection; track: ndc.Track; channel: ndc.DataChannel; offer: string }> {
  const pc = new ndc.PeerConnection('app', { iceServers: [], bindAddress: '127.0.0.1' });
  appPeers.push(pc);
  const audio = new ndc.Audio('0', 'SendRecv');
  audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
  audio.addSSRC(4242, 'app', 'app-stream', 'app-audio');
  const track = pc.addTrack(audio);
  const channel = pc.createDataChannel('oai-events');
  keep.push(track, channel);
  const offer = await gatheredDescription(pc, () => pc.setLocalDescription());
  return { pc, track, channel, offer };
}

const post = (offer: string, bearer: string) =>
  fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/sdp' }, body: offer });

/** Waits for the next message whose JSON type is `type`. */
function nextEvent(messages: string[], type: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const found = messages.find((text) => (JSON.parse(text) as { type: string }).type === type);
      if (found) {
        clearInterval(timer);
        resolve(JSON.parse(found) as Record<string, unknown>);
      }
    }, 10);
    setTimeout(() => {
      clearInterval(timer);
      reject(new Error(`no ${type} in ${messages.join(' | ')}`));
    }, 15_000).unref();
  });
}

function rtp(sequence: number, timestamp: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = 111;
  header.writeUInt16BE(sequence & 0xffff, 2);
  header.writeUInt32BE(timestamp >>> 0, 4);
  header.writeUInt32BE(4242, 8);
  return Buffer.concat([header, payload]);
}

describe('demo realtime provider (#16)', { timeout: 20_000 }, () => {
  it('refuses a wrong bearer with 401 and creates no peer', async () => {
    const { offer } = await appOffer();
    const response = await post(offer, 'ek_not_minted');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(provider.callCount()).toBe(0);
  });

  it('answers an offer, opens oai-events with session.created, scripts a response and hears the mic', async () => {
    const { pc, track, channel, offer } = await appOffer();
    const messages: string[] = [];
    channel.onMessage((message) => {
      if (typeof message === 'string') messages.push(message);
    });
    const opened = new Promise<void>((resolve) => channel.onOpen(resolve));
    const trackOpen = new Promise<void>((resolve) => track.onOpen(resolve));

    const response = await post(offer, secret);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/sdp');
    const answer = await response.text();
    expect(answer).toMatch(/^v=0/);
    expect(answer).toContain('useinbandfec=1');
    expect(answer).not.toContain('stereo=1');
    expect(answer).toMatch(/a=sendrecv/);
    expect(provider.callCount()).toBe(1);
    pc.setRemoteDescription(answer, 'answer');
    await opened;

    const created = await nextEvent(messages, 'session.created');
    const parsed = parseRealtimeMessage(JSON.stringify(created));
    expect(parsed.kind).toBe('event');
    expect(created).toMatchObject({ session: { audio: { input: { turn_detection: { type: 'server_vad' } } } } });

    channel.sendMessage(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad' } } } } }));
    channel.sendMessage(JSON.stringify({ type: 'response.create' }));
    const transcript = await nextEvent(messages, 'response.output_audio_transcript.done');
    expect(transcript).toMatchObject({ transcript: 'Scripted reply.' });
    const done = await nextEvent(messages, 'response.done');
    expect(done).toMatchObject({ response: { status: 'completed' } });
    const types = messages.map((text) => (JSON.parse(text) as { type: string }).type);
    expect(types).toEqual(['session.created', 'response.created', 'response.output_audio_transcript.done', 'response.done']);
    expect(provider.clientMessages).toEqual([
      { type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad' } } } } },
      { type: 'response.create' },
    ]);

    // Mic → provider: 1 s of a 440 Hz tone, Opus-encoded in 20 ms frames.
    await trackOpen;
    expect(provider.energy()).toEqual([]);
    const encoder = new OpusScript(48_000, 1, OpusScript.Application.VOIP);
    const frame = 960;
    for (let n = 0; n < 50; n += 1) {
      const pcm = Buffer.alloc(frame * 2);
      for (let i = 0; i < frame; i += 1) pcm.writeInt16LE(Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * (n * frame + i)) / 48_000)), i * 2);
      track.sendMessageBinary(rtp(n, n * frame, encoder.encode(pcm, frame)));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    encoder.delete();
    await expect.poll(() => provider.energy().length, { timeout: 5000 }).toBeGreaterThanOrEqual(5);
    const loudest = Math.max(...provider.energy());
    console.log(`demo provider: ${provider.energy().length} windows of 100 ms, RMS ${provider.energy().map((value) => value.toFixed(3)).join(' ')}`);
    expect(loudest).toBeGreaterThan(0.05);
  });
});
