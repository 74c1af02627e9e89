import { act, render, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { useActivityWhile } from '../../../src/renderer/kiosk/activity';
import { useIdleReset } from '../../../src/renderer/kiosk/useIdleReset';
import { CallBar } from '../../../src/renderer/voice/CallBar';
import { createFakeBackend } from './fake-api';

/**
 * A kiosk's idle reset and voice: a hands-free conversation has no pointer or key, so an open call
 * (its bar, in any phase: listening, speech heard, the agent speaking) and the agent's voice playing
 * count as activity — the session is not wiped under someone talking; when the call ends, the idle
 * clock runs again. Fake clock; the idle rule itself is the shared state machine.
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

function openCall(phase: 'listening' | 'hearing' | 'speaking' = 'listening') {
  return render(
    <I18nProvider setting="en">
      <CallBar phase={phase} level={0} muted={false} onMute={() => undefined} deviceId={undefined} onMicrophone={() => undefined} onHangUp={() => undefined} />
    </I18nProvider>,
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

  it('an open call keeps the session however long it lasts; after Hang up the idle clock runs again', async () => {
    const { idle, onReset } = idleKiosk();
    const call = openCall('listening');
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    call.rerender(
      <I18nProvider setting="en">
        <CallBar phase="speaking" level={0} muted={false} onMute={() => undefined} deviceId={undefined} onMicrophone={() => undefined} onHangUp={() => undefined} />
      </I18nProvider>,
    );
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    expect(idle.result.current.secondsLeft).toBeUndefined();
    expect(onReset).not.toHaveBeenCalled();
    call.unmount();
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(idle.result.current.secondsLeft).toBeGreaterThan(0);
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
