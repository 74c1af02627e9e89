import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  initialWindow,
  stepWindow,
  windowView,
  type VoiceProposal,
  type WindowConfig,
  type WindowEffect,
  type WindowInput,
  type WindowState,
} from '../../../../src/shared/talkie/voice/confirmation-window';
import { allowedClientEvent, interpretRealtimeEvent } from '../../../../src/shared/talkie/voice/realtime-events';

const config: WindowConfig = {
  voiceConfirm: true,
  turnDetection: { type: 'server_vad', silence_duration_ms: 600 },
  vocabulary: { locale: 'cs', confirm: ['ano', 'potvrzuji'], refuse: ['ne', 'zruš'] },
};
const proposal: VoiceProposal = { actionId: 'a_77', paramsHash: 'sha256:4f1c', methods: ['button', 'voice'], expiresAt: '2026-10-22T10:10:00Z' };

/** A provider event, through the real parser. */
function provider(json: Record<string, unknown>): WindowInput {
  const parsed = interpretRealtimeEvent(json);
  if (parsed.kind !== 'event') throw new Error(`${String(json.type)}: ${parsed.reason}`);
  return { type: 'provider', event: parsed.event };
}
const toolResult = (p: VoiceProposal | null = proposal, callId = 'call_5'): WindowInput => ({
  type: 'tool.result',
  callId,
  output: 'Nabídka připravena.',
  ...(p ? { proposal: p } : {}),
});
const created = (id: string) => provider({ type: 'response.created', response: { id } });
const done = (id: string, status = 'completed') => provider({ type: 'response.done', response: { id, status } });
const stopped = (id: string) => provider({ type: 'output_audio_buffer.stopped', response_id: id });
const speech = (item: string) => provider({ type: 'input_audio_buffer.speech_started', item_id: item, audio_start_ms: 0 });
const said = (item: string, transcript: string) => provider({ type: 'conversation.item.input_audio_transcription.completed', item_id: item, transcript });
/** The provider applied C2's update: its session.updated says automatic responses are off. */
const applied = provider({
  type: 'session.updated',
  session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 600, create_response: false } } } },
});

