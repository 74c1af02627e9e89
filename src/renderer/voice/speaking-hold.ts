import { useEffect, useState } from 'react';

/**
 * How long the agent's voice must have been quiet before a call stops showing Speaking: the pause
 * between two sentences is shorter, so the bar does not flicker to Listening and back.
 */
export const speakingHoldMs = 800;

/** True while `active`, and until it has been false for `holdMs` without a break. */
export function useHeldWhile(active: boolean, holdMs = speakingHoldMs): boolean {
  const [held, setHeld] = useState(active);
  const [seen, setSeen] = useState(active);
  // Noted while rendering (not in an effect): the render that sees it active already holds it.
  if (active !== seen) {
    setSeen(active);
    if (active) setHeld(true);
  }
  useEffect(() => {
    if (active) return undefined;
    const timer = setTimeout(() => setHeld(false), holdMs);
    return () => clearTimeout(timer);
  }, [active, holdMs]);
  return active || held;
}
