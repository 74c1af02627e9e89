import fc from 'fast-check';
import type { Action } from '../../../src/shared/talkie/content';
import { allowedClientEvent } from '../../../src/shared/talkie/voice/realtime-events';
import { callView, startCall, stepCall, type CallInput } from '../../../src/shared/talkie/voice/voice-call';
import { anyJson, check, mutatedFrom, nastyStrings, target } from '../kit';

/** Talkie voice: a hostile provider's data channel and the app's inputs into the call controller (src/shared/talkie/voice/voice-call.ts). */

const action: Action = { id: 'a1', summary: 'Send the offer', riskLevel: 'low', status: 'pending', paramsHash: 'sha256:1', buttons: true, voice: true, expiresAt: '2999-01-01T00:00:00Z' };

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
  { type: 'response.function_call_arguments.done', call_id: 'c2', name: 'search', arguments: '{"q":"x"}' },
  { type: 'output_audio_buffer.started', response_id: 'r1' },
  { type: 'output_audio_buffer.stopped', response_id: 'r1' },
  { type: 'output_audio_buffer.cleared', response_id: 'r1' },
  { type: 'response.output_audio_transcript.done', response_id: 'r1', item_id: 'a1i', transcript: 'Shall I send it?' },
  { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
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
    { type: 'tool.result', providerCallId: 'c2', result: { outcome: 'failed', output: 'The tool failed: down', code: 'server_error', message: 'down', retryable: true } },
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
