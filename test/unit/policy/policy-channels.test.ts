import { readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDevicePolicyText } from '../../../src/shared/device-policy/read-device-policy';
import { loadDevicePolicy, type LoadDevicePolicyOptions } from '../../../src/main/policy/device-policy-file';
import { managedPreferencesLayer, readManagedPreferences } from '../../../src/main/policy/managed-preferences';
import { decodeRegFile, parseRegFile } from '../../../src/main/policy/reg-file';
import { registryPolicyLayer, type OsPolicyRead } from '../../../src/main/policy/registry-policy';
import { useTempDirs } from '../../support/temp-dir';

/**
 * One device policy, every channel (issue #28): the example kiosk policy set through the registry
 * (Group Policy, Intune), macOS managed preferences (a configuration profile; binary and XML plists),
 * and Linux drop-ins must each give the same effective policy as the JSON file; and where several
 * places set it, the precedence holds and every conflict is reported.
 */
const tempDir = useTempDirs();
const fixture = (name: string) => new URL(`../../fixtures/policy-channels/${name}`, import.meta.url);
const exampleText = readFileSync(new URL('../../../resources/policy/example-kiosk-policy.json', import.meta.url), 'utf8');
const exampleRead = readDevicePolicyText(exampleText);
if (!exampleRead.ok) throw new Error(exampleRead.problem);
const { $schema: _schema, ...example } = exampleRead.policy;
const pinHash = example.admin!.pinHash;

/** Options that read nothing of this machine: an empty system folder and the OS channel given. */
async function isolated(os: OsPolicyRead = { layers: [], problems: [] }, files: Record<string, string> = {}): Promise<LoadDevicePolicyOptions> {
  const dir = await tempDir();
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return { systemPath: join(dir, 'policy.json'), osPolicy: async () => os };
}

function registry(text: string, scope: 'machine' | 'user' = 'machine'): OsPolicyRead {
  const read = registryPolicyLayer(parseRegFile(text), scope);
  return { layers: read.layer ? [read.layer] : [], problems: read.problems };
}

const reg = (...lines: string[]) => ['Windows Registry Editor Version 5.00', '', ...lines, ''].join('\r\n');

describe('the same policy through every channel', () => {
  it('the JSON file at the system location: the example kiosk policy, from one place', async () => {
    const options = await isolated(undefined, { 'policy.json': exampleText });
    const load = await loadDevicePolicy(options);
    expect(load).toMatchObject({ state: 'active', policy: example, conflicts: [] });
  });

  it('Group Policy / Intune: the registry as `reg export` writes it (UTF-16LE .reg fixture) gives the same policy', async () => {
    const keys = parseRegFile(decodeRegFile(readFileSync(fixture('example-kiosk-policy.reg'))));
    const read = registryPolicyLayer(keys, 'machine');
    expect(read.problems).toEqual([]);
    const load = await loadDevicePolicy(await isolated({ layers: [read.layer!], problems: [] }));
    expect(load).toMatchObject({ state: 'active', file: 'HKLM\\SOFTWARE\\Policies\\AgentDesk', policy: example, conflicts: [] });
    if (load.state !== 'active') throw new Error('not active');
    expect(load.sources).toMatchObject({
      kiosk: 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
      'agents.list': 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
      'updates.publicKey': 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
    });
  });

  it.each(['example-kiosk-policy.binary.plist', 'example-kiosk-policy.xml.plist'])(
    "a macOS profile: managed preferences written by Python's plistlib (%s) give the same policy",
    async (name) => {
      const folder = await tempDir();
      await cp(fixture(name), join(folder, 'dev.agentdesk.app.plist'));
      const os = await readManagedPreferences(folder, 'kiosk');
      expect(os.problems).toEqual([]);
      expect(os.layers).toHaveLength(1);
      const load = await loadDevicePolicy(await isolated(os));
      expect(load).toMatchObject({ state: 'active', file: join(folder, 'dev.agentdesk.app.plist'), policy: example, conflicts: [] });
    },
  );

  it('Linux: policy.json plus drop-ins owned by three tools give the same policy, each key naming its file', async () => {
    const dir = await tempDir();
    await cp(fixture('linux'), dir, { recursive: true });
    const load = await loadDevicePolicy({ systemPath: join(dir, 'policy.json'), osPolicy: async () => ({ layers: [], problems: [] }) });
    expect(load).toMatchObject({ state: 'active', policy: example, conflicts: [] });
    if (load.state !== 'active') throw new Error('not active');
    expect(load.layers.map((layer) => [layer.kind, layer.name])).toEqual([
      ['drop-in', join(dir, 'policy.d', '30-updates.json')],
      ['drop-in', join(dir, 'policy.d', '20-devices.json')],
      ['drop-in', join(dir, 'policy.d', '10-agents.json')],
      ['file', join(dir, 'policy.json')],
    ]);
    expect(load.sources).toMatchObject({
      kiosk: join(dir, 'policy.json'),
      'agents.list': join(dir, 'policy.d', '10-agents.json'),
      'voice.allowed': join(dir, 'policy.d', '20-devices.json'),
      'updates.url': join(dir, 'policy.d', '30-updates.json'),
    });
  });
});

