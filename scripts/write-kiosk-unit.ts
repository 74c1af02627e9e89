// Writes resources/packaging/linux/agentdesk-kiosk.service, the systemd user unit the deb and rpm
// install (not enabled), from the same generator as `agentdesk kiosk install`.
// Run: npx tsx scripts/write-kiosk-unit.ts (test/unit/packaging.test.ts fails while the file differs).
import { writeFileSync } from 'node:fs';
import { installedAppPath, packagedUnitHeader, systemdUnit } from '../src/main/cli/kiosk-install';

writeFileSync(new URL('../resources/packaging/linux/agentdesk-kiosk.service', import.meta.url), systemdUnit([installedAppPath, '--kiosk'], packagedUnitHeader));
