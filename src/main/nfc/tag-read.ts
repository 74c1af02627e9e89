import { toHex } from '../../shared/nfc/bytes';
import type { TagContent } from '../../shared/nfc/reader-protocol';
import { parseCapabilityContainer, scanTlvs, type2DataAreaOffset, type2ReadBytes } from '../../shared/nfc/type2';

/**
 * The APDUs the reader process sends to a tag, over a transmit function (nfc-pcsc's in the reader
 * process, a fake in tests). Reads are sequential, one READ BINARY at a time: nfc-pcsc's own
 * read() sends them concurrently and they can come back out of order.
 */
export type Transmit = (apdu: Uint8Array, responseMaxLength: number) => Promise<Uint8Array>;

/** The card answered with a status word other than 90 00. */
export class ApduStatusError extends Error {
  constructor(readonly statusWord: number) {
    super(`the card answered ${statusWord.toString(16).padStart(4, '0').toUpperCase()}`);
    this.name = 'ApduStatusError';
  }
}

function statusOf(response: Uint8Array): number {
  if (response.length < 2) throw new Error('the card sent a response shorter than a status word');
  return (response[response.length - 2]! << 8) | response[response.length - 1]!;
}

/** PC/SC GET DATA (FF CA 00 00 00): the card's ID, 4 to 10 bytes. */
export async function readUid(transmit: Transmit): Promise<Uint8Array> {
  const response = await transmit(Uint8Array.of(0xff, 0xca, 0x00, 0x00, 0x00), 12);
  const status = statusOf(response);
  if (status !== 0x9000) throw new ApduStatusError(status);
  const uid = response.subarray(0, -2);
  if (uid.length < 4 || uid.length > 10) throw new Error(`the card reported an ID of ${uid.length} bytes`);
  return uid.slice();
}

/** READ BINARY of `length` bytes (≤ 16) from Type 2 page `page`. */
async function readPages(transmit: Transmit, page: number, length: number): Promise<Uint8Array> {
  const response = await transmit(Uint8Array.of(0xff, 0xb0, (page >> 8) & 0xff, page & 0xff, length), length + 2);
  const status = statusOf(response);
  if (status !== 0x9000) throw new ApduStatusError(status);
  if (response.length !== length + 2) throw new Error(`the card returned ${response.length - 2} bytes instead of ${length}`);
  return response.subarray(0, -2);
}

/**
 * A Type 2 tag's NDEF message: the capability container (page 3), then bounded reads of the TLV
 * area until the NDEF Message TLV is complete. A card error answer (a status word) while reading
 * the data area is a malformed tag; a transmit failure (lifted card, reader error) is thrown.
 */
export async function readType2Content(transmit: Transmit): Promise<TagContent> {
  let first: Uint8Array;
  try {
    first = await readPages(transmit, 3, type2ReadBytes);
  } catch (error) {
    if (error instanceof ApduStatusError) return { status: 'absent', reason: 'the tag does not have a readable capability container' };
    throw error;
  }
  const cc = parseCapabilityContainer(first.subarray(0, 4));
  if (!cc.ok) return cc.reason === 'the tag is not formatted for NDEF' ? { status: 'absent', reason: cc.reason } : { status: 'malformed', reason: cc.reason };

  let area: Uint8Array = first.slice(4);
  const maxReads = Math.ceil(cc.dataAreaBytes / 4) + 1;
  for (let reads = 0; reads <= maxReads; reads++) {
    const scan = scanTlvs(area, cc.dataAreaBytes);
    switch (scan.kind) {
      case 'none':
        return { status: 'absent', reason: 'the tag holds no NDEF message' };
      case 'malformed':
        return { status: 'malformed', reason: scan.reason };
      case 'ndef':
        return { status: 'message', bytes: toHex(area.subarray(scan.start, scan.start + scan.length)) };
      case 'need': {
        const page = (type2DataAreaOffset + area.length) / 4;
        const length = Math.min(type2ReadBytes, cc.dataAreaBytes - area.length);
        let chunk: Uint8Array;
        try {
          chunk = await readPages(transmit, page, length);
        } catch (error) {
          if (error instanceof ApduStatusError) return { status: 'malformed', reason: 'the tag did not return the memory its capability container declares' };
          throw error;
        }
        const grown = new Uint8Array(area.length + chunk.length);
        grown.set(area);
        grown.set(chunk, area.length);
        area = grown;
        break;
      }
    }
  }
  return { status: 'malformed', reason: 'the tag memory could not be read to its end' };
}
