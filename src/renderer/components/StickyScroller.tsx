import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
import { releasesEnd, type ScrollGesture } from './scroll-follow';

/** How close to the end (px) counts as "reading the newest": new content then scrolls into view. */
const stickDistance = 48;

/**
 * A conversation's scrolling region, with a heading for screen readers: it follows new content while
 * the reader is at the end and stays put once they scrolled up. Deliberately not a live region (streamed text would be read out
 * delta by delta); focusable, since scrollable content must be reachable from the keyboard.
 *
 * Content also grows without a new render: entries off screen are laid out at an estimated height
 * until they are shown (`content-visibility: auto` in styles/chat/transcript.css), pictures load, code blocks wrap.
 * So the end is followed whenever the content's size changes (a ResizeObserver: it reports after
 * layout and before paint, so there is no forced layout per streamed delta).
 *
 * Only the reader lets go of the end (`releasesEnd`): the wheel or a key scrolling up, a touch or a
 * scrollbar drag that moved up. A scroll nobody asked for — focus bringing a button into view, the
 * browser keeping its place while entries above take their real height — does not, or the answer
 * to the action the reader just confirmed would arrive out of sight. A scroll that lands near the
 * end follows again.
 */
export function StickyScroller({
  label,
  className,
  followKey,
  role = 'region',
  children,
}: {
  label: string;
  /**
   * `log` for a conversation (the one transcript of #26): a log is a live region by default, so it is
   * marked `aria-live="off"` — the status line announces answers, never the streamed deltas.
   */
  role?: 'region' | 'log';
  className: string;
  /** The user's newest entry (see `newestKey`): when it changes, the end is followed again, as after sending. */
  followKey?: string | undefined;
  children: ReactNode;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const lastTop = useRef(0);
  const lastFollowKey = useRef(followKey);
  /** A touch or a scrollbar drag in progress: its scrolls are the reader's. */
  const dragging = useRef(false);

  // Set in the commit, before the content's new size is reported below: what the user just sent is always shown.
  useLayoutEffect(() => {
    if (followKey === lastFollowKey.current) return;
    lastFollowKey.current = followKey;
    stick.current = true;
  }, [followKey]);

  const toEnd = () => {
    const element = scroller.current;
    if (!element || !stick.current) return;
    element.scrollTop = element.scrollHeight;
    lastTop.current = element.scrollTop;
  };

  useEffect(() => {
    const element = inner.current;
    if (!element || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(toEnd);
    observer.observe(element);
    const endDrag = () => {
      dragging.current = false;
    };
    window.addEventListener('pointerup', endDrag);
    window.addEventListener('touchend', endDrag);
    return () => {
      observer.disconnect();
      window.removeEventListener('pointerup', endDrag);
      window.removeEventListener('touchend', endDrag);
    };
  }, []);

  const gesture = (event: ScrollGesture) => {
    if (releasesEnd(event)) stick.current = false;
  };

  return (
    <div
      ref={scroller}
      className={className}
      role={role}
      aria-live={role === 'log' ? 'off' : undefined}
      aria-label={label}
      tabIndex={0}
      onWheel={(event) => gesture({ kind: 'wheel', deltaY: event.deltaY })}
      onKeyDown={(event) => gesture({ kind: 'key', key: event.key, shiftKey: event.shiftKey, editable: isEditable(event.target) })}
      onPointerDown={(event) => {
        // A press on the region itself, not on its content, is on the scrollbar.
        if (event.target === event.currentTarget) dragging.current = true;
      }}
      onTouchStart={() => {
        dragging.current = true;
      }}
      onScroll={(event) => {
        const element = event.currentTarget;
        const nearEnd = element.scrollHeight - element.scrollTop - element.clientHeight < stickDistance;
        if (nearEnd) stick.current = true;
        else if (dragging.current) gesture({ kind: 'drag', movedUp: element.scrollTop < lastTop.current });
        lastTop.current = element.scrollTop;
      }}
    >
      <div ref={inner}>
        {/* The conversation's place in the page's outline: cards and actions in it are level-3 headings under it. */}
        <h2 className="visually-hidden">{label}</h2>
        {children}
      </div>
    </div>
  );
}

function isEditable(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/** The key of the newest item `key` gives one for (searching from the end), for `followKey`. */
export function newestKey<T>(items: readonly T[], key: (item: T) => string | undefined): string | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const found = key(items[index]!);
    if (found !== undefined) return found;
  }
  return undefined;
}
