/**
 * A `.reg` file (what `reg export` and regedit write) → its keys and values. AgentDesk reads the
 * Windows registry's policy keys by having Windows' own `reg.exe export` them (registry-policy.ts),
 * so the registry reader is this parser, tested on `.reg` fixtures, and one thin call.
 *
 * The format: a header line (`Windows Registry Editor Version 5.00`, or `REGEDIT4`), then `[KEY]`
 * lines each followed by its values: `"name"="text"` (REG_SZ, `\\` and `\"` escaped), `dword:0000000a`,
 * `hex:…` (binary), `hex(N):…` for the other types (2 expand string, 7 multi-string, b QWORD, 0 none,
 * 1 string, 4/5 DWORD little/big endian), a value continued on the next line after a trailing `\`,
 * `@` for a key's default value, `;` comments. `reg export` writes UTF-16LE with a byte order mark.
 * Deletions (`[-KEY]`, `"name"=-`) belong to files that are imported, not exported: refused.
 */

export type RegistryValue =
  | { type: 'REG_SZ' | 'REG_EXPAND_SZ'; data: string }
  | { type: 'REG_MULTI_SZ'; data: string[] }
  | { type: 'REG_DWORD'; data: number }
  | { type: 'REG_QWORD'; data: bigint }
  | { type: 'REG_BINARY' | 'REG_NONE' | 'REG_OTHER'; data: Uint8Array; code?: number };

export interface RegistryKey {
  /** As the file writes it: `HKEY_LOCAL_MACHINE\SOFTWARE\Policies\AgentDesk`. */
  path: string;
  /** Value names as written (`''` is the default value, `@`). */
  values: Map<string, RegistryValue>;
}

export class RegFileError extends Error {}

