import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { speakingHoldMs, useHeldWhile } from '../../../src/renderer/voice/speaking-hold';

/** A call's Speaking holds through the pauses between sentences (fake clock). */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('useHeldWhile (Speaking held between sentences)', () => {
  it('holds for speakingHoldMs after the voice went quiet, then lets go', () => {
    const hook = renderHook((active: boolean) => useHeldWhile(active), { initialProps: false });
    expect(hook.result.current).toBe(false);
    hook.rerender(true);
    expect(hook.result.current).toBe(true);
    hook.rerender(false);
    act(() => vi.advanceTimersByTime(speakingHoldMs - 1));
    expect(hook.result.current).toBe(true);
    act(() => vi.advanceTimersByTime(1));
    expect(hook.result.current).toBe(false);
  });

  it('a pause shorter than the hold between two sentences never shows as quiet', () => {
    const seen: boolean[] = [];
    const hook = renderHook(
      (active: boolean) => {
        const held = useHeldWhile(active);
        seen.push(held);
        return held;
      },
      { initialProps: true },
    );
    for (let sentence = 0; sentence < 3; sentence += 1) {
      hook.rerender(false);
      act(() => vi.advanceTimersByTime(speakingHoldMs / 2));
      hook.rerender(true);
      act(() => vi.advanceTimersByTime(2_000));
    }
    expect(seen.every(Boolean)).toBe(true);
    hook.rerender(false);
    act(() => vi.advanceTimersByTime(speakingHoldMs));
    expect(hook.result.current).toBe(false);
  });
});
