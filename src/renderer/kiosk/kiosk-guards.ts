/**
 * Kiosk mode in the page (issue #18): no context menu, no navigation away, no new windows, and the
 * browser's own keys the page is allowed to see (reload, back and forward, open, save, print, find,
 * the address bar, developer tools) do nothing. Keys Chromium keeps for itself (Ctrl+W, Ctrl+N,
 * Ctrl+T, Alt+F4) never reach a page: Electron's kiosk window blocks those, the web shell cannot.
 * Main refuses the rest on its side (downloads, the demo, other addresses).
 */

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const commandKeys = new Set(['r', 'o', 's', 'p', 'f', 'g', 'l', 'u', 'j', 'h', 'd', 'n', 't', 'w', '[', ']', '+', '-', '=', '0']);

/** The browser keys a kiosk swallows (the page's own keys — typing, Tab, Enter, Escape, Space — pass). */
export function isBlockedKioskKey(event: KeyLike): boolean {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (['F1', 'F3', 'F5', 'F6', 'F7', 'F10', 'F11', 'F12', 'BrowserBack', 'BrowserForward', 'BrowserRefresh', 'BrowserHome', 'BrowserSearch', 'ContextMenu'].includes(key)) return true;
  // Alt+Left / Alt+Right: back and forward; Alt+Home: the home page.
  if (event.altKey && ['ArrowLeft', 'ArrowRight', 'Home'].includes(key)) return true;
  const command = event.ctrlKey || event.metaKey;
  if (!command) return false;
  // Ctrl+Shift+I / J / C: developer tools; Ctrl+Shift+Delete: clear browsing data.
  if (event.shiftKey && ['i', 'j', 'c', 'Delete'].includes(key)) return true;
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
