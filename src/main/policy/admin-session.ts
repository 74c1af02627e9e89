import type { AdminUnlockResponse } from '../../shared/device-policy/ipc-schemas';
import type { AdminPinGate } from './admin-pin-gate';

/** How long a right admin PIN allows settings changes. */
export const adminUnlockMs = 5 * 60_000;

/**
 * Whether the administrator unlocked settings (device policy `admin.pinHash`): a right PIN opens
 * them for `adminUnlockMs`; main keeps this, the page only asks. Without a PIN in the policy there
 * is nothing to unlock.
 */
export class AdminSession {
  private unlockedUntil = 0;

  constructor(
    private readonly gate: AdminPinGate | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The policy puts settings behind a PIN. */
  get pinRequired(): boolean {
    return this.gate !== undefined;
  }

  /** Settings may change now: no PIN in the policy, or a right one within `adminUnlockMs`. */
  isOpen(): boolean {
    return this.gate === undefined || this.now() < this.unlockedUntil;
  }

  /**
   * The administrator entered the policy's PIN within `adminUnlockMs`: a kiosk's window may then be
   * closed or left. Without a PIN in the policy there is no one to unlock it from the screen (false).
   */
  unlockedByPin(): boolean {
    return this.gate !== undefined && this.now() < this.unlockedUntil;
  }

  /** The kiosk's reset: the next person needs the PIN again. */
  lock(): void {
    this.unlockedUntil = 0;
  }

  async unlock(pin: string): Promise<AdminUnlockResponse> {
    if (!this.gate) return { unlocked: false, reason: 'no_pin', retryAfterSeconds: 0, freeTriesLeft: 0 };
    const answer = await this.gate.unlock(pin);
    if (!answer.unlocked) return answer;
    this.unlockedUntil = this.now() + adminUnlockMs;
    return { unlocked: true, until: new Date(this.unlockedUntil).toISOString() };
  }
}
