import { readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { PolicyLayer } from '../../shared/device-policy/policy-layers';
import { reasonInWords } from '../store/json-file-store';
import { parsePlist, PlistError, type PlistValue } from './plist';
import type { OsPolicyRead } from './registry-policy';

/**
 * The device policy in macOS managed preferences (issue #28): a configuration profile whose payload
 * type is AgentDesk's bundle id (resources/policy/*.mobileconfig, pushed by Jamf, Intune or Apple
 * Business Manager) makes macOS write `/Library/Managed Preferences/dev.agentdesk.app.plist` for the
 * computer, or `/Library/Managed Preferences/<user>/dev.agentdesk.app.plist` for one user, binary or
 * XML. The dictionary is the policy, as in the JSON file; a profile's own bookkeeping keys
 * (`Payload…`) are left out.
 */

/** The app's bundle id (electron-builder.json appId): the profile's payload type and the preferences' name. */
export const macBundleId = 'dev.agentdesk.app';

export const managedPreferencesFolder = '/Library/Managed Preferences';

/** A managed preferences file larger than this is refused unread. */
const maxPlistBytes = 1024 * 1024;

/** Keys a configuration profile adds to its payload, never policy keys (those start with a lower-case letter). */
export function isPayloadKey(key: string): boolean {
  return /^Payload[A-Z]/.test(key);
}

/** A managed preferences file's bytes → a policy layer (or what is wrong with it). */
export function managedPreferencesLayer(bytes: Uint8Array, scope: 'machine' | 'user', name: string): { layer: PolicyLayer } | { problem: string } {
  let value: PlistValue;
  try {
    value = parsePlist(bytes);
  } catch (error) {
    return { problem: `${name}: ${error instanceof PlistError ? error.message : `not a property list (${reasonInWords(error)})`}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date || value instanceof Uint8Array) {
    return { problem: `${name}: the property list is not a dictionary` };
  }
  const document: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!isPayloadKey(key)) Object.defineProperty(document, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return { layer: { kind: scope === 'machine' ? 'os-machine' : 'os-user', name, document } };
}

/** Reads the computer's and the user's managed preferences of AgentDesk; a file that is not there is no policy. */
export async function readManagedPreferences(folder = managedPreferencesFolder, user = userInfo().username): Promise<OsPolicyRead> {
  const read: OsPolicyRead = { layers: [], problems: [] };
  const files = [
    { scope: 'machine' as const, file: join(folder, `${macBundleId}.plist`) },
    { scope: 'user' as const, file: join(folder, user, `${macBundleId}.plist`) },
  ];
  for (const { scope, file } of files) {
    try {
      const info = await stat(file);
      if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
      if (info.size > maxPlistBytes) {
        read.problems.push(`${file}: it is ${info.size} bytes, more than a policy may be (${maxPlistBytes})`);
        continue;
      }
      const layer = managedPreferencesLayer(await readFile(file), scope, file);
      if ('problem' in layer) read.problems.push(layer.problem);
      else read.layers.push(layer.layer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      read.problems.push(`${file}: it cannot be read: ${reasonInWords(error)}`);
    }
  }
  return read;
}
