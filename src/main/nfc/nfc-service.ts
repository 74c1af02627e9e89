import { randomUUID } from 'node:crypto';
import type { ObjectPassport } from '../../shared/agentcall/passport';
import { ServiceError } from '../../shared/base/errors';
import { defaultNfcSettings, nfcArmTimeoutMs, type NfcScanResult, type NfcSettings, type NfcStatus } from '../../shared/nfc/ipc-schemas';
import type { MainToReader, ReaderToMain } from '../../shared/nfc/reader-protocol';
import { smartCardServiceFix } from '../../shared/nfc/service-fix';
import type { Logger } from '../platform/logger';
import { observeTap } from './alias';
import { DeviceKeyError, type DeviceKey } from './device-key';
import type { ReaderProcessState } from './reader-supervisor';
import { Listeners } from '../../shared/base/listeners';

/**
 * NFC in main: reader status for the UI, and user-initiated scans.
 *
 * - A scan is armed by the user through a visible control (`arm`), shows "Hold the tag to the
 *   reader" with a timeout and Cancel, and ends with one result: an observation, the timeout, or a
 *   cancel. A failed read (tag lifted, unsupported card) is reported with `retry: true` and the scan
 *   stays armed. The reader process reads cards only while a scan is armed; a tap that reaches main
 *   while nothing is armed is dropped without computing anything.
 * - Kiosk policy (setting `kioskScan`, off by default): while the glue reports the window focused
 *   and the scan indicator visible (`setKioskActive(true)`), scanning stays armed and every tap
 *   yields a result.
 * - One result per tap: the reader process reports a card once per presentation, and the same tag
 *   (same alias) is ignored for `debounceMs` after it was read, unless it was lifted from the reader
 *   in between (then it is a new tap).
 * - The card ID arrives from the reader process and ends in `observeTap`; results, status and logs
 *   carry the observation object only.
 */

/** What the service needs from the reader supervisor (ReaderSupervisor, or a fake in tests). */
export interface ReaderPort {
  start(): void;
  stop(): Promise<void>;
  send(message: MainToReader): void;
  onMessage(listener: (message: ReaderToMain) => void): () => void;
  onState(listener: (state: ReaderProcessState, detail?: string) => void): () => void;
  readonly processState: ReaderProcessState;
  readonly processDetail: string | undefined;
}

export interface NfcServiceOptions {
  readers: ReaderPort;
  /** The device key (keychain or policy file); called on arm, cached after the first success. */
  deviceKey: () => Promise<DeviceKey>;
  settings?: () => NfcSettings;
  log: Logger;
  platform?: string;
  /** Linux distribution IDs for the smart-card service fix (from /etc/os-release). */
  distro?: readonly string[];
}

/** Timing of one observation, for the benchmark (not part of any contract). */
export interface TapTiming {
  /** When PC/SC reported the card, in the reader process (epoch ms). */
  detectedAt: number;
  /** The reader process's ID + NDEF read time (ms). */
  readMs: number;
  /** When main received the tap message (epoch ms). */
  receivedAt: number;
  /** When the result was emitted (epoch ms). */
  emittedAt: number;
}

interface Scan {
  scanId: string;
  kiosk: boolean;
  expiresAt?: number;
  timer?: NodeJS.Timeout;
}

const maxKnownReaders = 16;

/** Wall-clock ms with sub-millisecond precision, comparable with the reader process's detectedAt. */
const preciseNow = () => performance.timeOrigin + performance.now();

