import { afterAll, describe, expect, it } from 'vitest';
import { createVoiceOfferer, within, type VoiceOfferer } from '../../../../src/main/cli/voice-peer';
import type { MethodResponse } from '../../../../src/shared/ipc/contract';
import { callView, startCall, stepCall, type CallEffect, type CallInput, type CallState } from '../../../../src/shared/talkie/voice/voice-call';
import { startServer } from '../../../support/http-server';
import { memoryLogger } from '../../../support/logger';
import { startRealtimePeer, type RealtimePeer, type RealtimePeerOptions } from '../../../support/realtime-peer';
import { startTestServices, type TestServices } from '../../../support/services';
import { startVoiceFixture, voiceSecret, type VoiceFixture } from '../../../support/talkie-voice-fixture';
import { useTempDirs } from '../../../support/temp-dir';
import { retryPeerRace } from '../../demo/voice-helpers';

/**
 * The app's voice call against an independent speech provider (test/support/realtime-peer.ts, written
 * from OpenAI's Realtime event reference), over a real data channel: main's VoiceService through the
 * contract (voiceStart, the SDP offer with the client secret, voiceTool to the loopback Talkie server,
 * voiceDecide, the provider-error log), the pure call controller (stepCall) performing its effects as
 * the renderer's useVoiceCall does, and node-datachannel on both sides of `oai-events`.
 */
const tempDir = useTempDirs();
const peers: RealtimePeer[] = [];
const offerers: VoiceOfferer[] = [];
afterAll(() => {
  for (const offerer of offerers) offerer.close();
  for (const peer of peers) peer.close();
});

type Start = MethodResponse<'talkie.voiceStart'>;

/** The controller with its effects performed as useVoiceCall performs them (minus media and UI). */
interface DrivenCall {
  state(): CallState;
  readonly effects: CallEffect[];
  /** Provider event types the controller was given, in order. */
  readonly seen: string[];
  readonly thrown: unknown[];
  open(): void;
}

function driveCall(app: TestServices, start: Start, offerer: VoiceOfferer): DrivenCall {
  const { callId } = start;
  let state = startCall(
    {
      maxSeconds: start.maxSeconds,
      warnSeconds: start.warnSeconds,
      voiceConfirm: start.voiceConfirm,
      consent: start.consent,
      labels: start.labels,
      locale: start.locale,
    },
    { now: Date.now() },
  );
  const effects: CallEffect[] = [];
  const seen: string[] = [];
  const thrown: unknown[] = [];
  const dispatch = (input: CallInput): void => {
    const step = stepCall(state, input);
    state = step.state;
    effects.push(...step.effects);
    for (const effect of step.effects) perform(effect);
  };
  const perform = (effect: CallEffect): void => {
    switch (effect.type) {
      case 'send':
        offerer.send(JSON.stringify(effect.event));
        return;
      case 'tool': {
        const { providerCallId } = effect;
        void app
          .call('talkie.voiceTool', { callId, providerCallId, name: effect.name, arguments: effect.arguments })
          .then((result) =>
            dispatch(
              result.ok
                ? { type: 'tool.result', providerCallId, result: result.value as never }
                : { type: 'tool.error', providerCallId, message: result.error.message },
            ),
          );
        return;
      }
      case 'decide': {
        const { actionId } = effect;
        void app.call('talkie.voiceDecide', { callId, actionId, paramsHash: effect.paramsHash, decision: effect.decision }).then((result) => {
          const note = result.ok ? (result.value as { note?: string }).note : undefined;
          dispatch({ type: 'decision.result', actionId, outcome: !result.ok ? 'failed' : note === undefined ? 'ok' : 'conflict' });
        });
        return;
      }
      case 'provider-error':
        void app.call('talkie.voiceProviderError', { callId, ...effect.error });
        return;
      case 'transcript':
        void app.call('talkie.voiceTranscript', { callId, role: effect.role, itemId: effect.itemId, text: effect.text });
        return;
      default:
        return;
    }
  };
  offerer.onMessage = (text) => {
    try {
      seen.push(String((JSON.parse(text) as { type?: unknown }).type));
      dispatch({ type: 'dc.message', data: text });
    } catch (error) {
      thrown.push(error);
    }
  };
  return { state: () => state, effects, seen, thrown, open: () => dispatch({ type: 'dc.open', now: Date.now() }) };
}

