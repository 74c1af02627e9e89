import type { BrowserWindowConstructorOptions, Input, Settings as LoginItemSettings } from 'electron';
import { kioskKeyBlocked, type KioskKeyPlatform } from '../../shared/device-policy/kiosk-keys';
import type { Logger } from '../platform/logger';

/**
 * Kiosk mode in the Electron window (issue #18), as decisions Electron's events ask for, so they
 * are tested under plain Node (app.ts only wires them; this file imports Electron's types alone).
 * In kiosk mode, until the administrator unlocks (the policy's PIN, entered): the window is full
 * screen without a menu, developer tools or context menu; the keys of kiosk-keys.ts do nothing;
 * closing the window and leaving full screen are refused. The app itself may still quit (a crash
 * loop's Quit, the OS shutting down).
 */
export class KioskGuard {
  private quitting = false;

  constructor(private readonly options: { kiosk: boolean; platform: KioskKeyPlatform; adminUnlocked: () => boolean; log: Logger }) {}

  get kiosk(): boolean {
    return this.options.kiosk;
  }

  /** The window's options: kiosk (full screen, no frame controls), no menu bar, no developer tools. */
  windowOptions(): Partial<BrowserWindowConstructorOptions> {
    if (!this.options.kiosk) return {};
    return { kiosk: true, fullscreen: true, autoHideMenuBar: true, minimizable: false, maximizable: false, skipTaskbar: false };
  }

  /** The developer tools in the window's webPreferences: off in kiosk mode (no shortcut or menu can open them). */
  devTools(): boolean {
    return !this.options.kiosk;
  }

  private locked(): boolean {
    return this.options.kiosk && !this.options.adminUnlocked();
  }

  /** `before-input-event`: true when the key press must be swallowed (preventDefault). */
  blocksInput(input: Pick<Input, 'type' | 'key' | 'control' | 'alt' | 'shift' | 'meta'>): boolean {
    const blocked = kioskKeyBlocked(input, { platform: this.options.platform, kiosk: this.options.kiosk, adminUnlocked: this.options.adminUnlocked() });
    if (blocked && input.type !== 'keyUp') this.options.log.info('kiosk', `a key press that would ${blocked.replace('-', ' ')} was ignored (kiosk mode)`);
    return blocked !== undefined;
  }

  /** `before-quit`: the app quits on purpose (its own Quit, the OS ending the session); the window may close then. */
  appQuitting(): void {
    this.quitting = true;
  }

  /** The window's `close` (Alt+F4 handled by the window manager, a close button): true when it must be refused. */
  refusesClose(): boolean {
    const refuse = this.locked() && !this.quitting;
    if (refuse) this.options.log.info('kiosk', 'closing the window was refused (kiosk mode)');
    return refuse;
  }

  /** `leave-full-screen`: true when the window must go back to kiosk full screen. */
  returnsToFullScreen(): boolean {
    return this.locked();
  }

  /** `context-menu`: none is shown in kiosk mode (AgentDesk has none of its own anyway). */
  refusesContextMenu(): boolean {
    return this.options.kiosk;
  }
}

/** Seconds after `unresponsive` before a hung renderer is crashed and reloaded (a hang of a moment recovers on its own). */
export const hangGraceMs = 2000;
/** In kiosk mode a crash loop is never asked about (no one at a kiosk should choose): the window reloads after this delay. */
export const kioskCrashReloadDelayMs = 3000;

/**
 * A hung renderer (`unresponsive` without `responsive` within `graceMs`) is given up: the caller
 * crashes it and reloads, so a kiosk comes back within 3 s of Electron noticing the hang.
 */
export class HangWatch {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly graceMs: number = hangGraceMs,
    private readonly timers: { set: (run: () => void, ms: number) => ReturnType<typeof setTimeout>; clear: (timer: ReturnType<typeof setTimeout>) => void } = {
      set: (run, ms) => setTimeout(run, ms),
      clear: (timer) => clearTimeout(timer),
    },
  ) {}

  unresponsive(onHung: () => void): void {
    if (this.timer !== undefined) return;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      onHung();
    }, this.graceMs);
  }

  responsive(): void {
    if (this.timer === undefined) return;
    this.timers.clear(this.timer);
    this.timer = undefined;
  }
}

/**
 * The login item on Windows and macOS (`app.setLoginItemSettings`): a device policy in kiosk mode
 * starts AgentDesk at login; a policy without kiosk mode removes it; without a policy (or with only
 * `--kiosk` on the command line) the user's login items are left alone. Linux has none: `agentdesk
 * kiosk install` writes an autostart entry or a systemd user unit instead.
 */
export function loginItemSettings(options: { platform: NodeJS.Platform; policy: 'none' | 'failed' | { kiosk: boolean } }): LoginItemSettings | undefined {
  if (options.platform !== 'win32' && options.platform !== 'darwin') return undefined;
  if (options.policy === 'none' || options.policy === 'failed') return undefined;
  return { openAtLogin: options.policy.kiosk };
}
