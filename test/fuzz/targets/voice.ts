import fc from 'fast-check';
import type { Action } from '../../../src/shared/talkie/content';
import { allowedClientEvent, parseRealtimeMessage, sessionTurnDetection, type ClientEvent } from '../../../src/shared/talkie/voice/realtime-events';
import { callView, startCall, stepCall, type CallInput } from '../../../src/shared/talkie/voice/voice-call';
import { anyJson, check, mutatedFrom, nastyStrings, target } from '../kit';

/** Talkie voice: a hostile provider's data channel and the app's inputs into the call controller (src/shared/talkie/voice/voice-call.ts). */

const action: Action = {
  id: 'a1',
  summary: 'Send the offer',
  riskLevel: 'low',
  status: 'pending',
  paramsHash: 'sha256:1',
  buttons: true,
  voice: true,
  expiresAt: '2999-01-01T00:00:00Z',
};

/** Every provider event the controller reads, valid; mutated field by field below. */
const providerSeeds: unknown[] = [
  { type: 'session.created', session: { audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: true } } } } },
  { type: 'input_audio_buffer.speech_started', item_id: 'u1', audio_start_ms: 10 },
  { type: 'input_audio_buffer.speech_stopped', item_id: 'u1', audio_end_ms: 900 },
  { type: 'conversation.item.added', previous_item_id: null, item: { id: 'u1', type: 'message', role: 'user' } },
  { type: 'conversation.item.added', previous_item_id: 'u1', item: { id: 'a1i', type: 'message', role: 'assistant' } },
  { type: 'conversation.item.input_audio_transcription.completed', item_id: 'u1', transcript: 'yes, confirm' },
  { type: 'conversation.item.input_audio_transcription.completed', item_id: 'u1', transcript: 'what about tomorrow' },
  { type: 'conversation.item.input_audio_transcription.failed', item_id: 'u1', error: { message: 'unclear' } },
  { type: 'response.created', response: { id: 'r1' } },
  { type: 'response.done', response: { id: 'r1', status: 'completed' } },
  { type: 'response.done', response: { id: 'r1', status: 'cancelled' } },
  { type: 'response.function_call_arguments.done', call_id: 'c1', name: 'send_offer', arguments: '{}' },
  { type: 'response.function_call_arguments.done', call_id: 'c2', item_id: 'fc2', arguments: '{"q":"x"}' },
  {
    type: 'response.output_item.done',
    response_id: 'r1',
    output_index: 0,
    item: { id: 'fc1', type: 'function_call', status: 'completed', call_id: 'c1', name: 'send_offer', arguments: '{}' },
  },
  {
    type: 'response.output_item.done',
    response_id: 'r1',
    output_index: 0,
    item: { id: 'fc2', type: 'function_call', status: 'incomplete', call_id: 'c2', name: 'search', arguments: '{"q"' },
  },
  { type: 'session.updated', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } } },
  { type: 'output_audio_buffer.started', response_id: 'r1' },
  { type: 'output_audio_buffer.stopped', response_id: 'r1' },
  { type: 'output_audio_buffer.cleared', response_id: 'r1' },
  { type: 'response.output_audio_transcript.done', response_id: 'r1', item_id: 'a1i', transcript: 'Shall I send it?' },
  { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
  { type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: 'refused', param: 'session', event_id: 'agentdesk_1' } },
];

const provider: fc.Arbitrary<CallInput> = fc
  .oneof(
    { weight: 6, arbitrary: mutatedFrom(providerSeeds, 2).map((json) => JSON.stringify(json) ?? '') },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constantFrom(...nastyStrings)) },
    { weight: 1, arbitrary: anyJson.map((json): unknown => (typeof json === 'string' ? json : json)) },
  )
  .map((data) => ({ type: 'dc.message', data }));