/** Bytes of a `.reg` file → text: UTF-16LE with its BOM (reg export), UTF-8 with or without one. */
export function decodeRegFile(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const headers = ['Windows Registry Editor Version 5.00', 'REGEDIT4'];
const hexTypes: Record<number, RegistryValue['type']> = {
  0: 'REG_NONE',
  1: 'REG_SZ',
  2: 'REG_EXPAND_SZ',
  3: 'REG_BINARY',
  4: 'REG_DWORD',
  5: 'REG_DWORD',
  7: 'REG_MULTI_SZ',
  11: 'REG_QWORD',
};

/** The keys of a `.reg` file's text, in file order. Throws RegFileError naming the line for anything it cannot read. */
export function parseRegFile(text: string): RegistryKey[] {
  const lines = joinContinuations(text.split(/\r\n|\n|\r/));
  const first = lines.findIndex((line) => line.text.trim() !== '');
  if (first < 0 || !headers.includes(lines[first]!.text.trim())) throw new RegFileError('not a .reg file (no "Windows Registry Editor Version 5.00" header)');
  const unicode = lines[first]!.text.trim() !== 'REGEDIT4';
  const keys: RegistryKey[] = [];
  let current: RegistryKey | undefined;
  for (const { text: raw, line } of lines.slice(first + 1)) {
    const text = raw.trim();
    if (text === '' || text.startsWith(';')) continue;
    const at = (message: string) => new RegFileError(`line ${line}: ${message}`);
    if (text.startsWith('[')) {
      if (!text.endsWith(']')) throw at('a key line must end with "]"');
      const path = text.slice(1, -1);
      if (path.startsWith('-')) throw at('a key deletion ([-…]) is not an exported key');
      current = { path, values: new Map() };
      keys.push(current);
      continue;
    }
    if (!current) throw at('a value before any [key]');
    const { name, rest } = valueName(text, at);
    if (current.values.has(name)) throw at(`the value "${name}" twice`);
    current.values.set(name, valueData(rest, unicode, at));
  }
  return keys;
}

/** Lines with a value continued after a trailing backslash joined (hex data wraps at 80 columns). */
function joinContinuations(lines: string[]): { text: string; line: number }[] {
  const joined: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | undefined;
  lines.forEach((text, index) => {
    if (pending) pending.text += text.trimStart();
    else pending = { text, line: index + 1 };
    // Only a hex value continues (a string's trailing backslash is an escaped one inside quotes).
    if (/=hex(\([0-9a-fA-F]+\))?:/.test(pending.text) && pending.text.trimEnd().endsWith('\\')) {
      pending.text = pending.text.trimEnd().slice(0, -1);
      return;
    }
    joined.push(pending);
    pending = undefined;
  });
  if (pending) joined.push(pending);
  return joined;
}

function valueName(text: string, at: (message: string) => Error): { name: string; rest: string } {
  if (text.startsWith('@=')) return { name: '', rest: text.slice(2) };
  if (!text.startsWith('"')) throw at('a value must start with "name"= or @=');
  const { value, end } = quoted(text, 0, at);
  if (text[end] !== '=') throw at('"=" must follow the value name');
  return { name: value, rest: text.slice(end + 1) };
}

/** A "…" string at `start` with \\ and \" escapes: its text and the index after its closing quote. */
function quoted(text: string, start: number, at: (message: string) => Error): { value: string; end: number } {
  let value = '';
  for (let index = start + 1; index < text.length; index++) {
    const char = text[index]!;
    if (char === '"') return { value, end: index + 1 };
    if (char === '\\') {
      const next = text[index + 1];
      if (next !== '\\' && next !== '"') throw at(`an unknown escape "\\${next ?? ''}" in a string`);
      value += next;
      index++;
      continue;
    }
    value += char;
  }
  throw at('a string without its closing quote');
}

function valueData(rest: string, unicode: boolean, at: (message: string) => Error): RegistryValue {
  if (rest === '-') throw at('a value deletion (=-) is not an exported value');
  if (rest.startsWith('"')) {
    const { value, end } = quoted(rest, 0, at);
    if (rest.slice(end).trim() !== '') throw at('text after a string value');
    return { type: 'REG_SZ', data: value };
  }
  const dword = /^dword:([0-9a-fA-F]{8})$/.exec(rest);
  if (dword) return { type: 'REG_DWORD', data: Number.parseInt(dword[1]!, 16) };
  const hex = /^hex(?:\(([0-9a-fA-F]+)\))?:(.*)$/.exec(rest);
  if (!hex) throw at(`a value of an unknown form: ${rest.slice(0, 40)}`);
  const code = hex[1] === undefined ? 3 : Number.parseInt(hex[1], 16);
  const body = hex[2]!.trim();
  if (body !== '' && !/^[0-9a-fA-F]{2}(,[0-9a-fA-F]{2})*$/.test(body)) throw at('hex data must be two-digit bytes separated by commas');
  const bytes = Uint8Array.from(body === '' ? [] : body.split(',').map((byte) => Number.parseInt(byte, 16)));
  const type = hexTypes[code] ?? 'REG_OTHER';
  switch (type) {
    case 'REG_SZ':
    case 'REG_EXPAND_SZ':
      return { type, data: stringsOf(bytes, unicode, at)[0] ?? '' };
    case 'REG_MULTI_SZ':
      return { type, data: stringsOf(bytes, unicode, at) };
    case 'REG_DWORD': {
      if (bytes.length !== 4) throw at('a DWORD must have 4 bytes');
      const view = new DataView(bytes.buffer, bytes.byteOffset, 4);
      return { type, data: view.getUint32(0, code === 4) };
    }
    case 'REG_QWORD': {
      if (bytes.length !== 8) throw at('a QWORD must have 8 bytes');
      return { type, data: new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true) };
    }
    default:
      return type === 'REG_OTHER' ? { type, data: bytes, code } : { type, data: bytes };
  }
}

/** NUL-separated strings (UTF-16LE in a version 5 file, single bytes in REGEDIT4), the final empty ones dropped. */
function stringsOf(bytes: Uint8Array, unicode: boolean, at: (message: string) => Error): string[] {
  if (unicode && bytes.length % 2 !== 0) throw at('UTF-16 string data of an odd length');
  const text = new TextDecoder(unicode ? 'utf-16le' : 'latin1').decode(bytes);
  const parts = text.split('\0');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** `HKEY_LOCAL_MACHINE\…` → `HKLM\…` (how people and the templates' help write it). */
export function shortHiveName(path: string): string {
  return path.replace(/^HKEY_LOCAL_MACHINE(?=\\|$)/i, 'HKLM').replace(/^HKEY_CURRENT_USER(?=\\|$)/i, 'HKCU');
}
