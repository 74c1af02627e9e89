import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve, win32 } from 'node:path';
import type { DevicePolicy } from '../../shared/device-policy/device-policy';
import { byPrecedence, mergePolicyLayers, type PolicyConflict, type PolicyLayer, type PolicyLayerKind } from '../../shared/device-policy/policy-layers';
import { devicePolicyFailureMessage, listProblems, readDevicePolicyText, readPolicyDocument } from '../../shared/device-policy/read-device-policy';
import { reasonInWords } from '../store/json-file-store';
import { readManagedPreferences } from './managed-preferences';
import { readWindowsRegistryPolicy, type OsPolicyRead } from './registry-policy';

/**
 * Finding and reading the device policy (issue #18; the format is src/shared/device-policy). It may
 * come from several places (issue #28, policy-layers.ts has the precedence): the OS's own management
 * (the Windows registry that Group Policy and Intune write, macOS managed preferences from a
 * configuration profile), drop-in files in `policy.d/` beside the main file (merged in name order,
 * the last one winning, as Chromium's managed policies folder), the main file at the system
 * location, and, on a machine where none of those sets anything, `--policy FILE`. Nothing in any of
 * them means no policy (an unmanaged machine). Anything else that is not a valid policy (a place that
 * cannot be read, malformed JSON, an unknown version, a schema problem, a `--policy` file that does
 * not exist or that the system's policy does not let through) fails closed: the result says so with
 * the place and the problem, and the entries refuse to start (or, in kiosk mode, show only the error
 * screen). Never silently ignored.
 */
export type DevicePolicyLoad =
  | { state: 'none'; file: string }
  | {
      state: 'active';
      /** Where the policy came from, for people: the one place, or the places joined by " + " (highest first). */
      file: string;
      policy: DevicePolicy;
      /** The places that set something, highest precedence first. */
      layers: PolicySourceInfo[];
      /** Each key the policy sets (`voice.mode`) → the place it came from. */
      sources: Record<string, string>;
      /** Keys set to different values in several places: the higher one is in force. */
      conflicts: PolicyConflict[];
    }
  | {
      state: 'failed';
      file: string;
      /** `missing`: a --policy file that is not there; `unreadable`: not a readable file of a policy's size (or the OS channel could not be read); then as readDevicePolicyText says. */
      kind: 'missing' | 'unreadable' | 'malformed' | 'unknown_version' | 'invalid' | 'overridden';
      /** What is wrong, in words (without the file name). */
      problem: string;
      /** The whole sentence for people, naming the file and the problem. */
      message: string;
      /** True when the app must show the error screen rather than refuse to start: `--kiosk`, or the file said `"kiosk": true` as far as it could be read. */
      kiosk: boolean;
    };

/** One place the policy came from: its kind, its name and, for a file, the SHA-256 of its bytes (to compare with what was deployed). */
export interface PolicySourceInfo {
  kind: PolicyLayerKind;
  name: string;
  sha256?: string;
}

type FailureKind = Extract<DevicePolicyLoad, { state: 'failed' }>['kind'];

/** Policy files larger than this are refused unread (a policy is a few KiB). */
export const maxDevicePolicyBytes = 1024 * 1024;

/** The system location: Linux /etc/agentdesk/policy.json, Windows %ProgramData%\AgentDesk\policy.json, macOS /Library/Application Support/AgentDesk/policy.json. */
export function systemDevicePolicyPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'AgentDesk', 'policy.json');
  if (platform === 'darwin') return join('/Library', 'Application Support', 'AgentDesk', 'policy.json');
  return '/etc/agentdesk/policy.json';
}

/** The drop-in folder beside the main file: /etc/agentdesk/policy.d, %ProgramData%\\AgentDesk\\policy.d, …/AgentDesk/policy.d. */
export function dropInFolderOf(systemPath: string): string {
  return /^[A-Za-z]:\\/.test(systemPath) ? win32.join(win32.dirname(systemPath), 'policy.d') : join(dirname(systemPath), 'policy.d');
}

/** At most this many drop-in files are read (more is refused: a folder filled by mistake). */
export const maxDropInFiles = 100;

/** This OS's own managed policy: the registry on Windows, managed preferences on macOS, none on Linux. */
export function systemOsPolicy(platform: NodeJS.Platform = process.platform): () => Promise<OsPolicyRead> {
  if (platform === 'win32') return () => readWindowsRegistryPolicy();
  if (platform === 'darwin') return () => readManagedPreferences();
  return async () => ({ layers: [], problems: [] });
}

