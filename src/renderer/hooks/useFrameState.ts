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
 * State that streams: the logic always sees the newest value (a ref), React renders it at most
 * once per animation frame, so a run streaming hundreds of deltas a second costs one render per
 * frame. A frame still pending when the component goes away is cancelled.
 */
export function useFrameState<T>(initial: T): FrameState<T> {
  const [shown, setShown] = useState<T>(initial);
  const latest = useRef<T>(initial);
  const frame = useRef<{ scheduled: boolean; id?: number }>({ scheduled: false });

  const cancel = useCallback(() => {
    if (frame.current.scheduled && frame.current.id !== undefined) cancelAnimationFrame(frame.current.id);
    frame.current.scheduled = false;
  }, []);

  const change = useCallback((update: (current: T) => T) => {
    latest.current = update(latest.current);
    if (frame.current.scheduled) return;
    frame.current.scheduled = true;
    frame.current.id = requestAnimationFrame(() => {
      frame.current.scheduled = false;
      setShown(latest.current);
    });
  }, []);

  const showNow = useCallback(
    (value: T) => {
      cancel();
      latest.current = value;
      setShown(value);
    },
    [cancel],
  );

  useEffect(() => cancel, [cancel]);

  return { shown, latestRef: latest, change, showNow };
}
