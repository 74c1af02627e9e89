/**
 * What the reader did in a conversation's scrolling region, as far as following its end goes:
 * the wheel, a key pressed in the region, or a touch or scrollbar drag that scrolled it.
 */
export type ScrollGesture =
  { kind: 'wheel'; deltaY: number } | { kind: 'key'; key: string; shiftKey: boolean; editable: boolean } | { kind: 'drag'; movedUp: boolean };

/** Keys that scroll a focused region up (Space with Shift is page up). */
const upKeys = new Set(['ArrowUp', 'PageUp', 'Home']);

/**
 * Whether the reader asked to look further up, and so to stop following the end. Scrolls no one
 * asked for (focus, scroll anchoring, a clamp when content shrank) are not gestures and never
 * release it; in a text box the keys move the caret, not the region.
 */
export function releasesEnd(gesture: ScrollGesture): boolean {
  switch (gesture.kind) {
    case 'wheel':
      return gesture.deltaY < 0;
    case 'key':
      return !gesture.editable && (upKeys.has(gesture.key) || (gesture.key === ' ' && gesture.shiftKey));
    case 'drag':
      return gesture.movedUp;
  }
}
