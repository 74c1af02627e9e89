import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../../../src/shared/nfc/bytes';
import { nfcObservationSchema, type NfcScanResult } from '../../../src/shared/nfc/ipc-schemas';
import { readers as readersCommand, scan as scanCommand } from '../../../src/main/cli/nfc';
import type { Io } from '../../../src/main/cli/output';
import { tagAlias } from '../../../src/main/nfc/alias';
import { openSecretStore } from '../../../src/main/secrets/secret-store';
import { eventChannel } from '../../../src/shared/ipc/contract';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { nfcHardwareUnavailableReason, startNfcHarness, type NfcHarness } from '../../support/nfc/nfc-harness';
import { startPcscd, type Pcscd } from '../../support/nfc/pcscd';
import { ndefMessage, randomUid, textRecord, type2Memory, uriRecord } from '../../support/nfc/type2-tag';
import { uidLeaks } from '../../support/nfc/uid-forms';
import { iso14443_4Atr, VirtualCard, type VirtualCardOptions } from '../../support/nfc/virtual-card';

/**
 * The whole NFC path against a real pcscd with vsmartcard's virtual reader: a virtual Type 2 tag
 * (test/support/nfc/virtual-card.ts) → vpcd → pcscd → nfc-pcsc in the reader process → main.
 * The tests start and stop their own pcscd; where that is impossible they say why and skip.
 */
const unavailable = nfcHardwareUnavailableReason();
if (unavailable) console.log(`NFC hardware tests skipped: ${unavailable}`);

