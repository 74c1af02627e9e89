import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { devicePolicySchema, forcedSettings, policyRefusals, settingsUnderPolicy } from '../../../src/shared/device-policy/device-policy';
import { findJsonSyntaxError } from '../../../src/shared/device-policy/json-syntax';
import { readDevicePolicyText } from '../../../src/shared/device-policy/read-device-policy';
import { defaultSettings, type Settings } from '../../../src/shared/settings/settings';
import { check, mutatedBytes, mutatedFrom, target } from '../kit';

/**
 * The device policy reader (issue #18) on damaged policies: it never throws; it accepts only what
 * the schema accepts, and refuses with a problem in words; its JSON locator agrees with JSON.parse;
 * and under any accepted policy, a user's settings that loosen everything come out forced.
 */
const example = readFileSync(new URL('../../../resources/policy/example-kiosk-policy.json', import.meta.url), 'utf8');
const seeds = [JSON.parse(example) as unknown, { policyVersion: 1 }, { policyVersion: 1, kiosk: false, language: 'en', developmentSetting: 'user' }];

const loosened: Settings = {
  ...defaultSettings,
  language: 'en',
  appearance: { theme: 'dark', textSize: 'normal' },
  developer: { allowLocalHttp: true, allowPastedTokens: true },
  nfc: { debounceMs: 0, kioskScan: false, readerFeedback: false },
};

export const devicePolicyTarget = target<string>({
  name: 'policy.reader',
  weight: 2,
  arbitrary: fc.oneof(
    mutatedFrom(seeds, 5).map((document) => JSON.stringify(document, null, 2)),
    mutatedBytes([new TextEncoder().encode(example)], { maxEdits: 4 }).map((bytes) => new TextDecoder().decode(bytes)),
    fc.string({ maxLength: 200 }),
  ),
  property: (text) => {
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    let parses = true;
    try {
      JSON.parse(body);
    } catch {
      parses = false;
    }
    check((findJsonSyntaxError(body) === undefined) === parses, () => `the locator and JSON.parse disagree on ${JSON.stringify(body.slice(0, 200))}`);
    const read = readDevicePolicyText(text);
    if (!read.ok) {
      check(read.problem.length > 0, 'a refusal says why');
      check(!devicePolicySchema.safeParse(parses ? JSON.parse(body) : undefined).success || body.trim() === '', 'refused a policy the schema accepts');
      return;
    }
    check(devicePolicySchema.safeParse(read.policy).success, 'accepted a policy the schema refuses');
    const forced = settingsUnderPolicy(loosened, read.policy);
    for (const { key, value } of forcedSettings(read.policy)) {
      const [group, field] = key.split('.') as [keyof Settings, string | undefined];
      const actual = field === undefined ? forced[group] : (forced[group] as Record<string, unknown> | undefined)?.[field];
      check(actual === value, `${key} is ${String(actual)}, the policy says ${String(value)}`);
      const other = typeof value === 'boolean' ? !value : value === 'system' ? 'en' : 'system';
      const patch = field === undefined ? { [group]: other } : { [group]: { [field]: other } };
      check(
        policyRefusals(patch, read.policy).some((refused) => refused.key === key),
        `a patch changing ${key} passes`,
      );
    }
  },
});
