import { describe, expect, it, vi } from 'vitest';
import { HangWatch, KioskGuard, loginItemSettings } from '../../../src/main/electron/kiosk';
import { memoryLogger } from '../../support/logger';

const altF4 = { type: 'keyDown', key: 'F4', control: false, alt: true, shift: false, meta: false };
const letter = { type: 'keyDown', key: 'a', control: false, alt: false, shift: false, meta: false };

function guard(kiosk: boolean) {
  const state = { unlocked: false };
  const log = memoryLogger();
  return { state, log, guard: new KioskGuard({ kiosk, platform: 'linux', adminUnlocked: () => state.unlocked, log }) };
}

describe('the kiosk window’s decisions', () => {
  it('kiosk mode: full screen without menu bar or developer tools; otherwise an ordinary window', () => {
    expect(guard(true).guard.windowOptions()).toMatchObject({ kiosk: true, fullscreen: true, autoHideMenuBar: true });
    expect(guard(true).guard.devTools()).toBe(false);
    expect(guard(false).guard.windowOptions()).toEqual({});
    expect(guard(false).guard.devTools()).toBe(true);
  });

  it('swallows the kiosk keys until the administrator unlocks, and logs what they would have done', () => {
    const { guard: kiosk, state, log } = guard(true);
    expect(kiosk.blocksInput(altF4)).toBe(true);
    expect(kiosk.blocksInput(letter)).toBe(false);
    expect(log.lines).toEqual(['INFO [kiosk] a key press that would close window was ignored (kiosk mode)']);
    state.unlocked = true;
    expect(kiosk.blocksInput(altF4)).toBe(false);
    expect(guard(false).guard.blocksInput(altF4)).toBe(false);
  });

  it('refuses closing and leaving full screen until unlocked; the app quitting on purpose may close it', () => {
    const { guard: kiosk, state } = guard(true);
    expect(kiosk.refusesClose()).toBe(true);
    expect(kiosk.returnsToFullScreen()).toBe(true);
    expect(kiosk.refusesContextMenu()).toBe(true);
    state.unlocked = true;
    expect(kiosk.refusesClose()).toBe(false);
    expect(kiosk.returnsToFullScreen()).toBe(false);
    state.unlocked = false;
    kiosk.appQuitting();
    expect(kiosk.refusesClose()).toBe(false);
    const ordinary = guard(false).guard;
    expect([ordinary.refusesClose(), ordinary.returnsToFullScreen(), ordinary.refusesContextMenu()]).toEqual([false, false, false]);
  });

  it('gives up a hung renderer after the grace time, not one that answers again', () => {
    vi.useFakeTimers();
    try {
      const watch = new HangWatch(2000);
      const hung = vi.fn();
      watch.unresponsive(hung);
      watch.unresponsive(hung); // Electron may repeat the event: one timer.
      vi.advanceTimersByTime(1999);
      expect(hung).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(hung).toHaveBeenCalledTimes(1);
      watch.unresponsive(hung);
      vi.advanceTimersByTime(1000);
      watch.responsive();
      vi.advanceTimersByTime(5000);
      expect(hung).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('registers the login item on Windows and macOS for a kiosk policy, removes it for another policy, leaves it alone otherwise', () => {
    expect(loginItemSettings({ platform: 'win32', policy: { kiosk: true } })).toEqual({ openAtLogin: true });
    expect(loginItemSettings({ platform: 'darwin', policy: { kiosk: true } })).toEqual({ openAtLogin: true });
    expect(loginItemSettings({ platform: 'darwin', policy: { kiosk: false } })).toEqual({ openAtLogin: false });
    expect(loginItemSettings({ platform: 'win32', policy: 'none' })).toBeUndefined();
    expect(loginItemSettings({ platform: 'win32', policy: 'failed' })).toBeUndefined();
    expect(loginItemSettings({ platform: 'linux', policy: { kiosk: true } })).toBeUndefined();
  });
});
