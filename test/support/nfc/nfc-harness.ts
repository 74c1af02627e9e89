import { createRequire } from 'node:module';
import { defaultNfcSettings, type NfcScanResult, type NfcSettings, type NfcStatus } from '../../../src/shared/nfc/ipc-schemas';
import type { DeviceKey } from '../../../src/main/nfc/device-key';
import { NfcService, type TapTiming } from '../../../src/main/nfc/nfc-service';
import { ReaderSupervisor } from '../../../src/main/nfc/reader-supervisor';
import type { Logger } from '../../../src/main/platform/logger';
import { memoryLogger } from '../logger';
import { pcscdUnavailableReason } from './pcscd';

/**
 * The real NFC stack for tests and the benchmark: NfcService in this process, the reader process
 * (src/main/nfc/reader-process.ts through tsx) as a child, pcscd with the virtual readers outside.
 */

/** Why the hardware tests cannot run here (pcscd, the vpcd driver, root, or nfc-pcsc missing), or undefined. */
export function nfcHardwareUnavailableReason(): string | undefined {
  const pcscd = pcscdUnavailableReason();
  if (pcscd) return pcscd;
  try {
    createRequire(import.meta.url).resolve('nfc-pcsc');
  } catch {
    return 'nfc-pcsc is not installed (npm install; it builds against libpcsclite-dev)';
  }
  return undefined;
}

export interface NfcHarness {
  service: NfcService;
  supervisor: ReaderSupervisor;
  log: Logger & { lines: string[] };
  settings: NfcSettings;
  statuses: NfcStatus[];
  results: { result: NfcScanResult; timing?: TapTiming }[];
  /** Everything the service emitted and logged, as one string (for card-ID leak checks). */
  emitted(): string;
  /** The next result after the call (or one already waiting since `since`). */
  nextResult(timeoutMs?: number): Promise<NfcScanResult>;
  waitForStatus(test: (status: NfcStatus) => boolean, timeoutMs?: number): Promise<NfcStatus>;
  /** Waits until the service runs and `reader` is connected with no card on it. */
  ready(reader?: string, timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

export async function startNfcHarness(options: { key: Uint8Array; settings?: Partial<NfcSettings>; backoffMs?: number[] }): Promise<NfcHarness> {
  const log = memoryLogger();
  const settings: NfcSettings = { ...defaultNfcSettings, ...options.settings };
  const supervisor = new ReaderSupervisor({ log, backoffMs: options.backoffMs ?? [100, 200, 400] });
  const deviceKey: DeviceKey = { key: options.key, source: 'file' };
  const service = new NfcService({ readers: supervisor, deviceKey: async () => deviceKey, settings: () => settings, log, distro: ['debian'] });
  const statuses: NfcStatus[] = [];
  const results: NfcHarness['results'] = [];
  const resultWaiters: ((result: NfcScanResult) => void)[] = [];
  const statusWaiters = new Set<() => void>();
  service.onStatus((status) => {
    statuses.push(status);
    for (const waiter of [...statusWaiters]) waiter();
  });
  service.onResult((result, timing) => {
    results.push({ result, ...(timing ? { timing } : {}) });
    resultWaiters.shift()?.(result);
  });
  service.start();

  const waitForStatus = (test: (status: NfcStatus) => boolean, timeoutMs = 10_000) =>
    new Promise<NfcStatus>((resolve, reject) => {
      const check = () => {
        const status = service.status();
        if (!test(status)) return;
        clearTimeout(timer);
        statusWaiters.delete(check);
        resolve(status);
      };
      const timer = setTimeout(() => {
        statusWaiters.delete(check);
        reject(new Error(`NFC status did not reach the expected state in ${timeoutMs} ms; last: ${JSON.stringify(service.status())}`));
      }, timeoutMs);
      statusWaiters.add(check);
      check();
    });

  return {
    service,
    supervisor,
    log,
    settings,
    statuses,
    results,
    emitted: () => JSON.stringify({ statuses, results: results.map((entry) => entry.result) }) + log.lines.join('\n'),
    nextResult: (timeoutMs = 10_000) =>
      new Promise<NfcScanResult>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no NFC result within ${timeoutMs} ms`)), timeoutMs);
        resultWaiters.push((result) => {
          clearTimeout(timer);
          resolve(result);
        });
      }),
    waitForStatus,
    ready: async (reader = 'Virtual PCD 00 00', timeoutMs = 15_000) => {
      await waitForStatus(
        (status) => status.state === 'ready' && status.readers.some((entry) => entry.name === reader && entry.connected && !entry.cardPresent),
        timeoutMs,
      );
    },
    dispose: () => service.dispose(),
  };
}
