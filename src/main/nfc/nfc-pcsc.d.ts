/**
 * The part of nfc-pcsc 0.8.1 (no bundled types) that the reader process uses. The package is
 * CommonJS; under ESM it arrives as named exports and as `default` (module.exports).
 */
declare module 'nfc-pcsc' {
  import type { EventEmitter } from 'node:events';

  export interface CardInfo {
    atr?: Buffer;
    standard?: string;
    type?: string;
    uid?: string;
  }

  export interface PcscStatus {
    state: number;
    atr?: Buffer;
  }

  /** The @pokusew/pcsclite reader inside an nfc-pcsc Reader. */
  export interface PcscReader extends EventEmitter {
    readonly name: string;
    state: number;
    readonly SCARD_STATE_PRESENT: number;
    readonly SCARD_STATE_EMPTY: number;
    on(event: 'status', listener: (status: PcscStatus) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export class Reader extends EventEmitter {
    readonly reader: PcscReader;
    readonly name: string;
    autoProcessing: boolean;
    card: CardInfo | null;
    connection: { type: number; protocol: number } | null;
    /** Rejects with a TransmitError; throws synchronously when no card is connected. */
    transmit(data: Buffer, responseMaxLength: number): Promise<Buffer>;
    /** SCardControl with IOCTL_CCID_ESCAPE; throws synchronously when not connected. */
    control(data: Buffer, responseMaxLength: number): Promise<Buffer>;
    close(): void;
    on(event: 'card', listener: (card: CardInfo) => void): this;
    on(event: 'card.off', listener: (card: CardInfo) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'end', listener: () => void): this;
  }

  export class NFC extends EventEmitter {
    /** Creates the PC/SC context: blocks the event loop while the smart-card service is down. */
    constructor(logger?: unknown);
    readonly readers: Record<string, unknown>;
    close(): void;
    on(event: 'reader', listener: (reader: Reader) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }

  const nfcPcsc: { NFC: typeof NFC; Reader: typeof Reader };
  export default nfcPcsc;
}
