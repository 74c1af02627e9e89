import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ok } from '../../../src/shared/base/errors';
import type { BargeInSetting } from '../../../src/shared/settings/settings';
import { useClientListening, type ListeningDeps } from '../../../src/renderer/conversation/protocols/agentcall/useClientListening';
import type * as VadModule from '../../../src/renderer/voice/vad';
import type { Vad, VadCallbacks } from '../../../src/renderer/voice/vad';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { FakeStream, FakeTrack, installFakeWebRtc, uninstallFakeWebRtc } from './fake-webrtc';

/**
 * Client-owned voice's listening logic with the detector replaced by the test (its real model runs in
 * Chromium: test/e2e/agentcall-client-voice.test.ts): barge-in silences the agent and sends
 * response.cancel before the new turn, which waits for the run to end; Mute pauses the detector and
 * nothing heard while muted is recognised.
 */

const detector = vi.hoisted(() => ({ callbacks: undefined as VadCallbacks | undefined, paused: 0 }));
vi.mock('../../../src/renderer/voice/vad', async (original) => ({
  ...(await original<typeof VadModule>()),
  startVad: async (_stream: MediaStream, callbacks: VadCallbacks) => {
    detector.callbacks = callbacks;
    return { pause: async () => void detector.paused++, start: async () => undefined, level: () => 0, destroy: async () => undefined } satisfies Vad;
  },
}));

beforeEach(() => {
  installFakeWebRtc();
  detector.callbacks = undefined;
  detector.paused = 0;
});
afterEach(() => {
  uninstallFakeWebRtc();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

function setup() {
  const fake: FakeBackend = createFakeBackend();
  const order: string[] = [];
  fake.handle('speech.status', () => ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: true, engine: 'pocketsphinx' } }));
  fake.handle('speech.transcribe', () => ok({ text: 'scan an object' }));
  fake.handle('agentcall.cancel', () => {
    order.push('response.cancel');
    return ok({ sent: true });
  });
  const silenced = vi.fn(() => void order.push('silenced'));
  const sendText = vi.fn(async (text: string) => {
    order.push(`user.turn ${text}`);
    return undefined;
  });
  const deps = (runActive: boolean, bargeIn: BargeInSetting = 'on'): ListeningDeps => ({
    api: fake.api,
    sessionKey: 'session-1',
    runActive,
    locale: 'en',
    bargeIn,
    agentSpeaking: () => true,
    silenceAgent: silenced,
    sendText,
  });
  return { fake, order, deps, sendText };
}

