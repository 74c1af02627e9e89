import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminPinWaitSeconds, parseAdminPinHash } from '../../../src/shared/device-policy/admin-pin-hash';
import {
  describeDevicePolicy,
  forcedSettings,
  devicePolicyJsonSchema,
  policyRefusals,
  settingsUnderPolicy,
  type DevicePolicy,
} from '../../../src/shared/device-policy/device-policy';
import { findJsonSyntaxError } from '../../../src/shared/device-policy/json-syntax';
import { readDevicePolicyText, type DevicePolicyRead } from '../../../src/shared/device-policy/read-device-policy';
import { defaultSettings, type Settings } from '../../../src/shared/settings/settings';

const resource = (name: string) => readFileSync(new URL(`../../../resources/policy/${name}`, import.meta.url), 'utf8');
const pinHash = '$scrypt$ln=15,r=8,p=1$dDJhieNLC9XJ6y5bKMCFtw$7Ssn4rtA4LIGf6IQ0mBdM/EzysK5hd5NjEOM3pRrX8A';

function read(document: unknown): DevicePolicyRead {
  return readDevicePolicyText(JSON.stringify(document));
}
function problemOf(document: unknown): string {
  const result = typeof document === 'string' ? readDevicePolicyText(document) : read(document);
  if (result.ok) throw new Error('expected a refused policy');
  return result.problem;
}

describe('the device policy files in resources/policy', () => {
  it('has a JSON Schema equal to what the zod schema generates (npx tsx scripts/write-policy-resources.ts)', () => {
    expect(JSON.parse(resource('agentdesk-policy.schema.json'))).toEqual(devicePolicyJsonSchema());
  });

  it('has an example kiosk policy that validates and sets every key', () => {
    const result = readDevicePolicyText(resource('example-kiosk-policy.json'));
    expect(result).toMatchObject({ ok: true, policy: { kiosk: true, agents: { start: 'https://workshop.example.com' } } });
    const schema = devicePolicyJsonSchema() as { properties: Record<string, unknown> };
    const example = JSON.parse(resource('example-kiosk-policy.json')) as Record<string, unknown>;
    expect(Object.keys(example).sort()).toEqual(Object.keys(schema.properties).sort());
  });

  it('says in the schema that unknown keys are not allowed, at every level', () => {
    const schema = JSON.stringify(devicePolicyJsonSchema());
    const objects = schema.match(/"type":"object"/g)?.length ?? 0;
    expect(objects).toBeGreaterThan(5);
    expect(schema.match(/"additionalProperties":false/g)?.length).toBe(objects);
  });
});

