/**
 * The kiosk's idle reset (issue #18) as a pure state machine: after `idleMs` without input a
 * visible countdown of `countdownMs` starts, any input cancels it, and when it runs out the session
 * is reset (main's `kiosk.reset`) and the start screen returns. The start screen itself rests: there
 * is nothing to reset there, so no timer runs until a session begins.
 *
 * The caller feeds it events (input, a session began, clock ticks, the reset done) with the time
 * they happened, performs the one effect it returns (`reset`) and asks `wakeAt` when to tick next.
 * An NFC tap counts as input like a pointer, key or touch.
 */

/** How long the visible countdown lasts before the reset. */
export const idleCountdownMs = 10_000;

export interface IdleConfig {
  /** The policy's `idleResetSeconds`, in ms. */
  idleMs: number;
  countdownMs: number;
}

export type IdleState =
  /** The start screen: nothing to reset, no timer. */
  | { phase: 'resting' }
  /** A session is open; the last input was at `lastInputAt`. */
  | { phase: 'active'; lastInputAt: number }
  /** The countdown shows; it ends (and the reset starts) at `endsAt`. */
  | { phase: 'countdown'; endsAt: number }
  /** The reset runs (input is ignored until it is done). */
  | { phase: 'resetting' };

export type IdleEvent =
  | { type: 'began'; at: number }
  | { type: 'input'; at: number }
  | { type: 'tick'; at: number }
  | { type: 'resetDone'; at: number };

export interface IdleStep {
  state: IdleState;
  /** `reset`: end every session and wipe it now (once per countdown that ran out). */
  effect?: 'reset';
}

export function idleConfig(idleResetSeconds: number, countdownMs = idleCountdownMs): IdleConfig {
  if (!Number.isFinite(idleResetSeconds) || idleResetSeconds <= 0) throw new RangeError(`idleResetSeconds must be a positive number of seconds, not ${String(idleResetSeconds)}`);
  if (!Number.isFinite(countdownMs) || countdownMs < 0) throw new RangeError(`the countdown must be a positive number of ms, not ${String(countdownMs)}`);
  return { idleMs: idleResetSeconds * 1000, countdownMs };
}

export const idleStart: IdleState = { phase: 'resting' };

export function stepIdle(state: IdleState, event: IdleEvent, config: IdleConfig): IdleStep {
  switch (event.type) {
    case 'began':
      // A session began (the start screen was left): the idle clock starts now.
      return { state: state.phase === 'resetting' ? state : { phase: 'active', lastInputAt: event.at } };
    case 'input':
      if (state.phase === 'active') return { state: { phase: 'active', lastInputAt: Math.max(state.lastInputAt, event.at) } };
      // Any touch cancels the countdown.
      if (state.phase === 'countdown') return { state: { phase: 'active', lastInputAt: event.at } };
      return { state };
    case 'tick':
      if (state.phase === 'active' && event.at - state.lastInputAt >= config.idleMs) {
        // The countdown shows for its full length from when it appears (a late tick does not shorten it).
        const endsAt = event.at + config.countdownMs;
        return endsAt <= event.at ? { state: { phase: 'resetting' }, effect: 'reset' } : { state: { phase: 'countdown', endsAt } };
      }
      if (state.phase === 'countdown' && event.at >= state.endsAt) return { state: { phase: 'resetting' }, effect: 'reset' };
      return { state };
    case 'resetDone':
      return { state: { phase: 'resting' } };
  }
}

/** When the caller should tick next (undefined: no timer needed). During the countdown, each whole second, so the number shown changes. */
export function idleWakeAt(state: IdleState, config: IdleConfig): number | undefined {
  if (state.phase === 'active') return state.lastInputAt + config.idleMs;
  if (state.phase === 'countdown') return state.endsAt;
  return undefined;
}

/** Whole seconds left on the countdown shown at `now` (at least 0), or undefined outside it. */
export function countdownSecondsLeft(state: IdleState, now: number): number | undefined {
  if (state.phase !== 'countdown') return undefined;
  return Math.max(0, Math.ceil((state.endsAt - now) / 1000));
}