function run(inputs: WindowInput[], from: WindowState = initialWindow, cfg: WindowConfig = config): { state: WindowState; effects: WindowEffect[] } {
  let state = from;
  const effects: WindowEffect[] = [];
  for (const input of inputs) {
    const step = stepWindow(state, input, cfg);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

/** The effects as short strings, to read a timeline at a glance. */
function brief(effects: WindowEffect[]): string[] {
  return effects.map((effect) => {
    if (effect.type === 'decide') return `decide ${effect.decision} ${effect.method}`;
    if (effect.type === 'reload-action') return 'reload-action';
    const event = effect.event;
    if (event.type === 'session.update') {
      const turn = 'audio' in event.session ? event.session.audio.input.turn_detection : event.session.turn_detection;
      return `turn_detection create_response:${String(turn.create_response)}`;
    }
    return event.type === 'conversation.item.create' ? 'function_call_output' : event.type;
  });
}

/** Proposal read and heard: the window is open. */
const opened = run([toolResult(), applied, created('resp_p'), done('resp_p'), stopped('resp_p')]);
const decides = (effects: WindowEffect[]) => effects.filter((effect) => effect.type === 'decide');

describe('confirmation window (Talkie 1 §10.4)', () => {
  it('C1 applies only to actions whose confirm.methods includes voice, and only when capabilities.actions.voiceConfirm is true', () => {
    const buttonOnly = run([toolResult({ ...proposal, methods: ['button'] })]);
    expect(buttonOnly.state.phase).toBe('idle');
    expect(brief(buttonOnly.effects)).toEqual(['function_call_output', 'response.create']);
    const serverSaysNo = run([toolResult()], initialWindow, { ...config, voiceConfirm: false });
    expect(serverSaysNo.state.phase).toBe('idle');
    expect(brief(serverSaysNo.effects)).toEqual(['function_call_output', 'response.create']);
  });

  it('C2 sends session.update turn_detection create_response:false before response.create', () => {
    const { state, effects } = run([toolResult()]);
    expect(state.phase).toBe('proposing');
    expect(brief(effects)).toEqual(['turn_detection create_response:false', 'function_call_output', 'response.create']);
    expect(effects[0]).toMatchObject({
      event: { session: { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 600, create_response: false } } } } },
    });
  });

  it('C3 records the first response after the proposal as the proposal response', () => {
    const { state } = run([toolResult(), created('resp_p'), created('resp_other')]);
    expect(state).toMatchObject({ phase: 'proposing', responseId: 'resp_p' });
  });

  it('C4 opens only on output_audio_buffer.stopped of the proposal response', () => {
    const proposing = run([toolResult(), applied, created('resp_p'), done('resp_p'), stopped('resp_other')]);
    expect(proposing.state.phase).toBe('proposing');
    expect(windowView(proposing.state)).toEqual({ line: 'proposing', actionId: 'a_77' });
    expect(run([stopped('resp_p')], proposing.state).state.phase).toBe('open');
    expect(windowView(opened.state)).toEqual({ line: 'listening', actionId: 'a_77', missesLeft: 2 });
  });

  it('C5 speech that started before the window opened never counts: transcript before stopped → no decision', () => {
    const early = run([
      toolResult(),
      applied,
      created('resp_p'),
      speech('item_early'),
      said('item_early', 'ano, potvrzuji'),
      stopped('resp_p'),
      said('item_early', 'ano, potvrzuji'),
    ]);
    expect(decides(early.effects)).toEqual([]);
    expect(early.state).toMatchObject({ phase: 'open', misses: 0 });
    // Started while the proposal played, transcribed after the window opened: still dropped; the model answers it.
    const late = run([toolResult(), applied, created('resp_p'), speech('item_barge'), stopped('resp_p'), said('item_barge', 'ano, potvrzuji')]);
    expect(decides(late.effects)).toEqual([]);
    expect(brief(late.effects).at(-1)).toBe('response.create');
  });

  it('C6 only final transcripts count (deltas are not events)', () => {
    expect(interpretRealtimeEvent({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'item_1', delta: 'ano, potvrzuji' }).kind).toBe(
      'ignored',
    );
    const failed = run(
      [speech('item_1'), provider({ type: 'conversation.item.input_audio_transcription.failed', item_id: 'item_1', error: { message: 'x' } })],
      opened.state,
    );
    expect(decides(failed.effects)).toEqual([]);
    expect(failed.state).toMatchObject({ phase: 'open', misses: 0 });
  });

  it('C7 "ano, potvrzuji" after stopped → one decide(confirm, voice), even when the transcript is duplicated', () => {
    const { state, effects } = run([speech('item_1'), said('item_1', 'ano, potvrzuji'), said('item_1', 'ano, potvrzuji')], opened.state);
    expect(decides(effects)).toEqual([{ type: 'decide', actionId: 'a_77', paramsHash: 'sha256:4f1c', decision: 'confirm', method: 'voice' }]);
    expect(state).toMatchObject({ phase: 'deciding', decision: 'confirm' });
  });

  it("C7 the action's keyword must be said", () => {
    const keyed = run([
      toolResult({ ...proposal, keyword: 'odeslat' }),
      applied,
      created('resp_p'),
      stopped('resp_p'),
      speech('item_1'),
      said('item_1', 'ano, potvrzuji'),
      speech('item_2'),
      said('item_2', 'ano, odeslat'),
    ]);
    expect(decides(keyed.effects)).toEqual([expect.objectContaining({ decision: 'confirm' })]);
    expect(brief(keyed.effects).filter((e) => e === 'response.create')).toHaveLength(2); // the proposal, and the answer to the miss
  });

  it('C8 an explicit refusal → decide(cancel, voice)', () => {
    const { state, effects } = run([speech('item_1'), said('item_1', 'Ne.')], opened.state);
    expect(decides(effects)).toEqual([expect.objectContaining({ decision: 'cancel', method: 'voice' })]);
    expect(state).toMatchObject({ phase: 'deciding', decision: 'cancel' });
  });

  it('C9 two off-topic utterances → closed, the button decides; each gets a response.create', () => {
    const first = run([speech('item_1'), said('item_1', 'kolik to stojí')], opened.state);
    expect(brief(first.effects)).toEqual(['response.create']);
    expect(windowView(first.state)).toEqual({ line: 'listening', actionId: 'a_77', missesLeft: 1 });
    const second = run([speech('item_2'), said('item_2', 'nevím, asi ano')], first.state);
    expect(brief(second.effects)).toEqual(['response.create', 'turn_detection create_response:true']);
    expect(second.state).toEqual({ phase: 'closed', actionId: 'a_77', reason: 'two_misses' });
    expect(windowView(second.state)).toEqual({ line: 'use-button', actionId: 'a_77', reason: 'two_misses' });
    const after = run([speech('item_3'), said('item_3', 'ano, potvrzuji')], second.state);
    expect(after.effects).toEqual([]);
  });

  it('C10 closes synchronously before the decision: nothing after it can decide again', () => {
    const deciding = run([speech('item_1'), said('item_1', 'ano, potvrzuji')], opened.state);
    expect(brief(deciding.effects)).toEqual(['turn_detection create_response:true', 'decide confirm voice']);
    const later = run([speech('item_2'), said('item_2', 'ano'), said('item_1', 'ano, potvrzuji'), stopped('resp_p')], deciding.state);
    expect(later.effects).toEqual([]);
  });

  it('C11–C12 200 closes as decided; 409 conflict/stale reloads the action and the button decides; 410 expired', () => {
    const deciding = run([speech('item_1'), said('item_1', 'ano, potvrzuji')], opened.state).state;
    expect(run([{ type: 'decision.result', actionId: 'a_77', outcome: 'ok' }], deciding)).toEqual({
      state: { phase: 'closed', actionId: 'a_77', reason: 'decided' },
      effects: [],
    });
    for (const outcome of ['conflict', 'stale'] as const) {
      const conflict = run([{ type: 'decision.result', actionId: 'a_77', outcome }], deciding);
      expect(conflict.effects).toEqual([{ type: 'reload-action', actionId: 'a_77' }]);
      expect(windowView(conflict.state)).toEqual({ line: 'use-button', actionId: 'a_77', reason: 'conflict' });
    }
    expect(run([{ type: 'decision.result', actionId: 'a_77', outcome: 'expired' }], deciding).state).toMatchObject({ reason: 'expired' });
    expect(run([{ type: 'decision.result', actionId: 'other', outcome: 'ok' }], deciding).state).toBe(deciding);
  });

  it("C13 every close restores turn detection create_response:true (the server's settings kept)", () => {
    const closings: WindowInput[][] = [
      [{ type: 'hangup' }],
      [{ type: 'clock', now: Date.parse('2026-10-22T10:10:00Z') }],
      [{ type: 'action.settled', actionId: 'a_77' }],
      [speech('i1'), said('i1', 'hm'), speech('i2'), said('i2', 'co?')],
      [speech('i1'), said('i1', 'zruš')],
    ];
    for (const inputs of closings) {
      const { effects } = run(inputs, opened.state);
      const restore = effects.find((effect) => effect.type === 'send' && effect.event.type === 'session.update');
      expect(restore).toMatchObject({
        event: { session: { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 600, create_response: true } } } } },
      });
    }
  });

  it('C14 expiry, a new proposal and hang-up close the window', () => {
    expect(run([{ type: 'clock', now: Date.parse('2026-10-22T10:09:59Z') }], opened.state).state.phase).toBe('open');
    expect(run([{ type: 'clock', now: Date.parse('2026-10-22T10:10:00Z') }], opened.state).state).toMatchObject({ phase: 'closed', reason: 'expired' });
    expect(run([{ type: 'hangup' }], opened.state).state).toMatchObject({ phase: 'closed', reason: 'hangup' });
    const next = run([toolResult({ ...proposal, actionId: 'a_78' }, 'call_6')], opened.state);
    expect(brief(next.effects)).toEqual([
      'turn_detection create_response:true',
      'turn_detection create_response:false',
      'function_call_output',
      'response.create',
    ]);
    expect(next.state).toMatchObject({ phase: 'proposing', proposal: { actionId: 'a_78' } });
    // A button-only proposal closes the old window too: a "yes" must never reach the older action.
    const buttonOnly = run([toolResult({ ...proposal, actionId: 'a_79', methods: ['button'] }, 'call_7'), speech('i1'), said('i1', 'ano')], opened.state);
    expect(decides(buttonOnly.effects)).toEqual([]);
    expect(buttonOnly.state).toEqual({ phase: 'closed', actionId: 'a_77', reason: 'new_proposal' });
  });

  it('a proposal cut off before it was heard whole hands over to the button', () => {
    const cleared = run([toolResult(), created('resp_p'), provider({ type: 'output_audio_buffer.cleared', response_id: 'resp_p' })]);
    expect(cleared.state).toMatchObject({ phase: 'closed', reason: 'interrupted' });
    expect(brief(cleared.effects).at(-1)).toBe('turn_detection create_response:true');
    expect(run([toolResult(), created('resp_p'), done('resp_p', 'cancelled')]).state).toMatchObject({ phase: 'closed', reason: 'interrupted' });
  });

  it("C2's precondition: the window opens only when the provider applied create_response:false, and closes when it refused it", () => {
    // No session.updated before the proposal's audio stopped (a provider that refused without naming the event): the button decides.
    const unapplied = run([toolResult(), created('resp_p'), done('resp_p'), stopped('resp_p')]);
    expect(unapplied.state).toEqual({ phase: 'closed', actionId: 'a_77', reason: 'setting_refused' });
    expect(windowView(unapplied.state)).toEqual({ line: 'use-button', actionId: 'a_77', reason: 'setting_refused' });
    expect(brief(unapplied.effects).at(-1)).toBe('turn_detection create_response:true');
    // A session.updated that leaves automatic responses on is not the precondition either.
    const stillOn = provider({ type: 'session.updated', session: { audio: { input: { turn_detection: { type: 'server_vad', create_response: true } } } } });
    expect(run([toolResult(), stillOn, created('resp_p'), stopped('resp_p')]).state).toMatchObject({ phase: 'closed', reason: 'setting_refused' });
    // The refusal of that update (an error naming it) closes the window while proposing or open; another action's refusal does not.
    const refused: WindowInput = { type: 'turn-detection.refused', actionId: 'a_77' };
    expect(run([toolResult(), refused]).state).toEqual({ phase: 'closed', actionId: 'a_77', reason: 'setting_refused' });
    // Automatic responses never went off: no restoring update (the provider would refuse it too).
    expect(run([refused], opened.state)).toEqual({ state: { phase: 'closed', actionId: 'a_77', reason: 'setting_refused' }, effects: [] });
    expect(run([{ type: 'turn-detection.refused', actionId: 'a_other' }], opened.state).state).toBe(opened.state);
    const afterRefusal = run([toolResult(), refused, applied, created('resp_p'), stopped('resp_p'), speech('i1'), said('i1', 'ano, potvrzuji')]);
    expect(decides(afterRefusal.effects)).toEqual([]);
  });

  it('C15 the UI line: none, proposing, listening, deciding, use-button', () => {
    expect(windowView(initialWindow)).toEqual({ line: 'none' });
    const deciding = run([speech('i1'), said('i1', 'ano')], opened.state).state;
    expect(windowView(deciding)).toEqual({ line: 'deciding', actionId: 'a_77', decision: 'confirm' });
  });

  it('property: never two decide effects for one action, and every message sent passes allowedClientEvent', () => {
    const texts = ['ano, potvrzuji', 'ne', 'kolik to stojí', 'ano', 'nevím, asi ano', 'yes'];
    const response = fc.constantFrom('r1', 'r2');
    const step = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('proposal' as const), voice: fc.boolean() }), weight: 2 },
      fc.record({ kind: fc.constant('tool' as const) }),
      { arbitrary: fc.record({ kind: fc.constantFrom('created' as const, 'stopped' as const), response }), weight: 4 },
      fc.record({ kind: fc.constantFrom('done' as const, 'cleared' as const), response }),
      // A new utterance (speech_started, then its final transcript), or the last transcript again.
      { arbitrary: fc.record({ kind: fc.constant('utterance' as const), text: fc.constantFrom(...texts) }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constant('repeat' as const) }), weight: 2 },
      fc.record({ kind: fc.constant('result' as const), outcome: fc.constantFrom('ok' as const, 'conflict' as const, 'expired' as const) }),
      fc.record({ kind: fc.constantFrom('hangup' as const, 'settled' as const) }),
    );
    let runsThatDecided = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 5, maxLength: 40, size: 'max' }), (steps) => {
        let state: WindowState = initialWindow;
        let proposals = 0;
        let items = 0;
        let last: WindowInput = said('i0', 'ano');
        const decided = new Map<string, number>();
        for (const s of steps) {
          const actionId = `a_${proposals}`;
          const inputs: WindowInput[] =
            s.kind === 'proposal'
              ? [toolResult({ ...proposal, actionId: `a_${++proposals}`, methods: s.voice ? ['button', 'voice'] : ['button'] }), applied]
              : s.kind === 'tool'
                ? [toolResult(null)]
                : s.kind === 'created'
                  ? [created(s.response)]
                  : s.kind === 'stopped'
                    ? [stopped(s.response)]
                    : s.kind === 'done'
                      ? [done(s.response, 'cancelled')]
                      : s.kind === 'cleared'
                        ? [provider({ type: 'output_audio_buffer.cleared', response_id: s.response })]
                        : s.kind === 'utterance'
                          ? [speech(`i${++items}`), (last = said(`i${items}`, s.text))]
                          : s.kind === 'repeat'
                            ? [last]
                            : s.kind === 'result'
                              ? [{ type: 'decision.result', actionId, outcome: s.outcome }]
                              : s.kind === 'settled'
                                ? [{ type: 'action.settled', actionId }]
                                : [{ type: 'hangup' }];
          for (const input of inputs) {
            const next = stepWindow(state, input, config);
            for (const effect of next.effects) {
              if (effect.type === 'send' && !allowedClientEvent(effect.event).ok) return false;
              if (effect.type === 'decide') decided.set(effect.actionId, (decided.get(effect.actionId) ?? 0) + 1);
            }
            state = next.state;
          }
        }
        if (decided.size > 0) runsThatDecided += 1;
        return [...decided.values()].every((count) => count === 1);
      }),
      { numRuns: 500 },
    );
    // The generator does reach decisions (a property that never decides would prove nothing).
    expect(runsThatDecided).toBeGreaterThan(0);
  });
});