export interface LoadDevicePolicyOptions {
  /** `--policy FILE`: used where the system sets no policy; it must exist. */
  file?: string | undefined;
  /** The system location (tests pass a temporary folder's file); default: this OS's. */
  systemPath?: string;
  /** The drop-in folder; default: policy.d beside the system location. */
  dropInFolder?: string;
  /** The OS-managed channel; default: this OS's (systemOsPolicy). Tests pass fixtures. */
  osPolicy?: () => Promise<OsPolicyRead>;
  /** `--kiosk` on the command line: a policy that cannot be read is shown as the error screen. */
  kiosk?: boolean;
  /**
   * `agentdesk policy check FILE` reads that one file alone (false); the app does not (default true):
   * where the system sets a policy (any of the OS channel, drop-ins, the main file), a `--policy`
   * naming another file fails closed (a user could otherwise start the app with a looser policy, or
   * add keys of their own to the administrator's).
   */
  systemPolicyWins?: boolean;
}

type Read = { layer: PolicyLayer; sha256: string } | { failed: FailureKind; name: string; problem: string; kiosk?: boolean } | 'none';

export async function loadDevicePolicy(options: LoadDevicePolicyOptions = {}): Promise<DevicePolicyLoad> {
  const explicit = options.file === undefined ? undefined : resolve(options.file);
  const systemPath = options.systemPath ?? systemDevicePolicyPath();
  const failed = (file: string, kind: FailureKind, problem: string, kiosk = false, merged = false): DevicePolicyLoad => ({
    state: 'failed',
    file,
    kind,
    problem,
    message: devicePolicyFailureMessage(file, problem, merged),
    kiosk: kiosk || options.kiosk === true,
  });

  // `agentdesk policy check FILE`: that file alone, as a single policy.
  if (explicit !== undefined && options.systemPolicyWins === false) {
    const read = await readPolicyFile(explicit, 'option', true);
    if (read === 'none') return failed(explicit, 'missing', 'the file does not exist');
    if ('failed' in read) return failed(explicit, read.failed, read.problem, read.kiosk);
    const single = readDevicePolicyText(JSON.stringify(read.layer.document));
    if (!single.ok) return failed(explicit, single.kind, single.problem, single.kiosk);
    return {
      state: 'active',
      file: explicit,
      policy: single.policy,
      layers: [{ kind: 'option', name: explicit, sha256: read.sha256 }],
      sources: sourcesOf(single.policy, explicit),
      conflicts: [],
    };
  }

  const os = await (options.osPolicy ?? systemOsPolicy())();
  const dropIns = await readDropIns(options.dropInFolder ?? dropInFolderOf(systemPath));
  const main = explicit === resolve(systemPath) ? 'none' : await readPolicyFile(systemPath, 'file', false);
  const systemSets = os.layers.length > 0 || os.problems.length > 0 || dropIns.some((read) => read !== 'none') || main !== 'none';
  if (explicit !== undefined && explicit !== resolve(systemPath) && systemSets) {
    const where = [
      ...os.layers.map((layer) => layer.name),
      ...dropIns.flatMap((read) => (read === 'none' ? [] : ['layer' in read ? read.layer.name : read.name])),
      ...(main === 'none' ? [] : [systemPath]),
    ];
    return failed(
      explicit,
      'overridden',
      `a device policy is installed at ${where.length > 0 ? where.join(', ') : systemPath}, and --policy cannot replace it (remove --policy, or have an administrator change that policy)`,
    );
  }
  const option = explicit === undefined ? 'none' : await readPolicyFile(explicit, explicit === resolve(systemPath) ? 'file' : 'option', true);
  if (explicit !== undefined && option === 'none') return failed(explicit, 'missing', 'the file does not exist');

  const reads = [...dropIns, main, option].filter((read): read is Exclude<Read, 'none'> => read !== 'none');
  const failures = [
    ...os.problems.map((problem) => ({
      failed: 'unreadable' as const,
      name: problem.split(': ')[0]!,
      problem: problem.slice(problem.indexOf(': ') + 2) || problem,
      kiosk: false,
    })),
    ...reads.filter((read): read is Extract<Read, { failed: FailureKind }> => 'failed' in read),
  ];
  const fileLayers = reads.filter((read): read is Extract<Read, { layer: PolicyLayer }> => 'layer' in read);
  const layers = byPrecedence([...os.layers, ...fileLayers.map((read) => read.layer).reverse()]);
  const everyKiosk = layers.some((layer) => layer.document.kiosk === true) || failures.some((failure) => failure.kiosk === true);
  if (failures.length === 1 && layers.length === 0) return failed(failures[0]!.name, failures[0]!.failed, failures[0]!.problem, everyKiosk);
  const label = placesLabel([...new Set([...layers.map((layer) => layer.name), ...failures.map((failure) => failure.name)])]);
  if (failures.length > 0) {
    return failed(label, failures[0]!.failed, listProblems(failures.map((failure) => `${failure.name}: ${failure.problem}`)), everyKiosk, true);
  }
  if (layers.length === 0) return { state: 'none', file: systemPath };
  const merged = mergePolicyLayers(layers);
  if (!merged.ok) return failed(label, merged.kind, merged.problem, merged.kiosk, layers.length > 1);
  const sha = new Map(fileLayers.map((read) => [read.layer.name, read.sha256]));
  return {
    state: 'active',
    file: label,
    policy: merged.policy,
    layers: layers.map((layer) => ({ kind: layer.kind, name: layer.name, ...(sha.has(layer.name) ? { sha256: sha.get(layer.name)! } : {}) })),
    sources: merged.sources,
    conflicts: merged.conflicts,
  };
}

