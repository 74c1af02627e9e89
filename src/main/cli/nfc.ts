import type { NfcObservation, NfcScanResult, NfcStatus } from '../../shared/nfc/ipc-schemas';
import { nfcArmTimeoutMs } from '../../shared/nfc/ipc-schemas';
import { DeviceKeyError, deviceKeyFileEnv, loadDeviceKey, type DeviceKey } from '../nfc/device-key';
import { NfcService } from '../nfc/nfc-service';
import { linuxDistroIds } from '../nfc/os-release';
import { ReaderSupervisor, type ReaderLauncher } from '../nfc/reader-supervisor';
import { createLogger, type Logger } from '../platform/logger';
import { openSecretStore, type SecretStore } from '../secrets/secret-store';
import { exitCodes, UsageError, type Io } from './output';

/**
 * `agentdesk readers [--json]`: the smart-card service and the NFC readers, as the app sees them.
 * `agentdesk scan [--json] [--key-file PATH] [--timeout S]`: waits for one tap and prints the
 * observation object {objectRef, carrier, assurance, payloadSha256, reader}. Never the tag's ID.
 *
 * Exit codes: 0 ok; 1 the service is missing, no tag was read in time, or the scan failed;
 * 2 usage, or no device key (no keychain and no key file).
 */

export interface NfcCliDeps {
  /** The reader process launcher (default: a Node child process running the built or source reader). */
  launcher?: ReaderLauncher;
  /** The keychain (default: openSecretStore()). */
  secrets?: () => Promise<SecretStore>;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Stop waiting on SIGINT (default true; tests turn it off). */
  handleSigint?: boolean;
}

export const defaultScanTimeoutS = 30;
/** How long `readers` and `scan` wait for the reader process and the smart-card service to answer. */
const serviceStartMs = 10_000;

/** `--timeout S`: whole or decimal seconds within nfc.arm's bounds. */
export function parseScanTimeout(text: string | undefined): number {
  if (text === undefined) return defaultScanTimeoutS;
  const seconds = Number(text);
  const min = nfcArmTimeoutMs.min / 1000;
  const max = nfcArmTimeoutMs.max / 1000;
  if (!/^\d+(\.\d+)?$/.test(text) || !(seconds >= min && seconds <= max))
    throw new UsageError(`--timeout must be a number of seconds from ${min} to ${max}, not "${text}".`);
  return seconds;
}

function startService(deps: NfcCliDeps, deviceKey: () => Promise<DeviceKey>) {
  const log = deps.log ?? createLogger({ level: 'warn' });
  const readers = new ReaderSupervisor({ log, ...(deps.launcher ? { launcher: deps.launcher } : {}) });
  const service = new NfcService({ readers, deviceKey, log, distro: linuxDistroIds() });
  service.start();
  return service;
}

/**
 * Resolves with the status once the service is up with its readers listed (quiet for `settleMs`),
 * missing, failed, or at the deadline; with `untilReader`, at once when a reader is connected.
 */
export function settledStatus(service: NfcService, timeoutMs: number, options: { settleMs?: number; untilReader?: boolean } = {}): Promise<NfcStatus> {
  const settleMs = options.settleMs ?? 300;
  return new Promise((resolve) => {
    let settle: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(deadline);
      clearTimeout(settle);
      off();
      resolve(service.status());
    };
    const check = (status: NfcStatus) => {
      clearTimeout(settle);
      if (status.service === 'failed') return finish();
      if (options.untilReader && status.state === 'ready' && status.readers.some((reader) => reader.connected)) return finish();
      // "missing" can be a short gap while the service restarts: give it the settle time too.
      if (status.service === 'running' || status.service === 'missing') settle = setTimeout(finish, status.service === 'missing' ? settleMs * 3 : settleMs);
    };
    const deadline = setTimeout(finish, timeoutMs);
    const off = service.onStatus(check);
    check(service.status());
  });
}

