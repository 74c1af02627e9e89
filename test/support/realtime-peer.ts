import * as ndc from 'node-datachannel';
import { keepUntilExit } from '../../src/main/platform/keep-until-exit';

/**
 * An independent speech provider for tests: a node-datachannel answerer on 127.0.0.1 that speaks the
 * OpenAI Realtime (GA) event protocol on the `oai-events` data channel, written from OpenAI's public
 * event reference (server and client events), not from AgentDesk's demo provider or its client code,
 * so that the app is not only tested against what its own authors believed. What it follows:
 *
 * - Every server event has a unique `event_id`. `session.created` when the channel opens, with a GA
 *   session (`type: "realtime"`, turn detection under `audio.input`, `create_response` and
 *   `interrupt_response` on). `session.update` is answered with `session.updated` (the whole session)
 *   or, when refused, with `error` naming the client event (`error.event_id`) and no session.updated.
 * - A response: `response.created` → `response.output_item.added` → `conversation.item.added` → …
 *   → `response.output_item.done` (item `status`) → `conversation.item.done` → `response.done` (its
 *   `status`: completed, cancelled, …). A function call streams `response.function_call_arguments.delta`
 *   and `.done` ({response_id, item_id, output_index, call_id, name, arguments}). An interrupted one still
 *   sends `.done` with the arguments so far, then its item `incomplete` and the response `cancelled`
 *   (`status_details.reason: "turn_detected"`). Audio (WebRTC): `output_audio_buffer.started`, and
 *   `output_audio_buffer.stopped` after `response.done`; `output_audio_buffer.cleared` on interruption.
 * - A user turn (server VAD): `input_audio_buffer.speech_started` {item_id, audio_start_ms} →
 *   `speech_stopped` → `input_audio_buffer.committed` → `conversation.item.added` (a user message) →
 *   `conversation.item.input_audio_transcription.completed` {item_id, content_index, transcript}; a
 *   response follows only while `create_response` is on.
 * - One response at a time: `response.create` during one is answered with `error`
 *   (`conversation_already_has_active_response`). `response.cancel`, `input_audio_buffer.clear`
 *   (→ `input_audio_buffer.cleared`) and `conversation.item.create` with a `function_call_output`
 *   (→ `conversation.item.added` and `.done`) are taken.
 *
 * On top, it checks what the client sends and records every breach in `problems` (each also answered
 * with an `error`): an event it does not know, a `session.update` that changes more than turn detection
 * (Talkie 1 §10.1), a `response.create` carrying a `response` object, a `function_call_output` for a call
 * it never made, for one whose item ended `incomplete`, or a second one for the same call.
 *
 * node-datachannel rules: strong references to the peer, its track and channel (kept until the process
 * ends once closed: a collected wrapper silently stops receiving), nothing thrown inside its callbacks.
 */

/** What the next response says or does. */
export type ScriptedReply =
  | { kind: 'say'; text: string }
  /** A function call finished as `completed`; `nameOnArgumentsDone: false` leaves `name` off `.done` (it stays on the item). */
  | { kind: 'call'; name: string; arguments: string; callId?: string; nameOnArgumentsDone?: boolean }
  /** A function call cut off by the user speaking after `cutAt` characters of its arguments. */
  | { kind: 'interrupted-call'; name: string; arguments: string; cutAt: number; callId?: string };

export interface RealtimePeerOptions {
  /** Refuse every `session.update` (an `error` naming its event_id, param `session`), as for a value the provider does not take. */
  refuseSessionUpdates?: boolean;
}

type ServerEvent = Record<string, unknown> & { type: string };
type Item = Record<string, unknown> & { id: string; type: string; status: string; call_id?: string };

interface Response {
  id: string;
  status: 'in_progress' | 'completed' | 'cancelled';
  output: Item[];
}

