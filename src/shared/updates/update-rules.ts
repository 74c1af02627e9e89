import { maintenanceWindowPattern, type DevicePolicy } from '../device-policy/device-policy';

/**
 * When AgentDesk looks for an update and when it installs one (issue #28), as pure rules: the
 * update controller (src/main/updates/) asks them, the Electron glue only carries out the answer.
 * Updates come only from the feed the device policy names, and an update is installed only where
 * nothing is going on: when AgentDesk is closed, right after a kiosk's idle reset, or inside the
 * maintenance window once the conversations have been quiet for a while — never mid-conversation.
 */

export type InstallMode = 'on-quit' | 'idle-reset' | 'maintenance-window';

/** The policy's `updates`, with its defaults filled in. */
export interface UpdateSettings {
  url: string;
  publicKey: string;
  channel: 'latest' | 'beta' | 'alpha';
  install: InstallMode;
  /** install 'maintenance-window': minutes after local midnight. */
  window?: { start: number; end: number };
}

/** The policy's update settings, or undefined when it sets none or turns updates off (then nothing is ever checked). */
export function updateSettingsOf(policy: DevicePolicy | undefined): UpdateSettings | undefined {
  const updates = policy?.updates;
  if (!updates?.enabled || updates.url === undefined || updates.publicKey === undefined) return undefined;
  const install = updates.install ?? (policy?.kiosk === true ? 'idle-reset' : 'on-quit');
  const window = updates.maintenanceWindow === undefined ? undefined : parseMaintenanceWindow(updates.maintenanceWindow);
  return { url: updates.url, publicKey: updates.publicKey, channel: updates.channel ?? 'latest', install, ...(window ? { window } : {}) };
}

/** "HH:MM-HH:MM" → minutes after midnight (undefined for anything else). */
export function parseMaintenanceWindow(text: string): { start: number; end: number } | undefined {
  if (!maintenanceWindowPattern.test(text)) return undefined;
  const [start, end] = text.split('-').map((part) => {
    const [hours, minutes] = part.split(':').map(Number);
    return hours! * 60 + minutes!;
  });
  return { start: start!, end: end! };
}

/** Whether a local time (minutes after midnight) is inside the window; a window may pass midnight, one of zero length is never open. */
export function inMaintenanceWindow(window: { start: number; end: number }, minuteOfDay: number): boolean {
  if (window.start === window.end) return false;
  return window.start < window.end ? minuteOfDay >= window.start && minuteOfDay < window.end : minuteOfDay >= window.start || minuteOfDay < window.end;
}

/**
 * Versions as electron-builder writes them (semantic versions: 1.2.3, 1.3.0-beta.2, build metadata
 * ignored): negative when a < b, 0 when equal, positive when a > b; undefined when either is not one.
 */
export function compareVersions(a: string, b: string): number | undefined {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (!left || !right) return undefined;
  for (let index = 0; index < 3; index++) if (left.core[index] !== right.core[index]) return left.core[index]! - right.core[index]!;
  // A pre-release is before its release (1.0.0-beta < 1.0.0); pre-release parts compare one by one, numbers below words.
  if (left.pre.length === 0 || right.pre.length === 0) return right.pre.length - left.pre.length;
  for (let index = 0; index < Math.max(left.pre.length, right.pre.length); index++) {
    const x = left.pre[index];
    const y = right.pre[index];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xNumber = /^\d+$/.test(x);
    const yNumber = /^\d+$/.test(y);
    if (xNumber && yNumber) return Number(x) - Number(y);
    if (xNumber !== yNumber) return xNumber ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function parseVersion(text: string): { core: number[]; pre: string[] } | undefined {
  const match = /^v?(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!match) return undefined;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] === undefined ? [] : match[4].split('.') };
}

/** How often the feed is read: a while after start, then every few hours; sooner again after a failure. */
export const updateTimings = {
  firstCheckMs: 2 * 60_000,
  everyMs: 4 * 60 * 60_000,
  retryMs: 60 * 60_000,
  /** install 'maintenance-window': the conversations must have been quiet this long. */
  quietMs: 10 * 60_000,
  /** How often the window is looked at while an update waits. */
  tickMs: 60_000,
} as const;

export type UpdatePhase = 'idle' | 'checking' | 'downloading' | 'ready' | 'installing' | 'refused' | 'failed';

/** When to read the feed next, in ms from now: undefined while an update is on its way or waits to be installed. */
export function nextCheckDelayMs(state: { phase: UpdatePhase; checks: number }): number | undefined {
  if (state.phase === 'checking' || state.phase === 'downloading' || state.phase === 'ready' || state.phase === 'installing') return undefined;
  if (state.checks === 0) return updateTimings.firstCheckMs;
  return state.phase === 'failed' ? updateTimings.retryMs : updateTimings.everyMs;
}

/** What is going on in the conversations (main's conversation service and voice calls). */
export interface ConversationActivity {
  /** An answer is coming, a message waits to be sent, or a voice call is open. */
  busy: boolean;
  /** The last time anything happened in a conversation (ms since the epoch). */
  lastActivityAt: number | undefined;
}

/** A moment an install may happen: the minute's tick, the end of a kiosk reset, the app quitting. */
export type InstallMoment = 'tick' | 'idle-reset' | 'quit';

/**
 * Whether a downloaded, checked update is installed at this moment: only at the mode's own moment,
 * and never while a conversation is going on (the app quitting ends every conversation itself).
 */
export function installDecision(
  mode: UpdateSettings,
  moment: InstallMoment,
  now: Date,
  activity: ConversationActivity,
): { install: true } | { install: false; reason: string } {
  switch (mode.install) {
    case 'on-quit':
      return moment === 'quit' ? { install: true } : { install: false, reason: 'installed when AgentDesk is closed' };
    case 'idle-reset':
      if (moment !== 'idle-reset') return { install: false, reason: "installed right after the kiosk's next idle reset" };
      return activity.busy ? { install: false, reason: 'a conversation started again during the reset' } : { install: true };
    case 'maintenance-window': {
      if (moment !== 'tick') return { install: false, reason: 'installed inside the maintenance window' };
      if (!mode.window || !inMaintenanceWindow(mode.window, now.getHours() * 60 + now.getMinutes()))
        return { install: false, reason: 'outside the maintenance window' };
      if (activity.busy) return { install: false, reason: 'a conversation is going on' };
      if (activity.lastActivityAt !== undefined && now.getTime() - activity.lastActivityAt < updateTimings.quietMs)
        return { install: false, reason: 'a conversation was active in the last 10 minutes' };
      return { install: true };
    }
  }
}
