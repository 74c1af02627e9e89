import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { NFC as NfcClass, Reader } from 'nfc-pcsc';
import { describeAtr } from '../../shared/nfc/atr';
import { toHex } from '../../shared/nfc/bytes';
import { readerProtocolVersion, type MainToReader, type ReaderToMain, type TagContent } from '../../shared/nfc/reader-protocol';
import { ApduStatusError, readType2Content, readUid, type Transmit } from './tag-read';

/**
 * The reader process's logic (see reader-process.ts for the entry point): one PC/SC context through
 * nfc-pcsc, re-created whenever the smart-card service goes away and comes back (nfc-pcsc never
 * reconnects by itself), and one `tap` message per card presented while main has armed a scan (or resting on the reader when a scan is armed).
 *
 * nfc-pcsc runs with autoProcessing off: it only connects and reports the card; this file reads
 * the ID (GET DATA) and, on Type 2 tags, the NDEF message. ISO 14443-4 cards and phones are never
 * handed to nfc-pcsc's AID handling (which throws "AID was not set").
 *
 * Nothing here logs or prints: problems go to main as messages, and the card ID goes to main only.
 */

export interface ParentLink {
  send(message: ReaderToMain): void;
  onMessage(listener: (message: MainToReader) => void): void;
}

export interface ReaderWorkerOptions {
  link: ParentLink;
  /** Loads nfc-pcsc (a dynamic import, so a missing or broken native module is a message, not a crash). */
  loadNfc?: () => Promise<typeof NfcClass>;
  platform?: NodeJS.Platform;
  /** Where libpcsclite talks to pcscd (Linux); PCSCLITE_CSOCK_NAME overrides it there too. */
  pcscdSocket?: string;
  heartbeatMs?: number;
  /** How often to look for the smart-card service while it is missing. */
  servicePollMs?: number;
}

const removedPattern = /0x80100069|0x80100066|0x80100068|removed|reset|unpowered/i;
/**
 * Errors after which this PC/SC context is no use: the service went away (RPC transport error,
 * no service) or the context died with it (invalid handle: seen instead of the transport error
 * when the service dies while a status call is starting). Any other failed status call also ends
 * a reader's monitoring for good, so it is treated the same way: drop the context, start a new one.
 */
const contextLostPattern = /0x80100013|0x8010001D|0x8010001E|0x80100003|RPC transport|service not available|service was stopped|no.?service|invalid handle/i;
const statusCallFailed = /SCardGetStatusChange error/i;
const cancelled = /0x80100002|0x8010000A|cancel|timeout/i;
const contextFailed = (message: string) => contextLostPattern.test(message) || (statusCallFailed.test(message) && !cancelled.test(message));

async function defaultLoadNfc(): Promise<typeof NfcClass> {
  const module = (await import('nfc-pcsc')) as { NFC?: typeof NfcClass; default?: { NFC?: typeof NfcClass } };
  const NFC = module.NFC ?? module.default?.NFC;
  if (typeof NFC !== 'function') throw new Error('nfc-pcsc does not export NFC');
  return NFC;
}

interface ReaderEntry {
  reader: Reader;
  cardPresent: boolean;
  /** The ATR of a card that arrived while nothing was armed and is still on the reader. */
  restingAtr?: Buffer;
}

export class ReaderWorker {
  private readonly link: ParentLink;
  private readonly loadNfc: () => Promise<typeof NfcClass>;
  private readonly platform: NodeJS.Platform;
  private readonly socketPath: string;
  private readonly servicePollMs: number;
  private NFC: typeof NfcClass | undefined;
  private nfc: NfcClass | undefined;
  /** Bumped whenever the PC/SC context is dropped, so callbacks of the old one are ignored. */
  private generation = 0;
  private readonly readers = new Map<string, ReaderEntry>();
  private armed = false;
  private readerFeedback = false;
  private recovering = false;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private lastService: string | undefined;
  private recentLosses: number[] = [];

  constructor(private readonly options: ReaderWorkerOptions) {
    this.link = options.link;
    this.loadNfc = options.loadNfc ?? defaultLoadNfc;
    this.platform = options.platform ?? process.platform;
    this.socketPath = options.pcscdSocket ?? process.env.PCSCLITE_CSOCK_NAME ?? '/run/pcscd/pcscd.comm';
    this.servicePollMs = options.servicePollMs ?? 100;
  }

  /** Starts the heartbeat and the PC/SC context; resolves to 'fatal' when this process cannot work (the caller exits). */
  async start(): Promise<'running' | 'fatal'> {
    this.link.onMessage((message) => this.onMainMessage(message));
    this.link.send({ type: 'hello', version: readerProtocolVersion, pid: process.pid });
    this.heartbeat = setInterval(() => this.link.send({ type: 'heartbeat' }), this.options.heartbeatMs ?? 2_000);
    try {
      this.NFC = await this.loadNfc();
    } catch (error) {
      this.link.send({ type: 'fatal', reason: 'module', detail: `The NFC module (nfc-pcsc) could not be loaded: ${short(error)}` });
      this.stop();
      return 'fatal';
    }
    this.sendService('connecting');
    void this.connect();
    return 'running';
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    this.dropContext();
  }

