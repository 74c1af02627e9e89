import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useFrameState } from '../../../src/renderer/hooks/useFrameState';

let frames: Map<number, FrameRequestCallback>;
let nextFrame: number;

beforeEach(() => {
  frames = new Map();
  nextFrame = 1;
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    frames.set(nextFrame, callback);
    return nextFrame++;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function runFrames() {
  const due = [...frames.values()];
  frames.clear();
  act(() => due.forEach((callback) => callback(0)));
}

describe('useFrameState: the newest value at once, one render per animation frame', () => {
  it('many changes between frames: the logic sees each at once, React renders once with the last', () => {
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useFrameState(0);
    });
    const before = renders;
    act(() => {
      for (let index = 0; index < 100; index++) result.current.change((value) => value + 1);
    });
    expect(result.current.latestRef.current).toBe(100);
    expect(result.current.shown).toBe(0);
    expect(frames.size).toBe(1);
    runFrames();
    expect(result.current.shown).toBe(100);
    expect(renders).toBe(before + 1);
  });

  it('showNow renders at once and drops the pending frame', () => {
    const { result } = renderHook(() => useFrameState('a'));
    act(() => result.current.change(() => 'b'));
    act(() => result.current.showNow('c'));
    expect(result.current.shown).toBe('c');
    expect(frames.size).toBe(0);
    expect(result.current.latestRef.current).toBe('c');
  });

  it('a frame still pending when the component goes away is cancelled', () => {
    const { result, unmount } = renderHook(() => useFrameState(1));
    act(() => result.current.change(() => 2));
    expect(frames.size).toBe(1);
    unmount();
    expect(frames.size).toBe(0);
  });
});
