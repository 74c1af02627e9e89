import { maxNdefMessageBytes } from './ndef';

/**
 * NFC Forum Type 2 tags (MIFARE Ultralight, NTAG21x): the capability container in page 3 and the
 * TLV blocks of the data area from page 4. Pure helpers: the reader process feeds them the bytes
 * it has read so far and they say how many more bytes are needed, within the declared data area
 * and never beyond maxNdefMessageBytes of NDEF.
 */

/** Byte offset of the data area (page 4) in tag memory. */
export const type2DataAreaOffset = 16;
/** Largest read (four pages) a PC/SC READ BINARY returns from a Type 2 tag. */
export const type2ReadBytes = 16;

export type CapabilityContainer = { ok: true; version: number; dataAreaBytes: number } | { ok: false; reason: string };

export function parseCapabilityContainer(cc: Uint8Array): CapabilityContainer {
  if (cc.length < 4) return { ok: false, reason: 'the capability container is cut short' };
  if (cc[0] !== 0xe1) return { ok: false, reason: 'the tag is not formatted for NDEF' };
  const version = cc[1]!;
  if (version >> 4 !== 1) return { ok: false, reason: 'the tag uses an NDEF mapping version this reader does not know' };
  if (cc[3]! >> 4 !== 0) return { ok: false, reason: 'the tag does not allow reading its NDEF data' };
  const dataAreaBytes = cc[2]! * 8;
  if (dataAreaBytes === 0) return { ok: false, reason: 'the tag declares no data area' };
  return { ok: true, version, dataAreaBytes };
}

export type TlvScan =
  /** Read until `area` holds at least `bytes` bytes (never more than the data area), then scan again. */
  | { kind: 'need'; bytes: number }
  | { kind: 'ndef'; start: number; length: number }
  /** A terminator or the end of the data area came before any NDEF Message TLV. */
  | { kind: 'none' }
  | { kind: 'malformed'; reason: string };

const tlv = { null: 0x00, lockControl: 0x01, memoryControl: 0x02, ndefMessage: 0x03, proprietary: 0xfd, terminator: 0xfe } as const;

/** Finds the first NDEF Message TLV in the data area bytes read so far (`area` starts at page 4). */
export function scanTlvs(area: Uint8Array, dataAreaBytes: number): TlvScan {
  let offset = 0;
  let blocks = 0;
  // Every pass moves `offset` forward, so the loop ends within the data area.
  for (;;) {
    if (offset >= dataAreaBytes) return { kind: 'none' };
    if (offset >= area.length) return need(offset + 1, dataAreaBytes);
    const type = area[offset]!;
    if (type === tlv.null) {
      offset += 1;
      continue;
    }
    if (type === tlv.terminator) return { kind: 'none' };
    if (type !== tlv.lockControl && type !== tlv.memoryControl && type !== tlv.ndefMessage && type !== tlv.proprietary) {
      return { kind: 'malformed', reason: 'the tag memory holds an unknown TLV block' };
    }
    if (++blocks > 64) return { kind: 'malformed', reason: 'the tag memory holds too many TLV blocks' };
    if (offset + 2 > area.length) return need(offset + 2, dataAreaBytes);
    let length = area[offset + 1]!;
    let header = 2;
    if (length === 0xff) {
      if (offset + 4 > area.length) return need(offset + 4, dataAreaBytes);
      length = (area[offset + 2]! << 8) | area[offset + 3]!;
      header = 4;
    }
    const start = offset + header;
    if (start + length > dataAreaBytes) return { kind: 'malformed', reason: 'a TLV block runs past the end of the tag memory' };
    if (type === tlv.ndefMessage) {
      if (length > maxNdefMessageBytes) return { kind: 'malformed', reason: `the NDEF message is larger than ${maxNdefMessageBytes} bytes` };
      if (start + length > area.length) return need(start + length, dataAreaBytes);
      return { kind: 'ndef', start, length };
    }
    offset = start + length;
  }
}

function need(bytes: number, dataAreaBytes: number): TlvScan {
  if (bytes > dataAreaBytes) return { kind: 'malformed', reason: 'a TLV block runs past the end of the tag memory' };
  return { kind: 'need', bytes };
}
