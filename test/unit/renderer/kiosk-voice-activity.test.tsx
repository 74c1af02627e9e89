import { act, render, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { useActivityWhile } from '../../../src/renderer/kiosk/activity';
import { idleStatus } from '../../../src/shared/conversation/view';
import { useIdleReset } from '../../../src/renderer/kiosk/useIdleReset';
import { CallBar } from '../../../src/renderer/voice/CallBar';
import { createFakeBackend } from './fake-api';

/**
 * A kiosk's idle reset and voice: a hands-free conversation has no pointer or key, so the visitor
 * speaking in a call counts as input — the session is not wiped under someone talking. The agent's own
 * activity (its voice speaking or reading aloud, a call's thinking, a running answer) is not input
 * (issue #27): it holds the countdown off while it lasts, for at most the policy's idleAgentHoldSeconds
 * past the idle time. A call merely open (connecting, listening to silence, muted) is neither: whoever
 * walked away without hanging up is still reset. Fake clock; the idle rule itself is the shared state
 * machine.
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function idleKiosk(idleAgentHoldSeconds?: number) {
  const onReset = vi.fn(async () => undefined);
  const backend = createFakeBackend();
  const idle = renderHook(() => useIdleReset(backend.api, { idleResetSeconds: 10, idleAgentHoldSeconds, session: true, onReset }));
  return { idle, onReset, backend };
}

const showing = (idle: ReturnType<typeof idleKiosk>['idle']) => idle.result.current.secondsLeft !== undefined;

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

  it('the visitor speaking in a call keeps the session as long as it lasts, and cancels a countdown that shows', async () => {
    const { idle, onReset } = idleKiosk();
    const call = render(callBar('hearing'));
    await act(async () => vi.advanceTimersByTimeAsync(300_000));
    expect(showing(idle)).toBe(false);
    call.rerender(callBar('listening'));
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(showing(idle)).toBe(true);
    call.rerender(callBar('hearing'));
    expect(showing(idle)).toBe(false);
    expect(onReset).not.toHaveBeenCalled();
    call.unmount();
  });

  it('read aloud is not input: an answer read for 9 s after the last touch does not move the countdown (issue #27: it came at 39 s with 30 s)', async () => {
    const { idle } = idleKiosk();
    const reading = renderHook((active: boolean) => useActivityWhile(active), { initialProps: true });
    await act(async () => vi.advanceTimersByTimeAsync(9_000));
    reading.rerender(false);
    await act(async () => vi.advanceTimersByTimeAsync(1_500));
    expect(showing(idle)).toBe(true);
  });

  it('the agent speaking or thinking holds the countdown off while it lasts, for at most idleAgentHoldSeconds past the idle time; then it shows anyway', async () => {
    const { idle, onReset } = idleKiosk(20);
    const call = render(callBar('thinking'));
    await act(async () => vi.advanceTimersByTimeAsync(12_000));
    call.rerender(callBar('speaking'));
    // 10 s idle + 20 s hold after the last touch (at 0): not yet at 29.5 s …
    await act(async () => vi.advanceTimersByTimeAsync(17_500));
    expect(showing(idle)).toBe(false);
    // … at 30 s the countdown shows although the agent still speaks, and the reset follows.
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(showing(idle)).toBe(true);
    await act(async () => vi.advanceTimersByTimeAsync(10_000));
    expect(onReset).toHaveBeenCalledTimes(1);
    call.unmount();
  });

  it("the agent's activity ending after the idle time shows the countdown at once; starting during one does not cancel it", async () => {
    const { idle, onReset } = idleKiosk();
    const speaking = renderHook((active: boolean) => useActivityWhile(active), { initialProps: true });
    await act(async () => vi.advanceTimersByTimeAsync(25_000));
    expect(showing(idle)).toBe(false);
    speaking.rerender(false);
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(showing(idle)).toBe(true);
    speaking.rerender(true);
    await act(async () => vi.advanceTimersByTimeAsync(10_500));
    expect(onReset).toHaveBeenCalledTimes(1);
    speaking.unmount();
  });

  it("a running answer holds the countdown off like the agent's voice, within the same bound", async () => {
    const { idle, backend } = idleKiosk(5);
    const status = (run: 'running' | 'idle') =>
      backend.emit('conversation.update', { agentId: 'a', conversationId: 'c1', ops: [{ op: 'status', status: { ...idleStatus, phase: 'ready', run } }] });
    act(() => status('running'));
    await act(async () => vi.advanceTimersByTimeAsync(14_500));
    expect(showing(idle)).toBe(false);
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(showing(idle)).toBe(true);
    // A touch while it still runs: held again from the touch (10 s idle + 5 s).
    act(() => void window.dispatchEvent(new Event('pointerdown')));
    expect(showing(idle)).toBe(false);
    await act(async () => vi.advanceTimersByTimeAsync(14_000));
    expect(showing(idle)).toBe(false);
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(showing(idle)).toBe(true);
    // A touch, and the answer ends: the idle time counts from the touch.
    act(() => void window.dispatchEvent(new Event('pointerdown')));
    act(() => status('idle'));
    await act(async () => vi.advanceTimersByTimeAsync(9_500));
    expect(showing(idle)).toBe(false);
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(showing(idle)).toBe(true);
  });
});