function describeReaders(status: NfcStatus): string[] {
  const lines = [
    `Smart-card service: ${status.service ?? (status.state === 'ready' ? 'running' : 'unavailable')}${status.detail ? ` (${status.detail})` : ''}`,
  ];
  if (status.fix) lines.push(`Fix: ${status.fix}`);
  if (status.state === 'ready' && status.readers.length === 0) lines.push('No NFC readers are connected.');
  for (const reader of status.readers)
    lines.push(`${reader.name}: ${reader.connected ? `connected, ${reader.cardPresent ? 'card present' : 'no card'}` : 'disconnected'}`);
  if (status.lastError) lines.push(`Last error: ${status.lastError.message}`);
  return lines;
}

/** The reader service's settled status (then stopped), for `agentdesk diagnostics`. */
export async function readerStatus(deps: NfcCliDeps = {}, timeoutMs: number = serviceStartMs): Promise<NfcStatus> {
  const service = startService(deps, () => Promise.reject(new DeviceKeyError('not needed to list readers')));
  try {
    return await settledStatus(service, timeoutMs);
  } finally {
    await service.dispose();
  }
}

export async function readers(options: { json: boolean; timeoutMs?: number }, io: Io, deps: NfcCliDeps = {}): Promise<number> {
  const service = startService(deps, () => Promise.reject(new DeviceKeyError('not needed to list readers')));
  try {
    const status = await settledStatus(service, options.timeoutMs ?? serviceStartMs);
    const report = { ...status, scan: undefined };
    delete report.scan;
    if (options.json) io.out(JSON.stringify(report));
    else for (const line of describeReaders(status)) io.out(line);
    return status.state === 'ready' ? exitCodes.ok : exitCodes.rejected;
  } finally {
    await service.dispose();
  }
}

export async function scan(options: { json: boolean; keyFile?: string; timeoutS?: number }, io: Io, deps: NfcCliDeps = {}): Promise<number> {
  const timeoutS = options.timeoutS ?? defaultScanTimeoutS;
  const env = deps.env ?? process.env;
  const keyFile = options.keyFile ?? env[deviceKeyFileEnv];
  let key: DeviceKey;
  try {
    key = await loadDeviceKey(keyFile !== undefined ? { keyFile } : { secrets: await (deps.secrets ?? (() => openSecretStore()))() });
  } catch (error) {
    io.err(error instanceof DeviceKeyError ? error.message : `The NFC device key could not be loaded: ${(error as Error).message}`);
    return exitCodes.usage;
  }
  const service = startService(deps, () => Promise.resolve(key));
  let onSigint: (() => void) | undefined;
  try {
    // The reader process's start (and the smart-card service) does not count against the scan's timeout.
    const status = await settledStatus(service, serviceStartMs);
    if (status.state !== 'ready') {
      for (const line of describeReaders(status)) io.err(line);
      return exitCodes.rejected;
    }
    if (!status.readers.some((reader) => reader.connected)) io.err('No NFC reader is connected yet; waiting for one.');
    const result = new Promise<NfcScanResult>((resolve) => {
      service.onResult((outcome) => {
        if (outcome.outcome === 'failed' && outcome.retry) io.err(`${outcome.message} Try again.`);
        else resolve(outcome);
      });
    });
    const { scanId } = await service.arm({ timeoutMs: Math.round(timeoutS * 1000) });
    if (deps.handleSigint ?? true) {
      onSigint = () => service.cancel(scanId);
      process.once('SIGINT', onSigint);
    }
    io.err(`Hold the tag to the reader (${timeoutS} s, Ctrl+C cancels)…`);
    const outcome = await result;
    switch (outcome.outcome) {
      case 'observation': {
        const observation: NfcObservation = { ...outcome.object, reader: outcome.reader };
        if (outcome.note) io.err(outcome.note);
        if (options.json) io.out(JSON.stringify(observation));
        else for (const [name, value] of Object.entries(observation)) io.out(`${name}: ${value}`);
        return exitCodes.ok;
      }
      case 'timeout':
        io.err(`No tag was read within ${timeoutS} s.`);
        return exitCodes.rejected;
      case 'cancelled':
        io.err('Scan cancelled.');
        return exitCodes.rejected;
      case 'failed':
        io.err(outcome.message);
        return exitCodes.rejected;
    }
    return exitCodes.rejected;
  } finally {
    if (onSigint) process.removeListener('SIGINT', onSigint);
    await service.dispose();
  }
}