describe('several places at once', () => {
  it('precedence: the OS channel over drop-ins over the main file; every conflict reported with both values', async () => {
    const os = registry(
      reg(
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]',
        '"language"="en"',
        '',
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\voice]',
        '"allowed"=dword:00000000',
      ),
    );
    const options = await isolated(os, {
      'policy.json': JSON.stringify({ policyVersion: 1, language: 'cs', kiosk: true, voice: { allowed: true } }),
      'policy.d/10-a.json': JSON.stringify({ idleResetSeconds: 60, voice: { mode: 'push-to-talk' } }),
      'policy.d/20-b.json': JSON.stringify({ idleResetSeconds: 90 }),
      'policy.d/notes.txt': 'not a policy file: left alone',
    });
    const load = await loadDevicePolicy(options);
    if (load.state !== 'active') throw new Error(JSON.stringify(load));
    const dir = join(options.systemPath!, '..');
    expect(load.policy).toEqual({ policyVersion: 1, kiosk: true, language: 'en', idleResetSeconds: 90, voice: { allowed: false, mode: 'push-to-talk' } });
    expect(load.sources).toEqual({
      kiosk: options.systemPath,
      idleResetSeconds: join(dir, 'policy.d', '20-b.json'),
      'voice.allowed': 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
      'voice.mode': join(dir, 'policy.d', '10-a.json'),
      language: 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
    });
    expect(load.conflicts).toEqual([
      {
        key: 'idleResetSeconds',
        value: 90,
        source: join(dir, 'policy.d', '20-b.json'),
        overridden: [{ source: join(dir, 'policy.d', '10-a.json'), value: 60 }],
      },
      { key: 'voice.allowed', value: false, source: 'HKLM\\SOFTWARE\\Policies\\AgentDesk', overridden: [{ source: options.systemPath, value: true }] },
      { key: 'language', value: 'en', source: 'HKLM\\SOFTWARE\\Policies\\AgentDesk', overridden: [{ source: options.systemPath, value: 'cs' }] },
    ]);
    expect(load.file).toBe(
      ['HKLM\\SOFTWARE\\Policies\\AgentDesk', join(dir, 'policy.d', '20-b.json'), join(dir, 'policy.d', '10-a.json'), options.systemPath].join(' + '),
    );
  });

  it('names many places in a bounded line (the page gets it in policy.status)', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 60 }, (_, index) => [`policy.d/${String(index).padStart(2, '0')}-${'x'.repeat(60)}.json`, JSON.stringify({ language: 'cs' })]),
    );
    const load = await loadDevicePolicy(await isolated(undefined, files));
    expect(load).toMatchObject({ state: 'active', file: expect.stringMatching(/ \+ 59 more places \(agentdesk policy effective lists them\)$/) });
    expect(load.file.length).toBeLessThanOrEqual(1000);
  });

  it('the same value in two places is no conflict', async () => {
    const options = await isolated(undefined, {
      'policy.json': JSON.stringify({ policyVersion: 1, language: 'cs' }),
      'policy.d/a.json': JSON.stringify({ language: 'cs' }),
    });
    expect(await loadDevicePolicy(options)).toMatchObject({ state: 'active', conflicts: [] });
  });

  it('HKCU may set the per-user keys (HKLM wins a conflict), never a machine key', async () => {
    const machine = registry(reg('[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\appearance]', '"theme"="dark"'));
    const user = registry(
      reg(
        '[HKEY_CURRENT_USER\\SOFTWARE\\Policies\\AgentDesk]',
        '"language"="cs"',
        '',
        '[HKEY_CURRENT_USER\\SOFTWARE\\Policies\\AgentDesk\\appearance]',
        '"theme"="light"',
      ),
      'user',
    );
    const load = await loadDevicePolicy(await isolated({ layers: [...machine.layers, ...user.layers], problems: [] }));
    expect(load).toMatchObject({
      state: 'active',
      policy: { language: 'cs', appearance: { theme: 'dark' } },
      sources: { language: 'HKCU\\SOFTWARE\\Policies\\AgentDesk', 'appearance.theme': 'HKLM\\SOFTWARE\\Policies\\AgentDesk' },
      conflicts: [{ key: 'appearance.theme', value: 'dark', overridden: [{ source: 'HKCU\\SOFTWARE\\Policies\\AgentDesk', value: 'light' }] }],
    });
    const kioskForUser = registry(reg('[HKEY_CURRENT_USER\\SOFTWARE\\Policies\\AgentDesk]', '"kiosk"=dword:00000000'), 'user');
    expect(await loadDevicePolicy(await isolated(kioskForUser))).toMatchObject({
      state: 'failed',
      kind: 'invalid',
      problem: 'one problem: kiosk: is set for the whole computer only, not per user',
    });
  });

  it('a group set in two places must still be whole: a problem names the places its keys came from', async () => {
    const os = registry(reg('[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\voice]', '"mode"="push-to-talk"'));
    const options = await isolated(os, { 'policy.d/a.json': JSON.stringify({ language: 'en' }) });
    const load = await loadDevicePolicy(options);
    expect(load).toMatchObject({
      state: 'failed',
      kind: 'invalid',
      problem: 'one problem: voice.allowed: is required (set in HKLM\\SOFTWARE\\Policies\\AgentDesk)',
    });
    expect(load.state === 'failed' && load.message).toContain('(check it with: agentdesk policy effective)');
  });

  it('--policy is refused where the system sets anything, even only a drop-in or the registry', async () => {
    const dropIn = await isolated(undefined, { 'policy.d/a.json': JSON.stringify({ language: 'cs' }), 'mine.json': JSON.stringify({ policyVersion: 1 }) });
    const mine = join(dropIn.systemPath!, '..', 'mine.json');
    expect(await loadDevicePolicy({ ...dropIn, file: mine })).toMatchObject({
      state: 'failed',
      kind: 'overridden',
      problem: expect.stringContaining(join(dropIn.systemPath!, '..', 'policy.d', 'a.json')),
    });
    const os = await isolated(registry(reg('[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]', '"language"="cs"')), {
      'mine.json': JSON.stringify({ policyVersion: 1 }),
    });
    expect(await loadDevicePolicy({ ...os, file: join(os.systemPath!, '..', 'mine.json') })).toMatchObject({
      state: 'failed',
      kind: 'overridden',
      problem: expect.stringContaining('HKLM\\SOFTWARE\\Policies\\AgentDesk'),
    });
    // Nothing set by the system: --policy is the policy.
    const unmanaged = await isolated(undefined, { 'mine.json': JSON.stringify({ policyVersion: 1, language: 'en' }) });
    expect(await loadDevicePolicy({ ...unmanaged, file: join(unmanaged.systemPath!, '..', 'mine.json') })).toMatchObject({
      state: 'active',
      policy: { language: 'en' },
    });
  });

  it('fails closed, naming the place, for a drop-in that is malformed, a key no channel knows and a drop-in with another version', async () => {
    const malformed = await isolated(undefined, { 'policy.json': JSON.stringify({ policyVersion: 1 }), 'policy.d/a.json': '{"language": "cs",}' });
    const dir = join(malformed.systemPath!, '..');
    expect(await loadDevicePolicy(malformed)).toMatchObject({
      state: 'failed',
      kind: 'malformed',
      problem: `one problem: ${join(dir, 'policy.d', 'a.json')}: it is not valid JSON: line 1, column 19: a comma before "}" (JSON allows no trailing comma)`,
    });
    const unknown = await isolated(undefined, { 'policy.d/a.json': JSON.stringify({ voice: { allowed: true, mdoe: 'x' } }) });
    expect(await loadDevicePolicy(unknown)).toMatchObject({ state: 'failed', kind: 'invalid', problem: 'one problem: voice: unknown key "mdoe"' });
    const version = await isolated(undefined, {
      'policy.json': JSON.stringify({ policyVersion: 1 }),
      'policy.d/a.json': JSON.stringify({ policyVersion: 2, kiosk: true }),
    });
    expect(await loadDevicePolicy(version)).toMatchObject({
      state: 'failed',
      kind: 'unknown_version',
      kiosk: true,
      problem: expect.stringContaining(`${join(version.systemPath!, '..', 'policy.d', 'a.json')}: policyVersion 2 is not a version`),
    });
  });

  it('fails closed when the OS channel cannot be read, and for a registry value of the wrong type or name', async () => {
    expect(
      await loadDevicePolicy(await isolated({ layers: [], problems: ['HKLM\\SOFTWARE\\Policies\\AgentDesk: could not be read (access denied)'] })),
    ).toMatchObject({
      state: 'failed',
      kind: 'unreadable',
      file: 'HKLM\\SOFTWARE\\Policies\\AgentDesk',
      problem: 'could not be read (access denied)',
    });
    const wrong = registry(
      reg(
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]',
        '"kiosk"=dword:00000002',
        '"langauge"="cs"',
        '"idleResetSeconds"="120"',
        '',
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\agents\\list]',
        '"1"="workshop.example.com"',
        '',
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\kiosks]',
        '"x"=dword:00000001',
      ),
    );
    expect(wrong.problems).toEqual([
      'HKLM\\SOFTWARE\\Policies\\AgentDesk\\kiosk: must be a DWORD (REG_DWORD) of 1 (on) or 0 (off)',
      'HKLM\\SOFTWARE\\Policies\\AgentDesk: the value "langauge" is not a policy key',
      'HKLM\\SOFTWARE\\Policies\\AgentDesk\\idleResetSeconds: must be a number (REG_DWORD)',
      'HKLM\\SOFTWARE\\Policies\\AgentDesk\\agents\\list\\1: must be one JSON object, such as {"address": "…"}',
      'HKLM\\SOFTWARE\\Policies\\AgentDesk\\kiosks: not a key of the AgentDesk policy',
    ]);
    expect(await loadDevicePolicy(await isolated(wrong))).toMatchObject({
      state: 'failed',
      kind: 'unreadable',
      problem: expect.stringMatching(/^5 problems: /),
    });
  });

  it('reads registry names without case, as Windows does, and a list in number order', () => {
    const read = registry(
      reg(
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\POLICIES\\AgentDesk\\Agents\\List]',
        '"10"="{\\"address\\":\\"c.example.com\\"}"',
        '"2"="{\\"address\\":\\"b.example.com\\"}"',
        '"1"="{\\"address\\":\\"a.example.com\\"}"',
        '',
        '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\VOICE]',
        '"Allowed"=dword:00000001',
      ),
    );
    expect(read.problems).toEqual([]);
    expect(read.layers[0]!.document).toEqual({
      agents: { list: [{ address: 'a.example.com' }, { address: 'b.example.com' }, { address: 'c.example.com' }] },
      voice: { allowed: true },
    });
  });

  it('an empty policy key (Group Policy leaves one when every policy is Not configured) is no policy', async () => {
    const empty = registry(reg('[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk]', '', '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\AgentDesk\\voice]'));
    expect(empty).toEqual({ layers: [], problems: [] });
    expect(await loadDevicePolicy(await isolated(empty))).toMatchObject({ state: 'none' });
  });

  it("managed preferences: a profile's Payload… keys are left out; anything else unknown fails closed", () => {
    const plist = (body: string) => new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>${body}</dict></plist>`);
    expect(managedPreferencesLayer(plist('<key>PayloadUUID</key><string>X</string><key>language</key><string>cs</string>'), 'machine', 'm.plist')).toEqual({
      layer: { kind: 'os-machine', name: 'm.plist', document: { language: 'cs' } },
    });
    expect(managedPreferencesLayer(plist('<key>language</key><integer>1</integer>'), 'user', 'u.plist')).toEqual({
      layer: { kind: 'os-user', name: 'u.plist', document: { language: 1 } },
    });
    expect(managedPreferencesLayer(new TextEncoder().encode('<plist><array/></plist>'), 'machine', 'm.plist')).toEqual({
      problem: 'm.plist: the property list is not a dictionary',
    });
    expect(managedPreferencesLayer(new TextEncoder().encode('bplist00 broken'), 'machine', 'm.plist')).toEqual({
      problem: 'm.plist: a binary plist too short for its trailer',
    });
  });

  it('the admin PIN hash of the example survives every channel unchanged (a value with $ and /)', () => {
    const keys = parseRegFile(decodeRegFile(readFileSync(fixture('example-kiosk-policy.reg'))));
    expect(keys.find((key) => key.path.endsWith('\\admin'))!.values.get('pinHash')).toEqual({ type: 'REG_SZ', data: pinHash });
  });
});
