import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import type { PolicyLayer } from '../../shared/device-policy/policy-layers';
import { policyTree, setValueAt, type PolicyLeaf, type PolicyTree } from '../../shared/device-policy/policy-leaves';
import { decodeRegFile, parseRegFile, RegFileError, shortHiveName, type RegistryKey, type RegistryValue } from './reg-file';
import { reasonInWords } from '../store/json-file-store';

/**
 * The device policy in the Windows registry (issue #28), where Group Policy and Intune write it from
 * the ADMX templates (resources/policy/admx/): `HKLM\SOFTWARE\Policies\AgentDesk` for the computer,
 * `HKCU\SOFTWARE\Policies\AgentDesk` for a user (only the keys that may be per user). A group of the
 * policy is a subkey (`…\AgentDesk\voice`), a leaf a value in it (`mode`, REG_SZ); a list is a subkey
 * of its own whose values are named 1, 2, 3 … (each item a string, or a JSON object). One rule,
 * `registryLocation`, serves the templates and the reader, so what Group Policy writes is what
 * AgentDesk reads; names are compared without case, as Windows does.
 */

/** The policy key under HKLM and HKCU (as the ADMX writes it; Windows shows it upper-cased as SOFTWARE). */
export const policyRegistryKey = 'Software\\Policies\\AgentDesk';

/** Where a leaf lives: a value of a key, or (a list) a key of numbered values. */
export type RegistryLocation = { key: string; valueName: string } | { key: string; list: true };

export function registryLocation(leaf: PolicyLeaf): RegistryLocation {
  if (leaf.kind === 'list') return { key: [policyRegistryKey, ...leaf.path].join('\\'), list: true };
  return { key: [policyRegistryKey, ...leaf.path.slice(0, -1)].join('\\'), valueName: leaf.path[leaf.path.length - 1]! };
}

/** The registry type a leaf's value has. */
export function registryType(leaf: PolicyLeaf): 'REG_DWORD' | 'REG_SZ' {
  return leaf.kind === 'boolean' || leaf.kind === 'integer' ? 'REG_DWORD' : 'REG_SZ';
}

const hives = { machine: 'HKEY_LOCAL_MACHINE', user: 'HKEY_CURRENT_USER' } as const;

/**
 * The keys of one hive's policy (as `reg export` gave them) → a policy layer's document, and what
 * could not be read (each naming its registry place). No key, or keys without values: undefined.
 */
export function registryPolicyLayer(
  keys: readonly RegistryKey[],
  scope: 'machine' | 'user',
  tree: PolicyTree = policyTree(),
): { layer?: PolicyLayer; problems: string[] } {
  const root = `${hives[scope]}\\${policyRegistryKey}`.toLowerCase();
  const name = shortHiveName(`${hives[scope]}\\SOFTWARE\\Policies\\AgentDesk`);
  const byKey = new Map<string, { leaf: PolicyLeaf; valueName: string }[]>();
  const lists = new Map<string, PolicyLeaf>();
  const groupKeys = new Set<string>([root, ...tree.groups.map((group) => `${root}\\${group.path.join('\\')}`.toLowerCase())]);
  for (const leaf of tree.leaves) {
    const location = registryLocation(leaf);
    const key = `${hives[scope]}\\${location.key}`.toLowerCase();
    if ('list' in location) lists.set(key, leaf);
    else byKey.set(key, [...(byKey.get(key) ?? []), { leaf, valueName: location.valueName.toLowerCase() }]);
  }
  const document: Record<string, unknown> = {};
  const problems: string[] = [];
  let values = 0;
  for (const key of keys) {
    const path = key.path.toLowerCase();
    if (path !== root && !path.startsWith(`${root}\\`)) continue;
    const place = shortHiveName(key.path);
    const list = lists.get(path);
    if (list) {
      const read = listOf(key, list, place);
      problems.push(...read.problems);
      if (read.items.length > 0) setValueAt(document, list.path, read.items);
      values += key.values.size;
      continue;
    }
    if (!groupKeys.has(path)) {
      problems.push(`${place}: not a key of the AgentDesk policy`);
      continue;
    }
    for (const [valueName, value] of key.values) {
      values += 1;
      if (path === root && valueName.toLowerCase() === 'policyversion') {
        if (value.type === 'REG_DWORD') document.policyVersion = value.data;
        else problems.push(`${place}\\policyVersion: must be a DWORD (REG_DWORD)`);
        continue;
      }
      const entry = byKey.get(path)?.find((candidate) => candidate.valueName === valueName.toLowerCase());
      if (!entry) {
        problems.push(`${place}: the value "${valueName === '' ? '(Default)' : valueName}" is not a policy key`);
        continue;
      }
      const read = leafValue(entry.leaf, value);
      if ('problem' in read) problems.push(`${place}\\${valueName}: ${read.problem}`);
      else setValueAt(document, entry.leaf.path, read.value);
    }
  }
  return values === 0 && problems.length === 0 ? { problems } : { layer: { kind: scope === 'machine' ? 'os-machine' : 'os-user', name, document }, problems };
}

