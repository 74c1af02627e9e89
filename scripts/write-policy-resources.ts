// Writes resources/policy/ from the device policy's zod schema: the JSON Schema for editors, the Windows
// ADMX/ADML templates and the example kiosk policy's macOS profile (issue #28).
// Run after changing src/shared/device-policy/ (the schema or the templates' words): npx tsx scripts/write-policy-resources.ts
// (test/unit/policy/policy-templates.test.ts fails while a checked-in file differs from a fresh generation).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readDevicePolicyText } from '../src/shared/device-policy/read-device-policy';
import { policyResourceFiles } from '../src/main/policy/policy-templates';

const folder = new URL('../resources/policy/', import.meta.url);
const example = readDevicePolicyText(readFileSync(new URL('example-kiosk-policy.json', folder), 'utf8'));
if (!example.ok) throw new Error(`resources/policy/example-kiosk-policy.json: ${example.problem}`);
for (const [path, text] of Object.entries(policyResourceFiles(example.policy))) {
  const file = new URL(path, folder);
  mkdirSync(dirname(file.pathname), { recursive: true });
  writeFileSync(file, text);
  process.stdout.write(`wrote resources/policy/${path}\n`);
}
