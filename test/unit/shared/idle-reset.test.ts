import { describe, expect, it } from 'vitest';
import { countdownSecondsLeft, idleConfig, idleStart, idleWakeAt, stepIdle, type IdleEvent, type IdleState } from '../../../src/shared/kiosk/idle-reset';

const config = idleConfig(60);

function run(events: IdleEvent[], from: IdleState = idleStart): { state: IdleState; resets: number } {
  let state = from;
  let resets = 0;
  for (const event of events) {
    const step = stepIdle(state, event, config);
    state = step.state;
    if (step.effect === 'reset') resets += 1;
  }
  return { state, resets };
}

describe('the kiosk idle reset', () => {
  it('rests on the start screen: no timer, ticks and input do nothing', () => {
    expect(run([{ type: 'tick', at: 10_000_000 }, { type: 'input', at: 10_000_001 }])).toEqual({ state: { phase: 'resting' }, resets: 0 });
    expect(idleWakeAt(idleStart, config)).toBeUndefined();
  });

  it('starts the countdown after idleResetSeconds without input, and resets once when it runs out', () => {
    const began = run([{ type: 'began', at: 1000 }]);
    expect(idleWakeAt(began.state, config)).toBe(61_000);
    expect(run([{ type: 'tick', at: 60_999 }], began.state).state).toEqual({ phase: 'active', lastInputAt: 1000 });
    const counting = run([{ type: 'tick', at: 61_000 }], began.state).state;
    expect(counting).toEqual({ phase: 'countdown', endsAt: 71_000 });
    expect(countdownSecondsLeft(counting, 61_000)).toBe(10);
    expect(countdownSecondsLeft(counting, 61_001)).toBe(10);
    expect(countdownSecondsLeft(counting, 70_000)).toBe(1);
    expect(run([{ type: 'tick', at: 70_999 }], counting)).toEqual({ state: counting, resets: 0 });
    const done = run([{ type: 'tick', at: 71_000 }, { type: 'tick', at: 72_000 }], counting);
    expect(done).toEqual({ state: { phase: 'resetting' }, resets: 1 });
    expect(run([{ type: 'resetDone', at: 71_500 }], done.state).state).toEqual({ phase: 'resting' });
  });

  it('any input cancels the countdown and restarts the idle clock', () => {
    const counting = run([{ type: 'began', at: 0 }, { type: 'tick', at: 60_000 }]).state;
    expect(counting.phase).toBe('countdown');
    const touched = run([{ type: 'input', at: 65_000 }], counting).state;
    expect(touched).toEqual({ phase: 'active', lastInputAt: 65_000 });
    expect(run([{ type: 'tick', at: 70_000 }], touched).resets).toBe(0);
    expect(idleWakeAt(touched, config)).toBe(125_000);
  });

  it('input while active moves the deadline; input during the reset is ignored', () => {
    const active = run([{ type: 'began', at: 0 }, { type: 'input', at: 30_000 }, { type: 'tick', at: 60_000 }]).state;
    expect(active).toEqual({ phase: 'active', lastInputAt: 30_000 });
    expect(run([{ type: 'input', at: 1 }, { type: 'began', at: 2 }], { phase: 'resetting' }).state).toEqual({ phase: 'resetting' });
  });

  it('a late tick (a machine that slept) still shows the whole countdown', () => {
    const counting = run([{ type: 'began', at: 0 }, { type: 'tick', at: 500_000 }]).state;
    expect(counting).toEqual({ phase: 'countdown', endsAt: 510_000 });
  });

  it('refuses a config that is not a positive time', () => {
    expect(() => idleConfig(0)).toThrow(/positive number of seconds/);
    expect(() => idleConfig(Number.NaN)).toThrow(RangeError);
    expect(() => idleConfig(10, -1)).toThrow(/countdown/);
  });
});
