import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnostics as diagnosticsCommand } from '../../../src/main/cli/diagnostics';
import { diagnosticsBundleSchema } from '../../../src/main/app/diagnostics';
import type { Io } from '../../../src/main/cli/output';
import { startAgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { LogRing, logRingLimits, redactLogText, ringLogger } from '../../../src/main/platform/log-ring';
import { persistRecentLog } from '../../../src/main/store/recent-log-file';
import { hashAdminPin } from '../../../src/main/policy/admin-pin';
import { memorySecretStore } from '../../../src/main/secrets/secret-store';
import type { DevicePolicy } from '../../../src/shared/device-policy/device-policy';
import { builtInAgentCallDemoId, eventChannel } from '../../../src/shared/ipc/contract';
import type { NfcScanResult } from '../../../src/shared/nfc/ipc-schemas';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../src/shared/agentcall/session-view';
import { memoryLogger } from '../../support/logger';
import { tagAlias } from '../../../src/main/nfc/alias';
import { toHex } from '../../../src/shared/nfc/bytes';
import { nfcHardwareUnavailableReason } from '../../support/nfc/nfc-harness';
import { startPcscd } from '../../support/nfc/pcscd';
import { type2Memory } from '../../support/nfc/type2-tag';
import { uidLeaks } from '../../support/nfc/uid-forms';
import { VirtualCard } from '../../support/nfc/virtual-card';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { photoLikeJpeg } from '../photo/fixtures';

/**
 * The diagnostics bundle (Settings → Save diagnostics…, `agentdesk diagnostics`): built after a
 * real AgentCall session against the demo agent over a real WebSocket, with a token pasted through
 * the sign-in path into the token store, a tag taught a name, and a photo through sharp; then the
 * bundle is searched for every secret of that session. The tag is a blank virtual Type 2 tag on
 * pcscd's virtual reader read by the app's own NFC service (its objectRef is the keyed alias of its
 * ID), or where pcscd cannot run (not root, packages missing) the same observation as the NFC
 * service would emit it, saying so.
 */
const nfcUnavailable = nfcHardwareUnavailableReason();
const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const idle = (view: SessionView) => view.phase === 'established' && !view.runActive;

describe('the diagnostics bundle', () => {
  it('after a session with a tag, a photo and a token, holds what happened and none of the secrets', { timeout: 60_000 }, async () => {
    const hardware = nfcUnavailable === undefined;
    console.log(
      hardware
        ? 'diagnostics: the tag is read from pcscd’s virtual reader'
        : `diagnostics: the tag is the NFC service’s observation as a fixture (no virtual reader: ${nfcUnavailable})`,
    );
    const dir = await tempDir();
    const secret = (prefix: string) => `${prefix}${randomBytes(9).toString('hex')}`;
    const token = secret('tok');
    const uid = Uint8Array.from([0x04, ...randomBytes(6)]);
    const pin = '862419';
    const pinHash = await hashAdminPin(pin, {});
    const deviceKey = randomBytes(32);
    // A blank tag's objectRef is the keyed alias of its ID (src/main/nfc/alias.ts).
    const objectRef = `urn:agentcall:local-tag:${toHex(tagAlias(deviceKey, uid))}`;
    const label = `Lathe ${secret('label')}`;
    const keyFile = join(dir, 'nfc-device.key');
    await writeFile(keyFile, deviceKey, { mode: 0o600 });
    const policy: DevicePolicy = {
      policyVersion: 1,
      language: 'en',
      camera: { allowed: true },
      voice: { allowed: false },
      admin: { pinHash },
      deviceKeyFile: keyFile,
    };
    const policyFile = join(dir, 'policy.json');
    await writeFile(policyFile, JSON.stringify(policy));

    const demo = await startAgentCallDemoServer({ log: memoryLogger(), token });
    open.push(demo);
    const nfcListeners = new Set<(result: NfcScanResult) => void>();
    const ring = new LogRing();
    const inner = memoryLogger();
    const log = ringLogger(inner, ring);
    const savedTo = join(dir, 'saved-diagnostics.json');
    if (hardware) {
      const pcscd = await startPcscd();
      open.push({ close: () => pcscd.stop() });
    }
    const services = await startTestServices(join(dir, 'user-data'), {
      log,
      logRing: ring,
      secrets: memorySecretStore(),
      devicePolicy: { file: policyFile, policy },
      chooseDownloadPath: async () => savedTo,
      demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', agentCallCardUrl: demo.cardUrl }) },
      // The real NFC service (the policy's device key file, the reader process), or the fixture's listeners.
      ...(hardware
        ? { nfc: {} }
        : {
            agentCallNfc: {
              onResult: (listener: (result: NfcScanResult) => void) => {
                nfcListeners.add(listener);
                return () => nfcListeners.delete(listener);
              },
            },
          }),
    });
    open.unshift({ close: () => services.dispose() });
    const updates: SessionUpdate[] = [];
    const scanResults: NfcScanResult[] = [];
    services.events.connect((channel, payload) => {
      if (channel === eventChannel('agentcall.update')) updates.push(...(payload as { updates: SessionUpdate[] }).updates);
      if (channel === eventChannel('nfc.scanResult')) scanResults.push(payload as NfcScanResult);
    });
    const view = () => updates.reduce(applySessionUpdate, emptySessionView);

    // The token goes through the sign-in path: asked for, pasted, kept in the token store.
    const first = await services.call('agentcall.open', { agentId: builtInAgentCallDemoId });
    expect(first.ok || first.error.code).toBe('sign_in_required');
    expect((await services.call('agentcall.useToken', { agentId: builtInAgentCallDemoId, token })).ok).toBe(true);
    const opened = await services.call('agentcall.open', { agentId: builtInAgentCallDemoId });
    if (!opened.ok) throw new Error(opened.error.message);
    updates.push(...opened.value.updates);
    const { sessionKey } = opened.value;
    await until(() => view().phase === 'established', 'session.established');

    // A tag, taught a name.
    let scanId = 'scan-1';
    if (hardware) {
      await until(async () => {
        const status = await services.call('hardware.status');
        return (
          status.ok && status.value.nfc.state === 'ready' && status.value.nfc.readers.some((reader) => reader.name === 'Virtual PCD 00 00' && reader.connected)
        );
      }, 'the virtual reader');
      const armed = await services.call('nfc.arm', { timeoutMs: 15_000 });
      if (!armed.ok) throw new Error(armed.error.message);
      scanId = armed.value.scanId;
      const card = await VirtualCard.insert({ uid, memory: type2Memory({ uid }) });
      await until(async () => scanResults.length > 0, 'the tap');
      await card.remove();
      // The bundle reports the reader as it is: wait until the reader saw the card go.
      await until(async () => {
        const status = await services.call('hardware.status');
        return status.ok && status.value.nfc.readers.some((reader) => reader.name === 'Virtual PCD 00 00' && !reader.cardPresent);
      }, 'the card removed');
      expect(scanResults[0]).toMatchObject({ scanId, outcome: 'observation', object: { objectRef } });
    } else {
      for (const listener of nfcListeners)
        listener({
          scanId,
          outcome: 'observation',
          reader: 'Virtual PCD 00 00',
          object: { objectRef, carrier: 'localTag', assurance: 'unverifiedTag', payloadSha256: 'b'.repeat(64) },
        });
    }
    expect((await services.call('agentcall.sendObservation', { sessionKey, scan: { scanId, objectRef } })).ok).toBe(true);
    await until(() => idle(view()), 'the answer to the scan');
    await services.call('agentcall.sendText', { sessionKey, text: `teach object ${label}` });
    await until(() => view().shownProposalId !== undefined && idle(view()), 'the teaching proposal');
    expect((await services.call('agentcall.answerProposal', { sessionKey, proposalId: view().shownProposalId, answer: 'confirm' })).ok).toBe(true);
    await until(() => view().items.some((item) => item.kind === 'teaching' && item.state === 'confirmed') && idle(view()), 'the confirmation');

    // A photo, staged through sharp and sent.
    const jpeg = await photoLikeJpeg(640, 480, { seed: 7 });
    const staged = await services.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(jpeg) });
    if (!staged.ok) throw new Error(staged.error.message);
    expect((await services.call('agentcall.sendObservation', { sessionKey, photoId: staged.value.photoId, intent: 'inspect' })).ok).toBe(true);
    await until(() => idle(view()), 'the answer to the photo');

    // A careless log line (the privacy rule broken by a caller) is redacted as the ring keeps it.
    log.warn('nfc', `card 0x${Buffer.from(uid).toString('hex')} read with Bearer ${token} for ${objectRef}`);

    // Behind the admin PIN, like settings changes.
    const locked = await services.call('diagnostics.save');
    expect(locked.ok || locked.error.code).toBe('not_allowed');
    expect((await services.call('policy.unlockAdmin', { pin })).ok).toBe(true);
    const saved = await services.call('diagnostics.save');
    expect(saved).toEqual({ ok: true, value: { saved: true, file: savedTo, bytes: expect.any(Number) } });
    const text = await readFile(savedTo, 'utf8');
    const bundle = JSON.parse(text) as { logs: { area: string; message: string }[]; lastErrors: unknown[] };

    // What it holds.
    expect(bundle).toMatchObject({
      format: 'agentdesk-diagnostics/1',
      app: { name: 'AgentDesk', version: '0.0.0-test', shell: 'web' },
      versions: { node: process.versions.node },
      platform: { os: process.platform },
      policy: {
        state: 'active',
        file: policyFile,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        settings: { admin: { pinHash: 'set (not shown)' }, deviceKeyFile: keyFile },
      },
      settings: { language: 'en' },
      tokenStorage: { kind: 'memory' },
      hardware: {
        nfc: hardware
          ? { state: 'ready', readers: expect.arrayContaining([{ name: 'Virtual PCD 00 00', connected: true, cardPresent: false }]) }
          : { state: 'not_started' },
        camera: { allowedByPolicy: true },
        microphone: { allowedByPolicy: false },
      },
    });
    const { logs } = bundle;
    expect(logs.some((entry) => entry.area === 'nfc' && entry.message.includes('[redacted'))).toBe(true);
    expect(bundle.lastErrors.length).toBeGreaterThan(0);

    // What it never holds.
    const photoBase64 = Buffer.from(jpeg).toString('base64');
    const stagedPreview = staged.value.preview.slice('data:image/jpeg;base64,'.length);
    const forbidden: [string, string][] = [
      ['token', token],
      ['tag alias (objectRef)', objectRef],
      ['tag alias (its hex)', objectRef.split(':').at(-1)!],
      ['taught name', label],
      ['admin PIN hash', pinHash],
      ['admin PIN hash (its hash part)', pinHash.split('$').at(-1)!],
      ['admin PIN hash (its salt)', pinHash.split('$').at(-2)!],
      ['admin PIN', `"${pin}"`],
      ['device key (hex)', deviceKey.toString('hex')],
      ['device key (base64)', deviceKey.toString('base64')],
      ['photo (base64)', photoBase64.slice(100, 160)],
      ['staged photo preview', stagedPreview.slice(100, 160)],
      ['image data URL', 'data:image'],
      ['JPEG start (hex)', 'ffd8ff'],
    ];
    for (const [what, value] of forbidden) expect(text.includes(value), `${what} found in the bundle`).toBe(false);
    expect(uidLeaks(text, uid), 'the tag ID in some form').toEqual([]);
  });

  it('agentdesk diagnostics --out FILE writes the machine’s bundle and never over a file', async () => {
    const dir = await tempDir();
    const pinHash = await hashAdminPin('135790', {});
    const policyFile = join(dir, 'policy.json');
    await writeFile(policyFile, JSON.stringify({ policyVersion: 1, kiosk: true, language: 'cs', admin: { pinHash } }));
    await writeFile(
      join(dir, 'settings.json'),
      JSON.stringify({
        schemaVersion: 2,
        language: 'en',
        appearance: { theme: 'dark', textSize: 'normal' },
        developer: { allowLocalHttp: false, allowPastedTokens: false },
      }),
    );
    // What the app saved of its recent log (recent-log.json) comes first in the bundle's log.
    const appRing = new LogRing();
    const persisted = await persistRecentLog(appRing, dir, { delayMs: 0 });
    appRing.push('error', 'window', 'the renderer process is gone (crashed, exit code 139): reloading');
    await persisted.flush();
    const out = join(dir, 'bundle.json');
    const lines: string[] = [];
    const io: Io = { out: (line) => void lines.push(line), err: () => undefined };
    const run = () =>
      diagnosticsCommand({ out, policyFile, systemPath: join(dir, 'no-system-policy.json'), userDataDir: dir, version: '9.9.9', nfcTimeoutMs: 5000 }, io, {
        secrets: async () => memorySecretStore(),
      });
    expect(await run()).toBe(0);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^wrote ${out} \\(\\d+ bytes\\)$`))]);
    const text = await readFile(out, 'utf8');
    expect(JSON.parse(text)).toMatchObject({
      app: { shell: 'cli', version: '9.9.9' },
      policy: { state: 'active', effects: expect.arrayContaining(['kiosk mode: on']) },
      // The user's settings under the policy: its language wins.
      settings: { language: 'cs', appearance: { theme: 'dark' } },
      hardware: { nfc: { state: expect.any(String) } },
      recentLog: { file: join(dir, 'recent-log.json'), savedAt: expect.any(String) },
    });
    // The app's saved entries first, then any of this command's own.
    expect((JSON.parse(text) as { logs: unknown[] }).logs[0]).toMatchObject({
      level: 'error',
      area: 'window',
      message: 'the renderer process is gone (crashed, exit code 139): reloading',
    });
    expect(text).not.toContain(pinHash.split('$').at(-1)!);
    expect(diagnosticsBundleSchema.safeParse(JSON.parse(text)).error).toBeUndefined();
    await expect(run()).rejects.toThrow(`${out} exists already`);
    // A scrypt PIN hash and the command's NFC probe (up to its 5 s) take 3.5 s on an idle machine here: more than vitest's default 5 s once it is busy.
  }, 30_000);

  it(
    'agentdesk diagnostics --json prints the same bundle on stdout, in its stable shape, with where the policy came from and without its secrets',
    { timeout: 30_000 },
    async () => {
      const dir = await tempDir();
      const pinHash = await hashAdminPin('135790', {});
      await mkdir(join(dir, 'policy.d'));
      await writeFile(join(dir, 'policy.json'), JSON.stringify({ policyVersion: 1, kiosk: true, language: 'en', admin: { pinHash } }));
      await writeFile(join(dir, 'policy.d', '10-lang.json'), JSON.stringify({ language: 'cs' }));
      const lines: string[] = [];
      const io: Io = { out: (line) => void lines.push(line), err: () => undefined };
      const load = { systemPath: join(dir, 'policy.json'), osPolicy: async () => ({ layers: [], problems: [] }) };
      expect(
        await diagnosticsCommand({ out: undefined, json: true, load, userDataDir: dir, version: '9.9.9', nfcTimeoutMs: 5000 }, io, {
          secrets: async () => memorySecretStore(),
        }),
      ).toBe(0);
      expect(lines).toHaveLength(1);
      const bundle = diagnosticsBundleSchema.parse(JSON.parse(lines[0]!));
      expect(bundle).toMatchObject({
        format: 'agentdesk-diagnostics/1',
        versions: { agentdesk: '9.9.9', node: process.versions.node },
        tokenStorage: { kind: 'memory' },
        hardware: { nfc: { state: expect.any(String) } },
        policy: {
          state: 'active',
          layers: [
            { kind: 'drop-in', name: join(dir, 'policy.d', '10-lang.json') },
            { kind: 'file', name: join(dir, 'policy.json') },
          ],
          sources: { kiosk: join(dir, 'policy.json'), language: join(dir, 'policy.d', '10-lang.json'), 'admin.pinHash': join(dir, 'policy.json') },
          conflicts: [{ key: 'language', source: join(dir, 'policy.d', '10-lang.json'), overridden: [join(dir, 'policy.json')] }],
          settings: { admin: { pinHash: 'set (not shown)' } },
        },
      });
      expect(lines[0]).not.toContain(pinHash.split('$').at(-1)!);
      // The shape is a promise: a key the schema does not name at the top level fails it.
      expect(diagnosticsBundleSchema.safeParse({ ...bundle, extra: 1 }).success).toBe(false);
      await expect(diagnosticsCommand({ out: undefined, userDataDir: dir, version: '9.9.9' }, io)).rejects.toThrow('needs --out FILE');
    },
  );
});

describe('the recent log kept for diagnostics', () => {
  it('redacts tokens, secrets, tag contents and IDs, image data and long opaque strings as it keeps them', () => {
    expect(redactLogText('Authorization: Bearer abc.def-123')).not.toContain('abc.def-123');
    const cases: [string, string][] = [
      ['sent with Bearer abc.def-123', 'Bearer [redacted]'],
      ['POST /token code=Xy12&code_verifier=Zz99 client_secret=s3cr3t', 'code=[redacted]&code_verifier=[redacted] client_secret=[redacted]'],
      ['{"access_token":"at-1","pin": "2468"}', '{"access_token":"[redacted]","pin": "[redacted]"}'],
      ['tag urn:agentcall:object:workshop-router read', 'tag urn:[redacted] read'],
      ['uid 04:A2:1B:3C:4D:5E:6F and 04a21b3c4d5e6f', 'uid [redacted hex] and [redacted hex]'],
      ['preview data:image/jpeg;base64,/9j/4AAQ', 'preview data:[redacted]'],
      ['id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc', 'id [redacted jwt]'],
      ['secret ek_68a4f2c9b1d04e7f9a3c5b2e1d0f9a8b', 'secret [redacted]'],
      ['key q+3vX/9kLm2Rt8+Zp4Wc/Ye7Hn1Ja5Ub0Sd6Fg== sent', 'key [redacted] sent'],
    ];
    for (const [input, expected] of cases) expect(redactLogText(input)).toContain(expected);
    // What the log is for stays readable.
    expect(redactLogText('settings.json could not be saved in /home/kiosk/.config/AgentDesk: ENOSPC')).toBe(
      'settings.json could not be saved in /home/kiosk/.config/AgentDesk: ENOSPC',
    );
    expect(redactLogText('the renderer process is gone (crashed, exit code 139): reloading')).toBe(
      'the renderer process is gone (crashed, exit code 139): reloading',
    );
  });

  it('keeps the newest entries, each bounded', () => {
    const ring = new LogRing(3);
    const log = ringLogger(memoryLogger(), ring);
    for (let index = 0; index < 5; index += 1) log.info('area', `entry ${index}`);
    log.error('area', 'x'.repeat(5000), new Error('boom'));
    expect(ring.list().map((entry) => entry.message.slice(0, 7))).toEqual(['entry 3', 'entry 4', 'xxxxxxx']);
    expect(ring.list().at(-1)!.message.length).toBeLessThanOrEqual(logRingLimits.messageChars);
  });
});
