/**
 * The voice call's global shortcut: a key combination main listens for while a call is connected,
 * also when AgentDesk is in the background (Electron's globalShortcut). Operating systems report only
 * the press of such a key, never its release, so it toggles (see `shortcut` in voice-call.ts) rather
 * than being held. It is taken from the system only for the length of a connected call.
 */

/** An Electron accelerator: Ctrl+Shift+Space (Cmd+Shift+Space on macOS). */
export const callShortcut = 'CommandOrControl+Shift+Space';

/** The shortcut as people read it on their system. */
export function callShortcutLabel(platform: string): string {
  return platform === 'darwin' ? 'Cmd+Shift+Space' : 'Ctrl+Shift+Space';
}