export class NfcService {
  private readonly readers: ReaderPort;
  private readonly settings: () => NfcSettings;
  private readonly log: Logger;
  private readonly platform: string;
  private readonly distro: readonly string[];
  private key: Promise<DeviceKey> | undefined;
  private service: { state: 'connecting' | 'ready' | 'missing' | 'lost'; installed?: boolean } = { state: 'connecting' };
  private readonly known = new Map<string, { connected: boolean; cardPresent: boolean }>();
  private lastError: { message: string; at: string } | undefined;
  private scan: Scan | undefined;
  private kioskActive = false;
  /** Tags read lately (alias → when, and on which reader): ignored until lifted from that reader or for debounceMs. */
  private readonly recent = new Map<string, { at: number; reader: string }>();
  private lastStatusJson = '';
  private readonly statusListeners = new Listeners<[NfcStatus]>((error) => this.log.error('nfc', 'an NFC status listener failed', error));
  private readonly resultListeners = new Listeners<[NfcScanResult, TapTiming?, ObjectPassport?]>((error) =>
    this.log.error('nfc', 'an NFC result listener failed', error),
  );
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly options: NfcServiceOptions) {
    this.readers = options.readers;
    this.settings = options.settings ?? (() => defaultNfcSettings);
    this.log = options.log;
    this.platform = options.platform ?? process.platform;
    this.distro = options.distro ?? [];
  }

  start(): void {
    this.unsubscribe.push(this.readers.onMessage((message) => this.onReaderMessage(message)));
    this.unsubscribe.push(this.readers.onState((state) => this.onProcessState(state)));
    this.readers.send({ type: 'arm', armed: false });
    this.readers.send({ type: 'configure', readerFeedback: this.settings().readerFeedback });
    this.readers.start();
    this.emitStatus();
  }

  async dispose(): Promise<void> {
    this.endScan();
    for (const off of this.unsubscribe.splice(0)) off();
    await this.readers.stop();
  }

  onStatus(listener: (status: NfcStatus) => void): () => void {
    return this.statusListeners.subscribe(listener);
  }

  /** Scan results; with an observation, its timing and the tag's object passport (main only: AgentCall sessions show it once the scan is sent). */
  onResult(listener: (result: NfcScanResult, timing?: TapTiming, passport?: ObjectPassport) => void): () => void {
    return this.resultListeners.subscribe(listener);
  }

  /** Call after a settings change: reader feedback goes to the reader process; kiosk off disarms. */
  settingsChanged(): void {
    this.readers.send({ type: 'configure', readerFeedback: this.settings().readerFeedback });
    if (!this.settings().kioskScan && this.scan?.kiosk) this.setKioskActive(false);
  }

  status(): NfcStatus {
    const process = this.readers.processState;
    let service: NonNullable<NfcStatus['service']>;
    let detail: string | undefined;
    let fix: string | undefined;
    if (process === 'failed') {
      service = 'failed';
      detail = this.readers.processDetail ?? 'The NFC reader service cannot run on this computer.';
    } else if (process === 'restarting') {
      service = 'restarting';
      detail = this.readers.processDetail ?? 'The NFC reader service stopped unexpectedly; restarting.';
    } else if (process !== 'running' || this.service.state === 'connecting') {
      service = 'starting';
      detail = 'Starting the NFC reader service.';
    } else if (this.service.state === 'missing' || this.service.state === 'lost') {
      service = 'missing';
      detail =
        this.service.installed === false
          ? 'The smart-card service (pcscd) is not installed.'
          : this.service.state === 'lost'
            ? 'The smart-card service stopped; waiting for it to come back.'
            : 'The smart-card service is not running.';
      fix = smartCardServiceFix({
        platform: this.platform,
        distro: this.distro,
        ...(this.service.installed === undefined ? {} : { installed: this.service.installed }),
      });
    } else {
      service = 'running';
    }
    const scan = this.scan;
    return {
      state: service === 'running' ? 'ready' : 'unavailable',
      readers: [...this.known].map(([name, reader]) => ({ name, connected: reader.connected, cardPresent: reader.cardPresent })),
      ...(detail ? { detail } : {}),
      service,
      ...(fix ? { fix } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      scan: {
        armed: scan !== undefined,
        ...(scan ? { scanId: scan.scanId } : {}),
        ...(scan?.expiresAt !== undefined ? { expiresAt: new Date(scan.expiresAt).toISOString() } : {}),
        kiosk: scan?.kiosk ?? false,
      },
    };
  }

  /**
   * Arms one scan (the UI calls this from a visible control, right after the user's click). Replaces
   * a scan that is still armed (that one ends as cancelled). Refused without a device key.
   */
  async arm(options: { timeoutMs?: number } = {}): Promise<{ scanId: string; expiresAt: string }> {
    const timeoutMs = options.timeoutMs ?? nfcArmTimeoutMs.default;
    if (!Number.isInteger(timeoutMs) || timeoutMs < nfcArmTimeoutMs.min || timeoutMs > nfcArmTimeoutMs.max) {
      throw new ServiceError('invalid_request', `The scan timeout must be ${nfcArmTimeoutMs.min}–${nfcArmTimeoutMs.max} ms.`);
    }
    await this.deviceKey();
    if (this.scan) this.finish({ scanId: this.scan.scanId, outcome: 'cancelled' });
    const scan: Scan = { scanId: randomUUID(), kiosk: false, expiresAt: Date.now() + timeoutMs };
    scan.timer = setTimeout(() => {
      if (this.scan === scan) this.finish({ scanId: scan.scanId, outcome: 'timeout' });
    }, timeoutMs);
    this.scan = scan;
    this.readers.send({ type: 'arm', armed: true });
    this.emitStatus();
    return { scanId: scan.scanId, expiresAt: new Date(scan.expiresAt!).toISOString() };
  }

  /** Cancels the armed scan (any, or only the one named). */
  cancel(scanId?: string): { cancelled: boolean } {
    const scan = this.scan;
    if (!scan || (scanId !== undefined && scan.scanId !== scanId)) return { cancelled: false };
    if (scan.kiosk) {
      this.setKioskActive(false);
      return { cancelled: true };
    }
    this.finish({ scanId: scan.scanId, outcome: 'cancelled' });
    return { cancelled: true };
  }

  /**
   * Kiosk scanning: the glue calls this with true while the window is focused and the scan indicator
   * is visible, false otherwise. Ignored unless the kioskScan setting is on.
   */
  setKioskActive(active: boolean): void {
    const wanted = active && this.settings().kioskScan;
    if (wanted === this.kioskActive) return;
    this.kioskActive = wanted;
    if (wanted) {
      if (this.scan) this.finish({ scanId: this.scan.scanId, outcome: 'cancelled' });
      void this.deviceKey().catch(() => undefined);
      this.scan = { scanId: `kiosk-${randomUUID()}`, kiosk: true };
      this.readers.send({ type: 'arm', armed: true });
      this.emitStatus();
    } else if (this.scan?.kiosk) {
      this.endScan();
      this.emitStatus();
    }
  }

  private deviceKey(): Promise<DeviceKey> {
    if (!this.key) {
      const loading = this.options.deviceKey();
      this.key = loading;
      // A failure is not cached: the user may unlock the keychain or provide a key file and try again.
      loading.catch(() => {
        if (this.key === loading) this.key = undefined;
      });
    }
    return this.key.catch((error: unknown) => {
      const message =
        error instanceof DeviceKeyError
          ? error.message
          : `The NFC device key could not be loaded (${error instanceof Error ? error.message : 'unknown error'}).`;
      throw new ServiceError('not_allowed', message.slice(0, 500));
    });
  }

  private onProcessState(state: ReaderProcessState): void {
    if (state !== 'running') {
      this.service = { state: 'connecting' };
      for (const reader of this.known.values()) Object.assign(reader, { connected: false, cardPresent: false });
    }
    if (state === 'restarting' || state === 'failed') this.setLastError(this.readers.processDetail ?? 'The NFC reader service stopped.');
    this.emitStatus();
  }

  private onReaderMessage(message: ReaderToMain): void {
    switch (message.type) {
      case 'hello':
      case 'heartbeat':
      case 'fatal':
        return;
      case 'service':
        this.service = { state: message.state, ...(message.installed === undefined ? {} : { installed: message.installed }) };
        if (message.state !== 'ready') for (const reader of this.known.values()) Object.assign(reader, { connected: false, cardPresent: false });
        if (message.state === 'lost') this.setLastError(message.detail ?? 'The smart-card service stopped.');
        this.emitStatus();
        return;
      case 'readers':
        this.updateReaders(message.readers);
        return;
      case 'error':
        this.log.warn('nfc', `${message.reader ? `${message.reader}: ` : ''}${message.detail}`);
        this.setLastError(message.reader ? `${message.reader}: ${message.detail}` : message.detail);
        this.emitStatus();
        return;
      case 'tapFailed':
        this.onTapFailed(message);
        return;
      case 'tap':
        void this.onTap(message, preciseNow());
        return;
    }
  }

  private updateReaders(readers: readonly { name: string; cardPresent: boolean }[]): void {
    // A tag lifted from its reader may be read again at once: the debounce is for one presentation.
    for (const reader of readers) {
      if (reader.cardPresent) continue;
      for (const [alias, tap] of this.recent) if (tap.reader === reader.name) this.recent.delete(alias);
    }
    const present = new Set(readers.map((reader) => reader.name));
    for (const [name, reader] of this.known) if (!present.has(name)) Object.assign(reader, { connected: false, cardPresent: false });
    for (const reader of readers) this.known.set(reader.name, { connected: true, cardPresent: reader.cardPresent });
    // Keep the list bounded: forget the oldest disconnected readers first.
    for (const [name, reader] of this.known) {
      if (this.known.size <= maxKnownReaders) break;
      if (!reader.connected) this.known.delete(name);
    }
    this.emitStatus();
  }

  private onTapFailed(message: Extract<ReaderToMain, { type: 'tapFailed' }>): void {
    const scan = this.scan;
    if (!scan) return;
    this.readers.send({ type: 'feedback', reader: message.reader, outcome: 'failure' });
    if (message.reason === 'readError') this.setLastError(`${message.reader}: ${message.detail}`);
    this.emitResult({ scanId: scan.scanId, outcome: 'failed', reason: message.reason, message: message.detail, retry: true });
    this.emitStatus();
  }

  private async onTap(message: Extract<ReaderToMain, { type: 'tap' }>, receivedAt: number): Promise<void> {
    // Not armed: the tap is dropped before anything is derived from it.
    if (!this.scan) {
      this.log.info('nfc', 'a tap arrived while no scan was armed; dropped');
      return;
    }
    let key: DeviceKey;
    try {
      key = await this.deviceKey();
    } catch (error) {
      const scan = this.scan;
      if (scan) this.finish({ scanId: scan.scanId, outcome: 'failed', reason: 'noDeviceKey', message: (error as Error).message.slice(0, 500), retry: false });
      return;
    }
    const scan = this.scan;
    if (!scan) return;
    const observed = observeTap(key.key, message.uid, message.content);
    const now = Date.now();
    const debounceMs = this.settings().debounceMs;
    for (const [alias, { at }] of this.recent) if (now - at >= debounceMs) this.recent.delete(alias);
    if (this.recent.has(observed.aliasHex)) {
      this.log.info('nfc', `the same tag again within ${debounceMs} ms; ignored`);
      return;
    }
    if (debounceMs > 0) this.recent.set(observed.aliasHex, { at: now, reader: message.reader });
    this.readers.send({ type: 'feedback', reader: message.reader, outcome: 'success' });
    const result: NfcScanResult = {
      scanId: scan.scanId,
      outcome: 'observation',
      object: observed.object,
      reader: message.reader,
      ...(observed.note ? { note: observed.note } : {}),
    };
    const timing: TapTiming = { detectedAt: message.detectedAt, readMs: message.readMs, receivedAt, emittedAt: preciseNow() };
    if (scan.kiosk) {
      this.emitResult(result, timing, observed.passport);
      return;
    }
    this.finish(result, timing, observed.passport);
  }

  private finish(result: NfcScanResult, timing?: TapTiming, passport?: ObjectPassport): void {
    this.endScan();
    this.emitResult(result, timing, passport);
    this.emitStatus();
  }

  private endScan(): void {
    const scan = this.scan;
    if (!scan) return;
    clearTimeout(scan.timer);
    this.scan = undefined;
    if (scan.kiosk) this.kioskActive = false;
    this.readers.send({ type: 'arm', armed: false });
  }

  private setLastError(message: string): void {
    this.lastError = { message: message.slice(0, 500), at: new Date().toISOString() };
  }

  private emitResult(result: NfcScanResult, timing?: TapTiming, passport?: ObjectPassport): void {
    this.resultListeners.emit(result, timing, passport);
  }

  private emitStatus(): void {
    const status = this.status();
    const json = JSON.stringify(status);
    if (json === this.lastStatusJson) return;
    this.lastStatusJson = json;
    this.statusListeners.emit(status);
  }
}
