import { readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Io } from '../../../src/main/cli/output';
import { policyCheck, policyHashPin } from '../../../src/main/cli/policy';
import { verifyAdminPin } from '../../../src/main/policy/admin-pin';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const example = new URL('../../../resources/policy/example-kiosk-policy.json', import.meta.url).pathname;

function capture(): Io & { out_: string[]; err_: string[] } {
  const out_: string[] = [];
  const err_: string[] = [];
  return { out_, err_, out: (line) => void out_.push(line), err: (line) => void err_.push(line) };
}

async function* lines(...chunks: string[]): AsyncIterable<string> {
  for (const chunk of chunks) yield chunk;
}

describe('agentdesk policy check', () => {
  it('prints what a valid policy does and exits 0', async () => {
    const io = capture();
    expect(await policyCheck(example, { json: false }, io)).toBe(0);
    expect(io.out_[0]).toBe(`valid: ${example}`);
    expect(io.out_).toContain('kiosk mode: on');
    expect(io.out_).toContain('agents: locked to 3 (no add, no remove, no rename, no other address, no built-in demo)');
    expect(io.out_).toContain('setting appearance.textSize: large (forced by appearance.textSize)');
  });

  it('--json prints one object with the policy and its effects', async () => {
    const io = capture();
    expect(await policyCheck(example, { json: true }, io)).toBe(0);
    expect(io.out_).toHaveLength(1);
    expect(JSON.parse(io.out_[0]!)).toEqual({
      ok: true,
      file: example,
      policy: JSON.parse(readFileSync(example, 'utf8')),
      effects: expect.arrayContaining(['kiosk mode: on', 'voice: not allowed (no microphone)']),
      warnings: expect.any(Array),
    });
  });

  it('exits 1 for a policy the app would refuse, saying why and how the app would fail', async () => {
    const file = join(await tempDir(), 'policy.json');
    await writeFile(file, '{"policyVersion": 1, "kiosk": true, "langauge": "cs"}');
    const io = capture();
    expect(await policyCheck(file, { json: false }, io)).toBe(1);
    expect(io.out_).toEqual([`refused: ${file}`, '  one problem: unknown key "langauge" at the top level', 'AgentDesk would show only an error screen saying so (kiosk mode).']);
    const json = capture();
    expect(await policyCheck(file, { json: true }, json)).toBe(1);
    expect(JSON.parse(json.out_[0]!)).toEqual({ ok: false, file, kind: 'invalid', problem: 'one problem: unknown key "langauge" at the top level', kiosk: true });
    const missing = capture();
    expect(await policyCheck(join(file, '..', 'nope.json'), { json: true }, missing)).toBe(1);
    expect(JSON.parse(missing.out_[0]!)).toMatchObject({ ok: false, kind: 'missing' });
  });

  it('predicts the first screen: each way the app would refuse or degrade is a warning with its fix; --strict makes them fail (issue #27)', async () => {
    const dir = await tempDir();
    const file = join(dir, 'policy.json');
    const keyFile = join(dir, 'nfc-device.key');
    await writeFile(keyFile, 'ab'.repeat(32));
    await chmod(keyFile, 0o644);
    await writeFile(
      file,
      JSON.stringify({
        policyVersion: 1,
        kiosk: true,
        developmentSetting: 'user',
        agents: { list: [{ address: 'http://192.168.1.20:8000/agui', kind: 'agui', name: 'Runner' }, { address: 'https://workshop.example.com', name: 'Workshop' }] },
        deviceKeyFile: keyFile,
      }),
    );
    const noKeychain = async () => ({ kind: 'memory' as const, reason: 'no Secret Service on the session bus' });
    const io = capture();
    expect(await policyCheck(file, { json: false, secrets: noKeychain }, io)).toBe(0);
    const warnings = io.out_.filter((line) => line.startsWith('warning: '));
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: "Runner" \(http:\/\/192\.168\.1\.20:8000\/agui\) is http:\/\/ without allowInsecureHttp: .*development setting.*\. Fix: add "allowInsecureHttp": true to it/),
      expect.stringMatching(/^warning: the NFC device key file .* can be read or written by others .*chmod 600/),
      expect.stringMatching(/^warning: no keychain is reachable here \(no Secret Service on the session bus\): sign-ins last until AgentDesk closes\./),
    ]);
    expect(await policyCheck(file, { json: false, strict: true, secrets: noKeychain }, capture())).toBe(1);
    const json = capture();
    expect(await policyCheck(file, { json: true, strict: true, secrets: noKeychain }, json)).toBe(1);
    expect(JSON.parse(json.out_[0]!)).toMatchObject({ ok: true, strict: true, warnings: expect.arrayContaining([expect.stringContaining('allowInsecureHttp')]) });

    // Fixed: the agent allowed on purpose, the key file private, a keychain there: no warning, --strict passes.
    await chmod(keyFile, 0o600);
    await writeFile(file, JSON.stringify({ policyVersion: 1, kiosk: true, agents: { list: [{ address: 'http://192.168.1.20:8000/agui', kind: 'agui', allowInsecureHttp: true }] }, deviceKeyFile: keyFile }));
    const clean = capture();
    expect(await policyCheck(file, { json: false, strict: true, secrets: async () => ({ kind: 'keychain' as const }) }, clean)).toBe(0);
    expect(clean.out_.filter((line) => line.startsWith('warning: '))).toEqual([]);
  });

  it('checks the system location without a file, where none means unmanaged (exit 0)', async () => {
    const systemPath = join(await tempDir(), 'policy.json');
    const io = capture();
    expect(await policyCheck(undefined, { json: false, systemPath }, io)).toBe(0);
    expect(io.out_).toEqual([`no device policy at ${systemPath}: AgentDesk runs unmanaged here`]);
    await writeFile(systemPath, '{"policyVersion": 1,}');
    expect(await policyCheck(undefined, { json: false, systemPath }, capture())).toBe(1);
  });
});

describe('agentdesk policy hash-pin', () => {
  it('hashes the first line of stdin (without its line break) into a string the PIN verifies against', async () => {
    const io = capture();
    expect(await policyHashPin(lines('24', '68\r\n', 'ignored'), io)).toBe(0);
    expect(io.out_).toHaveLength(1);
    expect(await verifyAdminPin('2468', io.out_[0]!)).toBe(true);
    expect(await verifyAdminPin('2468\r', io.out_[0]!)).toBe(false);
  });

  it('exits 1 for a PIN that cannot be used, printing nothing on stdout', async () => {
    const io = capture();
    expect(await policyHashPin(lines('123\n'), io)).toBe(1);
    expect(io.out_).toEqual([]);
    expect(io.err_).toEqual(['An admin PIN has at least 4 characters.']);
  });
});
