import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as ndc from 'node-datachannel';
import OpusScript from 'opusscript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../../../src/main/cli/voice-peer';
import { createRealtimeProvider, offerAudioMid, realtimeCallsPath, sameSecret, type RealtimeProvider } from '../../../src/main/demo/voice/realtime-provider';
import { concatSamples, rms, silence } from '../../../src/main/speech/pcm';
import { OpusRtpReceiver, OpusRtpSender } from '../../../src/main/demo/voice/rtp-opus';
import { interpretRealtimeEvent, parseRealtimeMessage, realtimeEventTypes } from '../../../src/shared/talkie/voice/realtime-events';
import { espeak48k, speechUnavailableReason } from '../../support/speech';
import { functionCallTurn } from './provider-turns';
import { appOfferer } from './voice-helpers';

/**
 * The demo realtime provider end to end (#16): an "app" peer (node-datachannel offerer with one sendrecv
 * Opus track and `oai-events`) POSTs its offer, talks to the provider with espeak-ng speech as Opus RTP
 * and hears the provider's espeak-ng answers. Timings are never asserted; waits are generous.
 */
const unavailable = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (unavailable) console.log(`demo provider speech tests skipped: ${unavailable}`);

const secret = 'ek_demo_test';
let provider: RealtimeProvider;
let server: Server;
let url: string;
const appPeers: ndc.PeerConnection[] = [];
const closers: (() => void)[] = [];
const logged: string[] = [];

