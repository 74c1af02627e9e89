import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError, type Io } from '../../../src/main/cli/output';
import { policyCheck, policyEffective, policyExport, policyHashPin } from '../../../src/main/cli/policy';
import { parsePlist } from '../../../src/main/policy/plist';
import { mobileconfig, policyOfProfile } from '../../../src/main/policy/policy-templates';
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
    expect(io.out_).toEqual([
      `refused: ${file}`,
      '  one problem: unknown key "langauge" at the top level',
      'AgentDesk would show only an error screen saying so (kiosk mode).',
    ]);
    const json = capture();
    expect(await policyCheck(file, { json: true }, json)).toBe(1);
    expect(JSON.parse(json.out_[0]!)).toEqual({
      ok: false,
      file,
      kind: 'invalid',
      problem: 'one problem: unknown key "langauge" at the top level',
      kiosk: true,
    });
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
        agents: {
          list: [
            { address: 'http://192.168.1.20:8000/agui', kind: 'agui', name: 'Runner' },
            { address: 'https://workshop.example.com', name: 'Workshop' },
          ],
        },
        deviceKeyFile: keyFile,
      }),
    );
    const noKeychain = async () => ({ kind: 'memory' as const, reason: 'no Secret Service on the session bus' });
    const io = capture();
    expect(await policyCheck(file, { json: false, secrets: noKeychain }, io)).toBe(0);
    const warnings = io.out_.filter((line) => line.startsWith('warning: '));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^warning: "Runner" \(http:\/\/192\.168\.1\.20:8000\/agui\) is http:\/\/ without allowInsecureHttp: .*development setting.*\. Fix: add "allowInsecureHttp": true to it/,
      ),
      expect.stringMatching(/^warning: the NFC device key file .* can be read or written by others .*chmod 600/),
      expect.stringMatching(/^warning: no keychain is reachable here \(no Secret Service on the session bus\): sign-ins last until AgentDesk closes\./),
    ]);
    expect(await policyCheck(file, { json: false, strict: true, secrets: noKeychain }, capture())).toBe(1);
    const json = capture();
    expect(await policyCheck(file, { json: true, strict: true, secrets: noKeychain }, json)).toBe(1);
    expect(JSON.parse(json.out_[0]!)).toMatchObject({
      ok: true,
      strict: true,
      warnings: expect.arrayContaining([expect.stringContaining('allowInsecureHttp')]),
    });

    // Fixed: the agent allowed on purpose, the key file private, a keychain there: no warning, --strict passes.
    await chmod(keyFile, 0o600);
    await writeFile(
      file,
      JSON.stringify({
        policyVersion: 1,
        kiosk: true,
        agents: { list: [{ address: 'http://192.168.1.20:8000/agui', kind: 'agui', allowInsecureHttp: true }] },
        deviceKeyFile: keyFile,
      }),
    );
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

