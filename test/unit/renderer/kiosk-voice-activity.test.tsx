import { act, render, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { useActivityWhile } from '../../../src/renderer/kiosk/activity';
import { useIdleReset } from '../../../src/renderer/kiosk/useIdleReset';
import { CallBar } from '../../../src/renderer/voice/CallBar';
import { createFakeBackend } from './fake-api';

/**
 * A kiosk's idle reset and voice: a hands-free conversation has no pointer or key, so a call while
 * something happens in it (speech heard, the agent thinking or speaking) and the agent's voice playing
 * count as activity — the session is not wiped under someone talking. A call merely open (connecting,
 * listening to silence, muted) is not: whoever walked away without hanging up is still reset. Fake
 * clock; the idle rule itself is the shared state machine.
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function idleKiosk() {
  const onReset = vi.fn(async () => undefined);
  const { api } = createFakeBackend();
  const idle = renderHook(() => useIdleReset(api, { idleResetSeconds: 10, session: true, onReset }));
  return { idle, onReset };
}

type Phase = 'connecting' | 'listening' | 'hearing' | 'thinking' | 'speaking';

function callBar(phase: Phase, muted = false) {
  return (
    <I18nProvider setting="en">
      <CallBar phase={phase} level={0} muted={muted} onMute={() => undefined} deviceId={undefined} onMicrophone={() => undefined} onHangUp={() => undefined} />
    </I18nProvider>
  );
}

describe('the kiosk idle reset hears voice activity', () => {
  it('without input or voice, the countdown shows after the idle time and the reset follows', async () => {
    const { idle, onReset } = idleKiosk();
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(idle.result.current.secondsLeft).toBeGreaterThan(0);
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(onReset).toHaveBeenCalledTimes(1);
  });

  it('a call left open in silence (connecting, listening, muted) does not hold the session: the countdown and the reset come', async () => {
    const { idle, onReset } = idleKiosk();
    const call = render(callBar('connecting'));
    await act(async () => vi.advanceTimersByTimeAsync(3_000));
    call.rerender(callBar('listening'));
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(idle.result.current.secondsLeft).toBeGreaterThan(0);
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(onReset).toHaveBeenCalledTimes(1);
    // Muted, even a voice the detector still hears is not the user talking to the agent.
    const muted = idleKiosk();
    call.rerender(callBar('hearing', true));
    await act(async () => vi.advanceTimersByTimeAsync(21_000));
    expect(muted.onReset).toHaveBeenCalledTimes(1);
    call.unmount();
  });

  it('a call where speech is heard, the agent thinks or speaks keeps the session; fallen silent, the idle clock runs again', async () => {
    const { idle, onReset } = idleKiosk();
    const call = render(callBar('hearing'));
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    call.rerender(callBar('thinking'));
    await act(async () => vi.advanceTimersByTimeAsync(8_000));
    call.rerender(callBar('speaking'));
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    expect(idle.result.current.secondsLeft).toBeUndefined();
    expect(onReset).not.toHaveBeenCalled();
    // The agent finished and nobody answers: the call is still open, but the countdown comes.
    call.rerender(callBar('listening'));
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(idle.result.current.secondsLeft).toBeGreaterThan(0);
    // Speech heard again cancels it.
    call.rerender(callBar('hearing'));
    expect(idle.result.current.secondsLeft).toBeUndefined();
    call.unmount();
  });

  it('the agent starting to speak cancels a countdown that shows (someone is listening)', async () => {
    const { idle, onReset } = idleKiosk();
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(idle.result.current.secondsLeft).toBeGreaterThan(0);
    const speaking = renderHook((active: boolean) => useActivityWhile(active), { initialProps: true });
    expect(idle.result.current.secondsLeft).toBeUndefined();
    await act(async () => vi.advanceTimersByTimeAsync(25_000));
    expect(onReset).not.toHaveBeenCalled();
    // It stopped speaking: idle again.
    speaking.rerender(false);
    await act(async () => vi.advanceTimersByTimeAsync(21_000));
    expect(onReset).toHaveBeenCalledTimes(1);
  });
});
