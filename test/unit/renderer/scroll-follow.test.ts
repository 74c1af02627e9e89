import { describe, expect, it } from 'vitest';
import { releasesEnd } from '../../../src/renderer/components/scroll-follow';

describe('which gestures let a conversation stop following its end', () => {
  it('the wheel up does, the wheel down does not', () => {
    expect(releasesEnd({ kind: 'wheel', deltaY: -120 })).toBe(true);
    expect(releasesEnd({ kind: 'wheel', deltaY: 120 })).toBe(false);
    expect(releasesEnd({ kind: 'wheel', deltaY: 0 })).toBe(false);
  });

  it('keys that scroll up do, outside a text box only', () => {
    for (const key of ['ArrowUp', 'PageUp', 'Home']) {
      expect(releasesEnd({ kind: 'key', key, shiftKey: false, editable: false }), key).toBe(true);
      expect(releasesEnd({ kind: 'key', key, shiftKey: false, editable: true }), `${key} in a text box`).toBe(false);
    }
    expect(releasesEnd({ kind: 'key', key: ' ', shiftKey: true, editable: false })).toBe(true);
    expect(releasesEnd({ kind: 'key', key: ' ', shiftKey: false, editable: false })).toBe(false);
    for (const key of ['ArrowDown', 'PageDown', 'End', 'Tab', 'Enter', 'a']) {
      expect(releasesEnd({ kind: 'key', key, shiftKey: false, editable: false }), key).toBe(false);
    }
  });

  it('a touch or scrollbar drag does when it moved up', () => {
    expect(releasesEnd({ kind: 'drag', movedUp: true })).toBe(true);
    expect(releasesEnd({ kind: 'drag', movedUp: false })).toBe(false);
  });
});
