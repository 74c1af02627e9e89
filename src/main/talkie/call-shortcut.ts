import { callShortcut, callShortcutLabel } from '../../shared/talkie/voice/call-shortcut';
import type { MethodResponse } from '../../shared/ipc/contract';

/** The system's global keys (Electron's globalShortcut); a shell without them (the web shell) has none. */
export interface GlobalKeys {
  /** False when another program holds the combination. */
  register(accelerator: string, onPress: () => void): boolean;
  unregister(accelerator: string): void;
}

export type CallShortcutState = MethodResponse<'talkie.voiceShortcut'>;

/**
 * The voice call's global shortcut (src/shared/talkie/voice/call-shortcut.ts), held for one call at
 * a time: arming it for a call takes it from the previous one; the call's end, a disarm or dispose
 * gives the keys back to the system. Presses go to `onPress` with the call they belong to.
 */
export class CallShortcut {
  private owner: { callId: string; accelerator: string } | undefined;

  constructor(
    private readonly deps: {
      keys: GlobalKeys | undefined;
      onPress: (callId: string) => void;
      /** The combination to take (the user's setting, read at each arm); default: Ctrl/Cmd+Shift+Space. */
      accelerator?: () => string;
      platform?: string;
    },
  ) {}

  arm(callId: string): CallShortcutState {
    const { keys } = this.deps;
    if (!keys) return { state: 'unavailable' };
    const accelerator = this.deps.accelerator?.() ?? callShortcut;
    const label = callShortcutLabel(this.deps.platform ?? process.platform, accelerator);
    if (this.owner?.callId === callId && this.owner.accelerator === accelerator) return { state: 'armed', label };
    this.release();
    const registered = keys.register(accelerator, () => {
      if (this.owner !== undefined) this.deps.onPress(this.owner.callId);
    });
    if (!registered) return { state: 'taken', label };
    this.owner = { callId, accelerator };
    return { state: 'armed', label };
  }

  /** Gives the keys back if `callId` holds them (a call that ended, or asked to disarm). */
  disarm(callId: string): CallShortcutState {
    if (this.owner?.callId === callId) this.release();
    return { state: 'off' };
  }

  /** Who holds the keys now (for tests and logs). */
  get armedFor(): string | undefined {
    return this.owner?.callId;
  }

  release(): void {
    if (this.owner === undefined) return;
    const { accelerator } = this.owner;
    this.owner = undefined;
    this.deps.keys?.unregister(accelerator);
  }
}