function leafValue(leaf: PolicyLeaf, value: RegistryValue): { value: unknown } | { problem: string } {
  switch (leaf.kind) {
    case 'boolean':
      if (value.type === 'REG_DWORD' && (value.data === 0 || value.data === 1)) return { value: value.data === 1 };
      return { problem: 'must be a DWORD (REG_DWORD) of 1 (on) or 0 (off)' };
    case 'integer':
      if (value.type === 'REG_DWORD') return { value: value.data };
      if (value.type === 'REG_QWORD' && value.data <= BigInt(Number.MAX_SAFE_INTEGER)) return { value: Number(value.data) };
      return { problem: 'must be a number (REG_DWORD)' };
    default:
      if (value.type === 'REG_SZ') return { value: value.data };
      return { problem: `must be a string (REG_SZ), not ${value.type}` };
  }
}

/** A list's key: values 1, 2, 3 … in number order; each a string, or (a list of objects) a JSON object. */
function listOf(key: RegistryKey, leaf: PolicyLeaf, place: string): { items: unknown[]; problems: string[] } {
  const problems: string[] = [];
  const numbered: [number, unknown][] = [];
  for (const [valueName, value] of key.values) {
    if (!/^[1-9]\d{0,3}$/.test(valueName)) {
      problems.push(`${place}: the value "${valueName === '' ? '(Default)' : valueName}" is not a list entry (they are named 1, 2, 3 …)`);
      continue;
    }
    if (value.type !== 'REG_SZ') {
      problems.push(`${place}\\${valueName}: must be a string (REG_SZ)`);
      continue;
    }
    if (leaf.items?.kind !== 'object') {
      numbered.push([Number(valueName), value.data]);
      continue;
    }
    try {
      const item = JSON.parse(value.data) as unknown;
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new Error('not an object');
      numbered.push([Number(valueName), item]);
    } catch {
      problems.push(`${place}\\${valueName}: must be one JSON object, such as {"${leaf.items.properties[0]?.name ?? 'name'}": "…"}`);
    }
  }
  return { items: numbered.sort(([a], [b]) => a - b).map(([, item]) => item), problems };
}

/** What reading the registry gave: the layers (HKLM, then HKCU) and the problems, each naming its place. */
export interface OsPolicyRead {
  layers: PolicyLayer[];
  problems: string[];
}

/**
 * Reads the policy keys on Windows: `reg.exe` (Windows' own tool, by its full path) lists
 * `…\SOFTWARE\Policies` to see whether an AgentDesk key is there (its messages are in the system's
 * language, the key names are not), then `reg export` writes that key to a temporary .reg file, which
 * `parseRegFile` reads. No AgentDesk key is no policy; reg.exe failing otherwise is a problem (the
 * policy then fails closed).
 */
export async function readWindowsRegistryPolicy(env: NodeJS.ProcessEnv = process.env): Promise<OsPolicyRead> {
  const reg = win32.join(env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows', 'System32', 'reg.exe');
  const folder = await mkdtemp(join(tmpdir(), 'agentdesk-policy-'));
  try {
    const read: OsPolicyRead = { layers: [], problems: [] };
    for (const scope of ['machine', 'user'] as const) {
      const key = `${hives[scope]}\\${policyRegistryKey}`;
      const place = shortHiveName(key);
      const parent = win32.dirname(key);
      const listed = await runReg(reg, ['query', parent, '/reg:64']);
      if ('failed' in listed) {
        read.problems.push(`${place}: could not be read (reg query ${shortHiveName(parent)}: ${listed.failed})`);
        continue;
      }
      if (!listsSubkey(listed.stdout, key)) continue;
      const file = join(folder, `${scope}.reg`);
      const exported = await runReg(reg, ['export', key, file, '/y', '/reg:64']);
      if ('failed' in exported) {
        read.problems.push(`${place}: could not be read (reg export: ${exported.failed})`);
        continue;
      }
      try {
        const layer = registryPolicyLayer(parseRegFile(decodeRegFile(await readFile(file))), scope);
        if (layer.layer) read.layers.push(layer.layer);
        read.problems.push(...layer.problems);
      } catch (error) {
        read.problems.push(`${place}: ${error instanceof RegFileError ? error.message : reasonInWords(error)}`);
      }
    }
    return read;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Whether `reg query PARENT` printed `key` among its subkeys (one full key path a line; case as Windows keeps it). */
export function listsSubkey(stdout: string, key: string): boolean {
  const wanted = key.toLowerCase();
  return stdout.split(/\r?\n/).some((line) => line.trim().toLowerCase() === wanted);
}

function runReg(reg: string, args: string[]): Promise<{ stdout: string } | { failed: string }> {
  return new Promise((resolve) => {
    execFile(reg, args, { timeout: 10_000, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout });
      resolve({ failed: stderr.trim().slice(0, 200) || error.message });
    });
  });
}
