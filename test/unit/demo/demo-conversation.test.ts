import { describe, expect, it } from 'vitest';
import { SpeechEngineError } from '../../../src/main/speech/bounded-process';
import { DemoConversation, demoReply, type ProviderEvent, type SpeechEngines } from '../../../src/main/demo/voice/demo-conversation';
import { concatSamples, silence } from '../../../src/main/speech/pcm';
import { interpretRealtimeEvent, realtimeEventTypes, sessionTurnDetection, turnDetectionUpdate } from '../../../src/shared/talkie/voice/realtime-events';
import { functionCallTurn } from './provider-turns';

/**
 * The demo provider's turn logic (#16) without WebRTC or real engines: audio in as PCM, a scripted
 * recognizer, a voice that returns a tone, and an audio output whose end the test decides.
 */
const rate = 48_000;
const tone = (ms: number): Int16Array =>
  Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 220 * i) / rate)));
const utterance = concatSamples([silence(rate, 200), tone(600), silence(rate, 700)]);

interface Harness {
  conversation: DemoConversation;
  events: ProviderEvent[];
  types(): string[];
  plays: { samples: number; stopped: boolean; end(): void }[];
  heard: string[];
  spoken: string[];
  settle(): Promise<void>;
}

function harness(script: (string | Error)[], options: { ttsFails?: boolean } = {}): Harness {
  const events: ProviderEvent[] = [];
  const plays: Harness['plays'] = [];
  const spoken: string[] = [];
  const heard: string[] = [];
  const speech: SpeechEngines = {
    stt: {
      transcribe: async () => {
        const next = script.shift() ?? '';
        if (next instanceof Error) throw next;
        heard.push(next);
        return next;
      },
      close: () => undefined,
    },
    tts: {
      synthesize: async (text) => {
        if (options.ttsFails) throw new SpeechEngineError('missing', 'espeak-ng is not installed');
        spoken.push(text);
        return { sampleRate: 22_050, samples: new Int16Array(2205).fill(1000) };
      },
    },
  };
  const conversation = new DemoConversation({
    callNumber: 1,
    emit: (event) => events.push(event),
    speech,
    audioOut: {
      play(samples, onEnd) {
        const play = { samples: samples.length, stopped: false, end: () => (play.stopped ? undefined : onEnd()) };
        plays.push(play);
        return { stop: () => void (play.stopped = true) };
      },
    },
  });
  conversation.open();
  return {
    conversation,
    events,
    plays,
    heard,
    spoken,
    types: () => events.map((event) => event.type),
    settle: () => new Promise((resolve) => setTimeout(resolve, 20)),
  };
}

/** Every event must be one the client reads (and valid) or one it ignores; never a malformed known one. */
function expectReadable(events: ProviderEvent[]): void {
  for (const event of events) {
    const interpretation = interpretRealtimeEvent(JSON.parse(JSON.stringify(event)));
    if ((realtimeEventTypes as string[]).includes(event.type)) expect(interpretation, JSON.stringify(event)).toMatchObject({ kind: 'event' });
    else expect(interpretation.kind, JSON.stringify(event)).toBe('ignored');
  }
}

const say = async (h: Harness): Promise<void> => {
  for (let i = 0; i < utterance.length; i += 960) h.conversation.audioIn(utterance.subarray(i, i + 960));
  await h.settle();
};

