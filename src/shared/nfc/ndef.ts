import { printableAscii } from './bytes';

/**
 * NDEF (NFC Forum Data Exchange Format) message parsing, bounded and strict. Tag content is
 * untrusted data: it is parsed, measured and never executed or interpreted as an instruction.
 * Only well-known URI ("U") and Text ("T") records are decoded, and only to look for an object
 * reference (see object-ref.ts); everything else is skipped.
 */

/** Largest NDEF message we accept (NTAG216, the largest common Type 2 tag, holds 868 bytes). */
export const maxNdefMessageBytes = 1024;
const maxRecords = 16;

export const tnf = { empty: 0, wellKnown: 1, media: 2, absoluteUri: 3, external: 4, unknown: 5, unchanged: 6, reserved: 7 } as const;

export interface NdefRecord {
  tnf: number;
  type: Uint8Array;
  id: Uint8Array;
  payload: Uint8Array;
}

export type NdefParseResult = { ok: true; records: NdefRecord[] } | { ok: false; reason: string };

/** Parses one NDEF message (the value of an NDEF Message TLV). An empty message (0 bytes) has no records. */
export function parseNdefMessage(bytes: Uint8Array): NdefParseResult {
  if (bytes.length > maxNdefMessageBytes) return { ok: false, reason: `the NDEF message is larger than ${maxNdefMessageBytes} bytes` };
  const records: NdefRecord[] = [];
  let offset = 0;
  let ended = false;
  while (offset < bytes.length) {
    if (ended) return { ok: false, reason: 'data follows the last NDEF record' };
    if (records.length === maxRecords) return { ok: false, reason: `the NDEF message has more than ${maxRecords} records` };
    const header = bytes[offset]!;
    const mb = (header & 0x80) !== 0;
    const me = (header & 0x40) !== 0;
    const cf = (header & 0x20) !== 0;
    const sr = (header & 0x10) !== 0;
    const il = (header & 0x08) !== 0;
    const recordTnf = header & 0x07;
    if (mb !== (records.length === 0)) return { ok: false, reason: 'the NDEF message-begin flag is misplaced' };
    if (cf) return { ok: false, reason: 'chunked NDEF records are not supported' };
    let cursor = offset + 1;
    const need = (count: number) => cursor + count <= bytes.length;
    if (!need(1)) return truncated();
    const typeLength = bytes[cursor]!;
    cursor += 1;
    let payloadLength: number;
    if (sr) {
      if (!need(1)) return truncated();
      payloadLength = bytes[cursor]!;
      cursor += 1;
    } else {
      if (!need(4)) return truncated();
      payloadLength = ((bytes[cursor]! << 24) | (bytes[cursor + 1]! << 16) | (bytes[cursor + 2]! << 8) | bytes[cursor + 3]!) >>> 0;
      cursor += 4;
    }
    let idLength = 0;
    if (il) {
      if (!need(1)) return truncated();
      idLength = bytes[cursor]!;
      cursor += 1;
    }
    if (!need(typeLength)) return truncated();
    const type = bytes.slice(cursor, cursor + typeLength);
    cursor += typeLength;
    if (!need(idLength)) return truncated();
    const id = bytes.slice(cursor, cursor + idLength);
    cursor += idLength;
    if (payloadLength > bytes.length - cursor) return truncated();
    const payload = bytes.slice(cursor, cursor + payloadLength);
    cursor += payloadLength;

    const problem = checkTnf(recordTnf, typeLength, idLength, payloadLength);
    if (problem) return { ok: false, reason: problem };
    records.push({ tnf: recordTnf, type, id, payload });
    ended = me;
    offset = cursor;
  }
  if (records.length > 0 && !ended) return { ok: false, reason: 'the last NDEF record has no message-end flag' };
  return { ok: true, records };
}

function truncated(): NdefParseResult {
  return { ok: false, reason: 'an NDEF record is cut short' };
}

function checkTnf(recordTnf: number, typeLength: number, idLength: number, payloadLength: number): string | undefined {
  switch (recordTnf) {
    case tnf.empty:
      return typeLength === 0 && idLength === 0 && payloadLength === 0 ? undefined : 'an empty NDEF record carries data';
    case tnf.wellKnown:
    case tnf.media:
    case tnf.absoluteUri:
    case tnf.external:
      return typeLength > 0 ? undefined : 'an NDEF record has no type';
    case tnf.unknown:
      return typeLength === 0 ? undefined : 'an NDEF record of unknown type names a type';
    case tnf.unchanged:
      return 'an NDEF record continues a chunk that never started';
    default:
      return 'an NDEF record uses a reserved type format';
  }
}

