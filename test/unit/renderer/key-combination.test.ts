import { describe, expect, it } from 'vitest';
import { keyCombination } from '../../../src/renderer/components/key-combination';

describe('the call shortcut recorded from a key press', () => {
  it('turns a key press into one, by the key’s place (Shift+2 is 2), Cmd on macOS and Ctrl elsewhere', () => {
    const press = (code: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
      code,
      ctrlKey: false,
      metaKey: false,
      altKey: false,
      shiftKey: false,
      ...mods,
    });
    expect(keyCombination(press('KeyT', { ctrlKey: true, altKey: true }), false)).toEqual({ kind: 'combination', accelerator: 'CommandOrControl+Alt+T' });
    expect(keyCombination(press('KeyT', { metaKey: true }), true)).toEqual({ kind: 'combination', accelerator: 'CommandOrControl+T' });
    expect(keyCombination(press('KeyT', { ctrlKey: true }), true)).toEqual({ kind: 'refused', problem: 'no_modifier' });
    expect(keyCombination(press('Digit2', { shiftKey: true, ctrlKey: true }), false)).toEqual({ kind: 'combination', accelerator: 'CommandOrControl+Shift+2' });
    expect(keyCombination(press('ArrowUp', { altKey: true }), false)).toEqual({ kind: 'combination', accelerator: 'Alt+Up' });
    expect(keyCombination(press('ShiftLeft', { shiftKey: true }), false)).toEqual({ kind: 'modifiers-only' });
    expect(keyCombination(press('Backquote', { ctrlKey: true }), false)).toEqual({ kind: 'refused', problem: 'unknown_part' });
    expect(keyCombination(press('F9'), false)).toEqual({ kind: 'combination', accelerator: 'F9' });
  });
});