const app: fc.Arbitrary<CallInput> = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map((now): CallInput => ({ type: 'dc.open', now })),
  fc.integer({ min: 0, max: 2_000_000 }).map((now): CallInput => ({ type: 'tick', now })),
  fc.constantFrom<CallInput>(
    { type: 'tool.result', providerCallId: 'c1', result: { outcome: 'ok', output: 'Say yes to send it.', updates: [{ type: 'action', action }] } },
    {
      type: 'tool.result',
      providerCallId: 'c2',
      result: { outcome: 'failed', output: 'The tool failed: down', code: 'server_error', message: 'down', retryable: true },
    },
    { type: 'tool.result', providerCallId: 'c2', result: { outcome: 'duplicate' } },
    { type: 'tool.error', providerCallId: 'c1', message: 'This voice call has ended; start a new one.' },
    { type: 'decision.result', actionId: 'a1', outcome: 'ok' },
    { type: 'decision.result', actionId: 'a1', outcome: 'conflict' },
    { type: 'action.settled', actionId: 'a1' },
    { type: 'usage.reply', seconds: 30, remainingSeconds: 5 },
    { type: 'mute' },
    { type: 'unmute' },
    { type: 'ptt', down: true },
    { type: 'ptt', down: false },
    { type: 'mode', mode: 'push-to-talk' },
    { type: 'mode', mode: 'hands-free' },
    { type: 'hangup', now: 3_000_000, reason: 'user' },
    { type: 'dc.close', now: 3_000_000 },
  ),
);

export const voiceCallTarget = target({
  name: 'talkie.voiceCall',
  weight: 5,
  arbitrary: fc.record({
    steps: fc.array(fc.oneof({ weight: 3, arbitrary: provider }, { weight: 2, arbitrary: app }), { maxLength: 50 }),
    setup: fc.record({ maxSeconds: fc.integer({ min: 1, max: 3600 }), warnSeconds: fc.integer({ min: 0, max: 600 }), voiceConfirm: fc.boolean() }),
  }),
  property: ({ steps, setup }) => {
    let state = startCall({ ...setup, consent: { confirm: ['ano'], refuse: ['ne'] }, labels: {}, locale: 'cs' }, { now: 0 });
    let finals = 0;
    let decides = 0;
    let hangups = 0;
    for (const input of steps) {
      const wasOpen = state.link === 'open';
      const next = stepCall(state, input);
      for (const effect of next.effects) {
        check(effect.type !== 'refused', () => `the controller proposed a refused client event (${effect.type === 'refused' ? effect.reason : ''})`);
        if (effect.type === 'send') {
          check(wasOpen && next.state.link === 'open', 'a client event left while the channel was not open');
          check(allowedClientEvent(effect.event).ok, 'a client event left without passing the gate');
        }
        if (effect.type === 'usage' && effect.final) finals += 1;
        if (effect.type === 'decide') decides += 1;
        if (effect.type === 'hangup') hangups += 1;
        if (effect.type === 'transcript') check(effect.text.trim() !== '', 'an empty transcript was posted');
      }
      state = next.state;
      const view = callView(state);
      check(view.timeLeftSeconds >= 0 && view.timeLeftSeconds <= setup.maxSeconds, `time left ${view.timeLeftSeconds}`);
      check(view.transcript.length <= 200, 'the live transcript is bounded');
    }
    check(finals <= 1 && hangups <= 1, `final reports ${finals}, hang-ups ${hangups}`);
    check(decides <= 1, `one proposal was decided ${decides} times`);
  },
});

// --- the realtime event stream -----------------------------------------------------------------

/**
 * Talkie voice: the provider's event stream as OpenAI's Realtime (GA) provider shapes it — responses
 * whose function calls stream their arguments and end `completed` or `incomplete` (the arguments event
 * also comes for a cut-off call, its name sometimes left off), cancelled responses, user turns,
 * session.updated, errors naming the client's events — with tool results of every kind coming back at
 * random points, and noise. Checked against a model of the stream: a tool runs only for a function_call
 * item done as `completed`, each call id once, with the item's name and arguments (else those of its
 * arguments event); every call that ran and got its result in a live call gets exactly one
 * function_call_output, then response.create; an output never goes to a call that was not completed;
 * every session.update is numbered; the voice window opens only after the provider applied the update
 * that turned automatic responses off and did not refuse it.
 */