/** The places a policy came from, for people and the page (`policy.status`): joined by " + ", at most about 1000 characters. */
export function placesLabel(names: readonly string[]): string {
  const joined = names.join(' + ');
  if (joined.length <= 1000) return joined;
  const first = names[0]!.length > 900 ? `…${names[0]!.slice(-899)}` : names[0]!;
  return `${first} + ${names.length - 1} more places (agentdesk policy effective lists them)`;
}

/** One policy file → its layer; 'none' where there is no file (a --policy file's absence is the caller's to judge). */
async function readPolicyFile(file: string, kind: PolicyLayerKind, explicit: boolean): Promise<Read> {
  let bytes: Buffer;
  try {
    const info = await stat(file);
    if (!info.isFile()) return { failed: 'unreadable', name: file, problem: 'it is not a file' };
    if (info.size > maxDevicePolicyBytes)
      return { failed: 'unreadable', name: file, problem: `it is ${info.size} bytes, more than a policy may be (${maxDevicePolicyBytes})` };
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'none';
    return { failed: explicit && code === 'ENOENT' ? 'missing' : 'unreadable', name: file, problem: `it cannot be read: ${reasonInWords(error)}` };
  }
  const read = readPolicyDocument(bytes.toString('utf8'));
  if (!read.ok) return { failed: read.kind, name: file, problem: read.problem, kiosk: read.kiosk };
  return { layer: { kind, name: file, document: read.document }, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The drop-ins: `*.json` in the folder, in name order (code unit order, as Chromium sorts them); no folder: none. */
async function readDropIns(folder: string): Promise<Read[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    return [{ failed: 'unreadable', name: folder, problem: code === 'ENOTDIR' ? 'it is not a folder' : `it cannot be read: ${reasonInWords(error)}` }];
  }
  if (names.length > maxDropInFiles)
    return [{ failed: 'unreadable', name: folder, problem: `it holds ${names.length} policy files, more than ${maxDropInFiles}` }];
  const path = /^[A-Za-z]:\\/.test(folder) ? win32.join : join;
  return Promise.all(names.map((name) => readPolicyFile(path(folder, name), 'drop-in', false)));
}

/** Every key of a single policy → its one source. */
function sourcesOf(policy: DevicePolicy, name: string): Record<string, string> {
  return Object.fromEntries(leafKeysOf(policy).map((key) => [key, name]));
}

/** The leaf keys a policy sets (`voice.mode`), the format's own keys left out. */
export function leafKeysOf(policy: DevicePolicy): string[] {
  const keys: string[] = [];
  const visit = (value: unknown, path: string[]) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, item] of Object.entries(value)) {
        if (path.length === 0 && (name === '$schema' || name === 'policyVersion')) continue;
        visit(item, [...path, name]);
      }
    } else keys.push(path.join('.'));
  };
  visit(policy, []);
  return keys;
}
