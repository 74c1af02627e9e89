import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** How close to the end (px) counts as "reading the newest": new content then scrolls into view. */
const stickDistance = 48;

/**
 * A conversation's scrolling region: it follows new content while the reader is at the end and
 * stays put once they scrolled up. Deliberately not a live region (streamed text would be read out
 * delta by delta); focusable, since scrollable content must be reachable from the keyboard.
 */
export function StickyScroller({ label, className, content, children }: { label: string; className: string; content: unknown; children: ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [content]);

  return (
    <div
      ref={scroller}
      className={className}
      role="region"
      aria-label={label}
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget;
        stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < stickDistance;
      }}
    >
      {children}
    </div>
  );
}
