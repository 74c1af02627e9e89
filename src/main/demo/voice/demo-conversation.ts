import { SpeechEngineError } from '../../speech/bounded-process';
import { EnergyVad, type VadEvent, type VadSettings } from './energy-vad';
import type { TextToSpeech } from '../../speech/espeak-tts';
import { opusRate } from './rtp-opus';
import { resample } from '../../speech/pcm';
import type { SpeechToText } from '../../speech/pocketsphinx-stt';

/**
 * One demo voice call's turns (#16), in the openai-realtime/1 events the AgentDesk client reads
 * (src/shared/talkie/voice/realtime-events.ts). What a real provider does, in small:
 * - the energy VAD marks a user turn (speech_started/stopped, committed, conversation.item.added);
 *   pocketsphinx transcribes it (…input_audio_transcription.completed, or .failed when nothing matched);
 * - with turn detection's `create_response` (default true) the turn gets a response by itself, otherwise
 *   only on the client's `response.create`;
 * - the "model": "search contacts [for X]" → function call search_contacts, "send the offer" → send_offer,
 *   a function_call_output → read aloud on the next response, anything else → a short spoken answer;
 * - speech is espeak-ng, sent as paced Opus RTP between output_audio_buffer.started and .stopped (which
 *   follows response.done, as the real provider's does); barge-in, `response.cancel` and
 *   `output_audio_buffer.clear` stop it at once with output_audio_buffer.cleared.
 * Nothing here throws into node-datachannel: engine failures become `error`/`.failed` events.
 */
export interface SpeechEngines {
  readonly tts: TextToSpeech;
  readonly stt: SpeechToText;
}

/** Where the call's speech goes: paced RTP on the outgoing track. */
export interface AudioOut {
  /** Plays 48 kHz mono PCM; `onEnd` after the last packet went out (not after `stop()`). */
  play(pcm: Int16Array, onEnd: () => void): { stop(): void };
}

export type ProviderEvent = { type: string } & Record<string, unknown>;

export interface ConversationOptions {
  /** Distinguishes this call's ids (`sess_demo_1`, `item_demo1_4`, …). */
  readonly callNumber: number;
  readonly emit: (event: ProviderEvent) => void;
  readonly audioOut: AudioOut;
  readonly speech: SpeechEngines;
  /** The session's language: "cs" speaks Czech (the recognizer stays English). */
  readonly locale?: string;
  readonly vad?: Partial<VadSettings>;
  /** What a response says when there is no new user turn and no tool output to read. */
  readonly defaultReply?: string;
}

export type DemoReply = { kind: 'function_call'; name: 'search_contacts' | 'send_offer'; arguments: string } | { kind: 'speech'; text: string };

const phrases = {
  en: {
    offer: 'I can search contacts or send the offer.',
    hello: 'Hello. I can search contacts or send the offer.',
    notHeard: 'Sorry, I did not catch that. I can search contacts or send the offer.',
    yes: 'Okay.',
    no: 'Okay, I will leave it.',
  },
  cs: {
    offer: 'Umím vyhledat kontakty nebo poslat nabídku.',
    hello: 'Dobrý den. Umím vyhledat kontakty nebo poslat nabídku.',
    notHeard: 'Promiňte, nerozuměl jsem. Umím vyhledat kontakty nebo poslat nabídku.',
    yes: 'Dobře.',
    no: 'Dobře, nechám to být.',
  },
} as const;

/**
 * The demo "model": what it answers to the last user turn (`heard`: the transcript; '' when the turn was
 * not understood; undefined when there was no new turn).
 */
