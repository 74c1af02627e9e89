import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDevicePolicy, maxDevicePolicyBytes, systemDevicePolicyPath } from '../../../src/main/policy/device-policy-file';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

async function policyFile(text: string, name = 'policy.json'): Promise<string> {
  const file = join(await tempDir(), name);
  await writeFile(file, text);
  return file;
}

describe('the device policy file', () => {
  it("lives at each OS's system location", () => {
    expect(systemDevicePolicyPath('linux', {})).toBe('/etc/agentdesk/policy.json');
    expect(systemDevicePolicyPath('win32', { ProgramData: 'D:\\ProgramData' })).toBe('D:\\ProgramData\\AgentDesk\\policy.json');
    expect(systemDevicePolicyPath('win32', {})).toBe('C:\\ProgramData\\AgentDesk\\policy.json');
    expect(systemDevicePolicyPath('darwin', {})).toBe('/Library/Application Support/AgentDesk/policy.json');
  });

  it('means no policy when the system location has no file', async () => {
    const systemPath = join(await tempDir(), 'policy.json');
    expect(await loadDevicePolicy({ systemPath })).toEqual({ state: 'none', file: systemPath });
  });

  it('reads a valid policy from the system location, or from --policy where the system location has none', async () => {
    const systemPath = await policyFile('{"policyVersion": 1, "language": "cs"}');
    expect(await loadDevicePolicy({ systemPath })).toEqual({
      state: 'active',
      file: systemPath,
      policy: { policyVersion: 1, language: 'cs' },
      layers: [{ kind: 'file', name: systemPath, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      sources: { language: systemPath },
      conflicts: [],
    });
    const file = await policyFile('{"policyVersion": 1, "kiosk": true}', 'other.json');
    expect(await loadDevicePolicy({ file, systemPath: join(await tempDir(), 'policy.json') })).toMatchObject({
      state: 'active',
      file,
      policy: { policyVersion: 1, kiosk: true },
      sources: { kiosk: file },
    });
  });

  it('never lets --policy replace a policy installed at the system location (unless the same file)', async () => {
    const systemPath = await policyFile('{"policyVersion": 1, "kiosk": true, "developmentSetting": "forced-off"}');
    const mine = await policyFile('{"policyVersion": 1}', 'mine.json');
    expect(await loadDevicePolicy({ file: mine, systemPath })).toMatchObject({
      state: 'failed',
      kind: 'overridden',
      file: mine,
      problem: `a device policy is installed at ${systemPath}, and --policy cannot replace it (remove --policy, or have an administrator change that policy)`,
    });
    expect(await loadDevicePolicy({ file: systemPath, systemPath })).toMatchObject({ state: 'active', file: systemPath });
    // `agentdesk policy check FILE` may read any file.
    expect(await loadDevicePolicy({ file: mine, systemPath, systemPolicyWins: false })).toMatchObject({ state: 'active', file: mine });
  });

  it('fails closed for a --policy file that does not exist, naming it', async () => {
    const file = join(await tempDir(), 'missing.json');
    const load = await loadDevicePolicy({ file, systemPath: join(await tempDir(), 'none.json') });
    expect(load).toMatchObject({ state: 'failed', file, problem: 'the file does not exist', kiosk: false });
    expect(load.state === 'failed' && load.message).toBe(
      `AgentDesk's device policy ${file} cannot be used: the file does not exist. AgentDesk runs nothing until an administrator fixes or removes that file (check it with: agentdesk policy check ${file}).`,
    );
  });

  it('fails closed for malformed JSON with the line and column, an unknown version and a schema problem with its key path', async () => {
    const malformed = await policyFile('{\n  "policyVersion": 1,\n  "kiosk": true,,\n}');
    expect(await loadDevicePolicy({ systemPath: malformed })).toMatchObject({
      state: 'failed',
      problem: 'it is not valid JSON: line 3, column 17: expected a key in double quotes, found ","',
    });
    const newer = await policyFile('{"policyVersion": 7, "kiosk": true}');
    expect(await loadDevicePolicy({ systemPath: newer })).toMatchObject({
      state: 'failed',
      kiosk: true,
      problem: expect.stringContaining('policyVersion 7 is not a version'),
    });
    const typo = await policyFile('{"policyVersion": 1, "kiosk": true, "camera": {"alowed": false}}');
    expect(await loadDevicePolicy({ systemPath: typo })).toMatchObject({ state: 'failed', kiosk: true, problem: 'one problem: camera: unknown key "alowed"' });
  });

  it('shows the error screen (kiosk) for any failure when started with --kiosk', async () => {
    const malformed = await policyFile('{');
    expect(await loadDevicePolicy({ systemPath: malformed })).toMatchObject({ state: 'failed', kiosk: false });
    expect(await loadDevicePolicy({ systemPath: malformed, kiosk: true })).toMatchObject({ state: 'failed', kiosk: true });
  });

  it('fails closed for a policy that cannot be read: a folder, a path through a file, a file too large', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'policy.json'));
    expect(await loadDevicePolicy({ systemPath: join(dir, 'policy.json') })).toMatchObject({ state: 'failed', problem: 'it is not a file' });
    const file = await policyFile('{}');
    // The main file and its drop-in folder beside it both sit under a file: both are said.
    expect(await loadDevicePolicy({ systemPath: join(file, 'policy.json') })).toMatchObject({
      state: 'failed',
      problem: `2 problems: ${join(file, 'policy.d')}: it is not a folder; ${join(file, 'policy.json')}: it cannot be read: part of the folder path is not a folder (ENOTDIR)`,
    });
    const large = await policyFile(`{"policyVersion": 1, "$schema": "${'x'.repeat(maxDevicePolicyBytes)}"}`);
    expect(await loadDevicePolicy({ systemPath: large })).toMatchObject({
      state: 'failed',
      problem: expect.stringMatching(/^it is \d+ bytes, more than a policy may be/),
    });
  });

  const asRoot = process.getuid?.() === 0;
  if (asRoot)
    console.log(
      'device policy test skipped: "a policy this user may not read" cannot be made as root, who reads every file (the unreadable case is also covered through a path that is not a file)',
    );
  it.skipIf(asRoot)('fails closed for a policy this user may not read (not as root, which reads anything)', async () => {
    const file = await policyFile('{"policyVersion": 1}');
    await chmod(file, 0o000);
    expect(await loadDevicePolicy({ systemPath: file })).toMatchObject({ state: 'failed', problem: 'it cannot be read: permission denied (EACCES)' });
  });
});
