import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import { onActivity, onAgentActivity } from './activity';
import { idleAgentHoldDefaultSeconds } from '../../shared/device-policy/device-policy';
import type { ConversationOp } from '../../shared/conversation/update';
import {
  countdownSecondsLeft,
  idleCountdownMs,
  idleStart,
  idleWakeAt,
  stepIdle,
  type IdleConfig,
  type IdleEvent,
  type IdleState,
} from '../../shared/kiosk/idle-reset';

/** What the kiosk shows of the idle reset: the seconds left while the countdown runs. */
export interface IdleReset {
  /** Whole seconds left on the visible countdown, or undefined when none shows. */
  secondsLeft: number | undefined;
  /** A touch on the countdown's button: input like any other (it cancels the countdown). */
  stillHere: () => void;
}

/** The input that keeps a kiosk session alive: a pointer, a key, a touch, the wheel (an NFC tap and voice activity are added by the hook). */
const inputEvents = ['pointerdown', 'keydown', 'touchstart', 'wheel'] as const;

/** A conversation's run going on (`conversation.update` status ops): the agent's answer is running. */
function runningAfter(ops: readonly ConversationOp[], before: boolean): boolean {
  let running = before;
  for (const op of ops) {
    const status = op.op === 'status' ? op.status : op.op === 'reset' ? op.view.status : undefined;
    if (status) running = status.run !== 'idle';
  }
  return running;
}

/** What holds the countdown off: the agent's voice or a call's thinking, and the conversations whose answer runs. */
interface Holds {
  agent: boolean;
  runs: Set<string>;
}
const isHeld = (holds: Holds) => holds.agent || holds.runs.size > 0;

/**
 * The kiosk's idle reset in the page: the rule is the shared state machine (`stepIdle`), fed with
 * the page's input, NFC taps, the visitor speaking in a call, the agent's own activity (its voice, a
 * call's thinking, any conversation's running answer: held for at most `idleAgentHoldSeconds`, default
 * 2 minutes) and clock ticks; its one effect, `reset`, calls `onReset` (which asks main for
 * `kiosk.reset` and shows the start screen). `session`: a session is open (not the start screen), so
 * the idle clock runs. Off without `idleResetSeconds`. Input re-arms one timer and renders nothing; the
 * page re-renders only when the countdown shows, changes or goes.
 */
export function useIdleReset(
  api: AgentDeskApi,
  {
    idleResetSeconds,
    idleAgentHoldSeconds = idleAgentHoldDefaultSeconds,
    session,
    onReset,
  }: { idleResetSeconds: number | undefined; idleAgentHoldSeconds?: number | undefined; session: boolean; onReset: () => Promise<void> },
): IdleReset {
  const idleMs = idleResetSeconds === undefined ? undefined : idleResetSeconds * 1000;
  const holdMs = idleAgentHoldSeconds * 1000;
  const state = useRef<IdleState>(idleStart);
  const held = useRef<Holds>({ agent: false, runs: new Set<string>() });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [countdown, setCountdown] = useState<{ state: IdleState; now: number }>({ state: idleStart, now: 0 });
  const resetRef = useRef(onReset);
  useEffect(() => {
    resetRef.current = onReset;
  }, [onReset]);

  const dispatch = useCallback(
    function dispatch(event: IdleEvent): void {
      if (idleMs === undefined) return;
      const config: IdleConfig = { idleMs, countdownMs: idleCountdownMs, holdMs };
      const before = state.current;
      const step = stepIdle(before, event, config);
      state.current = step.state;
      if (step.state.phase === 'countdown' || before.phase === 'countdown') setCountdown({ state: step.state, now: event.at });
      clearTimeout(timer.current);
      const wake = idleWakeAt(step.state, config);
      if (wake !== undefined) {
        const delay = Math.max(0, step.state.phase === 'countdown' ? Math.min(250, wake - event.at) : wake - event.at);
        timer.current = setTimeout(() => dispatch({ type: 'tick', at: Date.now() }), delay);
      }
      if (step.effect === 'reset') void resetRef.current().finally(() => dispatch({ type: 'resetDone', at: Date.now() }));
    },
    [idleMs, holdMs],
  );

  // Leaving the start screen starts the idle clock; coming back (a reset, or the user) rests it.
  useEffect(() => {
    if (session) {
      dispatch({ type: 'began', at: Date.now() });
      if (isHeld(held.current)) dispatch({ type: 'hold', on: true, at: Date.now() });
      return;
    }
    // The start screen: the session's conversations went with it.
    held.current.runs.clear();
    if (state.current.phase !== 'resetting') {
      clearTimeout(timer.current);
      state.current = idleStart;
      setCountdown({ state: idleStart, now: 0 });
    }
  }, [session, dispatch]);

  useEffect(() => {
    if (idleMs === undefined) return undefined;
    const onInput = () => dispatch({ type: 'input', at: Date.now() });
    for (const name of inputEvents) window.addEventListener(name, onInput, { capture: true, passive: true });
    // An NFC tap is input too, whatever screen takes it.
    const unsubscribe = api.nfc.onScanResult((result) => {
      if (result.outcome === 'observation') onInput();
    });
    // So is the visitor speaking in a call (kiosk/activity.ts).
    const stopActivity = onActivity(onInput);
    // The agent's own activity holds the countdown off, within the bound: its voice, a call's thinking, and a running answer.
    const hold = (change: () => void) => {
      const before = isHeld(held.current);
      change();
      const after = isHeld(held.current);
      if (after !== before) dispatch({ type: 'hold', on: after, at: Date.now() });
    };
    const stopAgent = onAgentActivity((on) => hold(() => void (held.current.agent = on)));
    const stopRuns = api.conversation.onUpdate(({ conversationId, ops }) =>
      hold(() => {
        const runs = held.current.runs;
        if (runningAfter(ops, runs.has(conversationId))) runs.add(conversationId);
        else runs.delete(conversationId);
      }),
    );
    return () => {
      for (const name of inputEvents) window.removeEventListener(name, onInput, { capture: true });
      unsubscribe();
      stopActivity();
      stopAgent();
      stopRuns();
      clearTimeout(timer.current);
    };
  }, [api, idleMs, dispatch]);

  const stillHere = useCallback(() => dispatch({ type: 'input', at: Date.now() }), [dispatch]);
  return { secondsLeft: countdownSecondsLeft(countdown.state, countdown.now), stillHere };
}
