import { connect, type Socket } from 'node:net';

/**
 * A virtual contactless card for vpcd (vsmartcard's virtual reader driver inside pcscd).
 *
 * vpcd listens on TCP 35963 ("Virtual PCD 00 00") and 35964 ("Virtual PCD 00 01"); the card is the
 * client. Each message, both ways, is a 2-byte big-endian length and then the payload. One-byte
 * payloads from vpcd are control codes: 00 power off, 01 power on, 02 reset (no answer), 04 "send
 * your ATR" (also pcscd's presence poll, about every 400 ms). Longer payloads are command APDUs,
 * answered with a response APDU. An open socket is a present card; closing it removes the card
 * (pcscd notices at its next poll).
 *
 * Connects to 127.0.0.1 only (vpcd listens on every interface; tests never leave this machine).
 */

/** The ATR a PC/SC reader reports for an NFC Forum Type 2 tag (MIFARE Ultralight / NTAG). */
export const type2Atr = Uint8Array.from(Buffer.from('3B8F8001804F0CA0000003060300030000000068', 'hex'));
/** An ISO 14443-4 card's ATR (byte 5 is not 0x4F), as readers build it from the card's ATS. */
export const iso14443_4Atr = Uint8Array.from(Buffer.from('3B8880018073C84013009000F1', 'hex'));

export const vpcdPorts = { reader0: 35963, reader1: 35964 } as const;
export const vpcdReaderNames = { reader0: 'Virtual PCD 00 00', reader1: 'Virtual PCD 00 01' } as const;

/** Answer to an APDU: response bytes, or 'close' to drop the connection instead of answering (a lifted card). */
export type ApduAnswer = Uint8Array | 'close';

export interface VirtualCardOptions {
  atr?: Uint8Array;
  /** Card ID returned to GET DATA (FF CA 00 00 00); omit for a card that refuses it (6A 81). */
  uid?: Uint8Array;
  /** Type 2 memory (pages of 4 bytes) for READ BINARY (FF B0 00 pp len). */
  memory?: Uint8Array;
  /** Runs before the built-in handling; return an answer to override it. */
  onApdu?: (apdu: Uint8Array, card: VirtualCard) => ApduAnswer | undefined | Promise<ApduAnswer | undefined>;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

const sw = (hi: number, lo: number) => Uint8Array.of(hi, lo);

export class VirtualCard {
  /** Every APDU received, in order (hex), for assertions. */
  readonly apdus: string[] = [];
  /** Control codes received (00/01/02/04). */
  readonly controls: number[] = [];
  readonly closed: Promise<void>;
  private buffer = Buffer.alloc(0);
  private powered = false;
  private readonly waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor(
    private readonly socket: Socket,
    private readonly options: VirtualCardOptions,
  ) {
    socket.setNoDelay(true);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
  }

  /** Presents the card to a vpcd reader (connects to it). Resolves once connected. */
  static insert(options: VirtualCardOptions = {}, timeoutMs = 5_000): Promise<VirtualCard> {
    const host = options.host ?? '127.0.0.1';
    const port = options.port ?? vpcdPorts.reader0;
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`vpcd did not accept a card on ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new VirtualCard(socket, options));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  get isPowered(): boolean {
    return this.powered;
  }

  /** Removes the card (closes the connection). */
  async remove(): Promise<void> {
    this.socket.end();
    this.socket.destroy();
    await this.closed;
  }

  /** Resolves when an APDU whose hex starts with `prefix` (lowercase) has arrived. */
  waitForApdu(prefix: string, timeoutMs = 5_000): Promise<void> {
    return this.waitFor(() => this.apdus.some((apdu) => apdu.startsWith(prefix)), timeoutMs, `an APDU ${prefix}…`);
  }

  /** Resolves after vpcd asked for the ATR (pcscd has polled the card at least once). */
  waitForAtrRequest(timeoutMs = 5_000): Promise<void> {
    return this.waitFor(() => this.controls.includes(0x04), timeoutMs, 'an ATR request');
  }

  private waitFor(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`the virtual card did not receive ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    void this.drain();
  }

  private draining = false;

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.buffer.length >= 2) {
        const length = this.buffer.readUInt16BE(0);
        if (this.buffer.length < 2 + length) break;
        const payload = Uint8Array.from(this.buffer.subarray(2, 2 + length));
        this.buffer = this.buffer.subarray(2 + length);
        await this.handle(payload);
        for (const waiter of [...this.waiters]) {
          if (waiter.test()) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async handle(payload: Uint8Array): Promise<void> {
    if (payload.length === 1) {
      const code = payload[0]!;
      this.controls.push(code);
      if (code === 0x00) this.powered = false;
      else if (code === 0x01 || code === 0x02) this.powered = true;
      else if (code === 0x04) this.reply(this.options.atr ?? type2Atr);
      return;
    }
    if (payload.length === 0) return;
    this.apdus.push(Buffer.from(payload).toString('hex'));
    const custom = await this.options.onApdu?.(payload, this);
    const answer = custom ?? this.answer(payload);
    if (answer === 'close') {
      this.socket.destroy();
      return;
    }
    this.reply(answer);
  }

  private answer(apdu: Uint8Array): Uint8Array {
    const [cla, ins, p1, p2] = apdu;
    // GET DATA: card ID
    if (cla === 0xff && ins === 0xca && p1 === 0x00 && p2 === 0x00) {
      const uid = this.options.uid;
      return uid ? Uint8Array.from([...uid, 0x90, 0x00]) : sw(0x6a, 0x81);
    }
    // READ BINARY from Type 2 memory: page (P1 << 8 | P2), Le bytes.
    if (cla === 0xff && ins === 0xb0 && apdu.length === 5 && this.options.memory) {
      const offset = ((p1! << 8) | p2!) * 4;
      const length = apdu[4] === 0 ? 256 : apdu[4]!;
      const memory = this.options.memory;
      if (offset + length > memory.length) return sw(0x6a, 0x82);
      return Uint8Array.from([...memory.subarray(offset, offset + length), 0x90, 0x00]);
    }
    return sw(0x6a, 0x82);
  }

  private reply(payload: Uint8Array): void {
    if (this.socket.destroyed) return;
    const frame = Buffer.alloc(2 + payload.length);
    frame.writeUInt16BE(payload.length, 0);
    frame.set(payload, 2);
    // One write per message: a split header and body would wait on Nagle and delayed ACKs.
    this.socket.write(frame);
  }
}
