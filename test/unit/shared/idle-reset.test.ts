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
    expect(
      run([
        { type: 'tick', at: 10_000_000 },
        { type: 'input', at: 10_000_001 },
      ]),
    ).toEqual({ state: { phase: 'resting' }, resets: 0 });
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
    const done = run(
      [
        { type: 'tick', at: 71_000 },
        { type: 'tick', at: 72_000 },
      ],
      counting,
    );
    expect(done).toEqual({ state: { phase: 'resetting' }, resets: 1 });
    expect(run([{ type: 'resetDone', at: 71_500 }], done.state).state).toEqual({ phase: 'resting' });
  });

  it('any input cancels the countdown and restarts the idle clock', () => {
    const counting = run([
      { type: 'began', at: 0 },
      { type: 'tick', at: 60_000 },
    ]).state;
    expect(counting.phase).toBe('countdown');
    const touched = run([{ type: 'input', at: 65_000 }], counting).state;
    expect(touched).toEqual({ phase: 'active', lastInputAt: 65_000 });
    expect(run([{ type: 'tick', at: 70_000 }], touched).resets).toBe(0);
    expect(idleWakeAt(touched, config)).toBe(125_000);
  });

  it('input while active moves the deadline; input during the reset is ignored', () => {
    const active = run([
      { type: 'began', at: 0 },
      { type: 'input', at: 30_000 },
      { type: 'tick', at: 60_000 },
    ]).state;
    expect(active).toEqual({ phase: 'active', lastInputAt: 30_000 });
    expect(
      run(
        [
          { type: 'input', at: 1 },
          { type: 'began', at: 2 },
        ],
        { phase: 'resetting' },
      ).state,
    ).toEqual({ phase: 'resetting' });
  });

  it('a late tick (a machine that slept) still shows the whole countdown', () => {
    const counting = run([
      { type: 'began', at: 0 },
      { type: 'tick', at: 500_000 },
    ]).state;
    expect(counting).toEqual({ phase: 'countdown', endsAt: 510_000 });
  });

  it('refuses a config that is not a positive time', () => {
    expect(() => idleConfig(0)).toThrow(/positive number of seconds/);
    expect(() => idleConfig(Number.NaN)).toThrow(RangeError);
    expect(() => idleConfig(10, -1)).toThrow(/countdown/);
    expect(() => idleConfig(10, 10_000, -1)).toThrow(/hold/);
  });
});

describe("the agent's own activity (issue #27)", () => {
  const held = idleConfig(30, 10_000, 120);
  const step = (events: IdleEvent[], from: IdleState = idleStart) => events.reduce((state, event) => stepIdle(state, event, held).state, from);

  it('holds the countdown off while it lasts, for at most the hold past the idle time after the last input', () => {
    const speaking = step([
      { type: 'began', at: 0 },
      { type: 'hold', on: true, at: 1_000 },
    ]);
    expect(idleWakeAt(speaking, held)).toBe(150_000);
    expect(step([{ type: 'tick', at: 149_999 }], speaking).phase).toBe('active');
    expect(step([{ type: 'tick', at: 150_000 }], speaking)).toEqual({ phase: 'countdown', endsAt: 160_000, held: true });
  });

  it('does not move the idle clock: ending after the idle time, the countdown is due at once; ending before, at the idle time', () => {
    const read = step([
      { type: 'began', at: 0 },
      { type: 'hold', on: true, at: 0 },
      { type: 'hold', on: false, at: 9_000 },
    ]);
    expect(read).toEqual({ phase: 'active', lastInputAt: 0 });
    expect(idleWakeAt(read, held)).toBe(30_000);
    const long = step([
      { type: 'began', at: 0 },
      { type: 'hold', on: true, at: 0 },
      { type: 'hold', on: false, at: 45_000 },
    ]);
    expect(idleWakeAt(long, held)).toBe(30_000);
    expect(step([{ type: 'tick', at: 45_000 }], long)).toEqual({ phase: 'countdown', endsAt: 55_000 });
  });

  it('never cancels a countdown that shows; a touch does, and the agent still busy holds again from the touch', () => {
    const counting = step([
      { type: 'began', at: 0 },
      { type: 'tick', at: 30_000 },
      { type: 'hold', on: true, at: 31_000 },
    ]);
    expect(counting).toEqual({ phase: 'countdown', endsAt: 40_000, held: true });
    expect(stepIdle(counting, { type: 'tick', at: 40_000 }, held).effect).toBe('reset');
    const touched = step([{ type: 'input', at: 35_000 }], counting);
    expect(touched).toEqual({ phase: 'active', lastInputAt: 35_000, held: true });
    expect(idleWakeAt(touched, held)).toBe(185_000);
  });

  it('with a hold of 0, the agent holds nothing', () => {
    const none = idleConfig(30, 10_000, 0);
    const speaking = [
      { type: 'began', at: 0 },
      { type: 'hold', on: true, at: 0 },
      { type: 'tick', at: 30_000 },
    ] as IdleEvent[];
    expect(speaking.reduce((state, event) => stepIdle(state, event, none).state, idleStart as IdleState).phase).toBe('countdown');
  });
});
