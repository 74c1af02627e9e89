import { afterEach, describe, expect, it } from 'vitest';
import { installKioskGuards, isBlockedKioskKey, leavesPage } from '../../../src/renderer/kiosk/kiosk-guards';

const key = (name: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: name,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...modifiers,
});

let remove: (() => void) | undefined;
afterEach(() => {
  remove?.();
  remove = undefined;
  document.body.innerHTML = '';
});

describe('the kiosk guards (issue #18)', () => {
  it('swallow the browser keys (reload, back, open, save, print, address bar, developer tools) and let typing through', () => {
    for (const blocked of [
      key('F5'),
      key('r', { ctrlKey: true }),
      key('R', { ctrlKey: true, shiftKey: true }),
      key('r', { metaKey: true }),
      key('ArrowLeft', { altKey: true }),
      key('o', { ctrlKey: true }),
      key('s', { ctrlKey: true }),
      key('p', { ctrlKey: true }),
      key('l', { ctrlKey: true }),
      key('i', { ctrlKey: true, shiftKey: true }),
      key('F12'),
      key('BrowserBack'),
    ]) {
      expect(isBlockedKioskKey(blocked), JSON.stringify(blocked)).toBe(true);
    }
    for (const allowed of [
      key('a'),
      key('Enter'),
      key('Escape'),
      key('Tab'),
      key(' '),
      key('ArrowLeft'),
      key('c', { ctrlKey: true }),
      key('v', { ctrlKey: true }),
      key('x', { ctrlKey: true }),
      key('a', { ctrlKey: true }),
      key('z', { ctrlKey: true }),
      key('Backspace'),
    ]) {
      expect(isBlockedKioskKey(allowed), JSON.stringify(allowed)).toBe(false);
    }
  });

  it("swallow the window's keys too, which the web shell's Chromium app window leaves to the page (issue #27)", () => {
    const window = [
      key('w', { ctrlKey: true }),
      key('W', { ctrlKey: true, shiftKey: true }),
      key('n', { ctrlKey: true }),
      key('N', { ctrlKey: true, shiftKey: true }),
      key('t', { ctrlKey: true }),
      key('T', { ctrlKey: true, shiftKey: true }),
      key('F4', { ctrlKey: true }),
      key('F4', { altKey: true }),
      key('Q', { ctrlKey: true, shiftKey: true }),
      key('Tab', { ctrlKey: true }),
      key('PageDown', { ctrlKey: true }),
      key('f', { altKey: true }),
      key('w', { metaKey: true }),
    ];
    for (const blocked of window) expect(isBlockedKioskKey(blocked), JSON.stringify(blocked)).toBe(true);
    // Typing with AltGr-less layouts and plain F4 still pass.
    for (const allowed of [key('F4'), key('Tab', { shiftKey: true }), key('W', { shiftKey: true })])
      expect(isBlockedKioskKey(allowed), JSON.stringify(allowed)).toBe(false);
  });

  it('tell a link that leaves the page from an in-page one', () => {
    document.body.innerHTML =
      '<a id="out" href="https://example.com/"><span id="inner">x</span></a><a id="skip" href="#content">skip</a><button id="b">b</button>';
    expect(leavesPage(document.getElementById('inner'))).toBe(true);
    expect(leavesPage(document.getElementById('skip'))).toBe(false);
    expect(leavesPage(document.getElementById('b'))).toBe(false);
    expect(leavesPage(null)).toBe(false);
  });

  it('once installed: prevent the context menu, leaving links, window.open and the keys; removed, all comes back', () => {
    document.body.innerHTML = '<a id="out" href="https://example.com/">out</a>';
    const originalOpen = window.open;
    remove = installKioskGuards(window);
    const fire = (target: EventTarget, event: Event) => {
      target.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(fire(document.body, new MouseEvent('contextmenu', { bubbles: true, cancelable: true }))).toBe(true);
    expect(fire(document.getElementById('out')!, new MouseEvent('click', { bubbles: true, cancelable: true }))).toBe(true);
    expect(fire(document.body, new KeyboardEvent('keydown', { key: 'F5', bubbles: true, cancelable: true }))).toBe(true);
    expect(fire(document.body, new KeyboardEvent('keydown', { key: 'a', bubbles: true, cancelable: true }))).toBe(false);
    expect(window.open('https://example.com/')).toBeNull();
    expect(document.documentElement.dataset.kiosk).toBe('true');
    remove();
    remove = undefined;
    expect(window.open).toBe(originalOpen);
    expect(fire(document.body, new MouseEvent('contextmenu', { bubbles: true, cancelable: true }))).toBe(false);
    expect(document.documentElement.dataset.kiosk).toBeUndefined();
  });
});
