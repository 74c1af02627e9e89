import { afterEach, describe, expect, it, vi } from 'vitest';
import { passportMediaType } from '../../../src/shared/agentcall/passport';
import { toHex } from '../../../src/shared/nfc/bytes';
import {
  defaultNfcSettings,
  nfcScanResultSchema,
  nfcStatusSchema,
  type NfcScanResult,
  type NfcSettings,
  type NfcStatus,
} from '../../../src/shared/nfc/ipc-schemas';
import type { MainToReader, ReaderToMain } from '../../../src/shared/nfc/reader-protocol';
import { DeviceKeyError, type DeviceKey } from '../../../src/main/nfc/device-key';
import { NfcService, type ReaderPort } from '../../../src/main/nfc/nfc-service';
import type { ReaderProcessState } from '../../../src/main/nfc/reader-supervisor';
import { memoryLogger } from '../../support/logger';
import { ndefMessage, uriRecord } from '../../support/nfc/type2-tag';
import { uidLeaks } from '../../support/nfc/uid-forms';

/** A reader process stand-in: the test plays the reader's messages and sees main's orders. */
function fakeReaders() {
  const sent: MainToReader[] = [];
  const messageListeners = new Set<(message: ReaderToMain) => void>();
  const stateListeners = new Set<(state: ReaderProcessState, detail?: string) => void>();
  const port = {
    processState: 'stopped' as ReaderProcessState,
    processDetail: undefined as string | undefined,
    start: () => port.setState('starting'),
    stop: async () => port.setState('stopped'),
    send: (message: MainToReader) => void sent.push(message),
    onMessage: (listener: (message: ReaderToMain) => void) => {
      messageListeners.add(listener);
      return () => messageListeners.delete(listener);
    },
    onState: (listener: (state: ReaderProcessState, detail?: string) => void) => {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    setState(state: ReaderProcessState, detail?: string) {
      port.processState = state;
      port.processDetail = detail;
      for (const listener of stateListeners) listener(state, detail);
    },
    emit(message: ReaderToMain) {
      for (const listener of messageListeners) listener(message);
    },
    sent,
    armed: () =>
      [...sent].reverse().find((message) => message.type === 'arm')?.type === 'arm' &&
      ([...sent].reverse().find((message) => message.type === 'arm') as { armed: boolean }).armed,
  };
  return port satisfies ReaderPort;
}

const key: DeviceKey = { key: new Uint8Array(32).fill(7), source: 'file' };
const uid = Uint8Array.from([0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]);
const otherUid = Uint8Array.from([0x04, 0x11, 0x21, 0x31, 0x41, 0x51, 0x61]);

function tap(tagUid: Uint8Array = uid, reader = 'Virtual PCD 00 00'): ReaderToMain {
  return {
    type: 'tap',
    reader,
    detectedAt: Date.now(),
    readMs: 3,
    standard: 'iso14443-3',
    cardType: 'nfcForumType2',
    uid: toHex(tagUid),
    content: { status: 'absent', reason: 'none' },
  };
}

const services: NfcService[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(services.splice(0).map((service) => service.dispose()));
});

