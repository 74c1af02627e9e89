/**
 * Property lists (issue #28): macOS keeps managed preferences as plists, binary (`bplist00`) or XML,
 * and a configuration profile is an XML plist. This reads both forms into plain values and writes
 * the XML form, small and bounded on purpose: a plist read here comes from a root-owned file, but it
 * is still parsed as untrusted (depth, object count and every offset checked; no entity but XML's
 * five and character references; no external DTD ever fetched).
 *
 * Values: dict → a plain object (own properties only), array → array, string, integer → number
 * (bigint beyond 2^53), real → number, true/false → boolean, date → Date, data → Uint8Array.
 */
export type PlistValue = string | number | bigint | boolean | Date | Uint8Array | PlistValue[] | { [key: string]: PlistValue };

export class PlistError extends Error {}

const maxDepth = 64;
const maxObjects = 100_000;

/** A plist file's bytes (binary or XML) → its value. */
export function parsePlist(bytes: Uint8Array): PlistValue {
  if (bytes.length >= 8 && new TextDecoder('latin1').decode(bytes.subarray(0, 8)) === 'bplist00') return parseBinaryPlist(bytes);
  return parseXmlPlist(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
}

// ---------------------------------------------------------------------------------------------
// Binary: the header, objects, an offset table and a 32-byte trailer (CoreFoundation's CFBinaryPList.c).

export function parseBinaryPlist(bytes: Uint8Array): PlistValue {
  if (bytes.length < 8 + 32) throw new PlistError('a binary plist too short for its trailer');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const trailer = bytes.length - 32;
  const offsetSize = view.getUint8(trailer + 6);
  const refSize = view.getUint8(trailer + 7);
  const count = safeNumber(view.getBigUint64(trailer + 8));
  const top = safeNumber(view.getBigUint64(trailer + 16));
  const tableOffset = safeNumber(view.getBigUint64(trailer + 24));
  if (![1, 2, 4, 8].includes(offsetSize) || ![1, 2, 4, 8].includes(refSize)) throw new PlistError('a binary plist with an unknown integer size in its trailer');
  if (count < 1 || count > maxObjects || top >= count) throw new PlistError('a binary plist with an impossible object count');
  if (tableOffset < 8 || tableOffset + count * offsetSize > trailer) throw new PlistError('a binary plist whose offset table is outside the file');
  const uint = (at: number, size: number): number => {
    if (at < 0 || at + size > bytes.length) throw new PlistError('a binary plist read past its end');
    let value = 0;
    for (let index = 0; index < size; index++) value = value * 256 + bytes[at + index]!;
    if (!Number.isSafeInteger(value)) throw new PlistError('a binary plist offset too large');
    return value;
  };
  const offsetOf = (ref: number): number => {
    if (ref >= count) throw new PlistError('a binary plist object reference out of range');
    const offset = uint(tableOffset + ref * offsetSize, offsetSize);
    if (offset < 8 || offset >= tableOffset) throw new PlistError('a binary plist object outside the object area');
    return offset;
  };
  const onPath = new Set<number>();
  const read = (ref: number, depth: number): PlistValue => {
    if (depth > maxDepth) throw new PlistError(`a binary plist nested deeper than ${maxDepth}`);
    if (onPath.has(ref)) throw new PlistError('a binary plist that contains itself');
    const at = offsetOf(ref);
    const marker = bytes[at]!;
    const high = marker >> 4;
    const low = marker & 0x0f;
    // A length: the low nibble, or (0xF) an integer object that follows.
    const length = (): { length: number; start: number } => {
      if (low !== 0x0f) return { length: low, start: at + 1 };
      const intMarker = bytes[at + 1];
      if (intMarker === undefined || intMarker >> 4 !== 0x1) throw new PlistError('a binary plist length that is not an integer');
      const size = 1 << (intMarker & 0x0f);
      if (size > 8) throw new PlistError('a binary plist length too large');
      return { length: uint(at + 2, size), start: at + 2 + size };
    };
    switch (high) {
      case 0x0:
        if (marker === 0x08) return false;
        if (marker === 0x09) return true;
        throw new PlistError(`a binary plist object of an unsupported kind (0x${marker.toString(16)})`);
      case 0x1: {
        const size = 1 << low;
        if (at + 1 + size > bytes.length) throw new PlistError('a binary plist read past its end');
        if (size === 8) return smallest(view.getBigInt64(at + 1));
        if (size === 16) return smallest(view.getBigInt64(at + 9)); // 128-bit: CoreFoundation writes the low 64 bits in the second half
        if (size > 8) throw new PlistError('a binary plist integer of an unknown size');
        return uint(at + 1, size);
      }
      case 0x2:
        if (low === 2) return view.getFloat32(at + 1);
        if (low === 3) return view.getFloat64(at + 1);
        throw new PlistError('a binary plist real of an unknown size');
      case 0x3:
        if (marker !== 0x33) throw new PlistError('a binary plist date of an unknown size');
        return new Date(Date.UTC(2001, 0, 1) + view.getFloat64(at + 1) * 1000);
      case 0x4: {
        const { length: size, start } = length();
        if (start + size > bytes.length) throw new PlistError('a binary plist read past its end');
        return Uint8Array.from(bytes.subarray(start, start + size));
      }
      case 0x5: {
        const { length: size, start } = length();
        if (start + size > bytes.length) throw new PlistError('a binary plist read past its end');
        return new TextDecoder('latin1').decode(bytes.subarray(start, start + size));
      }
      case 0x6: {
        const { length: units, start } = length();
        if (start + units * 2 > bytes.length) throw new PlistError('a binary plist read past its end');
        let text = '';
        for (let index = 0; index < units; index++) text += String.fromCharCode(view.getUint16(start + index * 2));
        return text;
      }
      case 0xa:
      case 0xd: {
        const { length: size, start } = length();
        const refs = (from: number, n: number) => Array.from({ length: n }, (_, index) => uint(from + index * refSize, refSize));
        onPath.add(ref);
        try {
          if (high === 0xa) return refs(start, size).map((item) => read(item, depth + 1));
          const keys = refs(start, size);
          const values = refs(start + size * refSize, size);
          const entries = keys.map((keyRef, index): [string, PlistValue] => {
            const key = read(keyRef, depth + 1);
            if (typeof key !== 'string') throw new PlistError('a binary plist dictionary key that is not a string');
            return [key, read(values[index]!, depth + 1)];
          });
          return dictionary(entries);
        } finally {
          onPath.delete(ref);
        }
      }
      default:
        throw new PlistError(`a binary plist object of an unsupported kind (0x${marker.toString(16)})`);
    }
  };
  return read(top, 0);
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new PlistError('a binary plist trailer value too large');
  return Number(value);
}

function smallest(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** An object of own properties (a key "__proto__" is a key like any other). */
function dictionary(entries: [string, PlistValue][]): { [key: string]: PlistValue } {
  const result: { [key: string]: PlistValue } = {};
  for (const [key, value] of entries) {
    if (Object.hasOwn(result, key)) throw new PlistError(`a plist dictionary with the key "${key.slice(0, 40)}" twice`);
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// XML: a small reader for the plist vocabulary (Apple's PropertyList-1.0 DTD), which needs no more XML than this.

interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

export function parseXmlPlist(text: string): PlistValue {
  const root = parseXml(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (root.name !== 'plist') throw new PlistError('an XML plist must have <plist> as its root');
  if (root.children.length !== 1) throw new PlistError('<plist> must hold exactly one value');
  let objects = 0;
  const value = (element: XmlElement, depth: number): PlistValue => {
    if (depth > maxDepth) throw new PlistError(`a plist nested deeper than ${maxDepth}`);
    if (++objects > maxObjects) throw new PlistError(`a plist of more than ${maxObjects} objects`);
    const leaf = () => {
      if (element.children.length > 0) throw new PlistError(`<${element.name}> must hold only text`);
      return element.text;
    };
    switch (element.name) {
      case 'string':
        return leaf();
      case 'integer': {
        const body = leaf().trim();
        if (!/^[+-]?\d+$/.test(body) && !/^0x[0-9a-f]+$/i.test(body)) throw new PlistError(`<integer> ${body.slice(0, 40)} is not a whole number`);
        return smallest(BigInt(body.replace(/^\+/, '')));
      }
      case 'real': {
        const body = leaf().trim();
        const number = Number(body);
        if (body === '' || Number.isNaN(number)) throw new PlistError(`<real> ${body.slice(0, 40)} is not a number`);
        return number;
      }
      case 'true':
      case 'false':
        if (element.children.length > 0 || element.text.trim() !== '') throw new PlistError(`<${element.name}/> must be empty`);
        return element.name === 'true';
      case 'date': {
        const date = new Date(leaf().trim());
        if (Number.isNaN(date.getTime())) throw new PlistError('<date> is not a date');
        return date;
      }
      case 'data': {
        const body = leaf().replace(/\s+/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new PlistError('<data> is not base64');
        return Uint8Array.from(atob(body), (char) => char.charCodeAt(0));
      }
      case 'array':
        if (element.text.trim() !== '') throw new PlistError('<array> must hold only values');
        return element.children.map((child) => value(child, depth + 1));
      case 'dict': {
        if (element.text.trim() !== '') throw new PlistError('<dict> must hold only keys and values');
        const entries: [string, PlistValue][] = [];
        for (let index = 0; index < element.children.length; index += 2) {
          const key = element.children[index]!;
          const item = element.children[index + 1];
          if (key.name !== 'key' || key.children.length > 0) throw new PlistError('<dict> must hold <key> then a value, each time');
          if (!item) throw new PlistError(`<key>${key.text.slice(0, 40)}</key> has no value`);
          entries.push([key.text, value(item, depth + 1)]);
        }
        return dictionary(entries);
      }
      default:
        throw new PlistError(`<${element.name.slice(0, 40)}> is not a plist element`);
    }
  };
  return value(root.children[0]!, 0);
}

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The one root element of an XML document (prolog, comments, DOCTYPE and processing instructions skipped). */
function parseXml(text: string): XmlElement {
  let index = 0;
  const fail = (message: string) => new PlistError(`XML at character ${index}: ${message}`);
  const skipMisc = () => {
    for (;;) {
      while (index < text.length && /\s/.test(text[index]!)) index++;
      if (text.startsWith('<?', index)) index = after('?>');
      else if (text.startsWith('<!--', index)) index = after('-->');
      else if (text.startsWith('<!DOCTYPE', index)) index = afterDoctype();
      else return;
    }
  };
  const after = (end: string) => {
    const found = text.indexOf(end, index);
    if (found < 0) throw fail(`no closing ${end}`);
    return found + end.length;
  };
  const afterDoctype = () => {
    // An internal subset ([ … ]) would declare entities: not in a plist.
    const close = text.indexOf('>', index);
    if (close < 0) throw fail('no end of the DOCTYPE');
    if (text.slice(index, close).includes('[')) throw fail('a DOCTYPE with an internal subset');
    return close + 1;
  };
  const decode = (raw: string) =>
    raw.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);|&/g, (match, name: string | undefined) => {
      if (name === undefined) throw fail('a "&" that starts no entity');
      if (name.startsWith('#')) {
        const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
        if (!(code >= 0 && code <= 0x10ffff)) throw fail(`the character reference ${match}`);
        return String.fromCodePoint(code);
      }
      const entity = entities[name];
      if (entity === undefined) throw fail(`the unknown entity ${match}`);
      return entity;
    });
  const element = (depth: number): XmlElement => {
    if (depth > maxDepth + 2) throw fail(`elements nested deeper than ${maxDepth}`);
    const open = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/.exec(text.slice(index, index + 2000));
    if (!open) throw fail('expected an element');
    index += open[0].length;
    const node: XmlElement = { name: open[1]!, children: [], text: '' };
    if (open[3] === '/') return node;
    for (;;) {
      const next = text.indexOf('<', index);
      if (next < 0) throw fail(`<${node.name}> is not closed`);
      node.text += decode(text.slice(index, next));
      index = next;
      if (text.startsWith('</', index)) {
        const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(text.slice(index, index + 200));
        if (!close || close[1] !== node.name) throw fail(`</${close?.[1] ?? '?'}> does not close <${node.name}>`);
        index += close[0].length;
        return node;
      }
      if (text.startsWith('<!--', index)) index = after('-->');
      else if (text.startsWith('<![CDATA[', index)) {
        const end = text.indexOf(']]>', index);
        if (end < 0) throw fail('no end of a CDATA section');
        node.text += text.slice(index + 9, end);
        index = end + 3;
      } else if (text.startsWith('<?', index)) index = after('?>');
      else node.children.push(element(depth + 1));
    }
  };
  skipMisc();
  const root = element(0);
  skipMisc();
  if (index !== text.length) throw fail('text after the root element');
  return root;
}

// ---------------------------------------------------------------------------------------------
// Writing XML (configuration profiles).

/** A value as an XML plist document (tabs, as Apple's tools write it). */
export function plistXml(value: PlistValue): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n${xmlValue(value, 0)}\n</plist>\n`;
}

function xmlValue(value: PlistValue, depth: number): string {
  const indent = '\t'.repeat(depth);
  if (typeof value === 'string') return `${indent}<string>${escapeXml(value)}</string>`;
  if (typeof value === 'boolean') return `${indent}<${value}/>`;
  if (typeof value === 'bigint') return `${indent}<integer>${value}</integer>`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new PlistError('a plist number must be finite');
    return Number.isInteger(value) ? `${indent}<integer>${value}</integer>` : `${indent}<real>${value}</real>`;
  }
  if (value instanceof Date) return `${indent}<date>${value.toISOString().replace(/\.\d{3}Z$/, 'Z')}</date>`;
  if (value instanceof Uint8Array) return `${indent}<data>${btoa(String.fromCharCode(...value))}</data>`;
  if (Array.isArray(value))
    return value.length === 0 ? `${indent}<array/>` : `${indent}<array>\n${value.map((item) => xmlValue(item, depth + 1)).join('\n')}\n${indent}</array>`;
  const entries = Object.entries(value);
  if (entries.length === 0) return `${indent}<dict/>`;
  return `${indent}<dict>\n${entries.map(([key, item]) => `${indent}\t<key>${escapeXml(key)}</key>\n${xmlValue(item, depth + 1)}`).join('\n')}\n${indent}</dict>`;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
