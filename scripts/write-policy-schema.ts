// Writes resources/policy/agentdesk-policy.schema.json from the device policy's zod schema.
// Run after changing src/shared/device-policy/device-policy.ts: npx tsx scripts/write-policy-schema.ts
// (test/unit/shared/device-policy-schema.test.ts fails while the file differs).
import { writeFileSync } from 'node:fs';
import { devicePolicyJsonSchema } from '../src/shared/device-policy/device-policy';

const file = new URL('../resources/policy/agentdesk-policy.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(devicePolicyJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${file.pathname}\n`);
