import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

export interface FrameState<T> {
  /** What React renders: the newest value as of the last animation frame. */
  shown: T;
  /** The newest value: what event listeners and async answers read (never `shown`, which lags a frame). */
  latestRef: RefObject<T>;
  /** Changes the newest value at once; React renders it at the next animation frame (one render for every change in between). */
  change: (update: (current: T) => T) => void;
  /** Replaces the value and renders it now, dropping a frame still pending (the old view is gone at once). */
  showNow: (value: T) => void;
}

/**
 * At most one callback per animation frame: `request` asks for the next frame (a request while one
 * is pending is the same frame), `cancel` drops the pending one. The one frame mechanism of the
 * renderer: `useFrameState` uses it, and so do stores that live outside a component (the AgentCall
 * session beside its screen).
 */
export class FrameBatch {
  private pending = false;
  private id: number | undefined;

  constructor(private readonly run: () => void) {}

  request(): void {
    if (this.pending) return;
    this.pending = true;
    // A frame callback may run before requestAnimationFrame returns (tests): the flag is set first.
    const id = requestAnimationFrame(() => {
      this.pending = false;
      this.id = undefined;
      this.run();
    });
    if (this.pending) this.id = id;
  }

  cancel(): void {
    if (this.id !== undefined) cancelAnimationFrame(this.id);
    this.id = undefined;
    this.pending = false;
  }
}

/**
 * State that streams: the logic always sees the newest value (a ref), React renders it at most
 * once per animation frame, so a run streaming hundreds of deltas a second costs one render per
 * frame. A frame still pending when the component goes away is cancelled.
 */
export function useFrameState<T>(initial: T): FrameState<T> {
  const [shown, setShown] = useState<T>(initial);
  const latest = useRef<T>(initial);
  const [batch] = useState(() => new FrameBatch(() => setShown(latest.current)));

  const change = useCallback(
    (update: (current: T) => T) => {
      latest.current = update(latest.current);
      batch.request();
    },
    [batch],
  );

  const showNow = useCallback(
    (value: T) => {
      batch.cancel();
      latest.current = value;
      setShown(value);
    },
    [batch],
  );

  useEffect(() => () => batch.cancel(), [batch]);

  return { shown, latestRef: latest, change, showNow };
}