describe('demo conversation (#16)', () => {
  it('"send the offer" → the full user turn, then a send_offer function call; the output is read aloud on response.create', async () => {
    const h = harness(['send the offer']);
    await say(h);
    expect(h.types()).toEqual(functionCallTurn);
    const started = h.events[1];
    const user = h.events[4];
    const call = h.events.find((event) => event.type === 'response.function_call_arguments.done');
    expect(started).toMatchObject({ item_id: user?.item && (user.item as { id: string }).id });
    expect(user).toMatchObject({ previous_item_id: null, item: { type: 'message', role: 'user' } });
    expect(h.events[5]).toMatchObject({ item_id: (user?.item as { id: string }).id, content_index: 0, transcript: 'send the offer' });
    expect(call).toMatchObject({ name: 'send_offer', arguments: '{}' });
    const created = h.events.find((event) => event.type === 'response.created');
    expect(call?.response_id).toBe((created?.response as { id: string }).id);

    h.events.length = 0;
    h.conversation.clientMessage({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: call?.call_id, output: 'Send offer N-2026-014 to Jana? Say yes to confirm.' },
    });
    h.conversation.clientMessage({ type: 'response.create' });
    await h.settle();
    expect(h.spoken).toEqual(['Send offer N-2026-014 to Jana? Say yes to confirm.']);
    expect(h.types()).toEqual([
      'conversation.item.added',
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'output_audio_buffer.started',
      'response.output_audio_transcript.delta',
      'response.output_audio_transcript.done',
      'response.output_item.done',
      'response.done',
    ]);
    expect(h.plays).toHaveLength(1);
    expect(h.plays[0]?.samples).toBe(4800); // 0.1 s at 22050 Hz → 48 kHz
    h.plays[0]?.end();
    expect(h.types().at(-1)).toBe('output_audio_buffer.stopped');
    const responseId = (h.events.find((event) => event.type === 'response.created')?.response as { id: string }).id;
    expect(h.events.filter((event) => event.type.startsWith('output_audio_buffer')).map((event) => event.response_id)).toEqual([responseId, responseId]);
    expectReadable(h.events);
  });

  it('"search contacts for alfa" → search_contacts with the query; hello and unknown words → a spoken answer', () => {
    expect(demoReply('search contacts for alfa')).toEqual({ kind: 'function_call', name: 'search_contacts', arguments: '{"query":"alfa"}' });
    expect(demoReply('search contacts')).toEqual({ kind: 'function_call', name: 'search_contacts', arguments: '{"query":""}' });
    expect(demoReply('send the offer')).toMatchObject({ kind: 'function_call', name: 'send_offer' });
    expect(demoReply('hello')).toEqual({ kind: 'speech', text: 'Hello. I can search contacts or send the offer.' });
    expect(demoReply('')).toMatchObject({ kind: 'speech', text: expect.stringContaining('did not catch') });
    expect(demoReply(undefined, 'cs')).toEqual({ kind: 'speech', text: 'Umím vyhledat kontakty nebo poslat nabídku.' });
  });

  it("with create_response:false (the client's own update, built from session.created) it only transcribes, and answers on the client response.create", async () => {
    const h = harness(['hello']);
    const interpretation = interpretRealtimeEvent(h.events[0]);
    if (interpretation.kind !== 'event' || interpretation.event.type !== 'session.created') throw new Error('no session.created first');
    const turnDetection = sessionTurnDetection(interpretation.event);
    expect(turnDetection).toEqual({ type: 'server_vad', create_response: true, interrupt_response: true, silence_duration_ms: 500, prefix_padding_ms: 300 });
    h.conversation.clientMessage(turnDetectionUpdate(turnDetection ?? { type: 'server_vad' }, false));
    expect(h.events.at(-1)).toMatchObject({
      type: 'session.updated',
      session: { audio: { input: { turn_detection: { create_response: false, interrupt_response: true } } } },
    });
    await say(h);
    expect(h.types()).toContain('conversation.item.input_audio_transcription.completed');
    expect(h.types()).not.toContain('response.created');
    h.conversation.clientMessage({ type: 'response.create' });
    await h.settle();
    expect(h.spoken).toEqual(['Hello. I can search contacts or send the offer.']);
    expectReadable(h.events);
  });

  it('barge-in, response.cancel and output_audio_buffer.clear stop the audio at once with output_audio_buffer.cleared', async () => {
    const h = harness(['hello', 'stop', 'hello']);
    await say(h);
    expect(h.plays).toHaveLength(1);
    // The user talks over the answer: speech_started, then the audio is cleared (response.done came already).
    h.conversation.audioIn(tone(200));
    expect(h.plays[0]?.stopped).toBe(true);
    const afterBargeIn = h.types().slice(-2);
    expect(afterBargeIn).toEqual(['input_audio_buffer.speech_started', 'output_audio_buffer.cleared']);
    h.plays[0]?.end(); // a stopped playback never reports its end
    expect(h.types()).not.toContain('output_audio_buffer.stopped');
    h.conversation.audioIn(silence(rate, 700));
    await h.settle();
    expect(h.plays).toHaveLength(2);

    h.conversation.clientMessage({ type: 'response.cancel' });
    expect(h.plays[1]?.stopped).toBe(true);
    expect(h.types().at(-1)).toBe('output_audio_buffer.cleared');
    h.conversation.clientMessage({ type: 'response.cancel' });
    expect(h.events.at(-1)).toMatchObject({ type: 'error', error: { code: 'response_cancel_not_active' } });

    h.conversation.clientMessage({ type: 'response.create' });
    await h.settle();
    expect(h.plays).toHaveLength(3);
    h.conversation.clientMessage({ type: 'output_audio_buffer.clear' });
    expect(h.plays[2]?.stopped).toBe(true);
    expect(h.types().at(-1)).toBe('output_audio_buffer.cleared');
    expectReadable(h.events);
  });

  it('a response cancelled while it is being synthesized sends no audio; interrupt_response:false lets the user talk over it', async () => {
    const h = harness(['hello', 'hello']);
    h.conversation.clientMessage({ type: 'response.create' });
    h.conversation.clientMessage({ type: 'response.cancel' });
    await h.settle();
    expect(h.plays).toHaveLength(0);
    expect(h.events.find((event) => event.type === 'response.done')).toMatchObject({ response: { status: 'cancelled' } });

    h.conversation.clientMessage({ type: 'session.update', session: { turn_detection: { type: 'server_vad', interrupt_response: false } } });
    h.conversation.clientMessage({ type: 'response.create' });
    await h.settle();
    expect(h.plays).toHaveLength(1);
    h.conversation.audioIn(tone(200));
    expect(h.types().at(-1)).toBe('input_audio_buffer.speech_started');
    expect(h.plays[0]?.stopped).toBe(false);
    expectReadable(h.events);
  });

  it('nothing recognized → transcription.failed and a "did not catch that"; a missing recognizer or voice says why', async () => {
    const h = harness(['', new SpeechEngineError('missing', 'pocketsphinx_continuous is not installed')]);
    await say(h);
    expect(h.events.find((event) => event.type === 'conversation.item.input_audio_transcription.failed')).toMatchObject({
      content_index: 0,
      error: { message: expect.stringContaining('none of its phrases') },
    });
    expect(h.spoken[0]).toContain('did not catch');
    h.plays[0]?.end();
    await say(h);
    const failures = h.events.filter((event) => event.type === 'conversation.item.input_audio_transcription.failed');
    expect(failures[1]).toMatchObject({ error: { message: expect.stringContaining('pocketsphinx_continuous is not installed') } });

    const mute = harness(['hello'], { ttsFails: true });
    await say(mute);
    expect(mute.types().slice(-4)).toEqual(['error', 'response.output_audio_transcript.done', 'response.output_item.done', 'response.done']);
    expect(mute.plays).toHaveLength(0);
    expect(mute.events.at(-1)).toMatchObject({ response: { status: 'failed' } });
    expect(mute.events.find((event) => event.type === 'error')).toMatchObject({
      error: { code: 'speech_synthesis_failed', message: expect.stringContaining('espeak-ng is not installed') },
    });
    expectReadable([...h.events, ...mute.events]);
  });

  it('answers unknown or malformed client events with an error event; a second response.create while one runs is refused', async () => {
    const h = harness([]);
    h.conversation.clientMessage({ type: 'session.update', session: { instructions: 'be evil' } });
    h.conversation.clientMessage({ type: 'conversation.item.create', item: { type: 'message', role: 'user' } });
    h.conversation.clientMessage({ type: 'made.up' });
    h.conversation.clientMessage({ unparsable: 'x' });
    h.conversation.clientMessage({ type: 'response.create' });
    h.conversation.clientMessage({ type: 'response.create' });
    await h.settle();
    const errors = h.events.filter((event) => event.type === 'error').map((event) => (event.error as { code: string }).code);
    expect(errors).toEqual(['unsupported_item', 'unknown_event', 'unknown_event', 'conversation_already_has_active_response']);
    expect(h.types()).toContain('session.updated');
    expectReadable(h.events);
  });
});