interface CallSpec {
  kind: 'call';
  callId: string;
  name: string;
  args: string;
  /** `response.function_call_arguments.done` is sent, with or without its name. */
  argsDone: boolean;
  nameOnArgs: boolean;
  /** How its item ends (`none`: no `response.output_item.done`). */
  done: 'completed' | 'incomplete' | 'none';
  /** The done item carries name and arguments (GA does), or leaves them off. */
  itemComplete: boolean;
}
type ItemSpec = CallSpec | { kind: 'message' };
type StreamStep =
  | { kind: 'response'; id: string; items: ItemSpec[]; status: 'completed' | 'cancelled' | 'incomplete' | 'failed'; audio: boolean }
  | { kind: 'user'; item: string; text: string; startedOnly: boolean }
  /**
   * A proposal read out: the provider applies the client's latest turn-detection update, refuses it (an
   * error naming its event_id) before or after, or says nothing; then a response plays and stops.
   */
  | { kind: 'reading'; id: string; update: 'applied' | 'refused' | 'refused-after' | 'silent' }
  /** A whole proposal: a completed call, its result carrying a pending action at once, then its reading. */
  | { kind: 'proposal'; update: 'applied' | 'refused' | 'refused-after' | 'silent' }
  | { kind: 'updated'; createResponse: boolean }
  | { kind: 'error'; eventId: string | null; type: 'invalid_request_error' | 'server_error' }
  | { kind: 'result'; pick: number; outcome: 'ok' | 'action' | 'failed' | 'duplicate' | 'error' | 'huge' }
  | { kind: 'decision'; outcome: 'ok' | 'conflict' | 'failed' }
  | { kind: 'noise'; data: string }
  | { kind: 'tick'; seconds: number }
  | { kind: 'end'; how: 'hangup' | 'close' };

const callIds = ['c1', 'c2', 'c3', 'c4', 'c5'];
const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  kind: fc.constant('call' as const),
  callId: fc.constantFrom(...callIds),
  name: fc.constantFrom('search_records', 'propose', 'x'.repeat(64)),
  args: fc.oneof(fc.constantFrom('{}', '{"q":"Acme"}', '{"q":"Ac', ''), fc.string({ maxLength: 30 })),
  argsDone: fc.boolean(),
  nameOnArgs: fc.boolean(),
  done: fc.constantFrom('completed' as const, 'completed' as const, 'incomplete' as const, 'none' as const),
  itemComplete: fc.boolean(),
});
const streamStep: fc.Arbitrary<StreamStep> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('response' as const),
      id: fc.constantFrom('r1', 'r2', 'r3'),
      items: fc.array(fc.oneof({ weight: 3, arbitrary: callSpec }, { weight: 1, arbitrary: fc.constant<ItemSpec>({ kind: 'message' }) }), { maxLength: 3 }),
      status: fc.constantFrom('completed' as const, 'cancelled' as const, 'incomplete' as const, 'failed' as const),
      audio: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      item: fc.constantFrom('u1', 'u2', 'u3'),
      text: fc.constantFrom('ano, send', 'yes, send', 'ne', 'what now', ''),
      startedOnly: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('updated' as const), createResponse: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('proposal' as const),
      update: fc.constantFrom('applied' as const, 'applied' as const, 'refused' as const, 'refused-after' as const, 'silent' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reading' as const),
      id: fc.constantFrom('r4', 'r5'),
      update: fc.constantFrom('applied' as const, 'applied' as const, 'refused' as const, 'refused-after' as const, 'silent' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('error' as const),
      eventId: fc.constantFrom('agentdesk_1', 'agentdesk_2', 'agentdesk_3', 'agentdesk_4', 'other', null),
      type: fc.constantFrom('invalid_request_error' as const, 'server_error' as const),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('ok' as const, 'action' as const, 'failed' as const, 'duplicate' as const, 'error' as const, 'huge' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('decision' as const), outcome: fc.constantFrom('ok' as const, 'conflict' as const, 'failed' as const) }),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        mutatedFrom(providerSeeds, 2).map((json) => JSON.stringify(json) ?? ''),
        fc.string({ maxLength: 40 }),
      )
      .map((data): StreamStep => ({ kind: 'noise', data })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1200 }).map((seconds): StreamStep => ({ kind: 'tick', seconds })) },
  { weight: 1, arbitrary: fc.constantFrom<StreamStep>({ kind: 'end', how: 'hangup' }, { kind: 'end', how: 'close' }) },
);