describe('reading a device policy', () => {
  it('accepts the smallest policy: only the version', () => {
    expect(read({ policyVersion: 1 })).toEqual({ ok: true, policy: { policyVersion: 1 } });
  });

  it('refuses an unknown key (a typo) anywhere, naming where it is', () => {
    expect(problemOf({ policyVersion: 1, kiosks: true })).toBe('one problem: unknown key "kiosks" at the top level');
    expect(problemOf({ policyVersion: 1, appearance: { theme: 'dark', fontSize: 'large' } })).toBe('one problem: appearance: unknown key "fontSize"');
    expect(problemOf({ policyVersion: 1, agents: { list: [{ address: 'a.example.com', label: 'A' }] } })).toBe(
      'one problem: agents.list[0]: unknown key "label"',
    );
  });

  it('refuses a missing or unknown version before anything else, keeping what it read of kiosk', () => {
    expect(read({ kiosk: true })).toMatchObject({ ok: false, kind: 'unknown_version', kiosk: true, problem: expect.stringContaining('has no policyVersion') });
    expect(read({ policyVersion: 2, kiosk: true, future: 1 })).toMatchObject({
      ok: false,
      kind: 'unknown_version',
      kiosk: true,
      problem: 'policyVersion 2 is not a version this AgentDesk knows (it reads version 1); update AgentDesk or write a version 1 policy',
    });
    expect(read({ policyVersion: '1' })).toMatchObject({
      ok: false,
      kind: 'unknown_version',
      kiosk: false,
      problem: expect.stringContaining('policyVersion "1"'),
    });
  });

  it('names malformed JSON with its line and column', () => {
    const text = '{\n  "policyVersion": 1,\n  "kiosk": true,\n}\n';
    expect(readDevicePolicyText(text)).toEqual({
      ok: false,
      kind: 'malformed',
      kiosk: true,
      problem: 'it is not valid JSON: line 4, column 1: a comma before "}" (JSON allows no trailing comma)',
    });
    expect(problemOf('{\n  "policyVersion": 1\n  "kiosk": true\n}')).toBe('it is not valid JSON: line 3, column 3: expected "," or "}", found """');
    expect(problemOf('{ "language": \'cs\' }')).toBe('it is not valid JSON: line 1, column 15: expected a value, found "\'"');
    expect(problemOf('{ "policyVersion": 1')).toBe('it is not valid JSON: line 1, column 21: expected "," or "}", found the end of the file');
    expect(problemOf('   \n')).toBe('the file is empty');
    expect(problemOf('[1]')).toBe('it is not a JSON object ({ … })');
  });

  it('reads "kiosk": true from malformed JSON as well as it can (it decides between the error screen and refusing to start)', () => {
    expect(readDevicePolicyText('{ "policyVersion": 1, "kiosk" : true, }')).toMatchObject({ ok: false, kind: 'malformed', kiosk: true });
    expect(readDevicePolicyText('{ "policyVersion": 1, "kiosk": false, }')).toMatchObject({ ok: false, kind: 'malformed', kiosk: false });
  });

  it('reads a file saved with a byte-order mark', () => {
    expect(readDevicePolicyText('\ufeff{"policyVersion": 1}')).toMatchObject({ ok: true });
  });

  it('lists every schema problem with its key path', () => {
    const problem = problemOf({ policyVersion: 1, kiosk: 'yes', idleResetSeconds: 5, voice: { allowed: true, mode: 'always' }, camera: { allowed: 'no' } });
    expect(problem).toMatch(/^4 problems: /);
    for (const path of ['kiosk: ', 'idleResetSeconds: ', 'voice.mode: ', 'camera.allowed: ']) expect(problem).toContain(path);
  });

  it('checks what JSON Schema cannot: the start agent, the addresses, http under a forced-off development setting, the PIN hash, the key file', () => {
    const agents = (start: string, ...addresses: string[]) => ({ list: addresses.map((address) => ({ address })), start });
    expect(problemOf({ policyVersion: 1, agents: agents('c.example.com', 'a.example.com', 'b.example.com') })).toBe(
      'one problem: agents.start: must be the address of one agent in agents.list',
    );
    expect(read({ policyVersion: 1, agents: agents('https://B.example.com/', 'a.example.com', 'b.example.com') })).toMatchObject({ ok: true });
    expect(problemOf({ policyVersion: 1, agents: { list: [{ address: 'a.example.com' }, { address: 'https://A.example.com' }] } })).toBe(
      'one problem: agents.list[1].address: the same agent as list[0]',
    );
    expect(problemOf({ policyVersion: 1, agents: { list: [{ address: 'ftp://a.example.com' }] } })).toContain(
      'agents.list[0].address: Only https:// addresses are supported',
    );
    expect(problemOf({ policyVersion: 1, kiosk: true, agents: { list: [{ address: 'http://192.168.1.20:8080' }] } })).toContain(
      'agents.list[0].address: is http://, which needs the development setting',
    );
    expect(read({ policyVersion: 1, kiosk: true, developmentSetting: 'user', agents: { list: [{ address: 'http://192.168.1.20:8080' }] } })).toMatchObject({
      ok: true,
    });
    expect(
      problemOf({ policyVersion: 1, admin: { pinHash: '$scrypt$ln=10,r=8,p=1$dDJhieNLC9XJ6y5bKMCFtw$7Ssn4rtA4LIGf6IQ0mBdM/EzysK5hd5NjEOM3pRrX8A' } }),
    ).toBe('one problem: admin.pinHash: the PIN hash has ln=10; AgentDesk accepts 14 to 20');
    expect(problemOf({ policyVersion: 1, admin: { pinHash: '2468' } })).toContain('admin.pinHash: ');
    expect(problemOf({ policyVersion: 1, deviceKeyFile: 'nfc.key' })).toContain('deviceKeyFile: must be an absolute path');
    expect(read({ policyVersion: 1, deviceKeyFile: 'C:\\ProgramData\\AgentDesk\\nfc.key' })).toMatchObject({ ok: true });
  });

  it('takes allowInsecureHttp (issue #27) only for an http:// address on this computer or a private network, and then without the development setting', () => {
    const one = (agent: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      policyVersion: 1,
      kiosk: true,
      agents: { list: [agent] },
      ...extra,
    });
    for (const address of ['http://192.168.1.20:8080', 'http://10.0.0.5/agui', 'http://127.0.0.1:9000', 'http://localhost:8000', 'http://[fd00::5]:8000']) {
      expect(read(one({ address, allowInsecureHttp: true })), address).toMatchObject({ ok: true });
    }
    for (const address of ['http://workshop.lan:8080', 'http://203.0.113.7/agui']) {
      expect(problemOf(one({ address, allowInsecureHttp: true })), address).toContain(
        'agents.list[0].address: http:// is only allowed to localhost, 127.0.0.1 and private network addresses',
      );
    }
    expect(problemOf(one({ address: 'https://192.168.1.20', allowInsecureHttp: true }))).toContain(
      'agents.list[0].allowInsecureHttp: is only for an http:// address',
    );
    // The development setting stays forced off for every other agent.
    expect(
      problemOf({
        policyVersion: 1,
        kiosk: true,
        agents: { list: [{ address: 'http://192.168.1.20', allowInsecureHttp: true }, { address: 'http://192.168.1.21' }] },
      }),
    ).toContain('agents.list[1].address: is http://, which needs the development setting, and this policy forces it off (add "allowInsecureHttp": true');
    expect(settingsUnderPolicy(defaultSettings, readOk(one({ address: 'http://192.168.1.20', allowInsecureHttp: true }))).developer).toEqual({
      allowLocalHttp: false,
      allowPastedTokens: false,
    });
  });

  it('takes forwardedProps as JSON object text, for plain AG-UI agents only', () => {
    const agent = (extra: Record<string, unknown>) => ({
      policyVersion: 1,
      agents: { list: [{ address: 'https://ide.example.com/agui', kind: 'agui', ...extra }] },
    });
    expect(read(agent({ forwardedProps: '{"iacCode":{"cwd":"/srv/workshop"}}' }))).toMatchObject({ ok: true });
    expect(problemOf(agent({ forwardedProps: '[1]' }))).toBe('one problem: agents.list[0].forwardedProps: forwardedProps must be a JSON object.');
    expect(problemOf(agent({ forwardedProps: '{' }))).toContain('agents.list[0].forwardedProps: forwardedProps is not JSON');
    expect(problemOf({ policyVersion: 1, agents: { list: [{ address: 'workshop.example.com', forwardedProps: '{}' }] } })).toBe(
      'one problem: agents.list[0].forwardedProps: is only for a plain AG-UI agent ("kind": "agui")',
    );
  });
});