beforeAll(async () => {
  provider = createRealtimeProvider({ isClientSecret: (given) => sameSecret(given, secret), log: (message) => logged.push(message) });
  server = createServer((request, response) => {
    void provider.handle(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${realtimeCallsPath}`;
});

afterAll(async () => {
  for (const close of closers) close();
  for (const pc of appPeers) pc.close();
  provider.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  ndc.cleanup();
});

type Event = { type: string } & Record<string, unknown>;

interface App {
  pc: ndc.PeerConnection;
  track: ndc.Track;
  channel: ndc.DataChannel;
  events: Event[];
  /** RMS of each received 20 ms packet, with the index of the last event received before it. */
  heard: { rms: number; afterEvent: number }[];
  send(message: unknown): void;
  /** Speaks `audio` (48 kHz) into the call as paced Opus RTP, then silence the way a muted mic sends it. */
  say(audio: Int16Array): Promise<void>;
  waitFor(test: (event: Event) => boolean, what: string, timeoutMs?: number): Promise<Event>;
}

/** The "app" side (appOfferer), closed after the file's tests. */
async function appOffer(): Promise<{ pc: ndc.PeerConnection; track: ndc.Track; channel: ndc.DataChannel; offer: string }> {
  const peer = await appOfferer();
  appPeers.push(peer.pc);
  return peer;
}

const post = (offer: string, bearer: string) =>
  fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/sdp' }, body: offer });

/**
 * Offers, POSTs and applies the answer. A node-datachannel offerer sometimes closes itself before the answer
 * arrives (apparently when the answerer's connectivity checks reach it first; 1 of 12 standalone runs here, more under load):
 * setRemoteDescription then throws "Got a remote candidate without ICE transport". That is the test peer,
 * not the provider (Chromium is the real offerer), so the test offers again, up to 5 times.
 */
async function connectedOffer(): Promise<{
  pc: ndc.PeerConnection;
  track: ndc.Track;
  channel: ndc.DataChannel;
  opened: Promise<void>;
  trackOpen: Promise<void>;
}> {
  for (let attempt = 1; ; attempt += 1) {
    const { pc, track, channel, offer } = await appOffer();
    const opened = new Promise<void>((resolve) => channel.onOpen(resolve));
    const trackOpen = new Promise<void>((resolve) => track.onOpen(resolve));
    const response = await post(offer, secret);
    expect(response.status).toBe(201);
    const answer = await response.text();
    try {
      pc.setRemoteDescription(answer, 'answer');
      return { pc, track, channel, opened, trackOpen };
    } catch (error) {
      if (attempt === 5 || !String(error).includes('without ICE transport')) throw error;
      console.log(`the test's offerer closed itself before the answer (attempt ${attempt}): offering again`);
    }
  }
}

async function connect(): Promise<App> {
  const { pc, track, channel, opened, trackOpen } = await connectedOffer();
  const events: Event[] = [];
  const heard: App['heard'] = [];
  const receiver = new OpusRtpReceiver();
  const sender = new OpusRtpSender(4242, 111, (packet) => track.sendMessageBinary(packet));
  closers.push(() => {
    receiver.close();
    sender.close();
  });
  channel.onMessage((message) => {
    if (typeof message === 'string') events.push(JSON.parse(message) as Event);
  });
  track.onMessage((message) => {
    const pcm = receiver.decode(Buffer.from(message));
    if (pcm) heard.push({ rms: rms(pcm), afterEvent: events.length - 1 });
  });
  await within(Promise.all([opened, trackOpen]), 20_000, 'the test call did not open within 20 s');
  const waitFor: App['waitFor'] = async (test, what, timeoutMs = 30_000) => {
    await expect
      .poll(() => events.some(test), { timeout: timeoutMs, interval: 20, message: `${what}; events so far: ${events.map((event) => event.type).join(', ')}` })
      .toBe(true);
    return events.find(test) as Event;
  };
  return {
    pc,
    track,
    channel,
    events,
    heard,
    waitFor,
    send: (message) => channel.sendMessage(JSON.stringify(message)),
    say: (audio) => new Promise((resolve) => sender.play(concatSamples([silence(48_000, 300), audio, silence(48_000, 1000)]), resolve)),
  };
}

const byType = (type: string) => (event: Event) => event.type === type;
const indexOf = (app: App, test: (event: Event) => boolean): number => app.events.findIndex(test);

/** Every event the provider sent is valid for the client: a known one parses, others are ignored, none is invalid. */
function expectReadable(events: Event[]): void {
  for (const event of events) {
    const interpretation = interpretRealtimeEvent(event);
    expect(interpretation.kind, JSON.stringify(event).slice(0, 300)).not.toBe('invalid');
    if ((realtimeEventTypes as string[]).includes(event.type)) expect(interpretation.kind).toBe('event');
  }
}

describe('demo realtime provider: signalling and audio in (#16)', { timeout: 60_000 }, () => {
  it('refuses a wrong bearer with 401 and creates no peer', async () => {
    const { offer } = await appOffer();
    const response = await post(offer, 'ek_not_minted');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(provider.callCount()).toBe(0);
  });

  it("answers with sendrecv mono Opus on the offer's mid, opens oai-events with session.created, hears the mic, and mute silences it", async () => {
    const { offer } = await appOffer();
    const response = await post(offer, secret);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/sdp');
    const answer = await response.text();
    expect(answer).toMatch(/^v=0/);
    expect(answer).toContain('useinbandfec=1');
    expect(answer).not.toContain('stereo=1');
    expect(answer).toMatch(/a=sendrecv/);
    expect(offerAudioMid(answer)).toBe(offerAudioMid(offer));
    expect(provider.callCount()).toBe(1);

    const { track, channel, opened, trackOpen } = await connectedOffer();
    const messages: string[] = [];
    channel.onMessage((message) => {
      if (typeof message === 'string') messages.push(message);
    });
    await opened;

    await expect.poll(() => messages.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const created = JSON.parse(messages[0] ?? '{}') as Record<string, unknown>;
    expect(parseRealtimeMessage(messages[0] ?? '').kind).toBe('event');
    expect(created).toMatchObject({
      type: 'session.created',
      session: { audio: { input: { turn_detection: { type: 'server_vad', create_response: true } } } },
    });

    const update = {
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } },
    };
    channel.sendMessage(JSON.stringify(update));
    await expect.poll(() => messages.some((text) => text.includes('"session.updated"')), { timeout: 15_000 }).toBe(true);
    expect(provider.clientMessages).toEqual([update]);

    // Mic → provider: 1 s of a 440 Hz tone, then 1 s of what a muted track sends (silence).
    await trackOpen;
    expect(provider.energy()).toEqual([]);
    const encoder = new OpusScript(48_000, 1, OpusScript.Application.VOIP);
    const tone = Int16Array.from({ length: 48_000 }, (_, i) => Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * i) / 48_000)));
    const sender = new OpusRtpSender(4242, 111, (packet) => track.sendMessageBinary(packet));
    await new Promise<void>((resolve) => sender.play(concatSamples([tone, silence(48_000, 1000)]), resolve));
    sender.close();
    encoder.delete();
    await expect.poll(() => provider.energy().length, { timeout: 5000 }).toBeGreaterThanOrEqual(18);
    const energy = provider.energy();
    console.log(`demo provider: ${energy.length} windows of 100 ms, RMS ${energy.map((value) => value.toFixed(3)).join(' ')}`);
    expect(Math.max(...energy.slice(0, 10))).toBeGreaterThan(0.05);
    expect(Math.max(...energy.slice(-5))).toBeLessThan(0.001);
    expectReadable(messages.map((text) => JSON.parse(text) as Event));
  });
});

