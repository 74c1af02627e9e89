import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePlist, plistXml, type PlistValue } from '../../../src/main/policy/plist';

/** The plist reader (macOS managed preferences, binary or XML) and writer (configuration profiles). */
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/policy-channels/${name}`, import.meta.url));

const expected = {
  ascii: 'workshop',
  unicode: 'Dílna č. 2 — ✓',
  long: 'x'.repeat(40),
  small: 7,
  big: 2 ** 40,
  negative: -5,
  huge: 2n ** 62n,
  real: 1.5,
  yes: true,
  no: false,
  when: new Date(Date.UTC(2026, 11, 2, 15, 30, 0)),
  bytes: Uint8Array.from([0, 1, 0xfe]),
  many: Array.from({ length: 20 }, (_, index) => index),
  nested: { list: [{ address: 'a.example.com' }], empty: {} },
};

/** A binary plist from raw objects (each given as its bytes; references are one byte), for plists no writer would make. */
function binaryPlist(objects: number[][], top = 0, offsets?: number[]): Uint8Array {
  const body: number[] = [...Buffer.from('bplist00')];
  const at: number[] = [];
  for (const object of objects) {
    at.push(body.length);
    body.push(...object);
  }
  const tableOffset = body.length;
  body.push(...(offsets ?? at));
  const trailer = new Uint8Array(32);
  const view = new DataView(trailer.buffer);
  view.setUint8(6, 1);
  view.setUint8(7, 1);
  view.setBigUint64(8, BigInt(objects.length));
  view.setBigUint64(16, BigInt(top));
  view.setBigUint64(24, BigInt(tableOffset));
  return Uint8Array.from([...body, ...trailer]);
}

describe('reading a plist', () => {
  it.each(['types.binary.plist', 'types.xml.plist'])("reads every type as Python's plistlib wrote it (%s)", (name) => {
    expect(parsePlist(fixture(name))).toEqual(expected);
  });

  it('keeps a key named __proto__ as a key of its own (no prototype change)', () => {
    const value = parsePlist(
      new TextEncoder().encode('<plist version="1.0"><dict><key>__proto__</key><dict><key>polluted</key><true/></dict></dict></plist>'),
    ) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('refuses binary plists no writer makes: a cycle, an offset outside the file, a reference out of range, nesting too deep', () => {
    // [0] is an array holding itself.
    expect(() => parsePlist(binaryPlist([[0xa1, 0]]))).toThrow('a binary plist that contains itself');
    expect(() => parsePlist(binaryPlist([[0x09]], 0, [200]))).toThrow('a binary plist object outside the object area');
    expect(() => parsePlist(binaryPlist([[0xa1, 5]]))).toThrow('a binary plist object reference out of range');
    const deep = Array.from({ length: 70 }, (_, index) => (index === 69 ? [0x09] : [0xa1, index + 1]));
    expect(() => parsePlist(binaryPlist(deep))).toThrow('a binary plist nested deeper than 64');
    expect(() =>
      parsePlist(
        binaryPlist([
          [0xd1, 1, 1],
          [0x10, 1],
        ]),
      ),
    ).toThrow('a binary plist dictionary key that is not a string');
    expect(() => parsePlist(binaryPlist([[0x5f, 0x10, 0xff]]))).toThrow('a binary plist read past its end');
  });

  it("refuses XML that is not a plist or asks for more than XML's own entities", () => {
    const xml = (body: string) => new TextEncoder().encode(body);
    expect(() => parsePlist(xml('<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY x "y">]><plist><string>&x;</string></plist>'))).toThrow(
      'a DOCTYPE with an internal subset',
    );
    expect(() => parsePlist(xml('<plist><string>&x;</string></plist>'))).toThrow('the unknown entity &x;');
    expect(() => parsePlist(xml('<plist><dict><key>a</key></dict></plist>'))).toThrow('<key>a</key> has no value');
    expect(() => parsePlist(xml('<plist><dict><key>a</key><string>1</string><key>a</key><string>2</string></dict></plist>'))).toThrow('the key "a" twice');
    expect(() => parsePlist(xml('<plist><integer>1.5</integer></plist>'))).toThrow('<integer> 1.5 is not a whole number');
    expect(() => parsePlist(xml('<plist><string>a</strong></plist>'))).toThrow('does not close <string>');
    expect(() => parsePlist(xml('<dict></dict>'))).toThrow('an XML plist must have <plist> as its root');
    expect(() => parsePlist(xml(`<plist>${'<array>'.repeat(80)}${'</array>'.repeat(80)}</plist>`))).toThrow('nested deeper than 64');
    expect(parsePlist(xml('<plist><string>&lt;a&gt; &amp; &#x10D;&#353; <![CDATA[<b>]]></string></plist>'))).toBe('<a> & čš <b>');
  });
});

describe('writing a plist', () => {
  it("writes what it reads back, with XML's special characters escaped", () => {
    const value: PlistValue = {
      text: 'a < b & "c" > d',
      list: [1, 2.5, true, false, ''],
      empty: {},
      none: [],
      big: 2n ** 62n,
      when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      bytes: Uint8Array.from([1, 2, 3]),
    };
    expect(parsePlist(new TextEncoder().encode(plistXml(value)))).toEqual(value);
  });

  const python = spawnSync('python3', ['-c', 'import plistlib'], { encoding: 'utf8' });
  const pythonMissing = python.status === 0 ? undefined : `python3 with plistlib is not available (${python.error?.message ?? python.stderr.trim()})`;
  if (pythonMissing) console.log(`plist writer checked by AgentDesk's own reader only: ${pythonMissing}`);
  it.skipIf(pythonMissing !== undefined)("writes XML that Python's plistlib (another reader) reads to the same value", () => {
    const value = { text: 'Dílna <č. 2> & "co"', n: 42, list: [true, false, 'x'], nested: { deep: { deeper: 'y' } } };
    const read = spawnSync('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], {
      input: plistXml(value),
      encoding: 'utf8',
    });
    expect(read.stderr).toBe('');
    expect(JSON.parse(read.stdout)).toEqual(value);
  });
});