function readOk(document: unknown): DevicePolicy {
  const result = read(document);
  if (!result.ok) throw new Error(result.problem);
  return result.policy;
}

describe('the settings under a device policy', () => {
  const strict: DevicePolicy = {
    policyVersion: 1,
    kiosk: true,
    language: 'cs',
    appearance: { theme: 'light', textSize: 'large' },
    nfc: { armedScanning: true },
  };
  /** A user's settings file that tries to loosen every key the policy sets. */
  const loosened: Settings = {
    ...defaultSettings,
    language: 'en',
    appearance: { theme: 'dark', textSize: 'normal' },
    developer: { allowLocalHttp: true, allowPastedTokens: true },
    nfc: { debounceMs: 500, kioskScan: false, readerFeedback: true },
  };

  it('forces every key the policy sets, whatever the user file says, and keeps the rest', () => {
    expect(settingsUnderPolicy(loosened, strict)).toEqual({
      ...loosened,
      language: 'cs',
      appearance: { theme: 'light', textSize: 'large' },
      developer: { allowLocalHttp: false, allowPastedTokens: false },
      nfc: { debounceMs: 500, kioskScan: true, readerFeedback: true },
    });
    expect(loosened.language).toBe('en'); // the input is not changed
  });

  it('forces each key on its own (one policy per key, the user file loosening it)', () => {
    const cases: [Partial<DevicePolicy>, (settings: Settings) => unknown, unknown][] = [
      [{ language: 'cs' }, (s) => s.language, 'cs'],
      [{ appearance: { theme: 'light' } }, (s) => s.appearance, { theme: 'light', textSize: 'normal' }],
      [{ appearance: { textSize: 'large' } }, (s) => s.appearance, { theme: 'dark', textSize: 'large' }],
      [{ developmentSetting: 'forced-off' }, (s) => s.developer, { allowLocalHttp: false, allowPastedTokens: false }],
      [{ kiosk: true }, (s) => s.developer, { allowLocalHttp: false, allowPastedTokens: false }],
      [{ nfc: { armedScanning: true } }, (s) => s.nfc?.kioskScan, true],
      // The user turned kiosk scanning on; the policy keeps it off.
      [{ nfc: { armedScanning: false } }, (s) => s.nfc?.kioskScan, false],
      // Barge-in: forced, also into a file without voice settings; the user's other voice settings stay.
      [{ voice: { allowed: true, bargeIn: 'off' } }, (s) => s.voice?.bargeIn, 'off'],
      [{ voice: { allowed: true, bargeIn: 'automatic' } }, (s) => s.voice, { consents: [], bargeIn: 'automatic' }],
    ];
    for (const [policy, pick, expected] of cases) {
      const user = policy.nfc?.armedScanning === false ? { ...loosened, nfc: { ...loosened.nfc!, kioskScan: true } } : loosened;
      expect(pick(settingsUnderPolicy(user, { policyVersion: 1, ...policy })), JSON.stringify(policy)).toEqual(expected);
    }
  });

  it('gives a kiosk large text unless its policy sets the text size (issue #27)', () => {
    expect(settingsUnderPolicy(loosened, { policyVersion: 1, kiosk: true }).appearance).toEqual({ theme: 'dark', textSize: 'large' });
    expect(forcedSettings({ policyVersion: 1, kiosk: true }).find((forced) => forced.key === 'appearance.textSize')).toEqual({
      key: 'appearance.textSize',
      value: 'large',
      policyKey: 'kiosk',
    });
    expect(
      settingsUnderPolicy(
        { ...loosened, appearance: { theme: 'dark', textSize: 'large' } },
        { policyVersion: 1, kiosk: true, appearance: { textSize: 'normal' } },
      ).appearance.textSize,
    ).toBe('normal');
    // Not a kiosk: the user's setting.
    expect(settingsUnderPolicy(loosened, { policyVersion: 1, kiosk: false }).appearance.textSize).toBe('normal');
  });

  it('leaves the settings alone without a policy, or with one that sets nothing', () => {
    expect(settingsUnderPolicy(loosened, undefined)).toEqual(loosened);
    expect(settingsUnderPolicy(loosened, { policyVersion: 1, developmentSetting: 'user' })).toEqual(loosened);
  });

  it('forces kiosk scanning into a settings file written before NFC settings existed', () => {
    const { nfc: _nfc, ...old } = defaultSettings;
    expect(settingsUnderPolicy(old, { policyVersion: 1, nfc: { armedScanning: true } }).nfc).toEqual({
      debounceMs: 2000,
      kioskScan: true,
      readerFeedback: false,
    });
  });

  it('refuses a patch that changes a forced key, naming each, and lets one that repeats the forced value pass', () => {
    const attempts: [object, string][] = [
      [{ language: 'en' }, 'language'],
      [{ appearance: { theme: 'dark' } }, 'appearance.theme'],
      [{ appearance: { textSize: 'normal' } }, 'appearance.textSize'],
      [{ developer: { allowLocalHttp: true } }, 'developer.allowLocalHttp'],
      [{ developer: { allowPastedTokens: true } }, 'developer.allowPastedTokens'],
      [{ nfc: { kioskScan: false } }, 'nfc.kioskScan'],
    ];
    for (const [patch, key] of attempts) expect(policyRefusals(patch, strict).map((forced) => forced.key)).toEqual([key]);
    const noBargeIn: DevicePolicy = { policyVersion: 1, voice: { allowed: true, bargeIn: 'off' } };
    expect(policyRefusals({ voice: { bargeIn: 'on' } }, noBargeIn).map((forced) => forced.key)).toEqual(['voice.bargeIn']);
    expect(policyRefusals({ voice: { bargeIn: 'off' } }, noBargeIn)).toEqual([]);
    expect(describeDevicePolicy(noBargeIn)).toContain('setting voice.bargeIn: off (forced by voice.bargeIn)');
    expect(policyRefusals({ language: 'cs', appearance: { theme: 'light', textSize: 'large' }, nfc: { debounceMs: 100 } }, strict)).toEqual([]);
    expect(policyRefusals({ language: 'en' }, undefined)).toEqual([]);
  });
});