/** NFC Forum URI Record Type Definition: abbreviations by the payload's first byte (0x00–0x23). */
export const uriPrefixes: readonly string[] = [
  '',
  'http://www.',
  'https://www.',
  'http://',
  'https://',
  'tel:',
  'mailto:',
  'ftp://anonymous:anonymous@',
  'ftp://ftp.',
  'ftps://',
  'sftp://',
  'smb://',
  'nfs://',
  'ftp://',
  'dav://',
  'news:',
  'telnet://',
  'imap:',
  'rtsp://',
  'urn:',
  'pop:',
  'sip:',
  'sips:',
  'tftp:',
  'btspp://',
  'btl2cap://',
  'btgoep://',
  'tcpobex://',
  'irdaobex://',
  'file://',
  'urn:epc:id:',
  'urn:epc:tag:',
  'urn:epc:pat:',
  'urn:epc:raw:',
  'urn:epc:',
  'urn:nfc:',
];

/** Longest text we decode from one record while looking for a reference (references are at most 256 characters). */
const maxDecodedChars = 512;

export type RecordText = { ok: true; kind: 'uri' | 'text'; value: string } | { ok: false; kind: 'uri' | 'text'; reason: string } | undefined;

/**
 * The string a URI or Text record holds, when it is printable ASCII and at most 512 characters.
 * Undefined for any other record. Object references are ASCII by construction, so non-ASCII text
 * is reported as "not a reference" rather than decoded.
 */
export function recordText(record: NdefRecord): RecordText {
  if (record.tnf !== tnf.wellKnown || record.type.length !== 1) return undefined;
  if (record.type[0] === 0x55 /* U */) {
    if (record.payload.length === 0) return { ok: false, kind: 'uri', reason: 'the URI record is empty' };
    const prefix = uriPrefixes[record.payload[0]!];
    if (prefix === undefined) return { ok: false, kind: 'uri', reason: 'the URI record uses a reserved abbreviation' };
    const rest = record.payload.subarray(1);
    if (rest.length > maxDecodedChars) return { ok: false, kind: 'uri', reason: 'the URI is too long' };
    const ascii = printableAscii(rest);
    if (ascii === undefined) return { ok: false, kind: 'uri', reason: 'the URI has characters outside printable ASCII' };
    return { ok: true, kind: 'uri', value: prefix + ascii };
  }
  if (record.type[0] === 0x54 /* T */) {
    if (record.payload.length === 0) return { ok: false, kind: 'text', reason: 'the text record is empty' };
    const status = record.payload[0]!;
    const utf16 = (status & 0x80) !== 0;
    if ((status & 0x40) !== 0) return { ok: false, kind: 'text', reason: 'the text record sets a reserved bit' };
    const languageLength = status & 0x3f;
    if (1 + languageLength > record.payload.length) return { ok: false, kind: 'text', reason: 'the text record is cut short' };
    const body = record.payload.subarray(1 + languageLength);
    const text = utf16 ? asciiFromUtf16(body) : body.length > maxDecodedChars ? undefined : printableAscii(body);
    if (text === undefined) return { ok: false, kind: 'text', reason: 'the text is not a short printable-ASCII string' };
    return { ok: true, kind: 'text', value: text };
  }
  return undefined;
}

/** UTF-16 text (with or without a byte-order mark, big-endian by default) that is printable ASCII, else undefined. */
function asciiFromUtf16(bytes: Uint8Array): string | undefined {
  if (bytes.length % 2 !== 0 || bytes.length > maxDecodedChars * 2 + 2) return undefined;
  let littleEndian = false;
  let start = 0;
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) [littleEndian, start] = [true, 2];
  else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) start = 2;
  let out = '';
  for (let i = start; i < bytes.length; i += 2) {
    const unit = littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!;
    if (unit < 0x20 || unit > 0x7e) return undefined;
    out += String.fromCharCode(unit);
  }
  return out;
}
