import { z } from 'zod';
import { adminPinLockout, adminPinWaitSeconds } from '../../shared/device-policy/admin-pin-hash';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import { JsonFileStore } from '../store/json-file-store';
import type { NoticeSink } from '../store/notices';
import { verifyAdminPin } from './admin-pin';

/**
 * The admin PIN's lockout, kept in main and saved (`admin-pin-lockout.json`), so neither a reload
 * of the page nor a restart of the app gives a guesser fresh tries. The first
 * `adminPinLockout.freeTries` wrong tries cost nothing; after that each wrong try locks the PIN for
 * a growing wait (adminPinWaitSeconds). While locked, a try is refused without being checked.
 * A right PIN clears the count.
 */
const lockoutFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** Wrong tries in a row. */
  failures: z.number().int().min(0).max(1_000_000),
  /** Until when tries are refused (ISO 8601), after the last wrong try. */
  lockedUntil: z.string().max(40).optional(),
});
type LockoutFile = z.infer<typeof lockoutFileSchema>;

/** `admin-pin-lockout.json`: version 1 since it was added. */
export const adminPinLockoutFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };
export const adminPinLockoutFileName = 'admin-pin-lockout.json';

export type AdminPinAnswer =
  | { unlocked: true }
  | {
      unlocked: false;
      /** `wrong`: this PIN was checked and is not the one; `locked`: not checked, try again after the wait. */
      reason: 'wrong' | 'locked';
      /** Seconds until the next try is checked (0: now). */
      retryAfterSeconds: number;
      /** Wrong tries left before each one locks (0 once they do). */
      freeTriesLeft: number;
    };

export interface AdminPinGateOptions {
  /** The lockout file (in the user-data folder). */
  file: string;
  /** The policy's stored hash. */
  pinHash: string;
  notices: NoticeSink;
  /** The clock (ms since the epoch); tests pass their own. */
  now?: () => number;
}

export class AdminPinGate {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: JsonFileStore<typeof lockoutFileSchema>,
    private state: LockoutFile,
    private readonly options: AdminPinGateOptions,
  ) {}

  static async open(options: AdminPinGateOptions): Promise<AdminPinGate> {
    const store = new JsonFileStore(options.file, lockoutFileSchema, () => ({ schemaVersion: 1 as const, failures: 0 }), adminPinLockoutFileFormat);
    const { value, notice } = await store.load();
    if (notice) options.notices.push(notice);
    return new AdminPinGate(store, value, options);
  }

  /** Seconds until a try is checked again (0: now). A clock set back never makes the wait longer than the longest wait. */
  retryAfterSeconds(): number {
    if (this.state.lockedUntil === undefined) return 0;
    const left = Date.parse(this.state.lockedUntil) - this.now();
    if (!(left > 0)) return 0;
    return Math.ceil(Math.min(left / 1000, adminPinLockout.maxWaitSeconds));
  }

  /** Checks one try. Tries are taken one at a time, so two at once cannot share a free try. */
  unlock(pin: string): Promise<AdminPinAnswer> {
    const answer = this.queue.then(() => this.check(pin));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  private async check(pin: string): Promise<AdminPinAnswer> {
    const wait = this.retryAfterSeconds();
    if (wait > 0) return { unlocked: false, reason: 'locked', retryAfterSeconds: wait, freeTriesLeft: 0 };
    if (await verifyAdminPin(pin, this.options.pinHash)) {
      await this.save({ schemaVersion: 1, failures: 0 });
      return { unlocked: true };
    }
    const failures = this.state.failures + 1;
    const seconds = adminPinWaitSeconds(failures);
    await this.save({ schemaVersion: 1, failures, ...(seconds > 0 ? { lockedUntil: new Date(this.now() + seconds * 1000).toISOString() } : {}) });
    return { unlocked: false, reason: 'wrong', retryAfterSeconds: seconds, freeTriesLeft: Math.max(0, adminPinLockout.freeTries - failures) };
  }

  /** Keeps the state in memory whatever happens; a failed save is said once as a notice (the lockout still holds for this run). */
  private async save(next: LockoutFile): Promise<void> {
    this.state = next;
    try {
      await this.store.save(next);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unknown error';
      this.options.notices.push({
        code: 'admin_lockout_not_saved',
        detail: reason,
        message: `The admin PIN's lockout could not be saved (${reason}); it holds until AgentDesk closes.`,
      });
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