describe('describing a device policy', () => {
  it('says what each key does', () => {
    const lines = describeDevicePolicy(readDevicePolicyOk(resource('example-kiosk-policy.json')));
    expect(lines).toContain('kiosk mode: on');
    expect(lines).toContain('  https://workshop.example.com/ "Workshop assistant" (start)');
    expect(lines).toContain('voice: not allowed (no microphone)');
    expect(lines).toContain('setting language: cs (forced by language)');
    expect(lines).toContain('development setting: forced off');
    expect(lines).toContain('NFC device key: the file /etc/agentdesk/nfc-device.key');
    expect(describeDevicePolicy({ policyVersion: 1 })).toContain('agents: the user manages the list');
  });
});

function readDevicePolicyOk(text: string): DevicePolicy {
  const result = readDevicePolicyText(text);
  if (!result.ok) throw new Error(result.problem);
  return result.policy;
}

describe('the admin PIN hash format and lockout rule', () => {
  it('reads the PHC string and refuses weak or malformed ones', () => {
    expect(parseAdminPinHash(pinHash)).toMatchObject({ ln: 15, r: 8, p: 1 });
    expect(parseAdminPinHash(pinHash.replace('r=8', 'r=4'))).toEqual({ problem: 'has r=4; AgentDesk accepts 8 to 16' });
    expect(parseAdminPinHash(pinHash.replace('$dDJhieNLC9XJ6y5bKMCFtw$', '$dDJh$'))).toMatchObject({ problem: expect.stringContaining('salt') });
    expect(parseAdminPinHash('$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA')).toMatchObject({ problem: expect.stringContaining('hash-pin') });
  });

  it('waits nothing for the first five wrong tries, then doubles from 30 s up to an hour', () => {
    expect([0, 1, 4].map(adminPinWaitSeconds)).toEqual([0, 0, 0]);
    expect([5, 6, 7, 11, 12, 50].map(adminPinWaitSeconds)).toEqual([30, 60, 120, 1920, 3600, 3600]);
  });
});

describe('the JSON syntax locator', () => {
  it('agrees with JSON.parse on what is JSON', () => {
    const samples = [
      '{}',
      '[]',
      '0',
      '-1.5e+3',
      '"a\\u00e9\\n"',
      '{"a":[1,{"b":null}],"c":true}',
      ' {"a" : false } ',
      '{"a":1,}',
      '[1,]',
      '01',
      '{"a" 1}',
      '"\u0001"',
      '{a:1}',
      'tru',
      '"\\x"',
      '[1 2]',
      '1 2',
      '"abc',
    ];
    for (const sample of samples) {
      let valid = true;
      try {
        JSON.parse(sample);
      } catch {
        valid = false;
      }
      expect(findJsonSyntaxError(sample) === undefined, sample).toBe(valid);
    }
  });
});
