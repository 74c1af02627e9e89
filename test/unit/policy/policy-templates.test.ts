import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { devicePolicySchema } from '../../../src/shared/device-policy/device-policy';
import { policyTree } from '../../../src/shared/device-policy/policy-leaves';
import { policyGroupWords, policyLeafWords } from '../../../src/shared/device-policy/policy-template-words';
import { readDevicePolicyText } from '../../../src/shared/device-policy/read-device-policy';
import { macBundleId } from '../../../src/main/policy/managed-preferences';
import { parsePlist } from '../../../src/main/policy/plist';
import {
  admlFileName,
  admlLocales,
  admxFileName,
  admxTemplates,
  mobileconfig,
  policyOfProfile,
  policyResourceFiles,
  profileIdentifiers,
} from '../../../src/main/policy/policy-templates';
import { templateProblems } from '../../support/policy-templates';

/**
 * The Windows templates and the macOS profile (issue #28), generated from the one zod schema: the
 * checked-in files in resources/policy/ are a fresh generation; the ADMX and both ADML pass the
 * checks against the schema (test/support/policy-templates.ts, read by another XML parser); the
 * profile gives back the policy it carries; and a key added to the schema fails these tests until
 * the templates carry it.
 */
const resources = new URL('../../../resources/policy/', import.meta.url);
const checkedIn = (path: string) => readFileSync(new URL(path, resources), 'utf8');
const exampleRead = readDevicePolicyText(checkedIn('example-kiosk-policy.json'));
if (!exampleRead.ok) throw new Error(exampleRead.problem);
const { $schema: _schema, ...example } = exampleRead.policy;

const checkedInTemplates = () => ({
  admx: checkedIn(`admx/${admxFileName}`),
  adml: { [admlLocales.en]: checkedIn(`admx/${admlLocales.en}/${admlFileName}`), [admlLocales.cs]: checkedIn(`admx/${admlLocales.cs}/${admlFileName}`) },
});
const asLocales = (templates: ReturnType<typeof admxTemplates>) => ({
  admx: templates.admx,
  adml: { [admlLocales.en]: templates.adml.en, [admlLocales.cs]: templates.adml.cs },
});

describe('resources/policy/', () => {
  it.each(Object.keys(policyResourceFiles(exampleRead.policy)))('%s is what the schema generates now (npx tsx scripts/write-policy-resources.ts)', (path) => {
    expect(checkedIn(path)).toBe(policyResourceFiles(exampleRead.policy)[path]);
  });

  it('holds only what the script writes, beside its README.md and the example policy it starts from (a file the generator no longer writes is stale)', () => {
    const files = readdirSync(resources, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(fileURLToPath(resources), join(entry.parentPath, entry.name)).split(sep).join('/'));
    expect(files.sort()).toEqual([...Object.keys(policyResourceFiles(exampleRead.policy)), 'README.md', 'example-kiosk-policy.json'].sort());
  });
});

