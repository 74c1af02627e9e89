import { describe, expect, it } from 'vitest';
import { decodeRegFile, parseRegFile, shortHiveName } from '../../../src/main/policy/reg-file';
import { listsSubkey } from '../../../src/main/policy/registry-policy';

/** The .reg reader (what `reg export` writes): the one part of the Windows registry reader that is not Windows' own reg.exe. */
const file = (...lines: string[]) => ['Windows Registry Editor Version 5.00', '', ...lines, ''].join('\r\n');

describe('a .reg file', () => {
  it('reads strings with their escapes, DWORDs and the default value, key by key', () => {
    const keys = parseRegFile(
      file(
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]',
        '@="default"',
        '"path"="C:\\\\ProgramData\\\\AgentDesk\\\\key"',
        '"quoted"="say \\"hi\\" = ok"',
        '"n"=dword:0000ffff',
        '',
        '; a comment',
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\voice]',
        '"allowed"=dword:00000000',
      ),
    );
    expect(keys.map((key) => key.path)).toEqual([
      'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk',
      'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\voice',
    ]);
    expect([...keys[0]!.values]).toEqual([
      ['', { type: 'REG_SZ', data: 'default' }],
      ['path', { type: 'REG_SZ', data: 'C:\\ProgramData\\AgentDesk\\key' }],
      ['quoted', { type: 'REG_SZ', data: 'say "hi" = ok' }],
      ['n', { type: 'REG_DWORD', data: 65535 }],
    ]);
    expect(keys[1]!.values.get('allowed')).toEqual({ type: 'REG_DWORD', data: 0 });
  });

  it('reads the hex types, also wrapped over lines as reg export wraps them', () => {
    // "a", "b" as REG_MULTI_SZ (UTF-16LE, each NUL-ended, a final NUL); %ProgramData% as REG_EXPAND_SZ; a QWORD; binary.
    const keys = parseRegFile(
      file(
        '[HKEY_CURRENT_USER\\SOFTWARE\\Policies\\AgentDesk]',
        '"multi"=hex(7):61,00,00,00,62,00,\\',
        '  00,00,00,00',
        '"expand"=hex(2):25,00,50,00,44,00,25,00,00,00',
        '"big"=hex(b):00,00,00,00,01,00,00,00',
        '"bytes"=hex:de,ad,be,ef',
        '"empty"=hex:',
        '"sz"=hex(1):63,00,73,00,00,00',
      ),
    );
    const values = keys[0]!.values;
    expect(values.get('multi')).toEqual({ type: 'REG_MULTI_SZ', data: ['a', 'b'] });
    expect(values.get('expand')).toEqual({ type: 'REG_EXPAND_SZ', data: '%PD%' });
    expect(values.get('big')).toEqual({ type: 'REG_QWORD', data: 4294967296n });
    expect(values.get('bytes')).toEqual({ type: 'REG_BINARY', data: Uint8Array.from([0xde, 0xad, 0xbe, 0xef]) });
    expect(values.get('empty')).toEqual({ type: 'REG_BINARY', data: new Uint8Array() });
    expect(values.get('sz')).toEqual({ type: 'REG_SZ', data: 'cs' });
  });

  it('decodes UTF-16LE with its byte order mark (reg export), UTF-8 with or without one, and REGEDIT4', () => {
    const text = file('[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]', '"name"="Dílna č. 2"');
    const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from(text, 'utf16le')]);
    expect(parseRegFile(decodeRegFile(utf16))[0]!.values.get('name')).toEqual({ type: 'REG_SZ', data: 'Dílna č. 2' });
    expect(parseRegFile(decodeRegFile(Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from(text)])))[0]!.values.get('name')).toEqual({
      type: 'REG_SZ',
      data: 'Dílna č. 2',
    });
    const regedit4 = ['REGEDIT4', '', '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]', '"multi"=hex(7):61,00,62,00,00', ''].join('\r\n');
    expect(parseRegFile(regedit4)[0]!.values.get('multi')).toEqual({ type: 'REG_MULTI_SZ', data: ['a', 'b'] });
  });

  it('refuses what it cannot read, naming the line', () => {
    expect(() => parseRegFile('[HKEY_LOCAL_MACHINE\\X]\r\n')).toThrow('not a .reg file');
    expect(() => parseRegFile(file('"a"="b"'))).toThrow('line 3: a value before any [key]');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"="b'))).toThrow('line 4: a string without its closing quote');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"="b\\n"'))).toThrow('line 4: an unknown escape "\\n" in a string');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"=dword:1'))).toThrow('line 4: a value of an unknown form');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"=hex(4):01,00'))).toThrow('line 4: a DWORD must have 4 bytes');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"=-'))).toThrow('line 4: a value deletion');
    expect(() => parseRegFile(file('[-HKEY_LOCAL_MACHINE\\X]'))).toThrow('line 3: a key deletion');
    expect(() => parseRegFile(file('[HKEY_LOCAL_MACHINE\\X]', '"a"="1"', '"a"="2"'))).toThrow('line 5: the value "a" twice');
  });

  it("names hives as people write them, and finds a key in reg query's listing whatever its case", () => {
    expect(shortHiveName('HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk')).toBe('HKLM\\SOFTWARE\\Policies\\AgentDesk');
    expect(shortHiveName('HKEY_CURRENT_USER\\Software')).toBe('HKCU\\Software');
    const listing =
      '\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Adobe\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft\r\n';
    expect(listsSubkey(listing, 'HKEY_LOCAL_MACHINE\\Software\\Policies\\AgentDesk')).toBe(true);
    expect(listsSubkey(listing.replace('AgentDesk', 'AgentDeskOld'), 'HKEY_LOCAL_MACHINE\\Software\\Policies\\AgentDesk')).toBe(false);
  });
});