export function demoReply(heard: string | undefined, locale?: string): DemoReply {
  const say = phrases[locale?.toLowerCase().startsWith('cs') ? 'cs' : 'en'];
  if (heard === undefined) return { kind: 'speech', text: say.offer };
  const text = heard
    .toLowerCase()
    .replace(/[^\p{L}\p{N} ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return { kind: 'speech', text: say.notHeard };
  const search = /\bsearch contacts?(?: for (.+))?$/.exec(text);
  if (search) return { kind: 'function_call', name: 'search_contacts', arguments: JSON.stringify({ query: search[1] ?? '' }) };
  if (/\bsend the offer\b/.test(text)) return { kind: 'function_call', name: 'send_offer', arguments: '{}' };
  if (/^hello\b/.test(text)) return { kind: 'speech', text: say.hello };
  if (/^yes\b/.test(text)) return { kind: 'speech', text: say.yes };
  if (/^(?:no|cancel|stop)\b/.test(text)) return { kind: 'speech', text: say.no };
  return { kind: 'speech', text: say.offer };
}

interface TurnDetection {
  type: 'server_vad';
  create_response: boolean;
  interrupt_response: boolean;
  silence_duration_ms: number;
  prefix_padding_ms: number;
}

interface Response {
  readonly id: string;
  cancelled: boolean;
  playback?: { stop(): void };
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export class DemoConversation {
  private readonly vad: EnergyVad;
  private readonly turnDetection: TurnDetection;
  private counter = 0;
  private events = 0;
  private lastItemId: string | null = null;
  private userItem: string | undefined;
  /** The last user turn not answered yet: its transcript ('' when not understood). */
  private unanswered: string | undefined;
  private readonly toolOutputs: string[] = [];
  /** The response being generated (until response.done). */
  private active: Response | undefined;
  /** The response whose audio is playing (until output_audio_buffer.stopped or .cleared). */
  private playing: Response | undefined;
  private transcriptions: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: ConversationOptions) {
    this.vad = new EnergyVad({ sampleRate: opusRate, ...options.vad });
    this.turnDetection = {
      type: 'server_vad',
      create_response: true,
      interrupt_response: true,
      silence_duration_ms: 500,
      prefix_padding_ms: 300,
      ...this.vadTimes(),
    };
  }

  /** The first event on the channel. */
  open(): void {
    this.emit({ type: 'session.created', session: this.session() });
  }

  /** Decoded microphone audio (48 kHz mono). */
  audioIn(samples: Int16Array): void {
    if (!this.closed) for (const event of this.vad.push(samples)) this.onVad(event);
  }

  /** No audio arrived for a while: a turn in progress ends. */
  audioStopped(): void {
    if (!this.closed) for (const event of this.vad.flush()) this.onVad(event);
  }

  get speaking(): boolean {
    return this.vad.speaking;
  }

  silenceMs(): number {
    return this.turnDetection.silence_duration_ms;
  }

  clientMessage(message: unknown): void {
    if (this.closed) return;
    const event = record(message);
    const type = typeof event?.type === 'string' ? event.type : undefined;
    switch (type) {
      case 'session.update':
        return this.updateSession(record(event?.session));
      case 'conversation.item.create':
        return this.createItem(record(event?.item));
      case 'response.create':
        return this.createResponse();
      case 'response.cancel':
        if (!this.interrupt('client_cancelled')) this.error('invalid_request_error', 'response_cancel_not_active', 'There is no active response to cancel.');
        return;
      case 'output_audio_buffer.clear':
        this.clearAudio();
        return;
      case 'input_audio_buffer.clear':
        this.vad.reset();
        this.userItem = undefined;
        this.emit({ type: 'input_audio_buffer.cleared' });
        return;
      default:
        this.error('invalid_request_error', 'unknown_event', `The demo provider does not handle ${String(type ?? 'a message without a type').slice(0, 80)}.`);
    }
  }

  close(): void {
    this.closed = true;
    if (this.active) this.active.cancelled = true;
    this.playing?.playback?.stop();
    this.active = undefined;
    this.playing = undefined;
  }

  // ---- the user's turn --------------------------------------------------------------------------

  private onVad(event: VadEvent): void {
    if (event.type === 'speech_started') {
      this.userItem = this.nextId('item');
      this.emit({ type: 'input_audio_buffer.speech_started', item_id: this.userItem, audio_start_ms: event.audioStartMs });
      // Barge-in: the user talks over the assistant.
      if (this.turnDetection.interrupt_response) this.interrupt('turn_detected');
      return;
    }
    const itemId = this.userItem ?? this.nextId('item');
    this.userItem = undefined;
    const previous = this.lastItemId;
    this.lastItemId = itemId;
    this.emit({ type: 'input_audio_buffer.speech_stopped', item_id: itemId, audio_end_ms: event.audioEndMs });
    this.emit({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: previous });
    this.emit({
      type: 'conversation.item.added',
      previous_item_id: previous,
      item: { id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] },
    });
    const audio = event.audio;
    this.transcriptions = this.transcriptions.then(() => this.transcribe(itemId, audio));
  }

  private async transcribe(itemId: string, audio: Int16Array): Promise<void> {
    let transcript = '';
    let failure: string | undefined;
    try {
      transcript = await this.options.speech.stt.transcribe({ sampleRate: opusRate, samples: audio });
      if (transcript === '') failure = 'The demo recognizer heard none of its phrases.';
    } catch (error) {
      failure = error instanceof SpeechEngineError ? `The demo recognizer could not run: ${error.message}.` : 'The demo recognizer failed.';
    }
    if (this.closed) return;
    if (failure === undefined) this.emit({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript });
    else
      this.emit({
        type: 'conversation.item.input_audio_transcription.failed',
        item_id: itemId,
        content_index: 0,
        error: { type: 'transcription_error', code: 'no_transcript', message: failure },
      });
    this.unanswered = transcript;
    if (this.turnDetection.create_response) this.createResponse();
  }

  // ---- the assistant's response -----------------------------------------------------------------

  private createResponse(): void {
    if (this.active) {
      this.error('invalid_request_error', 'conversation_already_has_active_response', `Response ${this.active.id} is still in progress.`);
      return;
    }
    const response: Response = { id: this.nextId('resp'), cancelled: false };
    this.active = response;
    this.emit({ type: 'response.created', response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [] } });
    const heard = this.unanswered;
    this.unanswered = undefined;
    let reply: DemoReply;
    if (this.toolOutputs.length > 0) reply = { kind: 'speech', text: this.toolOutputs.splice(0).join(' ') };
    else if (heard === undefined && this.options.defaultReply !== undefined) reply = { kind: 'speech', text: this.options.defaultReply };
    else reply = demoReply(heard, this.options.locale);
    const itemId = this.nextId('item');
    const previous = this.lastItemId;
    this.lastItemId = itemId;
    const base = { response_id: response.id, output_index: 0 };
    if (reply.kind === 'function_call') {
      const callId = this.nextId('call');
      const item = { id: itemId, object: 'realtime.item', type: 'function_call', call_id: callId, name: reply.name };
      this.emit({ type: 'response.output_item.added', ...base, item: { ...item, status: 'in_progress', arguments: '' } });
      this.emit({ type: 'conversation.item.added', previous_item_id: previous, item: { ...item, status: 'in_progress', arguments: '' } });
      this.emit({ type: 'response.function_call_arguments.done', ...base, item_id: itemId, call_id: callId, name: reply.name, arguments: reply.arguments });
      const done = { ...item, status: 'completed', arguments: reply.arguments };
      this.emit({ type: 'response.output_item.done', ...base, item: done });
      this.finish(response, 'completed', [done]);
      return;
    }
    const item = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant' };
    this.emit({ type: 'response.output_item.added', ...base, item: { ...item, status: 'in_progress', content: [] } });
    this.emit({ type: 'conversation.item.added', previous_item_id: previous, item: { ...item, status: 'in_progress', content: [] } });
    void this.speak(response, itemId, reply.text);
  }

  private async speak(response: Response, itemId: string, text: string): Promise<void> {
    let pcm: Int16Array | undefined;
    let failure = '';
    try {
      const voice = await this.options.speech.tts.synthesize(text, this.options.locale);
      pcm = resample(voice.samples, voice.sampleRate, opusRate);
    } catch (error) {
      failure = error instanceof SpeechEngineError ? error.message : 'speech synthesis failed';
    }
    if (response.cancelled || this.closed) return;
    const part = { response_id: response.id, item_id: itemId, output_index: 0, content_index: 0 };
    const done = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_audio', transcript: text }],
    };
    if (!pcm) {
      // No voice (espeak-ng missing): the text still arrives, and the response says it failed.
      this.error('server_error', 'speech_synthesis_failed', `The demo provider could not speak: ${failure}.`);
      this.emit({ type: 'response.output_audio_transcript.done', ...part, transcript: text });
      this.emit({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item: done });
      this.finish(response, 'failed', [done]);
      return;
    }
    this.clearAudio(); // a newer response replaces audio still playing
    this.emit({ type: 'output_audio_buffer.started', response_id: response.id });
    this.playing = response;
    response.playback = this.options.audioOut.play(pcm, () => {
      if (this.playing !== response || this.closed) return;
      this.playing = undefined;
      this.emit({ type: 'output_audio_buffer.stopped', response_id: response.id });
    });
    this.emit({ type: 'response.output_audio_transcript.delta', ...part, delta: text });
    this.emit({ type: 'response.output_audio_transcript.done', ...part, transcript: text });
    this.emit({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item: done });
    this.finish(response, 'completed', [done]);
  }

  private finish(response: Response, status: 'completed' | 'failed', output: unknown[]): void {
    if (this.active === response) this.active = undefined;
    this.emit({ type: 'response.done', response: { id: response.id, object: 'realtime.response', status, output } });
  }

  /** Barge-in or `response.cancel`: the response in progress is cancelled and its audio cleared. */
  private interrupt(reason: 'turn_detected' | 'client_cancelled'): boolean {
    const active = this.active;
    if (active) {
      active.cancelled = true;
      this.active = undefined;
      this.emit({
        type: 'response.done',
        response: { id: active.id, object: 'realtime.response', status: 'cancelled', status_details: { type: 'cancelled', reason }, output: [] },
      });
    }
    return this.clearAudio() || active !== undefined;
  }

  private clearAudio(): boolean {
    const playing = this.playing;
    if (!playing) return false;
    this.playing = undefined;
    playing.playback?.stop();
    this.emit({ type: 'output_audio_buffer.cleared', response_id: playing.id });
    return true;
  }

  // ---- client items and session -----------------------------------------------------------------

  private createItem(item: Record<string, unknown> | undefined): void {
    if (item?.type !== 'function_call_output' || typeof item.call_id !== 'string' || typeof item.output !== 'string') {
      this.error('invalid_request_error', 'unsupported_item', 'The demo provider takes only function_call_output items with a call_id and an output.');
      return;
    }
    const itemId = this.nextId('item');
    const previous = this.lastItemId;
    this.lastItemId = itemId;
    this.toolOutputs.push(item.output);
    this.emit({
      type: 'conversation.item.added',
      previous_item_id: previous,
      item: { id: itemId, object: 'realtime.item', type: 'function_call_output', call_id: item.call_id, output: item.output },
    });
  }

  private updateSession(session: Record<string, unknown> | undefined): void {
    if (!session) {
      this.error('invalid_request_error', 'invalid_session', 'session.update needs a session object.');
      return;
    }
    const raw = session.audio === undefined ? session.turn_detection : record(record(session.audio)?.input)?.turn_detection;
    if (raw !== undefined) {
      const update = record(raw);
      if (!update || (update.type !== undefined && update.type !== 'server_vad')) {
        this.error('invalid_request_error', 'unsupported_turn_detection', 'The demo provider does server_vad turn detection only.');
        return;
      }
      const td = this.turnDetection;
      if (typeof update.create_response === 'boolean') td.create_response = update.create_response;
      if (typeof update.interrupt_response === 'boolean') td.interrupt_response = update.interrupt_response;
      if (typeof update.silence_duration_ms === 'number' && update.silence_duration_ms >= 100 && update.silence_duration_ms <= 10_000)
        td.silence_duration_ms = update.silence_duration_ms;
      if (typeof update.prefix_padding_ms === 'number' && update.prefix_padding_ms >= 0 && update.prefix_padding_ms <= 2_000)
        td.prefix_padding_ms = update.prefix_padding_ms;
      this.vad.configure({ silenceMs: td.silence_duration_ms, prefixPaddingMs: td.prefix_padding_ms });
    }
    this.emit({ type: 'session.updated', session: this.session() });
  }

  private session(): Record<string, unknown> {
    return {
      id: `sess_demo_${this.options.callNumber}`,
      object: 'realtime.session',
      type: 'realtime',
      audio: {
        input: { transcription: { model: 'pocketsphinx-demo-grammar' }, turn_detection: { ...this.turnDetection } },
        output: { voice: 'espeak-ng' },
      },
    };
  }

  private vadTimes(): Partial<Pick<TurnDetection, 'silence_duration_ms' | 'prefix_padding_ms'>> {
    const { silenceMs, prefixPaddingMs } = this.options.vad ?? {};
    return {
      ...(silenceMs === undefined ? {} : { silence_duration_ms: silenceMs }),
      ...(prefixPaddingMs === undefined ? {} : { prefix_padding_ms: prefixPaddingMs }),
    };
  }

  private error(type: string, code: string, message: string): void {
    this.emit({ type: 'error', error: { type, code, message } });
  }

  private nextId(kind: 'item' | 'resp' | 'call'): string {
    this.counter += 1;
    return `${kind}_demo${this.options.callNumber}_${this.counter}`;
  }

  private emit(event: ProviderEvent): void {
    this.events += 1;
    this.options.emit({ event_id: `event_demo${this.options.callNumber}_${this.events}`, ...event });
  }
}
