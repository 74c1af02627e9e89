import { kioskKeyAction } from '../../shared/device-policy/kiosk-keys';

/**
 * Kiosk mode in the page (issue #18): no context menu, no navigation away, no new windows, and the
 * browser's keys do nothing: reload, back and forward, open, save, print, find, the address bar,
 * developer tools, and the window's own — close (Ctrl+W, Ctrl+F4, Alt+F4), new window and tab
 * (Ctrl+N, Ctrl+T), quit, full screen — by the one rule the Electron kiosk window applies
 * (`kioskKeyAction`, src/shared/device-policy/kiosk-keys.ts).
 *
 * Swallowing them here is what stops them in the web shell (issue #27): its Chromium window is an app
 * window (`--app`), where Chromium reserves no key for itself and acts on one only if the page did not
 * prevent it (measured with Chromium 156: without this, Ctrl+F4 and Alt+F4 closed the kiosk's window;
 * in a normal tab the page never even sees Ctrl+W, Ctrl+N, Ctrl+T). Keys the window manager takes first
 * (Alt+Tab, the Super key, Ctrl+Alt+…) are the operating system's to lock down. Main refuses the rest
 * on its side (downloads, the demo, other addresses).
 */

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const commandKeys = new Set([
  'r',
  'o',
  's',
  'p',
  'f',
  'g',
  'l',
  'u',
  'j',
  'h',
  'd',
  'n',
  't',
  'w',
  'q',
  'b',
  'm',
  '[',
  ']',
  '+',
  '-',
  '=',
  '0',
  'Tab',
  'PageUp',
  'PageDown',
  'F4',
]);

/** The browser keys a kiosk swallows (the page's own keys — typing, Tab, Enter, Escape, Space — pass). */
export function isBlockedKioskKey(event: KeyLike): boolean {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const input = { type: 'keyDown', key: event.key, control: event.ctrlKey, alt: event.altKey, shift: event.shiftKey, meta: event.metaKey };
  // The window's keys, whichever modifier is the primary one where the page runs.
  if (kioskKeyAction(input, 'linux') !== undefined || kioskKeyAction(input, 'darwin') !== undefined) return true;
  if (
    [
      'F1',
      'F3',
      'F5',
      'F6',
      'F7',
      'F10',
      'F11',
      'F12',
      'BrowserBack',
      'BrowserForward',
      'BrowserRefresh',
      'BrowserHome',
      'BrowserSearch',
      'ContextMenu',
    ].includes(key)
  )
    return true;
  // Alt+Left / Alt+Right: back and forward; Alt+Home: the home page; Alt+F and Alt+E: the browser's menu.
  if (event.altKey && ['ArrowLeft', 'ArrowRight', 'Home', 'f', 'e'].includes(key)) return true;
  const command = event.ctrlKey || event.metaKey;
  if (!command) return false;
  // Ctrl+Shift+I / J / C: developer tools; Ctrl+Shift+Delete: clear browsing data; Ctrl+Shift+A / O: tab search, bookmarks.
  if (event.shiftKey && ['i', 'j', 'c', 'Delete', 'a', 'o'].includes(key)) return true;
  // Copy, paste, cut, select all and undo stay: people type in the composer.
  return commandKeys.has(key);
}

/** A click that would leave the page: a link to anywhere but a fragment of this page. */
export function leavesPage(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  const link = target.closest('a[href], area[href]');
  if (!link) return false;
  const href = link.getAttribute('href') ?? '';
  return !href.startsWith('#');
}

/** Installs the guards on the window; returns the function that removes them. */
export function installKioskGuards(win: Window = window): () => void {
  const doc = win.document;
  const stop = (event: Event) => {
    event.preventDefault();
    event.stopPropagation();
  };
  const onContextMenu = (event: MouseEvent) => event.preventDefault();
  const onClick = (event: MouseEvent) => {
    if (leavesPage(event.target)) stop(event);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (isBlockedKioskKey(event)) stop(event);
  };
  const onSubmit = (event: SubmitEvent) => {
    // Forms in the app handle their own submit; one that does not would navigate.
    const form = event.target;
    if (form instanceof HTMLFormElement && form.getAttribute('action')) event.preventDefault();
  };
  const originalOpen = win.open;
  win.open = () => null;
  doc.addEventListener('contextmenu', onContextMenu, true);
  doc.addEventListener('click', onClick, true);
  doc.addEventListener('auxclick', onClick, true);
  doc.addEventListener('keydown', onKeyDown, true);
  doc.addEventListener('submit', onSubmit, true);
  doc.documentElement.dataset.kiosk = 'true';
  return () => {
    win.open = originalOpen;
    doc.removeEventListener('contextmenu', onContextMenu, true);
    doc.removeEventListener('click', onClick, true);
    doc.removeEventListener('auxclick', onClick, true);
    doc.removeEventListener('keydown', onKeyDown, true);
    doc.removeEventListener('submit', onSubmit, true);
    delete doc.documentElement.dataset.kiosk;
  };
}
