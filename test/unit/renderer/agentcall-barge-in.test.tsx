import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/base/errors';
import { applySettingsPatch } from '../../../src/shared/settings/settings';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentScreen } from '../../../src/renderer/screens/AgentScreen';
import { agentCallMain } from './agentcall-main';
import type * as VadModule from '../../../src/renderer/voice/vad';
import type { Vad, VadCallbacks } from '../../../src/renderer/voice/vad';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc } from './fake-webrtc';

/**
 * Barge-in with an AgentCall agent (client-owned voice), wired as the app wires it: the detector is
 * the test's, the agent's voice plays in an AudioContext that keeps sounding until stopped. Speaking
 * over the agent stops it, and nothing more of the interrupted response is said — not even segments
 * that arrive before main reports the run cancelling — until the next turn's run starts.
 */

const detector = vi.hoisted(() => ({ callbacks: undefined as VadCallbacks | undefined }));
vi.mock('../../../src/renderer/voice/vad', async (original) => ({
  ...(await original<typeof VadModule>()),
  startVad: async (_stream: MediaStream, callbacks: VadCallbacks) => {
    detector.callbacks = callbacks;
    return { pause: async () => undefined, start: async () => undefined, level: () => 0, destroy: async () => undefined } satisfies Vad;
  },
}));

/** An AudioContext whose sources sound until stopped (the agent is always mid-sentence). */
class SoundingContext {
  state = 'running';
  destination = {};
  createGain() {
    return { connect() {}, disconnect() {}, gain: { value: 1 } };
  }
  createBufferSource() {
    const source = {
      buffer: undefined as unknown,
      onended: null as (() => void) | null,
      listeners: [] as (() => void)[],
      connect() {},
      disconnect() {},
      addEventListener(_type: string, listener: () => void) {
        source.listeners.push(listener);
      },
      start() {},
      stop() {
        source.onended?.();
        for (const listener of source.listeners) listener();
      },
    };
    return source;
  }
  async decodeAudioData() {
    return {};
  }
  async resume() {}
  async close() {}
}

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
  vi.stubGlobal('AudioContext', SoundingContext);
  installFakeWebRtc();
  detector.callbacks = undefined;
});
afterEach(() => {
  cleanup();
  uninstallFakeWebRtc();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

function push(backend: FakeBackend, ...updates: SessionUpdate[]) {
  act(() => backend.emit('agentcall.update', { sessionKey: 'session-1', updates }));
}

describe('barge-in on the AgentCall screen', () => {
  it('after speaking over the agent, no later segment of the interrupted response plays, even before main reports the run cancelling; the next turn’s answer does', async () => {
    const backend = createFakeBackend();
    agentCallMain(backend);
    // Barge-in chosen on in Settings (Automatic's rule: barge-in-setting.test.tsx).
    backend.state.settings = applySettingsPatch(backend.state.settings, { voice: { bargeIn: 'on' } });
    backend.handle('agentcall.open', () =>
      ok({
        sessionKey: 'session-1',
        agent: backend.state.agentCall,
        updates: [
          { type: 'session.starting', sessionId: 'agentdesk-1', usableModalities: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true },
        ],
      }),
    );
    backend.handle('speech.status', () =>
      ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: true, engine: 'pocketsphinx' } }),
    );
    backend.handle('speech.transcribe', () => ok({ text: 'stop' }));
    const spoken = () => backend.callsOf('speech.synthesize').map((request) => request.text);
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <AgentScreen
          api={backend.api}
          headingRef={createRef()}
          agentId={builtInAgentCallDemoId}
          label="Demo objects"
          protocol="agentcall"
          onBack={() => undefined}
        />
      </I18nProvider>,
    );
    await screen.findByRole('heading', { level: 1, name: backend.state.agentCall.name });
    await screen.findByRole('log', { name: 'Conversation' });
    push(backend, { type: 'session.established' });
    await user.click(screen.getByRole('button', { name: 'Talk by voice' }));
    await waitFor(() => expect(detector.callbacks).toBeDefined());

    // A long answer: its first segment plays.
    push(
      backend,
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'Once upon a time.' },
      { type: 'speech.segment', runKey: 'r1', segmentId: 's1', text: 'Once upon a time.' },
    );
    await waitFor(() => expect(spoken()).toEqual(['Once upon a time.']));

    // The user speaks over it: silenced, response.cancel sent.
    act(() => detector.callbacks!.onSpeechStart());
    await waitFor(() => expect(backend.callsOf('agentcall.cancel')).toHaveLength(1));
    // The agent's next segments were already on their way: main has not reported the run cancelling yet.
    push(backend, { type: 'speech.segment', runKey: 'r1', segmentId: 's2', text: 'There was a router.' });
    push(backend, { type: 'speech.segment', runKey: 'r1', segmentId: 's3', text: 'It blinked.' }, { type: 'run.cancelling', runKey: 'r1' });
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    // The run ends: the words go as the next turn.
    push(backend, { type: 'run.completed', runKey: 'r1' });
    await waitFor(() => expect(backend.callsOf('agentcall.sendText')).toEqual([{ sessionKey: 'session-1', text: 'stop' }]));
    // A late segment of the interrupted run, in the same batch as the next turn's whole run (started and
    // completed at once, as a quick agent's is), is not said either; the new run's is.
    push(
      backend,
      { type: 'user.text', id: 'u2', turn: 2, text: 'stop' },
      { type: 'run.started', runKey: 'r2' },
      { type: 'speech.segment', runKey: 'r1', segmentId: 's4', text: 'The end.' },
      { type: 'speech.segment', runKey: 'r2', segmentId: 's1', text: 'Stopped.' },
      { type: 'run.completed', runKey: 'r2' },
    );
    await waitFor(() => expect(spoken()).toEqual(['Once upon a time.', 'Stopped.']));

    // Barge-in over an answer whose run has already ended (the quick agent again): the next answer is said.
    push(
      backend,
      { type: 'run.started', runKey: 'r3' },
      { type: 'speech.segment', runKey: 'r3', segmentId: 's1', text: 'A long help text.' },
      { type: 'run.completed', runKey: 'r3' },
    );
    await waitFor(() => expect(spoken()).toEqual(['Once upon a time.', 'Stopped.', 'A long help text.']));
    act(() => detector.callbacks!.onSpeechStart());
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    await waitFor(() => expect(backend.callsOf('agentcall.sendText')).toHaveLength(2));
    push(
      backend,
      { type: 'user.text', id: 'u4', turn: 4, text: 'stop' },
      { type: 'run.started', runKey: 'r4' },
      { type: 'speech.segment', runKey: 'r4', segmentId: 's1', text: 'Stopped again.' },
      { type: 'run.completed', runKey: 'r4' },
    );
    await waitFor(() => expect(spoken()).toEqual(['Once upon a time.', 'Stopped.', 'A long help text.', 'Stopped again.']));
  });
});
