/**
 * The kiosk's idle reset (issue #18) as a pure state machine: after `idleMs` without input a
 * visible countdown of `countdownMs` starts, any input cancels it, and when it runs out the session
 * is reset (main's `kiosk.reset`) and the start screen returns. The start screen itself rests: there
 * is nothing to reset there, so no timer runs until a session begins.
 *
 * Input is what says someone is there: a pointer, a key, a touch, an NFC tap, the visitor speaking in
 * a call. The agent's own activity (its voice speaking or reading aloud, an answer running) is not
 * (issue #27): while it lasts it holds the countdown off, but for at most `holdMs` past the idle time
 * (the policy's `idleAgentHoldSeconds`), counted from the last input; when it ends the idle time
 * counts from the last input again. It never cancels a countdown that shows.
 *
 * The caller feeds it events (input, the agent's activity starting and ending, a session began, clock
 * ticks, the reset done) with the time they happened, performs the one effect it returns (`reset`) and
 * asks `wakeAt` when to tick next.
 */

/** How long the visible countdown lasts before the reset. */
export const idleCountdownMs = 10_000;

export interface IdleConfig {
  /** The policy's `idleResetSeconds`, in ms. */
  idleMs: number;
  countdownMs: number;
  /** The policy's `idleAgentHoldSeconds`, in ms: how long past `idleMs` the agent's own activity may hold the countdown off. */
  holdMs: number;
}

export type IdleState =
  /** The start screen: nothing to reset, no timer. */
  | { phase: 'resting' }
  /** A session is open; the last input was at `lastInputAt`; `held`: the agent's own activity is going on. */
  | { phase: 'active'; lastInputAt: number; held?: boolean }
  /** The countdown shows; it ends (and the reset starts) at `endsAt` (`held`: the agent is still busy, which a touch resumes). */
  | { phase: 'countdown'; endsAt: number; held?: boolean }
  /** The reset runs (input is ignored until it is done). */
  | { phase: 'resetting' };

export type IdleEvent =
  | { type: 'began'; at: number }
  | { type: 'input'; at: number }
  /** The agent's own activity (its voice, an answer running) started (`on`) or ended. */
  | { type: 'hold'; on: boolean; at: number }
  | { type: 'tick'; at: number }
  | { type: 'resetDone'; at: number };

export interface IdleStep {
  state: IdleState;
  /** `reset`: end every session and wipe it now (once per countdown that ran out). */
  effect?: 'reset';
}

export function idleConfig(idleResetSeconds: number, countdownMs = idleCountdownMs, holdSeconds = 0): IdleConfig {
  if (!Number.isFinite(idleResetSeconds) || idleResetSeconds <= 0)
    throw new RangeError(`idleResetSeconds must be a positive number of seconds, not ${String(idleResetSeconds)}`);
  if (!Number.isFinite(countdownMs) || countdownMs < 0) throw new RangeError(`the countdown must be a positive number of ms, not ${String(countdownMs)}`);
  if (!Number.isFinite(holdSeconds) || holdSeconds < 0) throw new RangeError(`the hold must be a positive number of seconds, not ${String(holdSeconds)}`);
  return { idleMs: idleResetSeconds * 1000, countdownMs, holdMs: holdSeconds * 1000 };
}

export const idleStart: IdleState = { phase: 'resting' };

/** The state with `held` set only while it is true (so states compare equal either way it was reached). */
function withHeld<T extends Extract<IdleState, { phase: 'active' | 'countdown' }>>(state: T, held: boolean | undefined): T {
  return held === true ? { ...state, held: true } : state;
}

/** When an active session's countdown is due: the idle time after the last input, and while the agent is busy at most `holdMs` more. */
function countdownDue(state: Extract<IdleState, { phase: 'active' }>, config: IdleConfig): number {
  return state.lastInputAt + config.idleMs + (state.held === true ? config.holdMs : 0);
}

export function stepIdle(state: IdleState, event: IdleEvent, config: IdleConfig): IdleStep {
  switch (event.type) {
    case 'began':
      // A session began (the start screen was left): the idle clock starts now.
      return { state: state.phase === 'resetting' ? state : { phase: 'active', lastInputAt: event.at } };
    case 'input':
      if (state.phase === 'active') return { state: { ...state, lastInputAt: Math.max(state.lastInputAt, event.at) } };
      // Any touch cancels the countdown.
      if (state.phase === 'countdown') return { state: withHeld({ phase: 'active', lastInputAt: event.at }, state.held) };
      return { state };
    case 'hold':
      // A countdown that shows runs on (only input cancels it), remembering whether the agent is busy.
      if (state.phase === 'active') return { state: withHeld({ phase: 'active', lastInputAt: state.lastInputAt }, event.on) };
      if (state.phase === 'countdown') return { state: withHeld({ phase: 'countdown', endsAt: state.endsAt }, event.on) };
      return { state };
    case 'tick':
      if (state.phase === 'active' && event.at >= countdownDue(state, config)) {
        // The countdown shows for its full length from when it appears (a late tick does not shorten it).
        const endsAt = event.at + config.countdownMs;
        return endsAt <= event.at ? { state: { phase: 'resetting' }, effect: 'reset' } : { state: withHeld({ phase: 'countdown', endsAt }, state.held) };
      }
      if (state.phase === 'countdown' && event.at >= state.endsAt) return { state: { phase: 'resetting' }, effect: 'reset' };
      return { state };
    case 'resetDone':
      return { state: { phase: 'resting' } };
  }
}

/** When the caller should tick next (undefined: no timer needed). During the countdown, each whole second, so the number shown changes. */
export function idleWakeAt(state: IdleState, config: IdleConfig): number | undefined {
  if (state.phase === 'active') return countdownDue(state, config);
  if (state.phase === 'countdown') return state.endsAt;
  return undefined;
}

/** Whole seconds left on the countdown shown at `now` (at least 0), or undefined outside it. */
export function countdownSecondsLeft(state: IdleState, now: number): number | undefined {
  if (state.phase !== 'countdown') return undefined;
  return Math.max(0, Math.ceil((state.endsAt - now) / 1000));
}