  private onMainMessage(message: MainToReader): void {
    switch (message.type) {
      case 'arm': {
        const wasArmed = this.armed;
        this.armed = message.armed;
        // A tag already resting on the reader when the user presses Scan is read now, as if just presented.
        if (this.armed && !wasArmed) {
          for (const entry of this.readers.values()) {
            if (entry.cardPresent && entry.restingAtr) void this.onCard(entry, entry.restingAtr);
          }
        }
        break;
      }
      case 'configure':
        this.readerFeedback = message.readerFeedback;
        break;
      case 'feedback':
        void this.feedback(message.reader, message.outcome);
        break;
      case 'shutdown':
        this.stop();
        break;
    }
  }

  /** Waits for the smart-card service (Linux: pcscd's socket accepts a connection), then creates the PC/SC context. */
  private async connect(): Promise<void> {
    if (this.stopped) return;
    if (this.platform === 'linux' && !(await this.serviceAnswers())) {
      this.sendService('missing', { installed: pcscdInstalled(), detail: 'The smart-card service (pcscd) is not running.' });
      this.retry = setTimeout(() => void this.connect(), this.servicePollMs);
      return;
    }
    if (this.stopped) return;
    const generation = ++this.generation;
    let nfc: NfcClass;
    try {
      // Blocks this process's event loop until the service answers, which is why it runs here and not in main.
      nfc = new this.NFC!();
    } catch (error) {
      this.link.send({ type: 'error', detail: `PC/SC could not start: ${short(error)}` });
      this.retry = setTimeout(() => void this.connect(), 1_000);
      return;
    }
    this.nfc = nfc;
    this.recovering = false;
    nfc.on('reader', (reader) => this.onReader(reader, generation));
    nfc.on('error', (error) => {
      if (generation !== this.generation) return;
      if (contextFailed(error.message)) this.contextLost(short(error));
      else this.link.send({ type: 'error', detail: `PC/SC: ${short(error)}` });
    });
    this.sendService('ready');
    this.sendReaders();
  }