const keyA = new Uint8Array(32).fill(0xa5);
const keyB = new Uint8Array(32).fill(0x5a);
const urn = 'urn:agentcall:object:workshop-router';
const objectRefFor = (key: Uint8Array, uid: Uint8Array) => `urn:agentcall:local-tag:${toHex(tagAlias(key, uid))}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(unavailable !== undefined)('NFC with pcscd and the virtual reader', { timeout: 60_000 }, () => {
  let pcscd: Pcscd | undefined;
  const harnesses: NfcHarness[] = [];
  const cards: VirtualCard[] = [];
  const tempDir = useTempDirs();

  beforeAll(async () => {
    pcscd = await startPcscd();
  }, 30_000);
  afterAll(async () => {
    await pcscd?.stop();
  }, 30_000);
  afterEach(async () => {
    await Promise.all(cards.splice(0).map((card) => card.remove()));
    await Promise.all(harnesses.splice(0).map((harness) => harness.dispose()));
    // A test that stopped pcscd and failed before starting it again leaves the next test a working one.
    pcscd ??= await startPcscd();
  }, 30_000);

  async function nfc(key = keyA, settings = { debounceMs: 0 }): Promise<NfcHarness> {
    const harness = await startNfcHarness({ key, settings });
    harnesses.push(harness);
    await harness.ready();
    return harness;
  }

  async function insert(options: VirtualCardOptions): Promise<VirtualCard> {
    const card = await VirtualCard.insert(options);
    cards.push(card);
    return card;
  }

  /** Presents a tag while a scan is armed; returns the scan's result, the tag lifted again and seen as gone. */
  async function tapOnce(harness: NfcHarness, options: VirtualCardOptions): Promise<NfcScanResult> {
    await harness.service.arm({ timeoutMs: 15_000 });
    const pending = harness.nextResult(15_000);
    const card = await insert(options);
    const result = await pending;
    await lift(harness, card);
    return result;
  }

  async function lift(harness: NfcHarness, card: VirtualCard): Promise<void> {
    await card.remove();
    cards.splice(cards.indexOf(card), 1);
    await harness.ready();
  }

  const type2 = (uid: Uint8Array, ndef?: Uint8Array): VirtualCardOptions => ({ uid, memory: type2Memory({ uid, ...(ndef ? { ndef } : {}) }) });

  it('turns a tap into the keyed alias: same tag same objectRef, another tag another one; the ID goes nowhere', async () => {
    const harness = await nfc();
    const uid = randomUid();
    const other = randomUid();
    const first = await tapOnce(harness, type2(uid));
    expect(first).toMatchObject({
      outcome: 'observation',
      reader: 'Virtual PCD 00 00',
      object: { objectRef: objectRefFor(keyA, uid), carrier: 'localTag', assurance: 'unverifiedTag' },
    });
    if (first.outcome !== 'observation') return;
    expect(first.object.payloadSha256).toBe(createHash('sha256').update(tagAlias(keyA, uid)).digest('hex'));
    expect(first.note).toBeUndefined();
    const again = await tapOnce(harness, type2(uid));
    expect(again.outcome === 'observation' && again.object).toEqual(first.object);
    const another = await tapOnce(harness, type2(other));
    expect(another.outcome === 'observation' && another.object.objectRef).toBe(objectRefFor(keyA, other));
    expect(another.outcome === 'observation' && another.object.objectRef).not.toBe(first.object.objectRef);
    expect(uidLeaks(harness.emitted(), uid)).toEqual([]);
    expect(uidLeaks(harness.emitted(), other)).toEqual([]);
  });

  it('gives the same tag a different alias under another device key', async () => {
    const uid = randomUid();
    const withA = await tapOnce(await nfc(keyA), type2(uid));
    await harnesses.shift()!.dispose();
    const withB = await tapOnce(await nfc(keyB), type2(uid));
    expect(withA.outcome === 'observation' && withA.object.objectRef).toBe(objectRefFor(keyA, uid));
    expect(withB.outcome === 'observation' && withB.object.objectRef).toBe(objectRefFor(keyB, uid));
    expect(objectRefFor(keyA, uid)).not.toBe(objectRefFor(keyB, uid));
  });

  it('reads an NDEF URN or https reference as a portable objectRef', async () => {
    const harness = await nfc();
    const message = ndefMessage([uriRecord(urn, 0x13)]);
    const uid = randomUid();
    const portable = await tapOnce(harness, type2(uid, message));
    expect(portable).toMatchObject({
      outcome: 'observation',
      object: { objectRef: urn, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: createHash('sha256').update(message).digest('hex') },
    });
    const https = await tapOnce(harness, type2(randomUid(), ndefMessage([textRecord('https://objects.example.com/router/1')])));
    expect(https).toMatchObject({ outcome: 'observation', object: { objectRef: 'https://objects.example.com/router/1', carrier: 'ndefTag' } });
    // A long message spanning many pages is read completely.
    const long = `urn:agentcall:object:${'x'.repeat(200)}`;
    const bigUid = randomUid();
    const bigMessage = ndefMessage([{ tnf: 0x02, type: 'application/octet-stream', payload: new Uint8Array(600) }, uriRecord(long)]);
    const big = await tapOnce(harness, { uid: bigUid, memory: type2Memory({ uid: bigUid, ndef: bigMessage, dataAreaBytes: 872 }) }); // NTAG216
    expect(big).toMatchObject({ outcome: 'observation', object: { objectRef: long } });
    expect(uidLeaks(harness.emitted(), uid)).toEqual([]);
  });

  it('falls back to the local alias with a note for malformed NDEF', async () => {
    const harness = await nfc();
    const uid = randomUid();
    const badRecord = await tapOnce(harness, {
      uid,
      memory: type2Memory({ uid, dataArea: Uint8Array.from([0x03, 0x05, 0x51, 0x01, 0x09, 0x55, 0x00, 0xfe]) }),
    });
    expect(badRecord).toMatchObject({
      outcome: 'observation',
      object: { objectRef: objectRefFor(keyA, uid), carrier: 'localTag' },
      note: expect.stringMatching(/malformed/),
    });
    const badTlv = await tapOnce(harness, { uid, memory: type2Memory({ uid, dataArea: Uint8Array.from([0x03, 0xff, 0x7f, 0xff]) }) });
    expect(badTlv).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(keyA, uid) }, note: expect.stringMatching(/malformed/) });
    const notReference = await tapOnce(harness, type2(uid, ndefMessage([uriRecord('http://example.com/x', 0x03)])));
    expect(notReference).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(keyA, uid) }, note: expect.stringMatching(/only https/) });
  });

  it('handles ISO 14443-4 cards and phones without crashing: a fixed ID gets an alias, a random one is unsupported', async () => {
    const harness = await nfc();
    const pid = harness.supervisor.pid;
    const cardUid = Uint8Array.of(0x04, 0x33, 0x44, 0x55);
    const card = await tapOnce(harness, { atr: iso14443_4Atr, uid: cardUid });
    expect(card).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(keyA, cardUid), carrier: 'localTag' } });

    const { scanId } = await harness.service.arm({ timeoutMs: 15_000 });
    const pending = harness.nextResult();
    const phone = await insert({ atr: iso14443_4Atr, uid: Uint8Array.of(0x08, 0x12, 0x34, 0x56) });
    expect(await pending).toEqual({
      scanId,
      outcome: 'failed',
      reason: 'unsupported',
      message: expect.stringMatching(/different ID at every tap/),
      retry: true,
    });
    await lift(harness, phone);
    const silentPending = harness.nextResult();
    const noId = await insert({ atr: iso14443_4Atr });
    expect(await silentPending).toMatchObject({ outcome: 'failed', reason: 'unsupported' });
    await lift(harness, noId);
    harness.service.cancel();
    expect(harness.supervisor.pid).toBe(pid);
    expect(harness.supervisor.restarts).toBe(0);
    expect(uidLeaks(harness.emitted(), cardUid)).toEqual([]);
  });

  it('reports a tag lifted in the middle of the read, stays armed, and reads the next tap', async () => {
    const harness = await nfc();
    const uid = randomUid();
    const { scanId } = await harness.service.arm({ timeoutMs: 20_000 });
    const pending = harness.nextResult(15_000);
    const memory = type2Memory({ uid, ndef: ndefMessage([uriRecord(urn)]) });
    // Lifted after the capability container: the first read of the TLV area never gets an answer.
    const card = await insert({ uid, memory, onApdu: (apdu) => (apdu[1] === 0xb0 && apdu[3] === 0x07 ? 'close' : undefined) });
    expect(await pending).toEqual({ scanId, outcome: 'failed', reason: 'removed', message: expect.stringMatching(/lifted/), retry: true });
    cards.splice(cards.indexOf(card), 1);
    await harness.ready();
    expect(harness.service.status().scan).toMatchObject({ armed: true, scanId });
    const next = harness.nextResult();
    await insert({ uid, memory });
    expect(await next).toMatchObject({ scanId, outcome: 'observation', object: { objectRef: urn } });
    expect(harness.supervisor.restarts).toBe(0);
  });

  it('sends nothing for a tap while not armed: the card is not even read until the user presses Scan', async () => {
    const harness = await nfc();
    const uid = randomUid();
    const card = await insert(type2(uid, ndefMessage([uriRecord(urn)])));
    await harness.waitForStatus((status) => status.readers.some((reader) => reader.name === 'Virtual PCD 00 00' && reader.cardPresent));
    await sleep(500);
    expect(harness.results).toEqual([]);
    expect(card.apdus).toEqual([]);
    // A tag already resting on the reader when the user arms a scan is read then, once.
    const { scanId } = await harness.service.arm({ timeoutMs: 5_000 });
    expect(await harness.nextResult()).toMatchObject({ scanId, outcome: 'observation', object: { objectRef: urn } });
    expect(card.apdus.length).toBeGreaterThan(0);
  });

  it('recovers after pcscd is killed and restarted: the reader is back within 2 s, nothing crashes, main keeps running', async () => {
    const harness = await nfc();
    const pid = harness.supervisor.pid;
    // Main's event loop must keep turning throughout: record the longest gap between ticks.
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      await pcscd!.kill();
      pcscd = undefined;
      const missing = await harness.waitForStatus((status) => status.service === 'missing');
      expect(missing).toMatchObject({ state: 'unavailable', fix: expect.stringMatching(/pcscd/), readers: [{ connected: false }, { connected: false }] });
      await sleep(1_000);
      pcscd = await startPcscd();
      const back = performance.now();
      await harness.ready('Virtual PCD 00 00', 5_000);
      const recovery = performance.now() - back;
      console.log(`NFC reader back ${recovery.toFixed(0)} ms after pcscd answered again`);
      expect(recovery).toBeLessThanOrEqual(2_000);
    } finally {
      clearInterval(ticker);
    }
    expect(longestGap).toBeLessThan(500);
    expect(harness.supervisor.pid).toBe(pid);
    expect(harness.supervisor.restarts).toBe(0);
    expect(harness.service.status().lastError?.message).toMatch(/smart-card service stopped/);
    const uid = randomUid();
    expect(await tapOnce(harness, type2(uid))).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(keyA, uid) } });
  });

  it('restarts a crashed reader process and reads again', async () => {
    const harness = await nfc();
    const pid = harness.supervisor.pid!;
    process.kill(pid, 'SIGKILL');
    await harness.waitForStatus((status) => status.service === 'restarting');
    expect(harness.service.status().lastError?.message).toMatch(/SIGKILL/);
    await harness.ready();
    expect(harness.supervisor.pid).not.toBe(pid);
    expect(harness.supervisor.restarts).toBe(1);
    const uid = randomUid();
    expect(await tapOnce(harness, type2(uid))).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(keyA, uid) } });
  });

  it("scans a tag through the app on a machine without a Secret Service: the device key goes to a file of the app's own, said once (issue #27)", async () => {
    // The machine's own keychain, as the app opens it: this test is about a machine without one.
    const secrets = await openSecretStore({ service: 'AgentDesk-test' });
    if (secrets.kind === 'keychain') {
      console.log('skipped: this machine has a reachable keychain (Secret Service); the test needs one without');
      return;
    }
    const userData = await tempDir();
    const services = await startTestServices(userData, { secrets, nfc: {} });
    const events: { channel: string; payload: unknown }[] = [];
    const disconnect = services.events.connect((channel, payload) => void events.push({ channel, payload }));
    try {
      const ready = Date.now() + 20_000;
      while (!JSON.stringify((await services.call('hardware.status')) as unknown).includes('"connected":true')) {
        if (Date.now() > ready) throw new Error('no virtual reader in the app within 20 s');
        await sleep(100);
      }
      const armed = await services.call('nfc.arm', { timeoutMs: 15_000 });
      expect(armed).toMatchObject({ ok: true });
      const uid = randomUid();
      const card = await insert(type2(uid));
      const deadline = Date.now() + 15_000;
      const result = () => events.find((event) => event.channel === eventChannel('nfc.scanResult'))?.payload as NfcScanResult | undefined;
      while (result() === undefined) {
        if (Date.now() > deadline) throw new Error('no scan result within 15 s');
        await sleep(50);
      }
      await card.remove();
      cards.splice(cards.indexOf(card), 1);
      const key = await readFile(join(userData, 'nfc-device.key'));
      expect(result()).toMatchObject({ outcome: 'observation', object: { objectRef: objectRefFor(new Uint8Array(key), uid), carrier: 'localTag' } });
      const notices = events.filter((event) => event.channel === eventChannel('app.notice')).map((event) => (event.payload as { code: string }).code);
      expect(notices.filter((code) => code === 'nfc_key_file')).toHaveLength(1);
      expect(uidLeaks(JSON.stringify(events), uid)).toEqual([]);
    } finally {
      disconnect();
      await services.dispose();
    }
  });

  describe('the CLI', () => {
    function capture(): Io & { out: (line: string) => void; lines: string[]; errors: string[]; text(): string } {
      const lines: string[] = [];
      const errors: string[] = [];
      return { lines, errors, out: (line) => void lines.push(line), err: (line) => void errors.push(line), text: () => [...lines, ...errors].join('\n') };
    }

    async function keyFile(key: Uint8Array): Promise<string> {
      const path = join(await tempDir(), 'nfc-device.key');
      await writeFile(path, Buffer.from(key), { mode: 0o600 });
      return path;
    }

    /** Runs `agentdesk scan` and presents the tag once it asks for it. */
    async function scanWith(key: Uint8Array, card: VirtualCardOptions, extra: { json?: boolean } = {}) {
      const io = capture();
      const running = scanCommand({ json: extra.json ?? true, keyFile: await keyFile(key), timeoutS: 20 }, io, { handleSigint: false, env: {} });
      const deadline = Date.now() + 20_000;
      while (!io.errors.some((line) => line.startsWith('Hold the tag'))) {
        if (Date.now() > deadline) throw new Error(`scan never asked for the tag: ${io.text()}`);
        await sleep(20);
      }
      const inserted = await insert(card);
      const code = await running;
      await inserted.remove();
      cards.splice(cards.indexOf(inserted), 1);
      await sleep(500); // pcscd sees the card gone at its next poll
      return { code, io };
    }

    it('`readers` lists the virtual readers and their state', async () => {
      const io = capture();
      expect(await readersCommand({ json: false }, io, { handleSigint: false })).toBe(0);
      expect(io.lines).toEqual(['Smart-card service: running', 'Virtual PCD 00 00: connected, no card', 'Virtual PCD 00 01: connected, no card']);
      const json = capture();
      expect(await readersCommand({ json: true }, json)).toBe(0);
      expect(JSON.parse(json.lines[0]!)).toMatchObject({
        state: 'ready',
        service: 'running',
        readers: [
          { name: 'Virtual PCD 00 00', connected: true },
          { name: 'Virtual PCD 00 01', connected: true },
        ],
      });
    });

    it('`scan --json` prints exactly the observation object, never the ID; another key file gives another objectRef', async () => {
      const uid = randomUid();
      const first = await scanWith(keyA, type2(uid));
      expect(first.code).toBe(0);
      expect(first.io.lines).toHaveLength(1);
      const observation = JSON.parse(first.io.lines[0]!) as Record<string, unknown>;
      expect(Object.keys(observation)).toEqual(['objectRef', 'carrier', 'assurance', 'payloadSha256', 'reader']);
      expect(nfcObservationSchema.parse(observation)).toEqual(observation);
      expect(observation).toMatchObject({ objectRef: objectRefFor(keyA, uid), carrier: 'localTag', reader: 'Virtual PCD 00 00' });
      const other = await scanWith(keyB, type2(uid));
      expect(JSON.parse(other.io.lines[0]!)).toMatchObject({ objectRef: objectRefFor(keyB, uid) });
      const portable = await scanWith(keyA, type2(uid, ndefMessage([uriRecord(urn)])), { json: false });
      expect(portable.io.lines).toContain(`objectRef: ${urn}`);
      for (const run of [first, other, portable]) expect(uidLeaks(run.io.text(), uid)).toEqual([]);
    });

    it('`scan` without a keychain or key file explains the key file; a timeout exits 1', async () => {
      const io = capture();
      const noKey = await scanCommand({ json: true }, io, {
        handleSigint: false,
        env: {},
        secrets: async () => ({
          kind: 'memory',
          reason: 'No keychain is reachable (Secret Service not running): sign-ins last until AgentDesk closes.',
          get: async () => undefined,
          set: async () => undefined,
          delete: async () => undefined,
        }),
      });
      expect(noKey).toBe(2);
      expect(io.errors.join('\n')).toMatch(/key file/);
      const timeout = capture();
      expect(await scanCommand({ json: true, keyFile: await keyFile(keyA), timeoutS: 1 }, timeout, { handleSigint: false, env: {} })).toBe(1);
      expect(timeout.errors.at(-1)).toBe('No tag was read within 1 s.');
      expect(timeout.lines).toEqual([]);
    });

    it('`readers` names the fix when the smart-card service is missing', async () => {
      await pcscd!.stop();
      pcscd = undefined;
      try {
        const io = capture();
        expect(await readersCommand({ json: false, timeoutMs: 3_000 }, io)).toBe(1);
        expect(io.lines[0]).toMatch(/^Smart-card service: missing \(The smart-card service is not running\.\)$/);
        expect(io.lines[1]).toMatch(/^Fix: .*pcscd/);
      } finally {
        pcscd = await startPcscd();
      }
      // Stopping pcscd (1–2 s), the command's own 3 s wait and starting pcscd again: more than vitest's 5 s default on a busy machine.
    }, 30_000);
  });
});