/** Polls `condition` every 10 ms, at most `ms`. */
async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > ms) throw new Error(`${what}: not within ${ms.toString()} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Call {
  f: VoiceFixture;
  app: TestServices;
  log: ReturnType<typeof memoryLogger>;
  peer: RealtimePeer;
  client: DrivenCall;
  /** `POST voiceTool` bodies the Talkie server received, with the tool's name. */
  tools(): { name: string; body: unknown }[];
  decisions(): unknown[];
}

/** The loopback Talkie server (signalling answered by the independent provider), the app's services, and a connected call. */
async function connectedCall(options: RealtimePeerOptions = {}): Promise<Call> {
  const peer = startRealtimePeer(options);
  peers.push(peer);
  const f = await startVoiceFixture({ start: startServer, answer: (offer) => peer.answer(offer) });
  const log = memoryLogger();
  const app = await startTestServices(await tempDir(), { log });
  await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
  const added = await app.call('agents.add', { address: f.talkie.url });
  const agentId = added.ok ? added.value.agent.id : '';
  await app.call('talkie.useToken', { agentId, token: 'dev_token' });
  const client = await retryPeerRace(async (attempt) => {
    // Each try is a new voice session with a fresh secret (the fixture takes each secret once).
    f.session.clientSecret = `${voiceSecret}_${attempt.toString()}`;
    const start = await app.call('talkie.voiceStart', { agentId, locale: 'cs' });
    if (!start.ok) throw new Error(`voiceStart: ${start.error.message}`);
    const offerer = await createVoiceOfferer('independent-provider-test');
    offerers.push(offerer);
    const driven = driveCall(app, start.value, offerer);
    const answer = await app.call('talkie.voiceOffer', { callId: start.value.callId, sdp: offerer.offer });
    if (!answer.ok) throw new Error(`voiceOffer: ${answer.error.message}`);
    offerer.accept(answer.value.sdp);
    await within(offerer.opened, 8000, 'oai-events did not open within 8000 ms');
    driven.open();
    await within(peer.opened, 8000, 'oai-events did not open within 8000 ms (provider side)');
    await until(() => driven.seen.includes('session.created'), 'session.created at the client');
    return driven;
  });
  const tools = () =>
    f.talkieSeen
      .filter((request) => request.path.startsWith('/voice/v_1/tools/'))
      .map((request) => ({ name: decodeURIComponent(request.path.split('/').at(-1) ?? ''), body: JSON.parse(request.body) as unknown }));
  const decisions = () => f.talkieSeen.filter((request) => request.path.endsWith('/decision')).map((request) => JSON.parse(request.body) as unknown);
  return { f, app, log, peer, client, tools, decisions };
}

const count = (list: readonly string[], type: string) => list.filter((entry) => entry === type).length;
const clientEvents = (peer: RealtimePeer, type: string) => peer.received.filter((event) => event.type === type);
/** The provider's `error` events, by code (a response.create during a response would show here too). */
const providerErrors = (peer: RealtimePeer) => peer.sent.filter((event) => event.type === 'error').map((event) => (event.error as { code: string }).code);
const announced = (client: DrivenCall) => client.effects.flatMap((effect) => (effect.type === 'announce' ? [effect.announcement.kind] : []));

describe('a voice call against an independent realtime provider, over a real data channel', () => {
  it(
    'runs no tool for a call cut off by an interruption (arguments.done, item incomplete, response cancelled); the next, completed call runs once',
    { timeout: 60_000 },
    async () => {
      const { peer, client, tools } = await connectedCall();
      peer.replies.push({ kind: 'interrupted-call', name: 'search_records', arguments: '{"query":"Acme s.r.o."}', cutAt: 11, callId: 'call_cut' });
      peer.userTurn('najdi Acme');
      await until(() => count(client.seen, 'response.done') === 1, 'the cancelled response reached the controller');
      expect(peer.sent.find((event) => event.type === 'response.function_call_arguments.done')).toMatchObject({
        call_id: 'call_cut',
        arguments: '{"query":"A',
      });
      expect(peer.sent.find((event) => event.type === 'response.done')).toMatchObject({ response: { status: 'cancelled' } });
      // The provider's answer to the user's next words proves the channel carried everything since.
      peer.replies.push({ kind: 'call', name: 'search_records', arguments: '{"query":"Acme"}', callId: 'call_ok' });
      peer.userTurn('najdi Acme, prosím');
      expect(await peer.waitForClient((event) => event.type === 'conversation.item.create')).toEqual({
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: 'call_ok', output: 'Found 2 records.' },
      });
      await peer.waitForClient((event) => event.type === 'response.create');
      expect(tools()).toEqual([{ name: 'search_records', body: { callId: 'call_ok', arguments: '{"query":"Acme"}' } }]);
      expect(clientEvents(peer, 'conversation.item.create')).toHaveLength(1);
      expect(peer.problems).toEqual([]);
      expect(providerErrors(peer)).toEqual([]);
      expect(client.thrown).toEqual([]);
    },
  );

  it('runs a call whose arguments event has no name, with the name from its item', { timeout: 60_000 }, async () => {
    const { peer, client, tools } = await connectedCall();
    peer.replies.push({ kind: 'call', name: 'search_records', arguments: '{"query":"Alfa"}', callId: 'call_noname', nameOnArgumentsDone: false });
    peer.userTurn('najdi Alfu');
    expect(peer.sent.find((event) => event.type === 'response.function_call_arguments.done')).not.toHaveProperty('name');
    expect(await peer.waitForClient((event) => event.type === 'conversation.item.create')).toMatchObject({
      item: { call_id: 'call_noname', output: 'Found 2 records.' },
    });
    await peer.waitForClient((event) => event.type === 'response.create');
    expect(tools()).toEqual([{ name: 'search_records', body: { callId: 'call_noname', arguments: '{"query":"Alfa"}' } }]);
    expect(peer.problems).toEqual([]);
    expect(providerErrors(peer)).toEqual([]);
    expect(client.thrown).toEqual([]);
  });

  it(
    'after voiceTool answers 409 for a reused call id, tells the model the tool failed (function_call_output, response.create) and the tool line says it failed',
    { timeout: 60_000 },
    async () => {
      const { f, peer, client, tools } = await connectedCall();
      f.toolCalls.push('call_reused');
      peer.replies.push({ kind: 'call', name: 'search_records', arguments: '{"query":"Acme"}', callId: 'call_reused' });
      peer.userTurn('najdi Acme');
      expect(await peer.waitForClient((event) => event.type === 'conversation.item.create')).toEqual({
        type: 'conversation.item.create',
        item: {
          type: 'function_call_output',
          call_id: 'call_reused',
          output: 'The tool failed: This tool call was already made once, so it was not run again.',
        },
      });
      await peer.waitForClient((event) => event.type === 'response.create');
      expect(tools()).toEqual([{ name: 'search_records', body: { callId: 'call_reused', arguments: '{"query":"Acme"}' } }]);
      // The provider reads the failure out; the call is not left "Thinking…".
      await until(() => count(client.seen, 'output_audio_buffer.stopped') === 1, 'the reply to the failure played');
      expect(peer.sent.find((event) => event.type === 'response.output_audio_transcript.done')).toMatchObject({
        transcript: 'The tool failed: This tool call was already made once, so it was not run again.',
      });
      expect(callView(client.state())).toMatchObject({ phase: 'listening', tools: [] });
      const ends = client.effects.flatMap((effect) => (effect.type === 'show' ? effect.updates.filter((update) => update.type === 'tool.end') : []));
      expect(ends).toEqual([
        { type: 'tool.end', toolCallId: 'call_reused', ok: false, error: 'This tool call was already made once, so it was not run again.' },
      ]);
      expect(peer.problems).toEqual([]);
      expect(providerErrors(peer)).toEqual([]);
    },
  );

  it(
    'a provider that refuses the session.update: logged, shown, and no voice confirmation window opens; a yes decides nothing',
    { timeout: 60_000 },
    async () => {
      const { peer, client, log, decisions } = await connectedCall({ refuseSessionUpdates: true });
      peer.replies.push({ kind: 'call', name: 'propose', arguments: '{"offer":"N-2026-014"}', callId: 'call_p' });
      peer.userTurn('pošli nabídku');
      const update = await peer.waitForClient((event) => event.type === 'session.update');
      expect(update).toMatchObject({
        event_id: 'agentdesk_1',
        session: { type: 'realtime', audio: { input: { turn_detection: { create_response: false } } } },
      });
      expect(peer.sent.find((event) => event.type === 'error')).toMatchObject({ error: { code: 'invalid_value', event_id: 'agentdesk_1' } });
      // The proposal is read out all the same (function_call_output, response.create), and its audio stops.
      await until(() => count(client.seen, 'output_audio_buffer.stopped') === 1, 'the proposal was read out');
      expect(announced(client)).not.toContain('confirm-open');
      expect(callView(client.state())).toMatchObject({
        confirmation: { line: 'use-button', actionId: 'a_voice', reason: 'setting_refused' },
        providerError: 'This session does not take turn detection changes.',
      });
      await until(() => log.lines.some((line) => line.includes('refusing the turn-detection update agentdesk_1')), 'the refusal in main’s log');
      // Automatic responses are still on: a "yes" is conversation; the provider answers it, nothing is decided.
      peer.userTurn('ano, send');
      await until(() => count(client.seen, 'output_audio_buffer.stopped') === 2, 'the provider answered the yes');
      expect(client.effects.filter((effect) => effect.type === 'decide')).toEqual([]);
      expect(decisions()).toEqual([]);
      expect(peer.problems).toEqual([]);
      expect(providerErrors(peer)).toEqual(['invalid_value']);
    },
  );

  it(
    'the same proposal with a provider that applies the update: the window opens after the reading, and "ano, send" decides once by voice',
    { timeout: 60_000 },
    async () => {
      const { peer, client, decisions } = await connectedCall();
      peer.replies.push({ kind: 'call', name: 'propose', arguments: '{"offer":"N-2026-014"}', callId: 'call_p' });
      peer.userTurn('pošli nabídku');
      await until(() => count(client.seen, 'output_audio_buffer.stopped') === 1, 'the proposal was read out');
      // The update names itself, so that a refusal could name it too; the provider applied it.
      expect(clientEvents(peer, 'session.update')[0]).toMatchObject({ event_id: 'agentdesk_1' });
      expect(peer.sent.filter((event) => event.type === 'session.updated')).toHaveLength(1);
      expect(announced(client)).toContain('confirm-open');
      peer.userTurn('ano, send');
      await until(() => decisions().length === 1, 'the decision');
      expect(decisions()).toEqual([{ decision: 'confirm', paramsHash: 'sha256:a_voice', method: 'voice' }]);
      // Automatic responses come back on (C13), and the provider took every event the client sent.
      const updates = clientEvents(peer, 'session.update').map(
        (event) =>
          (event as { session: { audio: { input: { turn_detection: { create_response: boolean } } } } }).session.audio.input.turn_detection.create_response,
      );
      expect(updates).toEqual([false, true]);
      expect(peer.problems).toEqual([]);
      expect(providerErrors(peer)).toEqual([]);
      expect(client.thrown).toEqual([]);
    },
  );
});