describe('the ADMX and ADML templates', () => {
  it("are well-formed, give every schema key exactly one policy with the schema's choices and ranges, and have every string in English and Czech", () => {
    expect(templateProblems(checkedInTemplates(), policyTree(), policyLeafWords)).toEqual([]);
  });

  it('the checks can fail: a changed range, a missing Czech string, a lost policy and broken XML are each found', () => {
    const templates = checkedInTemplates();
    const tree = policyTree();
    const range = { ...templates, admx: templates.admx.replace('maxValue="86400"', 'maxValue="3600"') };
    expect(templateProblems(range, tree, policyLeafWords)).toEqual(["idleResetSeconds: the range 10–3600, not the schema's 10–86400"]);
    const czech = { ...templates, adml: { ...templates.adml, 'cs-CZ': templates.adml['cs-CZ']!.replace(/<string id="VoiceMode">[^<]*<\/string>/, '') } };
    expect(templateProblems(czech, tree, policyLeafWords)).toEqual([
      'ADML cs-CZ: no string VoiceMode',
      'ADML cs-CZ: strings differ from en-US (missing VoiceMode; extra none)',
    ]);
    const lost = { ...templates, admx: templates.admx.replace(/<policy name="CameraAllowed"[\s\S]*?<\/policy>/, '') };
    expect(templateProblems(lost, tree, policyLeafWords)).toEqual(['camera.allowed: no policy writes Software\\Policies\\AgentDesk\\camera value allowed']);
    const choices = { ...templates, admx: templates.admx.replace('<string>push-to-talk</string>', '<string>walkie-talkie</string>') };
    expect(templateProblems(choices, tree, policyLeafWords)).toEqual([
      "voice.mode: the choices hands-free, walkie-talkie, not the schema's hands-free, push-to-talk",
    ]);
    expect(templateProblems({ ...templates, admx: templates.admx.replace('</policies>', '') }, tree, policyLeafWords)[0]).toMatch(/^ADMX: not well-formed XML/);
  });

  it('a key added to the schema fails the templates until they carry it, and needs only its words', () => {
    const extended = z.strictObject({
      ...devicePolicySchema.shape,
      fleetProbe: z.enum(['slow', 'fast']).optional().describe('A key added after the templates were made.'),
    });
    const tree = policyTree(extended);
    // The checked-in templates do not carry it: the check above fails, naming it.
    expect(templateProblems(checkedInTemplates(), tree, policyLeafWords)).toEqual([
      'fleetProbe: no policy writes Software\\Policies\\AgentDesk value fleetProbe',
    ]);
    // The generator asks for its words, naming the key and the file.
    expect(() => admxTemplates({ schema: extended })).toThrow('policy key fleetProbe has no words in src/shared/device-policy/policy-template-words.ts');
    // With its words (and nothing else), the generated templates carry it and pass; they differ from the checked-in files, so the comparison above fails until they are regenerated.
    const words = { ...policyLeafWords, fleetProbe: { title: { en: 'Probe', cs: 'Sonda' }, helpCs: 'Klíč přidaný po vytvoření šablon.' } };
    const generated = admxTemplates({ schema: extended, words });
    expect(templateProblems(asLocales(generated), tree, words)).toEqual([]);
    expect(generated.admx).toContain('<policy name="FleetProbe" class="Machine"');
    expect(generated.admx).not.toBe(checkedInTemplates().admx);
    // A group added to the schema needs its own name too.
    const grouped = z.strictObject({ ...devicePolicySchema.shape, printer: z.strictObject({ allowed: z.boolean().describe('Printing.') }).optional() });
    expect(() =>
      admxTemplates({ schema: grouped, words: { ...policyLeafWords, 'printer.allowed': { title: { en: 'Printing', cs: 'Tisk' }, helpCs: 'Tisk.' } } }),
    ).toThrow('policy group printer has no words');
    expect(() =>
      admxTemplates({
        schema: grouped,
        words: { ...policyLeafWords, 'printer.allowed': { title: { en: 'Printing', cs: 'Tisk' }, helpCs: 'Tisk.' } },
        groupWords: { ...policyGroupWords, printer: { en: 'Printer', cs: 'Tiskárna' } },
      }),
    ).not.toThrow();
  });

  it('has words for the keys the schema has, and none for a key it does not', () => {
    const keys = policyTree().leaves.map((leaf) => leaf.key);
    expect(Object.keys(policyLeafWords).sort()).toEqual([...keys].sort());
    const groups = new Set(
      policyTree()
        .leaves.filter((leaf) => leaf.path.length > 1)
        .map((leaf) => leaf.path[0]),
    );
    expect(new Set(Object.keys(policyGroupWords))).toEqual(groups);
  });
});

describe('the macOS configuration profile', () => {
  it("has the app's bundle id (electron-builder.json appId) as its payload type and gives back the policy it carries", () => {
    const appId = (JSON.parse(readFileSync(new URL('../../../electron-builder.json', import.meta.url), 'utf8')) as { appId: string }).appId;
    expect(macBundleId).toBe(appId);
    expect(profileIdentifiers.payloadType).toBe(appId);
    const profile = parsePlist(new TextEncoder().encode(mobileconfig(example)));
    expect(profile).toMatchObject({ PayloadType: 'Configuration', PayloadScope: 'System', PayloadContent: [{ PayloadType: appId }] });
    expect(policyOfProfile(profile)).toEqual(example);
    // The checked-in example profile is the example policy.
    expect(policyOfProfile(parsePlist(readFileSync(new URL('example-kiosk-policy.mobileconfig', resources))))).toEqual(example);
  });

  it('is the same file for the same policy (derived UUIDs), another for another policy', () => {
    expect(mobileconfig(example)).toBe(mobileconfig(structuredClone(example)));
    expect(mobileconfig({ ...example, language: 'en' })).not.toBe(mobileconfig(example));
  });

  const python = spawnSync('python3', ['-c', 'import plistlib'], { encoding: 'utf8' });
  const pythonMissing = python.status === 0 ? undefined : `python3 with plistlib is not available (${python.error?.message ?? python.stderr.trim()})`;
  if (pythonMissing) console.log(`profile round trip checked by AgentDesk's own plist reader only: ${pythonMissing}`);
  it.skipIf(pythonMissing !== undefined)("round-trips through Python's plistlib (a plist parser that is not AgentDesk's) to the same policy", () => {
    const script =
      'import json, plistlib, sys; p = plistlib.loads(sys.stdin.buffer.read()); c = p["PayloadContent"][0]; print(json.dumps({k: v for k, v in c.items() if not k.startswith("Payload")}))';
    const read = spawnSync('python3', ['-c', script], { input: mobileconfig(example), encoding: 'utf8' });
    expect(read.stderr).toBe('');
    expect(JSON.parse(read.stdout)).toEqual(example);
  });
});
