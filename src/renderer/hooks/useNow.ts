import { useEffect, useLayoutEffect, useState } from 'react';

/**
 * The current time, ticking every second while `active` (for countdowns); frozen otherwise. When
 * it becomes active the time is read again before the browser paints, so a countdown never shows
 * a frame computed from the time it was last frozen at.
 */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useLayoutEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the clock is outside React: read it again before the first painted frame.
    if (active) setNow(Date.now());
  }, [active]);
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
