import {
  installDecision,
  nextCheckDelayMs,
  updateTimings,
  type ConversationActivity,
  type InstallMoment,
  type UpdatePhase,
  type UpdateSettings,
} from '../../shared/updates/update-rules';
import type { NetPolicy } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import { checkDownloadedFile, checkFeed, feedBase, UpdateRefused, type FeedFile, type InstallerKind } from './update-feed';

/**
 * Updates a fleet controls (issue #28): AgentDesk reads the feed the device policy names, checks it
 * (update-feed.ts: signed, on the policy's host, newer), lets electron-updater download that
 * release, checks the downloaded file against the signed feed, and installs it only at the moment
 * the policy's `updates.install` allows and never during a conversation (update-rules.ts). Every
 * decision is here, under plain Node; the engine (src/main/electron/updater.ts, electron-updater)
 * only reads, downloads and installs when told. Without `updates.enabled` nothing of this runs.
 */

/** What electron-updater does for AgentDesk, and nothing more. */
export interface UpdateEngine {
  /** Points the updater at the feed and reads it: the release it found (its version and files), or undefined for none. */
  check(feed: { url: string; channel: string }): Promise<{ version: string; files: { url: string; sha512: string }[] } | undefined>;
  /** Downloads the release the last check found: the installer's path. */
  download(): Promise<string>;
  /** Quits AgentDesk, installs silently and starts it again. */
  installNow(): void;
  /** Lets the updater install the downloaded release when AgentDesk quits (only after AgentDesk checked it). */
  installOnQuit(enabled: boolean): void;
}

export interface UpdateState {
  phase: UpdatePhase;
  /** The release on its way or waiting to be installed. */
  version?: string;
  /** Why the last check refused the feed or failed, in words; its code for a refusal. */
  problem?: string;
  refusal?: string;
  lastCheckAt?: string;
  /** Why a waiting update is not installed yet. */
  waiting?: string;
}

export interface UpdateControllerDeps {
  settings: UpdateSettings;
  currentVersion: string;
  system: { platform: NodeJS.Platform; arch: string; installer: InstallerKind };
  engine: UpdateEngine;
  activity: () => ConversationActivity;
  log: Logger;
  /** Tests: the clock and the timers (default: Date and setTimeout). */
  now?: () => Date;
  setTimer?: (run: () => void, ms: number) => { cancel(): void };
  /** Tests: the resolver of the feed's host (default: the system's). */
  lookup?: NetPolicy['lookup'];
}

export class UpdateController {
  private current: UpdateState = { phase: 'idle' };
  private checks = 0;
  private timer: { cancel(): void } | undefined;
  private ticker: { cancel(): void } | undefined;
  private ready: { version: string; file: string; expected: FeedFile } | undefined;
  private disposed = false;

  constructor(private readonly deps: UpdateControllerDeps) {}

  state(): UpdateState {
    return { ...this.current };
  }

  /** Starts the schedule: the first check a while after start, then every few hours (sooner after a failure). */
  start(): void {
    this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.ticker?.cancel();
  }