  private serviceAnswers(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.socketPath);
      const done = (answer: boolean) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      };
      const timer = setTimeout(() => done(false), 1_000);
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });
  }

  /**
   * The context failed (usually: the service went away). Drop it, its readers with it, and start a
   * new one once the service answers; repeated failures wait longer each time (up to 2 s).
   */
  private contextLost(reason: string): void {
    if (this.recovering || this.stopped) return;
    this.recovering = true;
    const now = Date.now();
    this.recentLosses = this.recentLosses.filter((at) => now - at < 10_000);
    this.recentLosses.push(now);
    const delay = Math.min(2_000, this.servicePollMs * 2 ** (this.recentLosses.length - 1));
    this.sendService('lost', { detail: `The smart-card service stopped or failed (${reason}); waiting for it.`.slice(0, 500) });
    this.dropContext();
    this.sendReaders();
    this.retry = setTimeout(() => void this.connect(), delay);
  }

  private dropContext(): void {
    this.generation++;
    const nfc = this.nfc;
    this.nfc = undefined;
    for (const entry of this.readers.values()) {
      // The dead context's readers still report errors ("RPC transport error") after this: keep them handled.
      entry.reader.removeAllListeners();
      entry.reader.on('error', () => undefined);
    }
    this.readers.clear();
    if (!nfc) return;
    // close() cancels the pending status call, which nfc-pcsc reports as an error: keep a handler.
    nfc.removeAllListeners();
    nfc.on('error', () => undefined);
    try {
      nfc.close();
    } catch {
      // The context is already gone with the service.
    }
  }

  private onReader(reader: Reader, generation: number): void {
    if (generation !== this.generation) return;
    reader.autoProcessing = false;
    const entry: ReaderEntry = { reader, cardPresent: false };
    this.readers.set(reader.name, entry);
    reader.reader.on('status', (status) => {
      const present = (status.state & reader.reader.SCARD_STATE_PRESENT) !== 0;
      if (present !== entry.cardPresent && this.readers.get(reader.name) === entry) {
        entry.cardPresent = present;
        if (!present) delete entry.restingAtr;
        this.sendReaders();
      }
    });
    reader.on('card', (card) => {
      if (generation === this.generation) void this.onCard(entry, card.atr);
    });
    reader.on('card.off', () => undefined);
    reader.on('error', (error) => {
      if (generation !== this.generation) return;
      if (contextFailed(error.message)) this.contextLost(short(error));
      else this.link.send({ type: 'error', reader: reader.name, detail: short(error) });
    });
    reader.on('end', () => {
      if (this.readers.get(reader.name) !== entry) return;
      this.readers.delete(reader.name);
      this.sendReaders();
    });
    this.sendReaders();
  }

  private async onCard(entry: ReaderEntry, atr: Buffer | undefined): Promise<void> {
    const { reader } = entry;
    entry.cardPresent = true;
    // Not armed: the card is noted as present (and read if a scan is armed while it rests there), nothing is read from it now.
    if (!this.armed) {
      entry.restingAtr = atr ?? Buffer.alloc(0);
      return;
    }
    delete entry.restingAtr;
    const detectedAt = performance.timeOrigin + performance.now();
    const card = describeAtr(atr ?? new Uint8Array());
    const transmit: Transmit = async (apdu, max) => new Uint8Array(await reader.transmit(Buffer.from(apdu), max));
    let uid: Uint8Array;
    try {
      uid = await readUid(transmit);
    } catch (error) {
      if (card.standard === 'iso14443-4' && error instanceof ApduStatusError) {
        return this.tapFailed(reader.name, 'unsupported', 'This card or phone does not give a card ID; use an NFC tag (NFC Forum Type 2).');
      }
      return this.readFailed(entry, error);
    }
    let content: TagContent;
    if (card.standard === 'iso14443-4') {
      // ISO 14443-3 says a 4-byte ID starting with 08 is random: phones and many smart cards pick a new one per tap.
      if (uid.length === 4 && uid[0] === 0x08) {
        return this.tapFailed(reader.name, 'unsupported', 'This card or phone shows a different ID at every tap, so it cannot be recognised; use an NFC tag.');
      }
      content = { status: 'unsupported' };
    } else if (card.type === 'nfcForumType2' || card.type === 'unknown') {
      try {
        content = await readType2Content(transmit);
      } catch (error) {
        return this.readFailed(entry, error);
      }
    } else {
      content = { status: 'unsupported' };
    }
    const readMs = performance.timeOrigin + performance.now() - detectedAt;
    this.link.send({
      type: 'tap',
      reader: reader.name,
      detectedAt,
      readMs,
      standard: card.standard,
      cardType: card.type,
      uid: toHex(uid),
      content,
    });
  }

  /** A read failed: "removed" when the card is gone (now, or by the reader's next presence poll), else a read error. */
  private async readFailed(entry: ReaderEntry, error: unknown): Promise<void> {
    const message = short(error);
    let removed = removedPattern.test(message) || !entry.cardPresent;
    for (let waited = 0; !removed && waited < 1_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      removed = !entry.cardPresent || this.readers.get(entry.reader.name) !== entry;
    }
    if (removed)
      return this.tapFailed(entry.reader.name, 'removed', 'The tag was lifted before it was read. Hold it still on the reader until it is confirmed.');
    this.tapFailed(entry.reader.name, 'readError', `The tag could not be read (${message}).`);
  }

  private tapFailed(reader: string, reason: 'removed' | 'unsupported' | 'readError', detail: string): void {
    this.link.send({ type: 'tapFailed', reader, reason, detail: detail.slice(0, 500) });
  }

  /** ACR122U / ACR1252U bi-colour LED and buzzer (pseudo-APDU FF 00 40), only when the setting is on. */
  private async feedback(readerName: string, outcome: 'success' | 'failure'): Promise<void> {
    if (!this.readerFeedback || !/acr12[25]/i.test(readerName)) return;
    const entry = this.readers.get(readerName);
    if (!entry?.reader.connection) return;
    // success: green blinks once with a short beep; failure: red blinks twice with longer beeps.
    const packet =
      outcome === 'success'
        ? Buffer.from([0xff, 0x00, 0x40, 0xac, 0x04, 0x01, 0x01, 0x01, 0x01])
        : Buffer.from([0xff, 0x00, 0x40, 0x5c, 0x04, 0x02, 0x02, 0x02, 0x03]);
    try {
      await entry.reader.control(packet, 2);
    } catch (error) {
      this.link.send({ type: 'error', reader: readerName, detail: `Reader feedback failed: ${short(error)}` });
    }
  }

  private sendReaders(): void {
    const readers = [...this.readers.values()].slice(0, 16).map((entry) => ({ name: entry.reader.name.slice(0, 200), cardPresent: entry.cardPresent }));
    this.link.send({ type: 'readers', readers });
  }

  private sendService(state: 'connecting' | 'ready' | 'missing' | 'lost', extra: { installed?: boolean; detail?: string } = {}): void {
    const key = `${state}:${extra.installed ?? ''}`;
    if (key === this.lastService) return;
    this.lastService = key;
    this.link.send({ type: 'service', state, ...extra });
  }
}

function pcscdInstalled(): boolean {
  return ['/usr/sbin/pcscd', '/usr/bin/pcscd', '/usr/local/sbin/pcscd', '/sbin/pcscd'].some((path) => existsSync(path));
}

/** An error's message, first line only and bounded (PC/SC messages name the call and the code, never card data). */
function short(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const previous = (error as { previousError?: unknown } | undefined)?.previousError;
  const inner = previous instanceof Error ? ` (${previous.message})` : '';
  return `${message}${cause}${inner}`.slice(0, 300);
}