/** The provider events one step sends, in order, as JSON (`lastUpdate`: the event_id of the client's latest session.update). */
function streamEvents(step: StreamStep, lastUpdate: string | undefined): Record<string, unknown>[] {
  switch (step.kind) {
    case 'reading': {
      const applied = {
        type: 'session.updated',
        session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } },
      };
      const refusal = {
        type: 'error',
        error: { type: 'invalid_request_error', code: 'invalid_value', message: 'refused', param: 'session', event_id: lastUpdate ?? null },
      };
      const reading = [
        { type: 'response.created', response: { id: step.id, status: 'in_progress', output: [] } },
        { type: 'output_audio_buffer.started', response_id: step.id },
        { type: 'response.done', response: { id: step.id, status: 'completed', output: [] } },
        { type: 'output_audio_buffer.stopped', response_id: step.id },
      ];
      return step.update === 'applied'
        ? [applied, ...reading]
        : step.update === 'refused'
          ? [refusal, ...reading]
          : step.update === 'refused-after'
            ? [applied, ...reading, refusal]
            : reading;
    }
    case 'response': {
      const events: Record<string, unknown>[] = [
        { type: 'response.created', response: { id: step.id, object: 'realtime.response', status: 'in_progress', output: [] } },
      ];
      const output: Record<string, unknown>[] = [];
      step.items.forEach((spec, index) => {
        const itemId = `${step.id}_item${index.toString()}`;
        const base = { response_id: step.id, output_index: index };
        if (spec.kind === 'message') {
          const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_audio', transcript: 'Hello.' }] };
          events.push(
            { type: 'response.output_item.added', ...base, item: { ...item, status: 'in_progress', content: [] } },
            { type: 'response.output_audio_transcript.done', ...base, item_id: itemId, content_index: 0, transcript: 'Hello.' },
            { type: 'response.output_item.done', ...base, item },
          );
          output.push(item);
          return;
        }
        events.push({
          type: 'response.output_item.added',
          ...base,
          item: { id: itemId, type: 'function_call', status: 'in_progress', call_id: spec.callId, name: spec.name, arguments: '' },
        });
        if (spec.args !== '') events.push({ type: 'response.function_call_arguments.delta', ...base, item_id: itemId, call_id: spec.callId, delta: spec.args });
        if (spec.argsDone)
          events.push({
            type: 'response.function_call_arguments.done',
            ...base,
            item_id: itemId,
            call_id: spec.callId,
            ...(spec.nameOnArgs ? { name: spec.name } : {}),
            arguments: spec.args,
          });
        if (spec.done !== 'none') {
          const item = {
            id: itemId,
            type: 'function_call',
            status: spec.done,
            call_id: spec.callId,
            ...(spec.itemComplete ? { name: spec.name, arguments: spec.args } : {}),
          };
          events.push({ type: 'response.output_item.done', ...base, item });
          output.push(item);
        }
      });
      if (step.audio) events.push({ type: 'output_audio_buffer.started', response_id: step.id });
      events.push({ type: 'response.done', response: { id: step.id, object: 'realtime.response', status: step.status, output } });
      if (step.audio) events.push({ type: step.status === 'completed' ? 'output_audio_buffer.stopped' : 'output_audio_buffer.cleared', response_id: step.id });
      return events;
    }
    case 'user':
      return [
        { type: 'input_audio_buffer.speech_started', item_id: step.item, audio_start_ms: 100 },
        ...(step.startedOnly
          ? []
          : [
              { type: 'input_audio_buffer.speech_stopped', item_id: step.item, audio_end_ms: 900 },
              { type: 'conversation.item.added', previous_item_id: null, item: { id: step.item, type: 'message', role: 'user', status: 'completed' } },
              { type: 'conversation.item.input_audio_transcription.completed', item_id: step.item, content_index: 0, transcript: step.text },
            ]),
      ];
    case 'updated':
      return [
        {
          type: 'session.updated',
          session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: step.createResponse } } } },
        },
      ];
    case 'error':
      return [
        {
          type: 'error',
          error: { type: step.type, code: 'invalid_value', message: 'refused', param: 'session.audio.input.turn_detection', event_id: step.eventId },
        },
      ];
    default:
      return [];
  }
}

