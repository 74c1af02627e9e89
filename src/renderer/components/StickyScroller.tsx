import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

/** How close to the end (px) counts as "reading the newest": new content then scrolls into view. */
const stickDistance = 48;

/**
 * A conversation's scrolling region: it follows new content while the reader is at the end and
 * stays put once they scrolled up. Deliberately not a live region (streamed text would be read out
 * delta by delta); focusable, since scrollable content must be reachable from the keyboard.
 *
 * Content also grows without a new render: entries off screen are laid out at an estimated height
 * until they are shown (`content-visibility: auto` in chat.css), pictures load, code blocks wrap.
 * So the end is followed whenever the content's size changes (a ResizeObserver: it reports after
 * layout and before paint, so there is no forced layout per streamed delta), and only the reader
 * scrolling up lets go of it: a scroll that moved down, or that landed near the end, keeps it.
 */
export function StickyScroller({
  label,
  className,
  followKey,
  children,
}: {
  label: string;
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
    return () => observer.disconnect();
  }, []);

  return (
    <div
      ref={scroller}
      className={className}
      role="region"
      aria-label={label}
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget;
        const nearEnd = element.scrollHeight - element.scrollTop - element.clientHeight < stickDistance;
        if (nearEnd) stick.current = true;
        else if (element.scrollTop < lastTop.current) stick.current = false;
        lastTop.current = element.scrollTop;
      }}
    >
      <div ref={inner}>{children}</div>
    </div>
  );
}

/** The key of the newest item `key` gives one for (searching from the end), for `followKey`. */
export function newestKey<T>(items: readonly T[], key: (item: T) => string | undefined): string | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const found = key(items[index]!);
    if (found !== undefined) return found;
  }
  return undefined;
}