describe('client-owned voice listening', () => {
  it('stopped while it starts (Hang up, leaving, a reset), it keeps no microphone, and a second Talk meanwhile opens no other', async () => {
    installFakeWebRtc();
    const { fake, deps } = setup();
    const { result } = renderHook((props: ListeningDeps) => useClientListening(props), { initialProps: deps(false) });
    // Stopped while main arms the microphone: the start goes no further and gives the permission back.
    const release = fake.holdNext('media.arm');
    act(() => result.current.start());
    act(() => result.current.start());
    await waitFor(() => expect(fake.callsOf('media.arm')).toHaveLength(1));
    act(() => result.current.stop());
    await act(async () => release());
    await waitFor(() => expect(fake.callsOf('media.disarm')).toHaveLength(1));
    expect(navigator.mediaDevices.getUserMedia).not.toHaveBeenCalled();
    expect(result.current.state).toBe('off');

    // Stopped while the microphone opens: the track it got is ended at once, and nothing listens.
    let opened!: (stream: MediaStream) => void;
    vi.mocked(navigator.mediaDevices.getUserMedia).mockImplementationOnce(() => new Promise<MediaStream>((resolve) => (opened = resolve)));
    act(() => result.current.start());
    act(() => result.current.start());
    await waitFor(() => expect(navigator.mediaDevices.getUserMedia).toHaveBeenCalledTimes(1));
    act(() => result.current.stop());
    const track = new FakeTrack('mic-1');
    await act(async () => opened(new FakeStream([track]) as unknown as MediaStream));
    await waitFor(() => expect(track.readyState).toBe('ended'));
    expect(fake.callsOf('media.disarm')).toHaveLength(2);
    expect(detector.callbacks).toBeUndefined();
    expect(result.current.state).toBe('off');
  });

  it('barge-in: speech over the agent silences it and sends response.cancel; the new turn goes once the run has ended', async () => {
    const { order, deps, sendText } = setup();
    const { result, rerender } = renderHook((props: ListeningDeps) => useClientListening(props), { initialProps: deps(true) });
    expect(result.current.bargeIn).toEqual({ on: true, setting: 'on' });
    act(() => result.current.start());
    await waitFor(() => expect(result.current.state).toBe('on'));
    act(() => detector.callbacks!.onSpeechStart());
    await waitFor(() => expect(order).toEqual(['silenced', 'response.cancel']));
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    await waitFor(() => expect(result.current.working).toBe(false));
    // The run has not ended yet: the turn waits.
    expect(sendText).not.toHaveBeenCalled();
    rerender(deps(false));
    await waitFor(() => expect(order).toEqual(['silenced', 'response.cancel', 'user.turn scan an object']));
  });

  it('without barge-in the agent keeps speaking; Mute pauses the detector and what is heard then is not recognised', async () => {
    const { fake, order, deps } = setup();
    const { result } = renderHook((props: ListeningDeps) => useClientListening(props), { initialProps: deps(false, 'off') });
    act(() => result.current.start());
    await waitFor(() => expect(result.current.state).toBe('on'));
    act(() => detector.callbacks!.onSpeechStart());
    expect(order).toEqual([]);
    act(() => result.current.setMuted(true));
    expect(detector.paused).toBe(1);
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    expect(fake.callsOf('speech.transcribe')).toEqual([]);
  });

  it('a recognizer that fails keeps listening and says what went wrong; a recognizer gone (status: none) stops listening, and it says what to import', async () => {
    const { fake, deps, sendText } = setup();
    const { result } = renderHook((props: ListeningDeps) => useClientListening(props), { initialProps: deps(false) });
    act(() => result.current.start());
    await waitFor(() => expect(result.current.state).toBe('on'));
    expect(result.current.recognizer).toBe('commands');

    // The recognizer is still there (main's status says so): this utterance failed, listening goes on.
    fake.failNext('speech.transcribe', {
      code: 'speech_unavailable',
      message: 'Speech could not be recognised: pocketsphinx_continuous did not finish within 20000 ms.',
      retryable: true,
    });
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    await waitFor(() => expect(result.current.problem).toMatchObject({ kind: 'transcribe', error: { code: 'speech_unavailable' } }));
    expect(result.current.state).toBe('on');

    // The model was removed and nothing stands in: listening stops, and the keyboard is what is left.
    fake.handle('speech.status', () =>
      ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: false, engine: 'none', folderChooser: false } }),
    );
    fake.failNext('speech.transcribe', { code: 'speech_unavailable', message: 'No speech model is imported.' });
    await act(async () => detector.callbacks!.onSpeechEnd(new Float32Array(16_000)));
    await waitFor(() => expect(result.current.problem).toEqual({ kind: 'noRecognizer' }));
    expect(result.current.state).toBe('off');
    expect(fake.callsOf('media.disarm')).toHaveLength(1);
    expect(sendText).not.toHaveBeenCalled();
  });

  it('push to talk sends what was recorded from the press (with pre-roll) to the release as 16 kHz PCM16', async () => {
    const { fake, deps, sendText } = setup();
    const { result } = renderHook((props: ListeningDeps) => useClientListening(props), { initialProps: deps(false) });
    act(() => result.current.setMode('push-to-talk'));
    act(() => result.current.start());
    await waitFor(() => expect(result.current.state).toBe('on'));
    const frame = new Float32Array(512).fill(0.25);
    act(() => detector.callbacks!.onFrame!(frame, 0));
    act(() => result.current.talk(true));
    for (let i = 0; i < 10; i++) act(() => detector.callbacks!.onFrame!(frame, 0.9));
    act(() => result.current.talk(false));
    await waitFor(() => expect(sendText).toHaveBeenCalledWith('scan an object'));
    const [request] = fake.callsOf('speech.transcribe');
    expect(request?.sampleRate).toBe(16_000);
    // One pre-roll frame before the press, ten while held, two bytes a sample.
    expect((request?.pcm as Uint8Array | undefined)?.byteLength).toBe(11 * 512 * 2);
  });
});
