/**
 * The keys a kiosk window swallows (issue #18): the one rule, applied by Electron's
 * `before-input-event` (src/main/electron/kiosk.ts). Without the admin unlock (the policy's PIN,
 * entered), the keys that would close the window, quit the app, leave full screen or open the
 * developer tools do nothing; with it, they work as usual. Keys the window never sees (Ctrl+Alt+Del,
 * Cmd+Option+Esc, the window manager's own) are the operating system's to lock down.
 */

/** What a key press is, as Electron's `Input` gives it (`key` is the character or key name). */
export interface KioskKeyInput {
  type: string;
  key: string;
  control: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
}

export type KioskKeyPlatform = 'darwin' | 'win32' | 'linux' | (string & {});

/** Why a key press is blocked: what it would have done. */
export type BlockedKioskKey = 'close-window' | 'quit' | 'full-screen' | 'devtools' | 'hide';

/**
 * What the key press would do in a kiosk window that must stay, or undefined for any other key.
 * `platform` picks the primary modifier: Cmd (meta) on macOS, Ctrl elsewhere; Alt+F4 and F11 on every platform.
 */
export function kioskKeyAction(input: KioskKeyInput, platform: KioskKeyPlatform): BlockedKioskKey | undefined {
  if (input.type !== 'keyDown' && input.type !== 'rawKeyDown' && input.type !== 'keyUp') return undefined;
  const key = input.key.length === 1 ? input.key.toLowerCase() : input.key;
  const mac = platform === 'darwin';
  // The primary modifier; on macOS Ctrl+W and Ctrl+Q are blocked too (Ctrl is the primary one in a Windows VM or with a PC keyboard layout setting).
  const primary = mac ? input.meta || input.control : input.control;
  if (key === 'F4' && (input.alt || input.control)) return 'close-window';
  if (key === 'F11') return 'full-screen';
  if (key === 'F12') return 'devtools';
  if (primary && key === 'w') return 'close-window';
  if (primary && key === 'q') return 'quit';
  if (primary && input.shift && (key === 'i' || key === 'j' || key === 'c')) return 'devtools';
  if (mac && input.meta && input.alt && (key === 'i' || key === 'j' || key === 'c')) return 'devtools';
  if (mac && input.meta && input.control && key === 'f') return 'full-screen';
  if (mac && input.meta && (key === 'h' || key === 'm')) return 'hide';
  return undefined;
}

/** The rule as applied: blocked in kiosk mode unless the administrator unlocked it. */
export function kioskKeyBlocked(
  input: KioskKeyInput,
  options: { platform: KioskKeyPlatform; kiosk: boolean; adminUnlocked: boolean },
): BlockedKioskKey | undefined {
  if (!options.kiosk || options.adminUnlocked) return undefined;
  return kioskKeyAction(input, options.platform);
}
