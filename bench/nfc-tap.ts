/**
 * Benchmark (not a test): tap → alias event in main, through the real stack: a virtual Type 2 tag
 * (test/support/nfc) → vpcd → a private pcscd → nfc-pcsc in the reader process → NfcService in this
 * process. Prints figures; asserts nothing. Needs root and `apt-get install -y pcscd
 * libpcsclite-dev vsmartcard-vpcd` (it starts and stops its own pcscd).
 *
 *   node --import tsx bench/nfc-tap.ts            (TAPS=50 to change the count)
 *
 * Each tap is split into: pcscd noticing the card (its ~400 ms presence poll), the PC/SC read in
 * the reader process (GET DATA + Type 2 READ BINARYs; vpcd adds ~44 ms per APDU through Nagle and
 * delayed ACK on loopback), and the part beyond the PC/SC read — the message to main, checking it,
 * the keyed alias, NDEF parsing and the result event — which is what AgentDesk controls.
 */
import { nfcHardwareUnavailableReason, startNfcHarness } from '../test/support/nfc/nfc-harness';
import { startPcscd } from '../test/support/nfc/pcscd';
import { ndefMessage, randomUid, type2Memory, uriRecord } from '../test/support/nfc/type2-tag';
import { VirtualCard } from '../test/support/nfc/virtual-card';
import { printMedianP95 } from './stats';

const taps = Number(process.env.TAPS ?? 50);
const unavailable = nfcHardwareUnavailableReason();
if (unavailable) {
  process.stdout.write(`nfc bench not run: ${unavailable}\n`);
  process.exit(1);
}

const preciseNow = () => performance.timeOrigin + performance.now();
const pcscd = await startPcscd();
const harness = await startNfcHarness({ key: new Uint8Array(32).fill(1), settings: { debounceMs: 0 } });
const rows: { poll: number; read: number; beyond: number; ipc: number; main: number; total: number }[] = [];
try {
  await harness.ready();
  const message = ndefMessage([uriRecord('urn:agentcall:object:workshop-router')]);
  for (let i = 0; i < taps; i++) {
    const uid = randomUid();
    await harness.service.arm({ timeoutMs: 15_000 });
    const pending = harness.nextResult(15_000);
    const insertedAt = preciseNow();
    const card = await VirtualCard.insert({ uid, memory: type2Memory({ uid, ndef: message }) });
    const result = await pending;
    const timing = harness.results.at(-1)?.timing;
    if (result.outcome !== 'observation' || !timing) throw new Error(`tap ${i + 1}: ${result.outcome}`);
    const readDone = timing.detectedAt + timing.readMs;
    rows.push({
      poll: timing.detectedAt - insertedAt,
      read: timing.readMs,
      beyond: timing.emittedAt - readDone,
      ipc: timing.receivedAt - readDone,
      main: timing.emittedAt - timing.receivedAt,
      total: timing.emittedAt - insertedAt,
    });
    await card.remove();
    await harness.ready();
  }
} finally {
  await harness.dispose();
  await pcscd.stop();
}

const line = (label: string, key: keyof (typeof rows)[number]) =>
  printMedianP95(
    label,
    rows.map((row) => row[key]),
    44,
  );
process.stdout.write(`NFC tap → alias event in main, ${rows.length} taps (Type 2 tag with an NDEF URN: 4 APDUs)\n`);
line('beyond the PC/SC read (goal ≤ 15 ms)', 'beyond');
line('  reader process → main (IPC)', 'ipc');
line('  main: check, alias, NDEF, result event', 'main');
line('PC/SC read in the reader process', 'read');
line('card in → PC/SC reports it (pcscd poll)', 'poll');
line('card in → alias event in main (total)', 'total');
