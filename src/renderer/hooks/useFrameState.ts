import { useCallback, useEffect, useState, type RefObject } from 'react';

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

/** The newest value and the frame that shows it (what `useFrameState` keeps for a component). */
class FrameValue<T> {
  /** Ref-shaped: read by event handlers and effects, never while rendering. */
  readonly latest: RefObject<T>;
  private readonly batch: FrameBatch;

  constructor(initial: T, show: (value: T) => void) {
    const latest: RefObject<T> = { current: initial };
    this.latest = latest;
    this.batch = new FrameBatch(() => show(latest.current));
  }

  readonly change = (update: (current: T) => T): void => {
    this.latest.current = update(this.latest.current);
    this.batch.request();
  };

  readonly replace = (value: T): void => {
    this.batch.cancel();
    this.latest.current = value;
  };

  readonly cancel = (): void => this.batch.cancel();
}

/**
 * State that streams: the logic always sees the newest value (a ref), React renders it at most
 * once per animation frame, so a run streaming hundreds of deltas a second costs one render per
 * frame. A frame still pending when the component goes away is cancelled.
 */
export function useFrameState<T>(initial: T): FrameState<T> {
  const [shown, setShown] = useState<T>(initial);
  const [frame] = useState(() => new FrameValue<T>(initial, setShown));

  const showNow = useCallback(
    (value: T) => {
      frame.replace(value);
      setShown(value);
    },
    [frame],
  );

  useEffect(() => frame.cancel, [frame]);

  return { shown, latestRef: frame.latest, change: frame.change, showNow };
}
