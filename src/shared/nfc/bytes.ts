/** Byte helpers for the NFC code: pure, no Buffer (src/shared runs anywhere). */

const hexDigits = '0123456789abcdef';

/** Lowercase hex of the bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += hexDigits[byte >> 4]! + hexDigits[byte & 0x0f]!;
  return out;
}

/** Bytes from an even-length hex string (either case); throws on anything else. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new TypeError('not a hex string');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** ASCII text from bytes, or undefined when any byte is outside printable ASCII (0x20–0x7E). */
export function printableAscii(bytes: Uint8Array): string | undefined {
  let out = '';
  for (const byte of bytes) {
    if (byte < 0x20 || byte > 0x7e) return undefined;
    out += String.fromCharCode(byte);
  }
  return out;
}

/** Bytes of an ASCII string (callers pass only strings they built from printable ASCII). */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new TypeError('not ASCII');
    out[i] = code;
  }
  return out;
}
