/**
 * Builders for virtual NFC Forum Type 2 tags: NDEF records and messages, and tag memory with the
 * ID pages, the capability container and an NDEF Message TLV (NTAG213 layout by default).
 */

export interface NdefRecordSpec {
  tnf: number;
  type: Uint8Array | string;
  payload: Uint8Array;
  id?: Uint8Array;
}

const bytesOf = (value: Uint8Array | string) => (typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'utf8')) : value);

/** An NDEF message from records: MB on the first, ME on the last, short records where they fit. */
export function ndefMessage(records: readonly NdefRecordSpec[]): Uint8Array {
  const parts: number[] = [];
  records.forEach((record, index) => {
    const type = bytesOf(record.type);
    const id = record.id ?? new Uint8Array();
    const short = record.payload.length < 256;
    let header = record.tnf & 0x07;
    if (index === 0) header |= 0x80;
    if (index === records.length - 1) header |= 0x40;
    if (short) header |= 0x10;
    if (id.length > 0) header |= 0x08;
    parts.push(header, type.length);
    if (short) parts.push(record.payload.length);
    else
      parts.push(
        (record.payload.length >>> 24) & 0xff,
        (record.payload.length >>> 16) & 0xff,
        (record.payload.length >>> 8) & 0xff,
        record.payload.length & 0xff,
      );
    if (id.length > 0) parts.push(id.length);
    parts.push(...type, ...id, ...record.payload);
  });
  return Uint8Array.from(parts);
}

/** A well-known URI record; `prefixCode` abbreviates (0x04 = "https://", 0x00 = none). */
export function uriRecord(uri: string, prefixCode = 0x00): NdefRecordSpec {
  const prefixes: Record<number, string> = { 0x00: '', 0x01: 'http://www.', 0x02: 'https://www.', 0x03: 'http://', 0x04: 'https://', 0x13: 'urn:' };
  const prefix = prefixes[prefixCode];
  if (prefix === undefined || !uri.startsWith(prefix)) throw new Error('the URI does not start with that prefix');
  return { tnf: 0x01, type: 'U', payload: Uint8Array.from([prefixCode, ...Buffer.from(uri.slice(prefix.length), 'utf8')]) };
}

/** A well-known Text record, UTF-8. */
export function textRecord(text: string, language = 'en'): NdefRecordSpec {
  const lang = Buffer.from(language, 'ascii');
  return { tnf: 0x01, type: 'T', payload: Uint8Array.from([lang.length & 0x3f, ...lang, ...Buffer.from(text, 'utf8')]) };
}

export interface Type2MemoryOptions {
  /** 7-byte ID (pages 0–2 with the check bytes). */
  uid: Uint8Array;
  /** The NDEF message to store in an NDEF Message TLV; omit for a formatted but empty tag (03 00 FE). */
  ndef?: Uint8Array;
  /** Raw data-area bytes (from page 4) instead of building the TLV from `ndef`. */
  dataArea?: Uint8Array;
  /** Data area size in bytes (CC byte 2 × 8); 144 for NTAG213. */
  dataAreaBytes?: number;
  /** Override the capability container (page 3). */
  capabilityContainer?: Uint8Array;
}

/** Tag memory: pages 0–2 (ID, check bytes, lock), page 3 (CC), then the data area and 16 bytes of configuration pages. */
export function type2Memory(options: Type2MemoryOptions): Uint8Array {
  const { uid } = options;
  if (uid.length !== 7) throw new Error('a Type 2 tag ID here is 7 bytes');
  const dataAreaBytes = options.dataAreaBytes ?? 144;
  const memory = new Uint8Array(16 + dataAreaBytes + 16);
  const bcc0 = 0x88 ^ uid[0]! ^ uid[1]! ^ uid[2]!;
  const bcc1 = uid[3]! ^ uid[4]! ^ uid[5]! ^ uid[6]!;
  memory.set([uid[0]!, uid[1]!, uid[2]!, bcc0, uid[3]!, uid[4]!, uid[5]!, uid[6]!, bcc1, 0x48, 0x00, 0x00], 0);
  memory.set(options.capabilityContainer ?? [0xe1, 0x10, dataAreaBytes / 8, 0x00], 12);
  let area = options.dataArea;
  if (!area) {
    const ndef = options.ndef ?? new Uint8Array();
    const length = ndef.length < 0xff ? [ndef.length] : [0xff, ndef.length >> 8, ndef.length & 0xff];
    area = Uint8Array.from([0x03, ...length, ...ndef, 0xfe]);
  }
  if (area.length > dataAreaBytes) throw new Error(`the data (${area.length} bytes) does not fit the tag's ${dataAreaBytes}-byte data area`);
  memory.set(area, 16);
  return memory;
}

/** A random 7-byte NXP-style ID (first byte 0x04, the NXP manufacturer code). */
export function randomUid(): Uint8Array {
  const uid = new Uint8Array(7);
  crypto.getRandomValues(uid);
  uid[0] = 0x04;
  return uid;
}
