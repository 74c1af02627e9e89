import { useEffect } from 'react';
import type { CallPhase } from '../voice/call-phase';

/**
 * What the kiosk's idle reset hears besides pointer, key, touch and NFC input (useIdleReset
 * subscribes), in two kinds (issue #27):
 *
 * - Input: someone is there. A call where the visitor speaks (`hearing`: speech detected, or Hold to
 *   talk held, and not muted) is reported through `useInputWhile`, like a touch every 5 s while it lasts;
 *   it also cancels a countdown that shows.
 * - The agent's own activity: its voice (speaking in a call, reading an answer aloud) and an answer
 *   running (`thinking` in a call; a conversation's run, which useIdleReset follows itself). It says
 *   nothing about whether anyone is still there, so it only holds the countdown off while it lasts,
 *   for at most the policy's `idleAgentHoldSeconds` past the idle time; then the countdown shows anyway.
 *   Reported through `useActivityWhile`.
 *
 * An open call alone is neither: a visitor who walks away without hanging up leaves a call listening to
 * silence, and the idle reset must still wipe the session (it hangs the call up).
 */

const inputListeners = new Set<() => void>();
const holdListeners = new Set<(held: boolean) => void>();
/** The agent's activities going on now (each `useActivityWhile` that is active holds one). */
const holds = new Set<symbol>();

/** Someone is there: counts as input for the idle reset (it also cancels its countdown). */
export function reportActivity(): void {
  for (const listener of inputListeners) listener();
}

/** The idle reset's side: called on each input report; returns the unsubscribe. */
export function onActivity(listener: () => void): () => void {
  inputListeners.add(listener);
  return () => void inputListeners.delete(listener);
}

/** The idle reset's side: called with true when the agent's first activity starts, false when the last one ends (and at once with the current state). */
export function onAgentActivity(listener: (held: boolean) => void): () => void {
  holdListeners.add(listener);
  listener(holds.size > 0);
  return () => void holdListeners.delete(listener);
}

function setHold(token: symbol, on: boolean): void {
  const before = holds.size > 0;
  if (on) holds.add(token);
  else holds.delete(token);
  const after = holds.size > 0;
  if (before !== after) for (const listener of holdListeners) listener(after);
}

/** What a call's phase is (see above): the visitor speaking (input), the agent speaking or thinking (its activity), or neither. */
export function callPhaseActivity(phase: CallPhase, muted: boolean): 'input' | 'agent' | undefined {
  if (phase === 'hearing') return muted ? undefined : 'input';
  if (phase === 'speaking' || phase === 'thinking') return 'agent';
  return undefined;
}

/** How often lasting input is reported again (the shortest idle time a policy allows is 10 s). */
export const activityEveryMs = 5_000;

/** While `active` the visitor is doing something the page cannot see as input (speaking): reported now, at every change of `detail`, and every 5 s. */
export function useInputWhile(active: boolean, detail?: unknown): void {
  useEffect(() => {
    if (!active) return undefined;
    reportActivity();
    const timer = setInterval(reportActivity, activityEveryMs);
    return () => clearInterval(timer);
  }, [active, detail]);
}

/** While `active` the agent itself is busy (its voice, an answer running): the idle countdown waits, within the policy's bound. */
export function useActivityWhile(active: boolean): void {
  useEffect(() => {
    if (!active) return undefined;
    const token = Symbol('agent activity');
    setHold(token, true);
    return () => setHold(token, false);
  }, [active]);
}

/** A call's part in it (CallBar applies it to every call, Talkie's and AgentCall's alike). */
export function useCallActivity(phase: CallPhase, muted: boolean): void {
  const kind = callPhaseActivity(phase, muted);
  useInputWhile(kind === 'input', phase);
  useActivityWhile(kind === 'agent');
}
