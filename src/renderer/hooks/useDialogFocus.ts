import { useEffect, type RefObject } from 'react';

const focusable =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), video[controls], [tabindex]:not([tabindex="-1"])';

function tabbables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(focusable)].filter((el) => el.getAttribute('tabindex') !== '-1' && !el.closest('[hidden], [inert]'));
}

export interface DialogFocusOptions {
  /** Move focus to the first control on open and back to the opener on close (default true). */
  moveFocus?: boolean;
}

/**
 * The one focus rule of every modal (the photo dialog, the shell's drawer in narrow windows): while `active`,
 * Tab and Shift+Tab cycle inside `ref` and never reach the page behind. With `moveFocus`, opening focuses the
 * first control and closing gives focus back to the element that had it when the dialog opened.
 */
export function useDialogFocus(ref: RefObject<HTMLElement | null>, active = true, { moveFocus = true }: DialogFocusOptions = {}): void {
  useEffect(() => {
    const root = ref.current;
    if (!active || !root) return;
    const opener = moveFocus && document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    if (moveFocus) tabbables(root)[0]?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Tab') return;
      const items = tabbables(root);
      const current = document.activeElement;
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) {
        event.preventDefault();
        return;
      }
      const outside = !(current instanceof Node) || !root.contains(current);
      if (event.shiftKey ? outside || current === first : outside || current === last) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      }
    };
    document.addEventListener('keydown', onKeyDown, true);
    return () => {
      document.removeEventListener('keydown', onKeyDown, true);
      if (opener?.isConnected) opener.focus();
    };
  }, [ref, active, moveFocus]);
}
