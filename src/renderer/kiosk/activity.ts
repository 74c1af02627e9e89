import { useEffect } from 'react';
import type { CallPhase } from '../voice/CallBar';

/**
 * Activity that is not input: a hands-free voice conversation has no pointer or key, yet someone is
 * there. The one channel the kiosk's idle reset hears besides input (useIdleReset subscribes): voice
 * reports through `useActivityWhile` — the agent's voice playing without a call (client-owned voice
 * reading aloud) and a call while something happens in it (`callPhaseIsActivity`, which CallBar
 * applies to every call, Talkie's and AgentCall's alike).
 *
 * An open call alone is not someone there: a user who walks away without hanging up leaves a call
 * listening to silence, and the idle reset must still wipe the session (it hangs the call up). So a
 * call counts only while speech is heard from the user (`hearing`: speech detected, or Hold to talk
 * held, and not muted), the agent speaks (`speaking`) or it thinks after a user turn (`thinking`) —
 * not while it is connecting, listening to silence, or muted and silent.
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

/** The rule for calls (see above): what a call's phase says about someone being there. */
export function callPhaseIsActivity(phase: CallPhase, muted: boolean): boolean {
  return phase === 'speaking' || phase === 'thinking' || (phase === 'hearing' && !muted);
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