const pendingAction: Action = { ...action, id: 'a_stream' };

export const realtimeStreamTarget = target({
  name: 'talkie.realtimeStream',
  weight: 5,
  arbitrary: fc.record({ steps: fc.array(streamStep, { maxLength: 40 }), voiceConfirm: fc.boolean() }),
  property: ({ steps, voiceConfirm }) => {
    let state = startCall({ maxSeconds: 900, warnSeconds: 60, voiceConfirm, consent: { confirm: [], refuse: [] }, labels: {}, locale: 'en' }, { now: 0 });
    // The model: what the stream said about each call, and what the client did.
    /** Call ids whose function_call item was done as completed (`paired`: found through the item's id, not its call_id). */
    const completed = new Map<string, { name?: string; args?: string; paired?: true }>();
    const argsByCall = new Map<string, { name?: string; args: string; itemId?: string }>();
    const ran = new Set<string>();
    const waiting: string[] = [];
    const answered = new Set<string>();
    let turnOff: { eventId: string; applied: boolean; refused: boolean } | undefined;
    let lastUpdate: string | undefined;

    const feed = (input: CallInput, fedEvent?: unknown): void => {
      const wasOpen = state.link === 'open';
      if (fedEvent !== undefined) observe(fedEvent);
      const next = stepCall(state, input);
      const sends: ClientEvent[] = [];
      for (const effect of next.effects) {
        check(effect.type !== 'refused', () => `a refused client event (${effect.type === 'refused' ? effect.reason : ''})`);
        if (effect.type === 'send') {
          check(wasOpen && next.state.link === 'open', 'a client event left while the channel was not open');
          check(allowedClientEvent(effect.event).ok, 'a client event left without passing the gate');
          sends.push(effect.event);
        }
        if (effect.type === 'tool') {
          const call = completed.get(effect.providerCallId);
          check(call !== undefined, `a tool ran for ${effect.providerCallId}, whose function_call item was never done as completed`);
          check(!ran.has(effect.providerCallId), `a second tool run for ${effect.providerCallId}`);
          const known = argsByCall.get(effect.providerCallId);
          if (!call.paired) {
            check(effect.name === (call.name ?? known?.name), `tool ${effect.providerCallId} ran as ${effect.name}`);
            check(effect.arguments === (call.args ?? known?.args), `tool ${effect.providerCallId} ran with other arguments`);
          }
          ran.add(effect.providerCallId);
          waiting.push(effect.providerCallId);
        }
        if (effect.type === 'announce' && effect.announcement.kind === 'confirm-open') {
          check(turnOff?.applied === true && !turnOff.refused, 'the voice window opened although automatic responses were not (or no longer) off');
        }
      }
      sends.forEach((event, index) => {
        if (event.type === 'session.update') {
          check(event.event_id !== undefined, 'a session.update without event_id');
          lastUpdate = event.event_id;
          const createResponse =
            'audio' in event.session ? event.session.audio.input.turn_detection.create_response : event.session.turn_detection.create_response;
          if (createResponse === false && event.event_id !== undefined) turnOff = { eventId: event.event_id, applied: false, refused: false };
        }
        if (event.type === 'conversation.item.create') {
          const callId = event.item.call_id;
          check(completed.has(callId), `a function_call_output for ${callId}, never completed`);
          check(!answered.has(callId), `a second function_call_output for ${callId}`);
          answered.add(callId);
          check(sends[index + 1]?.type === 'response.create', 'a function_call_output without response.create after it');
        }
      });
      state = next.state;
    };
    /** What the model learns from one provider event (only what the parser accepts counts). */
    const observe = (raw: unknown): void => {
      const parsed = parseRealtimeMessage(typeof raw === 'string' ? raw : JSON.stringify(raw));
      if (parsed.kind !== 'event') return;
      const event = parsed.event;
      if (event.type === 'response.function_call_arguments.done')
        argsByCall.set(event.call_id, {
          args: event.arguments,
          ...(event.name === undefined ? {} : { name: event.name }),
          ...(event.item_id === undefined ? {} : { itemId: event.item_id }),
        });
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call' && event.item.status === 'completed') {
        const viaItem = event.item.id === undefined ? undefined : [...argsByCall].find(([, known]) => known.itemId === event.item.id)?.[0];
        const callId = event.item.call_id ?? viaItem;
        if (callId !== undefined && !completed.has(callId)) {
          completed.set(callId, {
            ...(event.item.name === undefined ? {} : { name: event.item.name }),
            ...(event.item.arguments === undefined ? {} : { args: event.item.arguments }),
            ...(event.item.call_id === undefined ? { paired: true as const } : {}),
          });
        }
      }
      if (event.type === 'session.updated' && turnOff && sessionTurnDetection(event)?.create_response === false) turnOff.applied = true;
      if (event.type === 'error' && turnOff && event.error.event_id === turnOff.eventId) turnOff.refused = true;
    };

    feed({ type: 'dc.open', now: 0 });
    feed({ type: 'dc.message', data: JSON.stringify(providerSeeds[0]) }, providerSeeds[0]);
    let now = 0;
    let proposals = 0;
    const result = (callId: string, outcome: Extract<StreamStep, { kind: 'result' }>['outcome']): void => {
      const index = waiting.indexOf(callId);
      if (index < 0) return;
      waiting.splice(index, 1);
      const wasOpen = state.link === 'open';
      const input: CallInput =
        outcome === 'error'
          ? { type: 'tool.error', providerCallId: callId, message: 'This voice call has ended; start a new one.' }
          : {
              type: 'tool.result',
              providerCallId: callId,
              result:
                outcome === 'ok'
                  ? { outcome: 'ok', output: 'Found 2 records.', updates: [] }
                  : outcome === 'action'
                    ? { outcome: 'ok', output: 'Say yes to send it.', updates: [{ type: 'action', action: pendingAction }] }
                    : outcome === 'huge'
                      ? { outcome: 'ok', output: 'x'.repeat(120_000), updates: [] }
                      : outcome === 'failed'
                        ? { outcome: 'failed', output: 'The tool failed: down', code: 'server_error', message: 'down', retryable: true }
                        : { outcome: 'duplicate' },
            };
      feed(input);
      // A call that ran gets its one output whenever its result comes while the call is live.
      if (wasOpen && state.link === 'open') check(answered.has(callId), `no function_call_output for ${callId} after its ${outcome} result`);
    };
    const events = (list: Record<string, unknown>[]): void => {
      for (const event of list) feed({ type: 'dc.message', data: JSON.stringify(event) }, event);
    };
    for (const step of steps) {
      if (step.kind === 'proposal') {
        const callId = `p${(++proposals).toString()}`;
        const id = `rp${proposals.toString()}`;
        events(
          streamEvents(
            {
              kind: 'response',
              id,
              status: 'completed',
              audio: false,
              items: [{ kind: 'call', callId, name: 'propose', args: '{}', argsDone: true, nameOnArgs: true, done: 'completed', itemComplete: true }],
            },
            lastUpdate,
          ),
        );
        result(callId, 'action');
        events(streamEvents({ kind: 'reading', id: `${id}_reading`, update: step.update }, lastUpdate));
      } else if (step.kind === 'noise') feed({ type: 'dc.message', data: step.data }, step.data);
      else if (step.kind === 'result') {
        if (waiting.length > 0) result(waiting[step.pick % waiting.length]!, step.outcome);
      } else if (step.kind === 'decision') feed({ type: 'decision.result', actionId: pendingAction.id, outcome: step.outcome });
      else if (step.kind === 'tick') feed({ type: 'tick', now: (now += step.seconds * 1000) });
      else if (step.kind === 'end') feed(step.how === 'hangup' ? { type: 'hangup', now, reason: 'user' } : { type: 'dc.close', now });
      else events(streamEvents(step, lastUpdate));
    }
  },
});
