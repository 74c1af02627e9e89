import { describe, expect, it, vi } from 'vitest';
import { Listeners } from '../../../src/shared/base/listeners';

describe('Listeners', () => {
  it('calls every subscribed listener with the emitted arguments, until it unsubscribes', () => {
    const listeners = new Listeners<[string, number]>();
    const first = vi.fn();
    const second = vi.fn();
    const unsubscribeFirst = listeners.subscribe(first);
    listeners.subscribe(second);
    listeners.emit('a', 1);
    unsubscribeFirst();
    listeners.emit('b', 2);
    expect(first.mock.calls).toEqual([['a', 1]]);
    expect(second.mock.calls).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(listeners.size).toBe(1);
  });

  it('keeps one subscription for the same function, and clear() drops them all', () => {
    const listeners = new Listeners();
    const listener = vi.fn();
    listeners.subscribe(listener);
    listeners.subscribe(listener);
    listeners.emit();
    expect(listener).toHaveBeenCalledTimes(1);
    listeners.clear();
    listeners.emit();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listeners.size).toBe(0);
  });

  it('during an emit skips a listener an earlier one unsubscribed and does not call one subscribed meanwhile', () => {
    const listeners = new Listeners<[number]>();
    const calls: string[] = [];
    const late = (value: number) => void calls.push(`late ${value}`);
    let unsubscribeSecond = () => undefined as void;
    listeners.subscribe((value) => {
      calls.push(`first ${value}`);
      unsubscribeSecond();
      listeners.subscribe(late);
    });
    unsubscribeSecond = listeners.subscribe((value) => void calls.push(`second ${value}`));
    listeners.emit(1);
    listeners.emit(2);
    expect(calls).toEqual(['first 1', 'first 2', 'late 2']);
  });

  it('with onError, reports a throwing listener and still calls the others', () => {
    const errors: unknown[] = [];
    const listeners = new Listeners<[string]>((error) => errors.push(error));
    const after = vi.fn();
    listeners.subscribe(() => {
      throw new Error('listener broke');
    });
    listeners.subscribe(after);
    expect(() => listeners.emit('x')).not.toThrow();
    expect(after).toHaveBeenCalledWith('x');
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it('without onError, a throwing listener reaches the emitter and the later ones are not called', () => {
    const listeners = new Listeners<[string]>();
    const after = vi.fn();
    listeners.subscribe(() => {
      throw new Error('listener broke');
    });
    listeners.subscribe(after);
    expect(() => listeners.emit('x')).toThrow('listener broke');
    expect(after).not.toHaveBeenCalled();
  });
});