function setup(options: { settings?: Partial<NfcSettings>; deviceKey?: () => Promise<DeviceKey>; platform?: string } = {}) {
  const readers = fakeReaders();
  const log = memoryLogger();
  const settings: NfcSettings = { ...defaultNfcSettings, ...options.settings };
  const service = new NfcService({
    readers,
    deviceKey: options.deviceKey ?? (async () => key),
    settings: () => settings,
    log,
    platform: options.platform ?? 'linux',
    distro: ['debian'],
  });
  services.push(service);
  const statuses: NfcStatus[] = [];
  const results: NfcScanResult[] = [];
  service.onStatus((status) => void statuses.push(status));
  service.onResult((result) => void results.push(result));
  service.start();
  const ready = () => {
    readers.setState('running');
    readers.emit({ type: 'hello', version: 1, pid: 1 });
    readers.emit({ type: 'service', state: 'ready' });
    readers.emit({ type: 'readers', readers: [{ name: 'Virtual PCD 00 00', cardPresent: false }] });
  };
  /** Everything that left the service (status, results, log lines) as one string, for ID leak checks. */
  const emitted = () => JSON.stringify({ statuses, results, status: service.status() }) + log.lines.join('\n');
  return { readers, log, settings, service, statuses, results, ready, emitted };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('NfcService scans', () => {
  it('ignores a tap while not armed: nothing is sent, nothing derived', async () => {
    const { readers, results, ready, log } = setup();
    ready();
    expect(readers.armed()).toBe(false);
    readers.emit(tap());
    await flush();
    expect(results).toEqual([]);
    expect(readers.sent.some((message) => message.type === 'feedback')).toBe(false);
    // Only that it happened: nothing about the tag.
    expect(log.lines).toEqual(['INFO [nfc] a tap arrived while no scan was armed; dropped']);
  });

  it('arms a scan, emits one observation for a tap, then disarms', async () => {
    const { readers, results, service, ready, emitted } = setup();
    ready();
    const { scanId, expiresAt } = await service.arm({ timeoutMs: 5_000 });
    expect(readers.armed()).toBe(true);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    expect(service.status().scan).toEqual({ armed: true, scanId, expiresAt, kiosk: false });
    readers.emit(tap());
    await flush();
    expect(results).toHaveLength(1);
    const result = results[0]!;
    expect(nfcScanResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({ scanId, outcome: 'observation', reader: 'Virtual PCD 00 00', object: { carrier: 'localTag', assurance: 'unverifiedTag' } });
    expect(readers.sent).toContainEqual({ type: 'feedback', reader: 'Virtual PCD 00 00', outcome: 'success' });
    expect(readers.armed()).toBe(false);
    expect(service.status().scan).toEqual({ armed: false, kiosk: false });
    // A second tap after the scan ended is dropped.
    readers.emit(tap(otherUid));
    await flush();
    expect(results).toHaveLength(1);
    expect(uidLeaks(emitted(), uid)).toEqual([]);
  });

  it('reports a portable reference from NDEF', async () => {
    const { readers, results, service, ready } = setup();
    ready();
    await service.arm();
    const message = ndefMessage([uriRecord('urn:agentcall:object:workshop-router')]);
    readers.emit({ ...tap(), content: { status: 'message', bytes: toHex(message) } } as ReaderToMain);
    await flush();
    expect(results[0]).toMatchObject({ outcome: 'observation', object: { objectRef: 'urn:agentcall:object:workshop-router', carrier: 'ndefTag' } });
  });

  it('hands the tag’s object passport to main’s listeners beside the result, never inside the result for the renderer', async () => {
    const { readers, results, service, ready } = setup();
    const passports: unknown[] = [];
    service.onResult((_result, _timing, passport) => void passports.push(passport));
    ready();
    await service.arm();
    const passport = {
      schemaVersion: '0.1',
      objectRef: 'urn:agentcall:object:workshop-router',
      label: 'Workshop router',
      actions: [{ recipeId: 'restart', title: 'Restart', requiresConfirmation: true }],
    };
    const message = ndefMessage([
      uriRecord(passport.objectRef),
      { tnf: 0x02, type: passportMediaType, payload: new Uint8Array(Buffer.from(JSON.stringify(passport))) },
    ]);
    readers.emit({ ...tap(), content: { status: 'message', bytes: toHex(message) } } as ReaderToMain);
    await flush();
    expect(passports).toEqual([passport]);
    expect(nfcScanResultSchema.parse(results[0])).toEqual(results[0]);
    expect(JSON.stringify(results)).not.toContain('Restart');
  });

  it('times out, cancels, and replaces an armed scan', async () => {
    vi.useFakeTimers();
    const { readers, results, service, ready } = setup();
    ready();
    const first = await service.arm({ timeoutMs: 1_000 });
    vi.advanceTimersByTime(1_000);
    expect(results).toEqual([{ scanId: first.scanId, outcome: 'timeout' }]);
    expect(readers.armed()).toBe(false);
    const second = await service.arm({ timeoutMs: 10_000 });
    const third = await service.arm({ timeoutMs: 10_000 });
    expect(results[1]).toEqual({ scanId: second.scanId, outcome: 'cancelled' });
    expect(service.cancel('someone-else')).toEqual({ cancelled: false });
    expect(service.cancel(third.scanId)).toEqual({ cancelled: true });
    expect(results[2]).toEqual({ scanId: third.scanId, outcome: 'cancelled' });
    expect(service.cancel()).toEqual({ cancelled: false });
    await expect(service.arm({ timeoutMs: 10 })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('reports a failed read for retry and stays armed, with failure feedback', async () => {
    const { readers, results, service, ready } = setup();
    ready();
    const { scanId } = await service.arm();
    readers.emit({ type: 'tapFailed', reader: 'Virtual PCD 00 00', reason: 'removed', detail: 'The tag was lifted before it was read.' });
    expect(results).toEqual([{ scanId, outcome: 'failed', reason: 'removed', message: 'The tag was lifted before it was read.', retry: true }]);
    expect(readers.sent).toContainEqual({ type: 'feedback', reader: 'Virtual PCD 00 00', outcome: 'failure' });
    expect(readers.armed()).toBe(true);
    readers.emit(tap());
    await flush();
    expect(results[1]).toMatchObject({ scanId, outcome: 'observation' });
  });

  it('refuses to arm without a device key, with the explanation', async () => {
    const { service, ready } = setup({ deviceKey: async () => Promise.reject(new DeviceKeyError('No keychain is reachable; provide a key file.')) });
    ready();
    await expect(service.arm()).rejects.toMatchObject({ code: 'not_allowed', message: 'No keychain is reachable; provide a key file.' });
    expect(service.status().scan?.armed).toBe(false);
  });

  it('ignores the same tag within the debounce period, not another tag', async () => {
    const { readers, results, service, ready } = setup({ settings: { kioskScan: true, debounceMs: 60_000 } });
    ready();
    service.setKioskActive(true);
    expect(service.status().scan).toMatchObject({ armed: true, kiosk: true });
    readers.emit(tap());
    await flush();
    readers.emit(tap());
    await flush();
    readers.emit(tap(otherUid));
    await flush();
    expect(results.map((result) => result.outcome)).toEqual(['observation', 'observation']);
    expect(results[0]).not.toEqual(results[1]);
  });

  it('reads the same tag again at once after it was lifted from the reader: the debounce covers one presentation', async () => {
    const { readers, results, service, ready } = setup({ settings: { kioskScan: true, debounceMs: 60_000 } });
    ready();
    service.setKioskActive(true);
    readers.emit({ type: 'readers', readers: [{ name: 'Virtual PCD 00 00', cardPresent: true }] });
    readers.emit(tap());
    await flush();
    readers.emit(tap());
    await flush();
    expect(results).toHaveLength(1);
    readers.emit({ type: 'readers', readers: [{ name: 'Virtual PCD 00 00', cardPresent: false }] });
    readers.emit({ type: 'readers', readers: [{ name: 'Virtual PCD 00 00', cardPresent: true }] });
    readers.emit(tap());
    await flush();
    expect(results.map((result) => result.outcome)).toEqual(['observation', 'observation']);
    expect(results[0]).toMatchObject({ object: (results[1] as { object: unknown }).object });
  });

  it('keeps kiosk scanning armed only while the policy allows it and the glue says so', async () => {
    const { readers, results, service, ready, settings } = setup({ settings: { debounceMs: 0 } });
    ready();
    service.setKioskActive(true);
    expect(service.status().scan?.armed).toBe(false); // the kiosk setting is off by default
    settings.kioskScan = true;
    service.setKioskActive(true);
    readers.emit(tap());
    await flush();
    readers.emit(tap());
    await flush();
    expect(results).toHaveLength(2);
    expect(service.status().scan).toMatchObject({ armed: true, kiosk: true });
    service.setKioskActive(false);
    expect(readers.armed()).toBe(false);
    readers.emit(tap());
    await flush();
    expect(results).toHaveLength(2);
    service.setKioskActive(true);
    settings.kioskScan = false;
    service.settingsChanged();
    expect(service.status().scan?.armed).toBe(false);
  });
});

describe('NfcService status', () => {
  it('starts as starting, becomes ready with readers, and keeps unplugged readers as disconnected', () => {
    const { readers, service, ready, statuses } = setup();
    expect(service.status()).toMatchObject({ state: 'unavailable', service: 'starting' });
    ready();
    expect(service.status()).toMatchObject({
      state: 'ready',
      service: 'running',
      readers: [{ name: 'Virtual PCD 00 00', connected: true, cardPresent: false }],
    });
    readers.emit({ type: 'readers', readers: [{ name: 'ACS ACR122U', cardPresent: true }] });
    expect(service.status().readers).toEqual([
      { name: 'Virtual PCD 00 00', connected: false, cardPresent: false },
      { name: 'ACS ACR122U', connected: true, cardPresent: true },
    ]);
    for (const status of statuses) expect(nfcStatusSchema.parse(status)).toEqual(status);
    // Only changes are emitted.
    const count = statuses.length;
    readers.emit({ type: 'readers', readers: [{ name: 'ACS ACR122U', cardPresent: true }] });
    expect(statuses).toHaveLength(count);
  });

  it('says the smart-card service is missing, with the exact fix, and shows the last error', () => {
    const { readers, service, ready } = setup();
    ready();
    readers.emit({ type: 'service', state: 'missing', installed: false, detail: 'The smart-card service (pcscd) is not running.' });
    expect(service.status()).toMatchObject({
      state: 'unavailable',
      service: 'missing',
      detail: 'The smart-card service (pcscd) is not installed.',
      fix: 'Install and start the smart-card service: `sudo apt-get install -y pcscd`, then `sudo systemctl enable --now pcscd.socket` (without systemd: `sudo pcscd`).',
      readers: [{ name: 'Virtual PCD 00 00', connected: false }],
    });
    readers.emit({ type: 'service', state: 'lost', detail: 'The smart-card service stopped; waiting for it to come back.' });
    expect(service.status()).toMatchObject({ service: 'missing', lastError: { message: 'The smart-card service stopped; waiting for it to come back.' } });
    readers.emit({ type: 'service', state: 'ready' });
    expect(service.status()).toMatchObject({ state: 'ready', service: 'running' });
    expect(service.status().fix).toBeUndefined();
  });

  it('reports a crashed reader process as restarting, and one that cannot run as failed', () => {
    const { readers, service, ready, log } = setup();
    ready();
    readers.setState('restarting', 'The NFC reader service stopped unexpectedly (it was ended by SIGKILL); restarting.');
    expect(service.status()).toMatchObject({ state: 'unavailable', service: 'restarting', lastError: { message: expect.stringMatching(/SIGKILL/) } });
    readers.setState('failed', 'The NFC module (nfc-pcsc) could not be loaded: Cannot find module');
    expect(service.status()).toMatchObject({ service: 'failed', detail: expect.stringMatching(/nfc-pcsc/) });
    readers.emit({ type: 'error', reader: 'Virtual PCD 00 00', detail: 'Reader feedback failed' });
    expect(log.lines.some((line) => line.includes('Reader feedback failed'))).toBe(true);
  });
});
