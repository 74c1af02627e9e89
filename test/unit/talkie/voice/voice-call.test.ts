import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../../src/shared/talkie/content';
import type { RunUpdate } from '../../../../src/shared/talkie/conversation';
import { allowedClientEvent, type ClientEvent } from '../../../../src/shared/talkie/voice/realtime-events';
import { callView, startCall, stepCall, type CallEffect, type CallInput, type CallSetup, type CallState } from '../../../../src/shared/talkie/voice/voice-call';

const setup: CallSetup = {
  maxSeconds: 900,
  warnSeconds: 60,
  voiceConfirm: true,
  locale: 'en',
  consent: { confirm: [], refuse: [] },
  labels: { send_offer: 'Preparing the offer…' },
};
const s = (seconds: number) => seconds * 1000;

const action: Action = {
  id: 'a_77',
  threadId: 't_voice',
  summary: 'Send offer N-2026-014 to novak@alfa.cz',
  riskLevel: 'low',
  status: 'pending',
  paramsHash: 'sha256:4f1c',
  expiresAt: '2999-01-01T00:00:00Z',
  buttons: true,
  voice: true,
};

/** A data-channel message as the provider sends it (text). */
const dc = (json: Record<string, unknown>): CallInput => ({ type: 'dc.message', data: JSON.stringify(json) });
const sessionCreated = dc({ type: 'session.created', session: { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 500 } } } } });
/** A function call as OpenAI's provider finishes it: its arguments, then its item done as `completed`. */
const functionCall = (callId = 'call_1', name = 'send_offer'): CallInput[] => [
  dc({
    type: 'response.function_call_arguments.done',
    response_id: 'resp_f',
    item_id: `fc_${callId}`,
    output_index: 0,
    call_id: callId,
    name,
    arguments: '{"offer":"N-2026-014"}',
  }),
  dc({
    type: 'response.output_item.done',
    response_id: 'resp_f',
    output_index: 0,
    item: {
      id: `fc_${callId}`,
      object: 'realtime.item',
      type: 'function_call',
      status: 'completed',
      call_id: callId,
      name,
      arguments: '{"offer":"N-2026-014"}',
    },
  }),
];
/** The provider applied the update that turned automatic responses off (C2's precondition). */
const turnsOff = dc({
  type: 'session.updated',
  session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 500, create_response: false } } } },
});
const created = (id: string) => dc({ type: 'response.created', response: { id } });
const done = (id: string) => dc({ type: 'response.done', response: { id, status: 'completed' } });
const started = (id: string) => dc({ type: 'output_audio_buffer.started', response_id: id });
const stopped = (id: string) => dc({ type: 'output_audio_buffer.stopped', response_id: id });
const speech = (item: string) => dc({ type: 'input_audio_buffer.speech_started', item_id: item, audio_start_ms: 0 });
const speechEnd = (item: string) => dc({ type: 'input_audio_buffer.speech_stopped', item_id: item, audio_end_ms: 900 });
const item = (id: string, role: 'user' | 'assistant', previous: string | null = null) =>
  dc({ type: 'conversation.item.added', previous_item_id: previous, item: { id, type: 'message', role } });
const said = (itemId: string, transcript: string) => dc({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, transcript });
const notHeard = (itemId: string) => dc({ type: 'conversation.item.input_audio_transcription.failed', item_id: itemId, error: { message: 'audio unclear' } });
const answered = (itemId: string, transcript: string) =>
  dc({ type: 'response.output_audio_transcript.done', response_id: 'resp_x', item_id: itemId, transcript });
const toolOk = (updates: RunUpdate[] = [], callId = 'call_1'): CallInput => ({
  type: 'tool.result',
  providerCallId: callId,
  result: { outcome: 'ok', output: 'Offer N-2026-014 is ready to send. Say yes to send it.', updates },
});
const tick = (seconds: number): CallInput => ({ type: 'tick', now: s(seconds) });