  /** One check now: read and check the feed, download, check the file. Answers the state it ends in. */
  async checkNow(): Promise<UpdateState> {
    if (this.current.phase === 'checking' || this.current.phase === 'downloading' || this.current.phase === 'ready' || this.current.phase === 'installing')
      return this.state();
    const { settings, engine, log } = this.deps;
    this.checks += 1;
    this.set({ phase: 'checking', lastCheckAt: this.now().toISOString() });
    try {
      const feed = await checkFeed(settings, { ...this.deps.system, currentVersion: this.deps.currentVersion }, this.netPolicy());
      if (!feed.update) {
        this.set({ phase: 'idle' });
        return this.state();
      }
      const { info, file } = feed.update;
      // electron-updater reads the feed itself: what it found must be the signed release, file for file.
      const found = await engine.check({ url: settings.url, channel: settings.channel });
      const same =
        found &&
        found.version === info.version &&
        found.files.some((candidate) => candidate.sha512 === file.sha512 && new URL(candidate.url, feedBase(settings.url)).href === file.url);
      if (!same)
        throw new UpdateRefused(
          'updater_disagrees',
          `the updater read ${found ? `version ${found.version} with other files` : 'no update'} where the signed feed offers ${info.version}: not downloaded`,
        );
      this.set({ phase: 'downloading', version: info.version });
      const downloaded = await engine.download();
      await checkDownloadedFile(downloaded, file);
      this.ready = { version: info.version, file: downloaded, expected: file };
      this.set({ phase: 'ready', version: info.version });
      log.info(
        'updates',
        `AgentDesk ${info.version} is downloaded and checked (signed feed, SHA-512); ${settings.install === 'on-quit' ? 'it is installed when AgentDesk is closed' : settings.install === 'idle-reset' ? 'it is installed after the next idle reset' : 'it is installed inside the maintenance window'}`,
      );
      if (settings.install === 'on-quit') engine.installOnQuit(true);
      if (settings.install === 'maintenance-window') this.tickEvery();
      return this.state();
    } catch (error) {
      const refused = error instanceof UpdateRefused;
      this.set({ phase: refused ? 'refused' : 'failed', problem: (error as Error).message, ...(refused ? { refusal: error.code } : {}) });
      log.warn('updates', `${refused ? 'update refused' : 'update check failed'}: ${(error as Error).message}`);
      return this.state();
    } finally {
      this.schedule();
    }
  }

  /**
   * A moment an update may be installed: the minute's tick (maintenance window), the end of a kiosk's
   * reset, the app quitting. Installs when the rules say so; answers whether it did.
   */
  async moment(moment: InstallMoment): Promise<boolean> {
    if (!this.ready || this.current.phase !== 'ready') return false;
    const decision = installDecision(this.deps.settings, moment, this.now(), this.deps.activity());
    if (!decision.install) {
      if (this.current.waiting !== decision.reason) this.set({ ...this.current, waiting: decision.reason });
      return false;
    }
    // Checked once more just before: the file in the updater's cache is still the signed one.
    try {
      await checkDownloadedFile(this.ready.file, this.ready.expected);
    } catch (error) {
      this.ready = undefined;
      this.deps.engine.installOnQuit(false);
      this.set({ phase: 'refused', problem: (error as Error).message, refusal: 'mismatched' });
      this.deps.log.warn('updates', `update refused: ${(error as Error).message}`);
      this.schedule();
      return false;
    }
    if (moment === 'quit') return true; // the updater installs it as the app quits (installOnQuit)
    this.set({ phase: 'installing', version: this.ready.version });
    this.deps.log.info(
      'updates',
      `installing AgentDesk ${this.ready.version} (${moment === 'idle-reset' ? 'after an idle reset' : 'inside the maintenance window'})`,
    );
    this.deps.engine.installNow();
    return true;
  }

  private netPolicy(): NetPolicy {
    const url = new URL(this.deps.settings.url);
    // The feed's host is the administrator's choice: it may be on the local network. http:// only where the policy allowed it (the schema's rule).
    return {
      allowLocalHttp: url.protocol === 'http:',
      allowedPrivateHosts: [url.hostname.toLowerCase().replace(/^\[|\]$/g, '')],
      ...(this.deps.lookup ? { lookup: this.deps.lookup } : {}),
    };
  }

  private schedule(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.disposed) return;
    const delay = nextCheckDelayMs({ phase: this.current.phase, checks: this.checks });
    if (delay !== undefined) this.timer = this.setTimer(() => void this.checkNow(), delay);
  }

  private tickEvery(): void {
    this.ticker?.cancel();
    if (this.disposed) return;
    this.ticker = this.setTimer(() => {
      void this.moment('tick').then((installed) => installed || this.current.phase !== 'ready' || this.tickEvery());
    }, updateTimings.tickMs);
  }

  private set(state: UpdateState): void {
    const lastCheckAt = state.lastCheckAt ?? this.current.lastCheckAt;
    this.current = { ...state, ...(lastCheckAt ? { lastCheckAt } : {}) };
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private setTimer(run: () => void, ms: number): { cancel(): void } {
    if (this.deps.setTimer) return this.deps.setTimer(run, ms);
    const handle = setTimeout(run, ms);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  }
}
