import { useEffect } from 'react';

/**
 * Activity that is not input: a hands-free voice conversation has no pointer or key, yet someone is
 * there. The one channel the kiosk's idle reset hears besides input (useIdleReset subscribes): voice
 * reports through `useActivityWhile` — an open call (CallBar: listening, speech detected, thinking, the
 * agent speaking) and the agent's voice playing without a call (client-owned voice reading aloud).
 */

const listeners = new Set<() => void>();

/** Something is going on: counts as input for the idle reset (it also cancels its countdown). */
export function reportActivity(): void {
  for (const listener of listeners) listener();
}

/** The idle reset's side: called on each report; returns the unsubscribe. */
export function onActivity(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** How often a lasting activity is reported again (the shortest idle time a policy allows is 10 s). */
export const activityEveryMs = 5_000;

/** While `active`: reported now, at every change of `detail` (a call's phase), and every 5 s. */
export function useActivityWhile(active: boolean, detail?: unknown): void {
  useEffect(() => {
    if (!active) return undefined;
    reportActivity();
    const timer = setInterval(reportActivity, activityEveryMs);
    return () => clearInterval(timer);
  }, [active, detail]);
}