function run(inputs: CallInput[], from: CallState = startCall(setup, { now: 0 })): { state: CallState; effects: CallEffect[] } {
  let state = from;
  const effects: CallEffect[] = [];
  for (const input of inputs) {
    const next = stepCall(state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** A call whose data channel is open and whose session said its turn detection. */
const live = run([{ type: 'dc.open', now: 0 }, sessionCreated]).state;

/** Client events sent, as short strings, to read a timeline at a glance. */
function sent(effects: CallEffect[]): string[] {
  return effects.flatMap((effect) => {
    if (effect.type !== 'send') return [];
    const event = effect.event;
    if (event.type === 'session.update') {
      const turn = 'audio' in event.session ? event.session.audio.input.turn_detection : event.session.turn_detection;
      return [`turn_detection create_response:${String(turn.create_response)}`];
    }
    if (event.type === 'conversation.item.create') return [`function_call_output ${event.item.call_id}: ${event.item.output}`];
    return [event.type];
  });
}
const ofType = <T extends CallEffect['type']>(effects: CallEffect[], type: T) =>
  effects.filter((effect): effect is Extract<CallEffect, { type: T }> => effect.type === type);

describe('voice call controller (Talkie 1 §10 on the client)', () => {
  it('runs a function call through voiceTool exactly once and sends its output unchanged, then response.create', () => {
    const call = run([created('resp_f'), ...functionCall(), ...functionCall(), done('resp_f')], live);
    expect(ofType(call.effects, 'tool')).toEqual([{ type: 'tool', providerCallId: 'call_1', name: 'send_offer', arguments: '{"offer":"N-2026-014"}' }]);
    expect(ofType(call.effects, 'show')).toEqual([{ type: 'show', updates: [{ type: 'tool.start', toolCallId: 'call_1', label: 'Preparing the offer…' }] }]);
    expect(callView(call.state)).toMatchObject({ phase: 'thinking', tools: ['Preparing the offer…'] });
    expect(sent(call.effects)).toEqual([]);

    const card = { type: 'card' as const, card: { id: 'c1', title: 'Offer', fallbackText: 'Offer N-2026-014' } };
    const result = run([toolOk([card]), toolOk([card])], call.state);
    expect(sent(result.effects)).toEqual(['function_call_output call_1: Offer N-2026-014 is ready to send. Say yes to send it.', 'response.create']);
    expect(ofType(result.effects, 'show')).toEqual([{ type: 'show', updates: [card, { type: 'tool.end', toolCallId: 'call_1', ok: true }] }]);
    expect(callView(result.state).tools).toEqual([]);
    // The same call id from the provider again, later: still no second voiceTool.
    expect(ofType(run([...functionCall()], result.state).effects, 'tool')).toEqual([]);
  });

  it('tells the model when a tool failed, was refused, or its call id was already used (409): no call is left waiting', () => {
    const failed = run(
      [
        ...functionCall('call_1'),
        {
          type: 'tool.result',
          providerCallId: 'call_1',
          result: { outcome: 'failed', output: 'The tool failed: The CRM is down.', code: 'server_error', message: 'The CRM is down.', retryable: true },
        },
      ],
      live,
    );
    expect(sent(failed.effects)).toEqual(['function_call_output call_1: The tool failed: The CRM is down.', 'response.create']);
    expect(ofType(failed.effects, 'show').at(-1)).toEqual({
      type: 'show',
      updates: [{ type: 'tool.end', toolCallId: 'call_1', ok: false, error: 'The CRM is down.' }],
    });
    const lost = run(
      [...functionCall('call_2'), { type: 'tool.error', providerCallId: 'call_2', message: 'This voice call has ended; start a new one.' }],
      live,
    );
    expect(sent(lost.effects)).toEqual(['function_call_output call_2: The tool failed: This voice call has ended; start a new one.', 'response.create']);
    // 409: the server had this call id already; the tool did not run, and the model (which waits for this
    // call's output: none was sent from here) hears so; the line says it failed, not "done".
    const duplicate = run([...functionCall('call_3'), { type: 'tool.result', providerCallId: 'call_3', result: { outcome: 'duplicate' } }], live);
    expect(sent(duplicate.effects)).toEqual([
      'function_call_output call_3: The tool failed: This tool call was already made once, so it was not run again.',
      'response.create',
    ]);
    expect(ofType(duplicate.effects, 'show').at(-1)).toEqual({
      type: 'show',
      updates: [{ type: 'tool.end', toolCallId: 'call_3', ok: false, error: 'This tool call was already made once, so it was not run again.' }],
    });
    expect(callView(duplicate.state)).toMatchObject({ phase: 'listening', tools: [] });
    // An answer the send gate refuses (longer than an output may be) would leave the model waiting too.
    const huge = run(
      [
        ...functionCall('call_4'),
        { type: 'tool.result', providerCallId: 'call_4', result: { outcome: 'ok', output: 'x'.repeat(150_000), updates: [{ type: 'action', action }] } },
      ],
      live,
    );
    expect(sent(huge.effects)).toEqual([
      "function_call_output call_4: The tool failed: The tool's answer was too long to pass on to the assistant.",
      'response.create',
    ]);
    expect(ofType(huge.effects, 'refused')).toEqual([]);
    expect(ofType(huge.effects, 'show').at(-1)?.updates.at(-1)).toEqual({
      type: 'tool.end',
      toolCallId: 'call_4',
      ok: false,
      error: "The tool's answer was too long to pass on to the assistant.",
    });
  });

  it('runs a tool only for a function_call item done as completed: an interrupted call (cut-off arguments, item incomplete, response cancelled) never runs', () => {
    // The interruption as OpenAI's provider sends it: the arguments so far, the item incomplete, the response cancelled.
    const interrupted = run(
      [
        created('resp_i'),
        dc({
          type: 'response.output_item.added',
          response_id: 'resp_i',
          output_index: 0,
          item: { id: 'fc_i', type: 'function_call', status: 'in_progress', call_id: 'call_i', name: 'send_offer', arguments: '' },
        }),
        speech('u_barge'),
        dc({
          type: 'response.function_call_arguments.done',
          response_id: 'resp_i',
          item_id: 'fc_i',
          output_index: 0,
          call_id: 'call_i',
          name: 'send_offer',
          arguments: '{"offer":"N-20',
        }),
        dc({
          type: 'response.output_item.done',
          response_id: 'resp_i',
          output_index: 0,
          item: { id: 'fc_i', type: 'function_call', status: 'incomplete', call_id: 'call_i', name: 'send_offer', arguments: '{"offer":"N-20' },
        }),
        dc({
          type: 'response.done',
          response: { id: 'resp_i', status: 'cancelled', status_details: { type: 'cancelled', reason: 'turn_detected' }, output: [] },
        }),
      ],
      live,
    );
    expect(ofType(interrupted.effects, 'tool')).toEqual([]);
    expect(ofType(interrupted.effects, 'show')).toEqual([]);
    expect(sent(interrupted.effects)).toEqual([]);
    expect(callView(interrupted.state)).toMatchObject({ phase: 'listening', tools: [] });
    // Arguments whose item never finishes are not run either, not even once the response is over.
    const argumentsOnly = run(
      [
        created('resp_a'),
        dc({ type: 'response.function_call_arguments.done', response_id: 'resp_a', item_id: 'fc_a', call_id: 'call_a', name: 'send_offer', arguments: '{}' }),
        done('resp_a'),
      ],
      live,
    );
    expect(ofType(argumentsOnly.effects, 'tool')).toEqual([]);
    expect(argumentsOnly.state.pendingCalls).toEqual([]);
  });

  it('takes the name (and call id) from the item when the arguments event leaves them off, and runs that call once', () => {
    const call = run(
      [
        created('resp_n'),
        dc({
          type: 'response.function_call_arguments.done',
          response_id: 'resp_n',
          item_id: 'fc_n',
          output_index: 0,
          call_id: 'call_n',
          arguments: '{"q":"Acme"}',
        }),
        dc({
          type: 'response.output_item.done',
          response_id: 'resp_n',
          output_index: 0,
          item: { id: 'fc_n', type: 'function_call', status: 'completed', call_id: 'call_n', name: 'search_records' },
        }),
        dc({
          type: 'response.output_item.done',
          response_id: 'resp_n',
          output_index: 0,
          item: { id: 'fc_n', type: 'function_call', status: 'completed', call_id: 'call_n', name: 'search_records' },
        }),
        done('resp_n'),
      ],
      live,
    );
    expect(ofType(call.effects, 'tool')).toEqual([{ type: 'tool', providerCallId: 'call_n', name: 'search_records', arguments: '{"q":"Acme"}' }]);
    // An item that names neither the tool nor its arguments, with no arguments event: the model is told the call failed.
    const unnamed = run(
      [dc({ type: 'response.output_item.done', response_id: 'resp_u', item: { id: 'fc_u', type: 'function_call', status: 'completed', call_id: 'call_u' } })],
      live,
    );
    expect(ofType(unnamed.effects, 'tool')).toEqual([]);
    expect(sent(unnamed.effects)).toEqual([
      'function_call_output call_u: The tool failed: the speech provider did not say which tool to run or with what.',
      'response.create',
    ]);
  });

  it('logs every provider error; a refused turn-detection update is shown, stays shown, and its proposal is decided by the buttons', () => {
    const proposing = run([created('resp_f'), ...functionCall(), done('resp_f'), toolOk([{ type: 'action', action }])], live);
    const update = ofType(proposing.effects, 'send')
      .map((effect) => effect.event)
      .find((event) => event.type === 'session.update');
    // Each session.update carries an event_id, so that the provider's error can name it.
    expect(update).toMatchObject({ event_id: expect.stringMatching(/^agentdesk_\d+$/) });
    const eventId = (update as { event_id: string }).event_id;
    const refusal = dc({
      type: 'error',
      event_id: 'event_9',
      error: {
        type: 'invalid_request_error',
        code: 'invalid_value',
        message: 'Invalid value for turn_detection.',
        param: 'session.audio.input.turn_detection',
        event_id: eventId,
      },
    });
    const refused = run(
      [refusal, created('resp_p'), started('resp_p'), done('resp_p'), stopped('resp_p'), speech('u_yes'), said('u_yes', 'yes, confirm')],
      proposing.state,
    );
    expect(ofType(refused.effects, 'provider-error')).toEqual([
      {
        type: 'provider-error',
        error: {
          type: 'invalid_request_error',
          code: 'invalid_value',
          message: 'Invalid value for turn_detection.',
          param: 'session.audio.input.turn_detection',
          eventId,
          answersUpdate: true,
        },
      },
    ]);
    expect(ofType(refused.effects, 'decide')).toEqual([]);
    expect(ofType(refused.effects, 'announce').map((effect) => effect.announcement.kind)).not.toContain('confirm-open');
    expect(callView(refused.state)).toMatchObject({
      confirmation: { line: 'use-button', actionId: 'a_77', reason: 'setting_refused' },
      providerError: 'Invalid value for turn_detection.',
    });

    // Another error is logged only; the provider's own failure is shown until the next answer.
    const other = run(
      [
        dc({
          type: 'error',
          error: {
            type: 'invalid_request_error',
            code: 'response_cancel_not_active',
            message: 'Cancellation failed: no active response found.',
            event_id: null,
          },
        }),
      ],
      live,
    );
    expect(ofType(other.effects, 'provider-error')).toEqual([
      {
        type: 'provider-error',
        error: {
          type: 'invalid_request_error',
          code: 'response_cancel_not_active',
          message: 'Cancellation failed: no active response found.',
          answersUpdate: false,
        },
      },
    ]);
    expect(callView(other.state).providerError).toBeUndefined();
    const server = run([dc({ type: 'error', error: { type: 'server_error', message: 'The server had an error.' } })], live);
    expect(callView(server.state).providerError).toBe('The server had an error.');
    expect(callView(run([created('r9')], server.state).state).providerError).toBeUndefined();
  });

  describe('Talkie 1 §10.4: a pending voice-confirmable action', () => {
    const proposed = run([created('resp_f'), ...functionCall(), done('resp_f'), toolOk([{ type: 'action', action }]), turnsOff], live);

    it('turns automatic responses off before the model reads the proposal', () => {
      expect(sent(proposed.effects)).toEqual([
        'turn_detection create_response:false',
        'function_call_output call_1: Offer N-2026-014 is ready to send. Say yes to send it.',
        'response.create',
      ]);
      // Only create_response changes: the server's own turn detection is kept.
      const update = ofType(proposed.effects, 'send')[0]!.event as Extract<ClientEvent, { type: 'session.update' }>;
      expect(update.session).toEqual({
        type: 'realtime',
        audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 500, create_response: false } } },
      });
      expect(ofType(proposed.effects, 'show')[1]?.updates[0]).toEqual({ type: 'action', action });
      expect(callView(proposed.state).confirmation).toEqual({ line: 'proposing', actionId: 'a_77' });
    });

    it('opens the window only when the audio of that response stopped; earlier speech and other responses never count', () => {
      const reading = run(
        [created('resp_p'), started('resp_p'), speech('item_early'), item('item_early', 'user'), said('item_early', 'yes, confirm'), done('resp_p')],
        proposed.state,
      );
      expect(ofType(reading.effects, 'decide')).toEqual([]);
      expect(callView(reading.state).confirmation.line).toBe('proposing');
      // Another response's audio stopping does not open it either.
      expect(callView(run([stopped('resp_other')], reading.state).state).confirmation.line).toBe('proposing');

      const open = run([started('resp_p'), stopped('resp_p')], reading.state);
      expect(callView(open.state).confirmation).toEqual({ line: 'listening', actionId: 'a_77', keyword: undefined, missesLeft: 2 });
      expect(ofType(open.effects, 'announce')).toEqual([{ type: 'announce', announcement: { kind: 'confirm-open', actionId: 'a_77', keyword: undefined } }]);

      // The transcript of speech that started before the window opened arrives late: not a decision.
      const late = run([said('item_early', 'yes, confirm')], open.state);
      expect(ofType(late.effects, 'decide')).toEqual([]);
    });

    const heard = run([created('resp_p'), started('resp_p'), done('resp_p'), stopped('resp_p')], proposed.state).state;

    it('decides exactly once on "yes, confirm", even when the transcript event is duplicated', () => {
      const yes = run(
        [speech('item_yes'), item('item_yes', 'user'), speechEnd('item_yes'), said('item_yes', 'Yes, confirm.'), said('item_yes', 'Yes, confirm.')],
        heard,
      );
      expect(ofType(yes.effects, 'decide')).toEqual([{ type: 'decide', actionId: 'a_77', paramsHash: 'sha256:4f1c', decision: 'confirm' }]);
      // Automatic responses come back before the decision is even asked for (C10, C13).
      expect(sent(yes.effects)).toEqual(['turn_detection create_response:true']);
      expect(ofType(yes.effects, 'transcript')).toEqual([{ type: 'transcript', role: 'user', itemId: 'item_yes', text: 'Yes, confirm.' }]);
      expect(callView(yes.state).confirmation).toEqual({ line: 'deciding', actionId: 'a_77', decision: 'confirm' });
      const decided = run([{ type: 'decision.result', actionId: 'a_77', outcome: 'ok' }, said('item_yes', 'Yes, confirm.')], yes.state);
      expect(ofType(decided.effects, 'decide')).toEqual([]);
      expect(callView(decided.state).confirmation).toEqual({ line: 'none' });
    });

    it('needs the keyword when the action sets one, and says it on the line', () => {
      const keyed = run(
        [
          created('resp_f2'),
          ...functionCall('call_k'),
          done('resp_f2'),
          toolOk([{ type: 'action', action: { ...action, id: 'a_k', voiceKeyword: 'send' } }], 'call_k'),
          turnsOff,
          created('resp_k'),
          started('resp_k'),
          done('resp_k'),
          stopped('resp_k'),
        ],
        live,
      );
      expect(callView(keyed.state).confirmation).toEqual({ line: 'listening', actionId: 'a_k', keyword: 'send', missesLeft: 2 });
      const plainYes = run([speech('i1'), said('i1', 'yes')], keyed.state);
      expect(ofType(plainYes.effects, 'decide')).toEqual([]);
      const withKeyword = run([speech('i2'), said('i2', 'yes, send')], plainYes.state);
      expect(ofType(withKeyword.effects, 'decide')).toEqual([{ type: 'decide', actionId: 'a_k', paramsHash: 'sha256:4f1c', decision: 'confirm' }]);
    });

    it('closes the window after two off-topic utterances: the model answers each, the button decides', () => {
      const chat = run([speech('i1'), said('i1', 'what is the weather like in Brno tomorrow'), speech('i2'), said('i2', 'tell me a joke about offers')], heard);
      expect(ofType(chat.effects, 'decide')).toEqual([]);
      expect(sent(chat.effects)).toEqual(['response.create', 'response.create', 'turn_detection create_response:true']);
      expect(callView(chat.state).confirmation).toEqual({ line: 'use-button', actionId: 'a_77', reason: 'two_misses' });
      expect(ofType(chat.effects, 'announce')).toEqual([
        { type: 'announce', announcement: { kind: 'confirm-closed', actionId: 'a_77', reason: 'two_misses' } },
      ]);
      // A later "yes" is conversation, not a decision.
      expect(ofType(run([speech('i3'), said('i3', 'yes, confirm')], chat.state).effects, 'decide')).toEqual([]);
    });

    it('gives way when the button decided meanwhile, and reloads the action after a 409', () => {
      const settled = run([{ type: 'action.settled', actionId: 'a_77' }, speech('i1'), said('i1', 'yes, confirm')], heard);
      expect(ofType(settled.effects, 'decide')).toEqual([]);
      expect(sent(settled.effects)[0]).toBe('turn_detection create_response:true');
      const conflict = run([speech('i1'), said('i1', 'yes, confirm'), { type: 'decision.result', actionId: 'a_77', outcome: 'conflict' }], heard);
      expect(ofType(conflict.effects, 'reload-action')).toEqual([{ type: 'reload-action', actionId: 'a_77' }]);
      expect(callView(conflict.state).confirmation).toEqual({ line: 'use-button', actionId: 'a_77', reason: 'conflict' });
    });

    it('never opens a window for an action whose policy has no voice, or on a server without voiceConfirm', () => {
      const buttonOnly = run([...functionCall(), toolOk([{ type: 'action', action: { ...action, voice: false } }])], live);
      expect(sent(buttonOnly.effects)).toEqual(['function_call_output call_1: Offer N-2026-014 is ready to send. Say yes to send it.', 'response.create']);
      const noVoiceConfirm = run(
        [{ type: 'dc.open', now: 0 }, ...functionCall(), toolOk([{ type: 'action', action }])],
        startCall({ ...setup, voiceConfirm: false }, { now: 0 }),
      );
      expect(sent(noVoiceConfirm.effects)).toEqual(['function_call_output call_1: Offer N-2026-014 is ready to send. Say yes to send it.', 'response.create']);
      expect(callView(noVoiceConfirm.state).confirmation).toEqual({ line: 'none' });
    });
  });

  it('reports usage every 30 s, warns once, hangs up at the limit and sends the final usage once', () => {
    const ticks = Array.from({ length: 910 }, (_, i) => tick(i + 1));
    const call = run(ticks, live);
    expect(
      ofType(call.effects, 'usage')
        .filter((e) => !e.final)
        .map((e) => e.seconds),
    ).toEqual(Array.from({ length: 29 }, (_, i) => (i + 1) * 30).filter((n) => n < 900));
    expect(ofType(call.effects, 'announce').filter((e) => e.announcement.kind === 'warning')).toEqual([
      { type: 'announce', announcement: { kind: 'warning', remainingSeconds: 60 } },
    ]);
    expect(ofType(call.effects, 'hangup')).toEqual([{ type: 'hangup', reason: 'time_limit' }]);
    expect(ofType(call.effects, 'usage').filter((e) => e.final)).toEqual([{ type: 'usage', seconds: 900, final: true }]);
    expect(callView(call.state)).toMatchObject({ phase: 'ended', ended: 'time_limit', microphoneOpen: false });
    // Nothing after the end: no second final report, no sends.
    const after = run([{ type: 'hangup', now: s(920), reason: 'user' }, tick(950), ...functionCall('call_late')], call.state);
    expect(after.effects).toEqual([]);
  });

  it('counts down from the server’s remainingSeconds and shows the warning', () => {
    const corrected = run([tick(30), { type: 'usage.reply', seconds: 30, remainingSeconds: 90 }, tick(40)], live);
    expect(callView(corrected.state)).toMatchObject({ timeLeftSeconds: 80, warning: false });
    const warned = run([tick(61)], corrected.state);
    expect(callView(warned.state)).toMatchObject({ timeLeftSeconds: 59, warning: true });
    expect(ofType(warned.effects, 'announce')).toEqual([{ type: 'announce', announcement: { kind: 'warning', remainingSeconds: 59 } }]);
    const quota = run([tick(120)], warned.state);
    expect(ofType(quota.effects, 'hangup')).toEqual([{ type: 'hangup', reason: 'quota' }]);
  });

  it('hangs up on the user’s word: the tracks stop first, waiting transcripts are posted, then the final usage once', () => {
    // The assistant's reply is transcribed before the user's earlier line: it waits for it, in provider order.
    const call = run([tick(12), item('u1', 'user'), item('a1', 'assistant', 'u1'), answered('a1', 'Here is the offer.')], live);
    expect(ofType(call.effects, 'transcript')).toEqual([]);
    const ended = run(
      [
        { type: 'hangup', now: s(42), reason: 'user' },
        { type: 'hangup', now: s(43), reason: 'user' },
      ],
      call.state,
    );
    expect(ended.effects.map((effect) => effect.type)).toEqual(['hangup', 'spoken', 'transcript', 'usage', 'announce', 'microphone']);
    expect(ofType(ended.effects, 'usage')).toEqual([{ type: 'usage', seconds: 42, final: true }]);
    expect(ofType(ended.effects, 'spoken')).toEqual([{ type: 'spoken', item: { itemId: 'u1', role: 'user', state: 'unavailable', text: '' } }]);
    expect(ofType(ended.effects, 'microphone')).toEqual([{ type: 'microphone', open: false }]);
    expect(run([{ type: 'dc.close', now: s(50) }], ended.state).effects).toEqual([]);
  });

  it('ends as a lost connection when the data channel closes on its own', () => {
    const lost = run([{ type: 'dc.close', now: s(5) }], live);
    expect(ofType(lost.effects, 'hangup')).toEqual([{ type: 'hangup', reason: 'connection_lost' }]);
    expect(ofType(lost.effects, 'usage')).toEqual([{ type: 'usage', seconds: 5, final: true }]);
  });

  it('derives the phase from provider events, and stops local playback at once on barge-in', () => {
    const phases: string[] = [];
    let state = startCall(setup, { now: 0 });
    const steps: CallInput[] = [
      { type: 'dc.open', now: 0 },
      sessionCreated,
      speech('u1'),
      speechEnd('u1'),
      created('r1'),
      started('r1'),
      done('r1'),
      stopped('r1'),
    ];
    const playback: CallEffect[] = [];
    phases.push(callView(state).phase);
    for (const input of steps) {
      const next = stepCall(state, input);
      state = next.state;
      playback.push(...ofType(next.effects, 'playback'));
      phases.push(callView(state).phase);
    }
    expect(phases).toEqual(['connecting', 'listening', 'listening', 'listening', 'listening', 'thinking', 'speaking', 'speaking', 'listening']);
    expect(callView(run([speech('u1')], live).state).userSpeaking).toBe(true);
    expect(playback).toEqual([{ type: 'playback', playing: true }]);

    const bargeIn = run([created('r2'), started('r2'), speech('u2')], state);
    expect(ofType(bargeIn.effects, 'playback')).toEqual([
      { type: 'playback', playing: true },
      { type: 'playback', playing: false },
    ]);
    expect(callView(bargeIn.state).phase).toBe('listening');
    // A server that does not let speech interrupt keeps its answer playing.
    const patient = run(
      [
        dc({ type: 'session.created', session: { audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: false } } } } }),
        created('r3'),
        started('r3'),
        speech('u3'),
      ],
      live,
    );
    expect(ofType(patient.effects, 'playback')).toEqual([{ type: 'playback', playing: true }]);
    expect(callView(patient.state).phase).toBe('speaking');
  });

  it('mute disables the track and drops buffered audio; push to talk opens it only while the key is held', () => {
    expect(ofType(run([{ type: 'dc.open', now: 0 }], startCall(setup, { now: 0 })).effects, 'microphone')).toEqual([{ type: 'microphone', open: true }]);
    const muted = run([{ type: 'mute' }, { type: 'mute' }], live);
    expect(ofType(muted.effects, 'microphone')).toEqual([{ type: 'microphone', open: false }]);
    expect(sent(muted.effects)).toEqual(['input_audio_buffer.clear']);
    expect(callView(muted.state)).toMatchObject({ muted: true, microphoneOpen: false });
    expect(ofType(run([{ type: 'unmute' }], muted.state).effects, 'microphone')).toEqual([{ type: 'microphone', open: true }]);

    const ptt = run([{ type: 'mode', mode: 'push-to-talk' }], live);
    expect(ofType(ptt.effects, 'microphone')).toEqual([{ type: 'microphone', open: false }]);
    const held = run([{ type: 'ptt', down: true }], ptt.state);
    expect(ofType(held.effects, 'microphone')).toEqual([{ type: 'microphone', open: true }]);
    expect(ofType(run([{ type: 'ptt', down: false }], held.state).effects, 'microphone')).toEqual([{ type: 'microphone', open: false }]);
    // Muted beats the key; hands-free ignores it.
    expect(ofType(run([{ type: 'mute' }, { type: 'ptt', down: true }], ptt.state).effects, 'microphone')).toEqual([]);
    expect(run([{ type: 'ptt', down: true }], live).effects).toEqual([]);
  });

  it('the global shortcut toggles: talking with push to talk, mute hands free, nothing before the call is open or after it ended', () => {
    const ptt = run([{ type: 'mode', mode: 'push-to-talk' }], live).state;
    const on = run([{ type: 'shortcut' }], ptt);
    expect(ofType(on.effects, 'microphone')).toEqual([{ type: 'microphone', open: true }]);
    expect(callView(on.state)).toMatchObject({ talking: true, microphoneOpen: true });
    const off = run([{ type: 'shortcut' }], on.state);
    expect(ofType(off.effects, 'microphone')).toEqual([{ type: 'microphone', open: false }]);
    expect(callView(off.state).talking).toBe(false);

    const muted = run([{ type: 'shortcut' }], live);
    expect(callView(muted.state)).toMatchObject({ muted: true, microphoneOpen: false });
    expect(sent(muted.effects)).toEqual(['input_audio_buffer.clear']);
    expect(callView(run([{ type: 'shortcut' }], muted.state).state)).toMatchObject({ muted: false, microphoneOpen: true });

    const before = startCall(setup, { now: 0 });
    expect(run([{ type: 'shortcut' }], before)).toEqual({ state: before, effects: [] });
    const ended = run([{ type: 'hangup', now: s(1), reason: 'user' }], live).state;
    expect(run([{ type: 'shortcut' }], ended).effects).toEqual([]);
  });

  it('keeps the live transcript in provider order, with a placeholder for a failed transcription, each posted once', () => {
    const call = run(
      [
        item('u1', 'user'),
        item('a1', 'assistant', 'u1'),
        answered('a1', 'Two records found.'),
        said('u1', 'Find Acme'),
        answered('a1', 'Two records found.'),
        item('u2', 'user', 'a1'),
        notHeard('u2'),
        notHeard('u2'),
      ],
      live,
    );
    expect(callView(call.state).transcript).toEqual([
      { itemId: 'u1', role: 'user', state: 'final', text: 'Find Acme' },
      { itemId: 'a1', role: 'assistant', state: 'final', text: 'Two records found.' },
      { itemId: 'u2', role: 'user', state: 'unavailable', text: '' },
    ]);
    expect(ofType(call.effects, 'transcript')).toEqual([
      { type: 'transcript', role: 'user', itemId: 'u1', text: 'Find Acme' },
      { type: 'transcript', role: 'assistant', itemId: 'a1', text: 'Two records found.' },
    ]);
    expect(ofType(call.effects, 'spoken').map((e) => `${e.item.itemId}:${e.item.state}`)).toEqual([
      'u1:hearing',
      'a1:hearing',
      'a1:final',
      'u1:final',
      'u2:hearing',
      'u2:unavailable',
    ]);
  });

  it('property: every event sent passed the gate, session.update only changes turn detection, nothing leaves before open or after the end', () => {
    const inputs: fc.Arbitrary<CallInput>[] = [
      fc.constant<CallInput>({ type: 'dc.open', now: 0 }),
      fc.constant(sessionCreated),
      fc.constantFrom(created('r1'), created('r2'), done('r1'), done('r2'), started('r1'), started('r2'), stopped('r1'), stopped('r2')),
      fc.constantFrom(
        speech('u1'),
        speech('u2'),
        item('u1', 'user'),
        item('u2', 'user'),
        said('u1', 'yes, confirm'),
        said('u2', 'no'),
        said('u2', 'tell me more about it'),
        notHeard('u1'),
      ),
      fc.constantFrom(...functionCall('c1'), ...functionCall('c2')),
      fc.constantFrom(toolOk([{ type: 'action', action }], 'c1'), toolOk([], 'c2'), { type: 'tool.error', providerCallId: 'c2', message: 'down' } as CallInput),
      fc.constantFrom<CallInput>(
        { type: 'decision.result', actionId: 'a_77', outcome: 'ok' },
        { type: 'decision.result', actionId: 'a_77', outcome: 'stale' },
        { type: 'action.settled', actionId: 'a_77' },
      ),
      fc.constantFrom<CallInput>(
        { type: 'mute' },
        { type: 'unmute' },
        { type: 'shortcut' },
        { type: 'ptt', down: true },
        { type: 'ptt', down: false },
        { type: 'mode', mode: 'push-to-talk' },
        { type: 'mode', mode: 'hands-free' },
      ),
      fc.integer({ min: 0, max: 1000 }).map((seconds) => tick(seconds)),
      fc.constantFrom<CallInput>({ type: 'hangup', now: s(1000), reason: 'user' }, { type: 'dc.close', now: s(1000) }),
      // Hostile provider messages: the gate is not theirs to pass.
      fc.anything().map((value): CallInput => ({ type: 'dc.message', data: typeof value === 'string' ? value : (JSON.stringify(value) ?? '') })),
    ];
    fc.assert(
      fc.property(fc.array(fc.oneof(...inputs), { maxLength: 60 }), (sequence) => {
        let state = startCall(setup, { now: 0 });
        let finals = 0;
        let decides = 0;
        for (const input of sequence) {
          const wasOpen = state.link === 'open';
          const next = stepCall(state, input);
          for (const effect of next.effects) {
            if (effect.type === 'refused') throw new Error(`the controller produced a refused event: ${effect.reason}`);
            if (effect.type === 'usage' && effect.final) finals += 1;
            if (effect.type === 'decide') decides += 1;
            if (effect.type !== 'send') continue;
            expect(wasOpen && next.state.link === 'open').toBe(true);
            expect(allowedClientEvent(effect.event).ok).toBe(true);
            if (effect.event.type === 'session.update') {
              const session = effect.event.session as Record<string, unknown>;
              expect(Object.keys(session).filter((key) => key !== 'type')).toEqual(['audio']);
              expect(JSON.stringify(session)).not.toMatch(/instructions|tools|model|voice/);
            }
          }
          state = next.state;
        }
        expect(finals).toBeLessThanOrEqual(1);
        expect(decides).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});
