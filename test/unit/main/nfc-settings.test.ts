import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deviceKeyFileEnv } from '../../../src/main/nfc/device-key';
import type { ReaderLauncher, ReaderLaunchHandlers } from '../../../src/main/nfc/reader-supervisor';
import type { MainToReader, ReaderToMain } from '../../../src/shared/nfc/reader-protocol';
import { defaultNfcSettings } from '../../../src/shared/nfc/ipc-schemas';
import { settingsSchema, applySettingsPatch, defaultSettings, nfcSettingsOf, settingsFileFormat } from '../../../src/shared/settings/settings';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

/** Reader processes played by the test: it sees main's orders and speaks for the reader. */
function fakeReaders() {
  const processes: { handlers: ReaderLaunchHandlers; received: MainToReader[] }[] = [];
  const launcher: ReaderLauncher = (handlers) => {
    const child = { handlers, received: [] as MainToReader[] };
    processes.push(child);
    return {
      pid: 4000 + processes.length,
      send: (message) => {
        child.received.push(message);
        if (message.type === 'shutdown') setTimeout(() => handlers.onExit(0, null), 1);
      },
      kill: () => void setTimeout(() => handlers.onExit(null, 'SIGKILL'), 1),
    };
  };
  const latest = () => processes[processes.length - 1]!;
  const say = (message: ReaderToMain) => latest().handlers.onMessage(message);
  return {
    launcher,
    latest,
    say,
    ready() {
      say({ type: 'hello', version: 1, pid: 1 });
      say({ type: 'service', state: 'ready' });
      say({ type: 'readers', readers: [{ name: 'Virtual PCD 00 00', cardPresent: false }] });
    },
    /** The last `configure` order main sent to the reader process. */
    configured: () => [...latest().received].reverse().find((message) => message.type === 'configure'),
  };
}

const until = async (test: () => boolean, timeoutMs = 3_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const running: TestServices[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(running.splice(0).map((services) => services.dispose()));
});

/** The real services with NFC on, a fake reader process and a device key file (no keychain in tests). */
async function start(dir: string) {
  const keyFile = join(dir, 'nfc-device.key');
  await writeFile(keyFile, randomBytes(32), { mode: 0o600 });
  vi.stubEnv(deviceKeyFileEnv, keyFile);
  const readers = fakeReaders();
  const services = await startTestServices(dir, { nfc: { launcher: readers.launcher } });
  running.push(services);
  const results: unknown[] = [];
  services.events.connect((channel, payload) => {
    if (channel === 'agentdesk:event:nfc.scanResult') results.push(payload);
  });
  readers.ready();
  return { services, readers, results };
}

const tap = (uid = '04102030405060'): ReaderToMain => ({
  type: 'tap',
  reader: 'Virtual PCD 00 00',
  detectedAt: Date.now(),
  readMs: 1,
  standard: 'iso14443-3',
  cardType: 'nfcForumType2',
  uid,
  content: { status: 'absent', reason: 'none' },
});

describe('NFC settings', () => {
  it('fills in the defaults for a settings file without them, and merges a partial nfc patch', () => {
    const old = {
      schemaVersion: 4 as const,
      language: 'cs',
      appearance: { theme: 'dark', textSize: 'large' },
      developer: { allowLocalHttp: false, allowPastedTokens: false },
    };
    const parsed = settingsSchema.parse(old);
    expect(nfcSettingsOf(parsed)).toEqual(defaultNfcSettings);
    expect(applySettingsPatch(parsed, { nfc: { kioskScan: true } }).nfc).toEqual({ ...defaultNfcSettings, kioskScan: true });
    expect(defaultSettings.nfc).toEqual(defaultNfcSettings);
    expect(settingsSchema.safeParse({ ...defaultSettings, nfc: { ...defaultNfcSettings, debounceMs: 10_001 } }).success).toBe(false);
  });

  it('loads a settings file written before the NFC settings existed and runs NFC on the defaults', async () => {
    const dir = await tempDir();
    const old = {
      schemaVersion: 1,
      language: 'cs',
      appearance: { theme: 'dark', textSize: 'large' },
      developer: { allowLocalHttp: false, allowPastedTokens: false },
    };
    await writeFile(join(dir, 'settings.json'), JSON.stringify(old));
    const { services, readers } = await start(dir);
    // Read as the current version (nothing to convert in this file).
    expect(await services.call('settings.get')).toEqual({ ok: true, value: { ...old, schemaVersion: settingsFileFormat.current } });
    expect(await services.call('app.info')).toMatchObject({ ok: true, value: { notices: [] } });
    expect(readers.configured()).toEqual({ type: 'configure', readerFeedback: false });
    // Kiosk scanning is off by default: reporting the window focused arms nothing.
    expect(await services.call('nfc.kiosk', { active: true })).toEqual({ ok: true, value: { armed: false } });

    expect(await services.call('settings.update', { patch: { nfc: { kioskScan: true } } })).toMatchObject({
      ok: true,
      value: { language: 'cs', nfc: { debounceMs: 2_000, kioskScan: true, readerFeedback: false } },
    });
    expect(await services.call('nfc.kiosk', { active: true })).toEqual({ ok: true, value: { armed: true } });
  });

  it('passes every settings change to the NFC service: reader feedback, kiosk scanning, debounce', async () => {
    const { services, readers, results } = await start(await tempDir());

    await services.call('settings.update', { patch: { nfc: { readerFeedback: true } } });
    expect(readers.configured()).toEqual({ type: 'configure', readerFeedback: true });

    await services.call('settings.update', { patch: { nfc: { kioskScan: true, debounceMs: 0 } } });
    expect(await services.call('nfc.kiosk', { active: true })).toEqual({ ok: true, value: { armed: true } });
    // Debounce 0: the same tag twice gives two observations.
    readers.say(tap());
    await until(() => results.length === 1);
    readers.say(tap());
    await until(() => results.length === 2);

    // Debounce 10 s: the same tag again is ignored; another tag is not.
    await services.call('settings.update', { patch: { nfc: { debounceMs: 10_000 } } });
    readers.say(tap());
    await until(() => results.length === 3);
    readers.say(tap());
    readers.say(tap('04112131415161'));
    await until(() => results.length === 4);
    const refs = results.map((result) => (result as { object: { objectRef: string } }).object.objectRef);
    expect(refs[0]).toBe(refs[2]);
    expect(refs[3]).not.toBe(refs[2]);

    // Turning kiosk scanning off disarms it at once.
    await services.call('settings.update', { patch: { nfc: { kioskScan: false } } });
    expect(await services.call('hardware.status')).toMatchObject({ ok: true, value: { nfc: { scan: { armed: false, kiosk: false } } } });
    expect(
      readers
        .latest()
        .received.filter((message) => message.type === 'arm')
        .at(-1),
    ).toEqual({ type: 'arm', armed: false });
  });
});