describe('agentdesk policy effective', () => {
  /** A system folder with policy.json and drop-ins, and an OS channel that sets nothing. */
  async function machine(files: Record<string, unknown>) {
    const dir = await tempDir();
    await mkdir(join(dir, 'policy.d'));
    for (const [name, document] of Object.entries(files)) await writeFile(join(dir, name), JSON.stringify(document));
    return { dir, load: { systemPath: join(dir, 'policy.json'), osPolicy: async () => ({ layers: [], problems: [] }) } };
  }

  it('prints each key with the place it came from, and the conflicts with both values', async () => {
    const { dir, load } = await machine({ 'policy.json': { policyVersion: 1, kiosk: true, language: 'en' }, 'policy.d/50-lang.json': { language: 'cs' } });
    const io = capture();
    expect(await policyEffective({ json: false, load }, io)).toBe(0);
    expect(io.out_.slice(0, 8)).toEqual([
      'effective device policy, from 2 places (the first wins a conflict):',
      `  drop-in    ${join(dir, 'policy.d', '50-lang.json')}`,
      `  file       ${join(dir, 'policy.json')}`,
      '',
      `kiosk = true    ← ${join(dir, 'policy.json')}`,
      `language = "cs"    ← ${join(dir, 'policy.d', '50-lang.json')}`,
      '',
      'conflicts (1): set differently in several places; the first place is in force',
    ]);
    expect(io.out_[8]).toBe(`  language: "cs" from ${join(dir, 'policy.d', '50-lang.json')}, over "en" in ${join(dir, 'policy.json')}`);
    expect(io.out_).toContain('  kiosk mode: on');
  });

  it("--json prints the policy, each key's source, the places and the conflicts", async () => {
    const { dir, load } = await machine({ 'policy.json': { policyVersion: 1, language: 'en' }, 'policy.d/50-lang.json': { language: 'cs' } });
    const io = capture();
    expect(await policyEffective({ json: true, load }, io)).toBe(0);
    expect(JSON.parse(io.out_[0]!)).toEqual({
      ok: true,
      state: 'active',
      file: `${join(dir, 'policy.d', '50-lang.json')} + ${join(dir, 'policy.json')}`,
      layers: [
        { kind: 'drop-in', name: join(dir, 'policy.d', '50-lang.json'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
        { kind: 'file', name: join(dir, 'policy.json'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ],
      policy: { policyVersion: 1, language: 'cs' },
      sources: { language: join(dir, 'policy.d', '50-lang.json') },
      conflicts: [
        { key: 'language', value: 'cs', source: join(dir, 'policy.d', '50-lang.json'), overridden: [{ source: join(dir, 'policy.json'), value: 'en' }] },
      ],
      effects: expect.arrayContaining(['setting language: cs (forced by language)']),
    });
  });

  it('says when there is none (exit 0), and exits 1 with the problem when the app would refuse it', async () => {
    const none = await machine({});
    const io = capture();
    expect(await policyEffective({ json: true, load: none.load }, io)).toBe(0);
    expect(JSON.parse(io.out_[0]!)).toMatchObject({ ok: true, state: 'none', policy: null });
    const broken = await machine({ 'policy.d/a.json': { voice: { mode: 'push-to-talk' } } });
    const refused = capture();
    expect(await policyEffective({ json: false, load: broken.load }, refused)).toBe(1);
    expect(refused.out_).toEqual([
      `refused: ${join(broken.dir, 'policy.d', 'a.json')}`,
      '  one problem: voice.allowed: is required',
      'AgentDesk would refuse to start, saying so.',
    ]);
    // --policy naming another file where the system sets a policy: refused, as the app would.
    const managed = await machine({ 'policy.json': { policyVersion: 1 }, 'mine.json': { policyVersion: 1 } });
    expect(await policyEffective({ json: false, policyFile: join(managed.dir, 'mine.json'), load: managed.load }, capture())).toBe(1);
  });
});

describe('agentdesk policy export', () => {
  it('--admx DIR writes the ADMX and its English and Czech ADML, as resources/policy/admx holds them', async () => {
    const dir = await tempDir();
    const io = capture();
    expect(await policyExport({ admx: dir }, io)).toBe(0);
    for (const path of ['AgentDesk.admx', 'en-US/AgentDesk.adml', 'cs-CZ/AgentDesk.adml']) {
      expect(await readFile(join(dir, path), 'utf8')).toBe(readFileSync(new URL(`../../../resources/policy/admx/${path}`, import.meta.url), 'utf8'));
      expect(io.out_).toContain(`wrote ${join(dir, path)}`);
    }
  });

  it('--mobileconfig FILE --from POLICY.json writes a profile carrying that policy; a policy the app would refuse is not exported', async () => {
    const dir = await tempDir();
    const out = join(dir, 'agentdesk.mobileconfig');
    const io = capture();
    expect(await policyExport({ mobileconfig: out, from: example }, io)).toBe(0);
    const { $schema: _schema, ...policy } = JSON.parse(readFileSync(example, 'utf8')) as Record<string, unknown>;
    expect(policyOfProfile(parsePlist(await readFile(out)))).toEqual(policy);
    expect(await readFile(out, 'utf8')).toBe(readFileSync(new URL('../../../resources/policy/example-kiosk-policy.mobileconfig', import.meta.url), 'utf8'));
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"policyVersion": 1, "voice": {"mode": "push-to-talk"}}');
    const refused = capture();
    expect(await policyExport({ mobileconfig: join(dir, 'bad.mobileconfig'), from: bad }, refused)).toBe(1);
    expect(refused.err_[0]).toContain('voice.allowed: is required');
    // Without --from: this machine's effective policy.
    const system = join(dir, 'system');
    await mkdir(system);
    await writeFile(join(system, 'policy.json'), '{"policyVersion": 1, "language": "cs"}');
    expect(
      await policyExport(
        {
          mobileconfig: join(dir, 'machine.mobileconfig'),
          load: { systemPath: join(system, 'policy.json'), osPolicy: async () => ({ layers: [], problems: [] }) },
        },
        capture(),
      ),
    ).toBe(0);
    expect(await readFile(join(dir, 'machine.mobileconfig'), 'utf8')).toBe(mobileconfig({ policyVersion: 1, language: 'cs' }));
  });

  it('needs --admx or --mobileconfig, and --from only with --mobileconfig', async () => {
    await expect(policyExport({}, capture())).rejects.toThrow(UsageError);
    await expect(policyExport({ admx: await tempDir(), from: example }, capture())).rejects.toThrow('--from names the policy a --mobileconfig profile carries');
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