describe.skipIf(unavailable !== undefined)('demo realtime provider: listening and speaking with espeak-ng and pocketsphinx (#16)', { timeout: 120_000 }, () => {
  it('"send the offer" → speech_started … transcription → send_offer; the function output is read aloud between output_audio_buffer.started and .stopped', async () => {
    const app = await connect();
    await app.waitFor(byType('session.created'), 'session.created');
    await app.say(await espeak48k('send the offer'));
    const call = await app.waitFor(byType('response.function_call_arguments.done'), 'a function call');
    const turn = app.events.map((event) => event.type).slice(0, indexOf(app, byType('response.done')) + 1);
    expect(turn).toEqual(functionCallTurn);
    const started = app.events.find(byType('input_audio_buffer.speech_started'));
    expect(app.events.find(byType('conversation.item.input_audio_transcription.completed'))).toMatchObject({
      item_id: started?.item_id,
      content_index: 0,
      transcript: 'send the offer',
    });
    expect(call).toMatchObject({
      name: 'send_offer',
      arguments: '{}',
      call_id: expect.any(String),
      item_id: expect.any(String),
      response_id: expect.any(String),
    });
    // The log names what happened and how loud the microphone was, never the words.
    const startedLine = logged.find((line) => line.includes(': input_audio_buffer.speech_started (microphone RMS up to '));
    expect(Number(/RMS up to ([\d.]+)/.exec(startedLine ?? '')?.[1])).toBeGreaterThan(0.02);
    expect(logged.some((line) => line.includes('send the offer'))).toBe(false);
    expect(app.heard).toHaveLength(0); // a function call says nothing

    const output = 'The offer N-2026-014 for Jana Novakova is ready. Say yes to send it.';
    app.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output } });
    app.send({ type: 'response.create' });
    const spoken = await app.waitFor((event) => event.type === 'response.output_audio_transcript.done' && event.transcript === output, 'the output read aloud');
    const stopped = await app.waitFor(
      (event) => event.type === 'output_audio_buffer.stopped' && event.response_id === spoken.response_id,
      'output_audio_buffer.stopped',
    );
    const at = (type: string): number =>
      indexOf(
        app,
        (event) =>
          event.type === type && (event.response_id === spoken.response_id || (event.response as { id?: string } | undefined)?.id === spoken.response_id),
      );
    expect(at('output_audio_buffer.started')).toBeGreaterThan(at('response.created'));
    expect(at('response.done')).toBeGreaterThan(at('output_audio_buffer.started'));
    expect(at('output_audio_buffer.stopped')).toBeGreaterThan(at('response.done'));
    expect(stopped.response_id).toBe(spoken.response_id);
    // The app heard it: packets between started and stopped, speech-loud.
    const during = app.heard.filter(
      (packet) => packet.afterEvent >= at('output_audio_buffer.started') && packet.afterEvent < at('output_audio_buffer.stopped'),
    );
    const loud = during.filter((packet) => packet.rms > 0.02).length;
    console.log(
      `demo provider spoke: ${app.heard.length} packets (${during.length} between started and stopped), ${loud} of them above RMS 0.02, max RMS ${Math.max(...app.heard.map((packet) => packet.rms)).toFixed(3)}`,
    );
    expect(during.length).toBeGreaterThan(100); // ~4 s of speech
    expect(loud / during.length).toBeGreaterThan(0.3);
    expectReadable(app.events);
  });

  it("with create_response:false it transcribes but waits for the client's response.create", async () => {
    const app = await connect();
    await app.waitFor(byType('session.created'), 'session.created');
    app.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } } });
    await app.waitFor(byType('session.updated'), 'session.updated');
    await app.say(await espeak48k('hello'));
    await app.waitFor((event) => event.type === 'conversation.item.input_audio_transcription.completed' && event.transcript === 'hello', 'hello transcribed');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(app.events.some(byType('response.created'))).toBe(false);
    expect(app.heard).toHaveLength(0);
    app.send({ type: 'response.create' });
    await app.waitFor(
      (event) => event.type === 'response.output_audio_transcript.done' && String(event.transcript).startsWith('Hello.'),
      'the answer to hello',
    );
    await app.waitFor(byType('output_audio_buffer.stopped'), 'output_audio_buffer.stopped');
    expect(app.heard.filter((packet) => packet.rms > 0.02).length).toBeGreaterThan(10);
    expectReadable(app.events);
  });

  it('barge-in: the user talking over the answer stops its audio at once with output_audio_buffer.cleared', async () => {
    const app = await connect();
    await app.waitFor(byType('session.created'), 'session.created');
    app.send({
      type: 'conversation.item.create',
      item: {
        type: 'function_call_output',
        call_id: 'call_long',
        output:
          'Here is a long answer that goes on for a while, so that there is time to interrupt it in the middle of a sentence, which is what this test does.',
      },
    });
    app.send({ type: 'response.create' });
    const started = await app.waitFor(byType('output_audio_buffer.started'), 'output_audio_buffer.started');
    await expect.poll(() => app.heard.length, { timeout: 15_000 }).toBeGreaterThan(25);
    await app.say(await espeak48k('stop'));
    const cleared = await app.waitFor(byType('output_audio_buffer.cleared'), 'output_audio_buffer.cleared');
    expect(cleared.response_id).toBe(started.response_id);
    expect(indexOf(app, byType('output_audio_buffer.cleared'))).toBeGreaterThan(indexOf(app, byType('input_audio_buffer.speech_started')));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(app.events.some((event) => event.type === 'output_audio_buffer.stopped' && event.response_id === started.response_id)).toBe(false);
    // The long answer is ~9 s (~450 packets). After the clear only packets already in flight may arrive,
    // until the answer to "stop" starts (its own output_audio_buffer.started).
    const clearedAt = indexOf(app, byType('output_audio_buffer.cleared'));
    const nextStart = indexOf(app, (event) => event.type === 'output_audio_buffer.started' && event.response_id !== started.response_id);
    const before = app.heard.filter((packet) => packet.afterEvent < clearedAt).length;
    const after = app.heard.filter((packet) => packet.afterEvent >= clearedAt && (nextStart === -1 || packet.afterEvent < nextStart)).length;
    console.log(`barge-in: ${before} packets of the long answer before output_audio_buffer.cleared, ${after} after it (before the next answer)`);
    expect(before).toBeLessThan(400);
    expect(after).toBeLessThanOrEqual(5);
    expectReadable(app.events);
  });
});