export interface RealtimePeer {
  /** Answers one SDP offer (audio with the offer's mid when it has one, and `oai-events`). */
  answer(offer: string): Promise<string>;
  /** Every client event received, parsed (an unparsable one as `{ unparsable }`). */
  readonly received: Record<string, unknown>[];
  /** Every server event sent. */
  readonly sent: ServerEvent[];
  /** What the client sent that breaks the protocol or Talkie 1 §10.1. */
  readonly problems: string[];
  /** Replies for the next responses (auto or `response.create`), in order; then it reads out tool output, or says "Okay." */
  readonly replies: ScriptedReply[];
  /** Resolves once `oai-events` is open and `session.created` went out. */
  readonly opened: Promise<void>;
  /** The user says `transcript`: the VAD events, the item, its transcription, then a response if turn detection makes one. Returns the item id. */
  userTurn(transcript: string): string;
  /** Waits until a client event matches (at most `ms`). */
  waitForClient(match: (event: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  close(): void;
}

const label = 'oai-events';

export function startRealtimePeer(options: RealtimePeerOptions = {}): RealtimePeer {
  const received: Record<string, unknown>[] = [];
  const sent: ServerEvent[] = [];
  const problems: string[] = [];
  const replies: ScriptedReply[] = [];
  const owned: unknown[] = [];
  const waiters: { match: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void }[] = [];
  let channel: ndc.DataChannel | undefined;
  /** The peer connection of the latest answer: only its channel is taken (a retried call makes a new one). */
  let current: ndc.PeerConnection | undefined;
  let counter = 0;
  const next = (prefix: string) => `${prefix}_peer${(++counter).toString()}`;
  let markOpen!: () => void;
  const opened = new Promise<void>((resolve) => (markOpen = resolve));

  // The session as the provider holds it (GA shape).
  const turnDetection: Record<string, unknown> = {
    type: 'server_vad',
    threshold: 0.5,
    prefix_padding_ms: 300,
    silence_duration_ms: 500,
    create_response: true,
    interrupt_response: true,
    idle_timeout_ms: null,
  };
  const session = () => ({
    type: 'realtime',
    object: 'realtime.session',
    id: 'sess_independent_peer',
    model: 'gpt-realtime',
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24_000 },
        transcription: { model: 'whisper-1' },
        noise_reduction: null,
        turn_detection: { ...turnDetection },
      },
      output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'marin', speed: 1 },
    },
    instructions: 'Set by the Talkie server.',
    tools: [],
    tool_choice: 'auto',
  });
  const conversation: Item[] = [];
  const outputs = new Set<string>();
  const unread: string[] = [];
  let active: Response | undefined;

  const emit = (event: ServerEvent): void => {
    const withId = { event_id: next('event'), ...event };
    sent.push(withId);
    try {
      if (channel?.isOpen()) channel.sendMessage(JSON.stringify(withId));
    } catch {
      // never throw inside node-datachannel callbacks
    }
  };
  const error = (code: string, message: string, clientEvent: Record<string, unknown>, param: string | null = null): void => {
    const eventId = typeof clientEvent.event_id === 'string' ? clientEvent.event_id : null;
    emit({ type: 'error', error: { type: 'invalid_request_error', code, message, param, event_id: eventId } });
  };
  const problem = (text: string, code: string, clientEvent: Record<string, unknown>, param: string | null = null): void => {
    problems.push(text);
    error(code, text, clientEvent, param);
  };
  const addItem = (item: Item): void => {
    const previous = conversation.at(-1)?.id ?? null;
    conversation.push(item);
    emit({ type: 'conversation.item.added', previous_item_id: previous, item });
  };

  // ---- responses ------------------------------------------------------------------------------

  function respond(): void {
    const response: Response = { id: next('resp'), status: 'in_progress', output: [] };
    active = response;
    emit({ type: 'response.created', response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [] } });
    const reply = replies.shift() ?? { kind: 'say', text: unread.splice(0).join(' ') || 'Okay.' };
    if (reply.kind === 'say') return say(response, reply.text);
    const callId = reply.callId ?? next('call');
    const item: Item = {
      id: next('item'),
      object: 'realtime.item',
      type: 'function_call',
      status: 'in_progress',
      call_id: callId,
      name: reply.name,
      arguments: '',
    };
    const base = { response_id: response.id, output_index: 0 };
    emit({ type: 'response.output_item.added', ...base, item: { ...item } });
    addItem(item);
    response.output.push(item);
    const streamed = reply.kind === 'interrupted-call' ? reply.arguments.slice(0, reply.cutAt) : reply.arguments;
    for (let at = 0; at < streamed.length; at += 8)
      emit({ type: 'response.function_call_arguments.delta', ...base, item_id: item.id, call_id: callId, delta: streamed.slice(at, at + 8) });
    if (reply.kind === 'interrupted-call') {
      // The user speaks over it: turn detection interrupts the response in progress.
      const userItem = next('item');
      emit({ type: 'input_audio_buffer.speech_started', item_id: userItem, audio_start_ms: 1200 });
      emit({ type: 'response.function_call_arguments.done', ...base, item_id: item.id, call_id: callId, name: reply.name, arguments: streamed });
      finishItem(response, item, 'incomplete', streamed);
      return finishResponse(response, 'cancelled', { type: 'cancelled', reason: 'turn_detected' });
    }
    const nameOnDone = reply.nameOnArgumentsDone === false ? {} : { name: reply.name };
    emit({ type: 'response.function_call_arguments.done', ...base, item_id: item.id, call_id: callId, ...nameOnDone, arguments: streamed });
    finishItem(response, item, 'completed', streamed);
    finishResponse(response, 'completed');
  }

  function say(response: Response, text: string): void {
    const item: Item = { id: next('item'), object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const part = { response_id: response.id, item_id: item.id, output_index: 0, content_index: 0 };
    emit({ type: 'response.output_item.added', response_id: response.id, output_index: 0, item: { ...item } });
    addItem(item);
    response.output.push(item);
    emit({ type: 'response.content_part.added', ...part, part: { type: 'audio', transcript: '' } });
    emit({ type: 'output_audio_buffer.started', response_id: response.id });
    emit({ type: 'response.output_audio_transcript.delta', ...part, delta: text });
    emit({ type: 'response.output_audio_transcript.done', ...part, transcript: text });
    emit({ type: 'response.content_part.done', ...part, part: { type: 'audio', transcript: text } });
    item.content = [{ type: 'output_audio', transcript: text }];
    finishItem(response, item, 'completed');
    finishResponse(response, 'completed');
    // The audio drains after the response is done (WebRTC).
    emit({ type: 'output_audio_buffer.stopped', response_id: response.id });
  }

  function finishItem(response: Response, item: Item, status: 'completed' | 'incomplete', args?: string): void {
    item.status = status;
    if (args !== undefined) item.arguments = args;
    emit({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item: { ...item } });
    emit({ type: 'conversation.item.done', item: { ...item } });
  }

  function finishResponse(response: Response, status: 'completed' | 'cancelled', details: Record<string, unknown> | null = null): void {
    response.status = status;
    if (active === response) active = undefined;
    emit({
      type: 'response.done',
      response: { id: response.id, object: 'realtime.response', status, status_details: details, output: response.output.map((item) => ({ ...item })) },
    });
  }

  // ---- the client's events --------------------------------------------------------------------

  function onClient(event: Record<string, unknown>): void {
    switch (event.type) {
      case 'session.update':
        return sessionUpdate(event);
      case 'conversation.item.create':
        return itemCreate(event);
      case 'response.create':
        if ('response' in event)
          problem('response.create carries a response object (it could change instructions or tools for that response)', 'talkie_locked', event, 'response');
        if (active)
          return error(
            'conversation_already_has_active_response',
            `Conversation already has an active response in progress: ${active.id}. Wait until the response is finished before creating a new one.`,
            event,
          );
        return respond();
      case 'response.cancel':
        if (!active) return error('response_cancel_not_active', 'Cancellation failed: no active response found.', event);
        return finishResponse(active, 'cancelled', { type: 'cancelled', reason: 'client_cancelled' });
      case 'input_audio_buffer.clear':
        return emit({ type: 'input_audio_buffer.cleared' });
      default:
        return problem(`unknown client event ${String(event.type).slice(0, 80)}`, 'invalid_event', event, 'type');
    }
  }

  function sessionUpdate(event: Record<string, unknown>): void {
    const update = event.session as Record<string, unknown> | undefined;
    if (!update || update.type !== 'realtime')
      return problem('session.update without session.type "realtime"', 'missing_required_parameter', event, 'session.type');
    const changed = Object.keys(update).filter((key) => key !== 'type' && key !== 'audio');
    const audio = update.audio as Record<string, unknown> | undefined;
    const input = audio?.input as Record<string, unknown> | undefined;
    if (audio)
      changed.push(
        ...Object.keys(audio)
          .filter((key) => key !== 'input')
          .map((key) => `audio.${key}`),
      );
    if (input)
      changed.push(
        ...Object.keys(input)
          .filter((key) => key !== 'turn_detection')
          .map((key) => `audio.input.${key}`),
      );
    if (changed.length > 0)
      return problem(`session.update changes more than turn detection: ${changed.join(', ')}`, 'talkie_locked', event, `session.${changed[0] ?? ''}`);
    if (options.refuseSessionUpdates)
      return error('invalid_value', 'This session does not take turn detection changes.', event, 'session.audio.input.turn_detection');
    if (input?.turn_detection !== undefined) Object.assign(turnDetection, input.turn_detection as Record<string, unknown>);
    emit({ type: 'session.updated', session: session() });
  }

  function itemCreate(event: Record<string, unknown>): void {
    const item = event.item as Record<string, unknown> | undefined;
    if (item?.type !== 'function_call_output' || typeof item.call_id !== 'string' || typeof item.output !== 'string') {
      return problem('conversation.item.create with something other than a function_call_output', 'invalid_item', event, 'item');
    }
    const call = conversation.find((known) => known.type === 'function_call' && known.call_id === item.call_id);
    if (!call) return problem(`function_call_output for ${item.call_id}, a call this provider never made`, 'invalid_value', event, 'item.call_id');
    if (call.status !== 'completed')
      return problem(`function_call_output for ${item.call_id}, whose item ended ${call.status}`, 'invalid_value', event, 'item.call_id');
    if (outputs.has(item.call_id)) return problem(`a second function_call_output for ${item.call_id}`, 'invalid_value', event, 'item.call_id');
    outputs.add(item.call_id);
    unread.push(item.output);
    const added: Item = {
      id: next('item'),
      object: 'realtime.item',
      type: 'function_call_output',
      status: 'completed',
      call_id: item.call_id,
      output: item.output,
    };
    addItem(added);
    emit({ type: 'conversation.item.done', item: { ...added } });
  }

  function userTurn(transcript: string): string {
    const itemId = next('item');
    emit({ type: 'input_audio_buffer.speech_started', item_id: itemId, audio_start_ms: 1000 });
    emit({ type: 'input_audio_buffer.speech_stopped', item_id: itemId, audio_end_ms: 2200 });
    emit({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: conversation.at(-1)?.id ?? null });
    addItem({ id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] });
    emit({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: itemId,
      content_index: 0,
      transcript,
      usage: { type: 'duration', seconds: 1 },
    });
    if (turnDetection.create_response !== false) {
      if (active) finishResponse(active, 'cancelled', { type: 'cancelled', reason: 'turn_detected' });
      respond();
    }
    return itemId;
  }

  return {
    received,
    sent,
    problems,
    replies,
    opened,
    userTurn,
    async answer(offer) {
      const pc = new ndc.PeerConnection(`independent-provider-${(++counter).toString()}`, { iceServers: [], bindAddress: '127.0.0.1' });
      owned.push(pc);
      current = pc;
      channel = undefined;
      const mid = /^m=audio[^\n]*\n(?:(?!m=)[^\n]*\n)*?a=mid:(\S+)/m.exec(offer.replace(/\r\n/g, '\n'))?.[1];
      if (mid !== undefined) {
        const audio = new ndc.Audio(mid, 'SendRecv');
        audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
        audio.addSSRC(0x7e57_0001, 'independent-provider', 'provider-stream', 'provider-audio');
        owned.push(pc.addTrack(audio));
      }
      pc.onDataChannel((dc) => {
        if (dc.getLabel() !== label || pc !== current || channel) return;
        channel = dc;
        owned.push(dc);
        dc.onMessage((message) => {
          try {
            const text = typeof message === 'string' ? message : Buffer.from(message as ArrayBuffer).toString('utf8');
            let event: Record<string, unknown>;
            try {
              event = JSON.parse(text) as Record<string, unknown>;
            } catch {
              event = { unparsable: text.slice(0, 200) };
            }
            received.push(event);
            if ('unparsable' in event) problems.push('a client message that is not JSON');
            else onClient(event);
            for (const waiter of waiters.splice(0)) {
              if (waiter.match(event)) waiter.resolve(event);
              else waiters.push(waiter);
            }
          } catch {
            // never throw inside node-datachannel callbacks
          }
        });
        const greet = () => {
          emit({ type: 'session.created', session: session() });
          markOpen();
        };
        if (dc.isOpen()) greet();
        else dc.onOpen(greet);
      });
      pc.setRemoteDescription(offer, 'offer');
      // Gathering on loopback is quick; its state is read, since its callback does not always come.
      for (let waited = 0; pc.gatheringState() !== 'complete'; waited += 10) {
        if (waited > 10_000) throw new Error('the independent provider gathered no candidates within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const description = pc.localDescription();
      if (!description) throw new Error('the independent provider has no local description');
      return description.sdp;
    },
    waitForClient(match, ms = 5000) {
      const seen = received.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`the client sent no matching event within ${ms.toString()} ms (received: ${received.map((event) => String(event.type)).join(', ')})`),
            ),
          ms,
        );
        waiters.push({ match, resolve: (event) => (clearTimeout(timer), resolve(event)) });
      });
    },
    close() {
      keepUntilExit(...owned);
      for (const object of owned.reverse()) {
        try {
          (object as { close(): void }).close();
        } catch {
          // already closed
        }
      }
    },
  };
}
