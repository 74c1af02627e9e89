import { devicePolicySchema, devicePolicyVersion, type DevicePolicy } from './device-policy';
import { policyFormatKeys, policyTree, setValueAt, valueAt, type PolicyTree } from './policy-leaves';
import { policyLeafWords } from './policy-template-words';
import { issueLines, keyPath, listProblems, policyVersionProblem, unknownKeyLine } from './read-device-policy';

/**
 * One device policy from several places (issue #28). An administrator may set it through the
 * operating system's own management (Group Policy or Intune writing the registry, a macOS
 * configuration profile), through drop-in files that each configuration tool owns, through the main
 * policy file, or, on an unmanaged machine, with `--policy FILE`. Each is a layer; the effective
 * policy takes every key from the highest layer that sets it:
 *
 *   OS-managed (machine) > OS-managed (user) > drop-ins (the last name first) > the main file > --policy
 *
 * Keys are merged one leaf at a time (`voice.mode` from one place, `voice.allowed` from another), a
 * list as a whole. A key two layers set to different values is a conflict: the higher one is used
 * and the conflict is reported (`agentdesk policy effective`, the app's log, diagnostics), never
 * silently resolved. Each layer must be right on its own (no unknown key, every value valid: a
 * problem names its place), and the merged policy must pass the schema whole; anything else fails
 * closed, as a single policy file does.
 */
export type PolicyLayerKind = 'os-machine' | 'os-user' | 'drop-in' | 'file' | 'option';

/** Highest precedence first. */
export const policyLayerOrder: readonly PolicyLayerKind[] = ['os-machine', 'os-user', 'drop-in', 'file', 'option'];

/** How the layers are named for people (policy effective, the README). */
export const policyLayerKindWords: Record<PolicyLayerKind, string> = {
  'os-machine': 'the OS-managed policy for this computer (registry HKLM, macOS managed preferences)',
  'os-user': "the OS-managed policy for this user (registry HKCU, the user's macOS managed preferences)",
  'drop-in': 'a drop-in file (policy.d/*.json)',
  file: 'the main policy file',
  option: '--policy FILE',
};

export interface PolicyLayer {
  kind: PolicyLayerKind;
  /** Where it is, as people find it: `HKLM\SOFTWARE\Policies\AgentDesk`, `/etc/agentdesk/policy.d/10-voice.json`. */
  name: string;
  /** Its settings as a JSON document: a file's JSON, the registry's values, a plist's dictionary. */
  document: Record<string, unknown>;
}

export interface PolicyConflict {
  key: string;
  /** The value in force and where it came from. */
  value: unknown;
  source: string;
  /** The other values, each from a lower layer. */
  overridden: { source: string; value: unknown }[];
}

export type MergedPolicy =
  | {
      ok: true;
      policy: DevicePolicy;
      /** Each key the policy sets (`voice.mode`) → the layer it came from. */
      sources: Record<string, string>;
      conflicts: PolicyConflict[];
    }
  | { ok: false; kind: 'unknown_version' | 'invalid'; problem: string; kiosk: boolean };

/** Layers sorted by precedence (highest first), keeping the given order within a kind. */
export function byPrecedence(layers: readonly PolicyLayer[]): PolicyLayer[] {
  return [...layers].sort((a, b) => policyLayerOrder.indexOf(a.kind) - policyLayerOrder.indexOf(b.kind));
}

/**
 * The effective policy of `layers`, highest precedence first (see byPrecedence); at least one layer.
 * A problem names its layer when there is more than one.
 */
export function mergePolicyLayers(layers: readonly PolicyLayer[], tree: PolicyTree = policyTree()): MergedPolicy {
  const named = layers.length > 1;
  const kiosk = layers.some((layer) => layer.document.kiosk === true);
  const versionProblems = layers.flatMap((layer) => {
    const problem = policyVersionProblem(layer.document, layer.kind === 'file' || layer.kind === 'option');
    return problem === undefined ? [] : [named ? `${layer.name}: ${problem}` : problem];
  });
  if (versionProblems.length > 0) return { ok: false, kind: 'unknown_version', problem: versionProblems.join('; '), kiosk };

  const lines = layers.flatMap((layer) => layerProblems(layer, tree).map((line) => (named ? `${layer.name}: ${line}` : line)));
  if (lines.length > 0) return { ok: false, kind: 'invalid', problem: listProblems(lines), kiosk };

  const merged: Record<string, unknown> = { policyVersion: devicePolicyVersion };
  const sources: Record<string, string> = {};
  const conflicts: PolicyConflict[] = [];
  for (const leaf of tree.leaves) {
    const setBy = layers.flatMap((layer) => {
      const value = valueAt(layer.document, leaf.path);
      return value === undefined ? [] : [{ source: layer.name, value }];
    });
    const [used, ...lower] = setBy;
    if (used === undefined) continue;
    setValueAt(merged, leaf.path, used.value);
    sources[leaf.key] = used.source;
    const overridden = lower.filter((other) => canonicalJson(other.value) !== canonicalJson(used.value));
    if (overridden.length > 0) conflicts.push({ key: leaf.key, value: used.value, source: used.source, overridden });
  }

  const parsed = devicePolicySchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue, index) => {
      const line = issueLines([issue])[0] ?? `problem ${index + 1}`;
      if (!named) return line;
      // The places that set the key, what is under it, or (a key missing from its group) the group's other keys.
      const at = keyPath(issue.path);
      const group = keyPath(issue.path.filter((part) => typeof part === 'string').slice(0, -1));
      const related = (key: string) =>
        at === '' ||
        key === at ||
        key.startsWith(`${at}.`) ||
        at.startsWith(`${key}.`) ||
        at.startsWith(`${key}[`) ||
        (group !== '' && key.startsWith(`${group}.`));
      const from = [
        ...new Set(
          Object.entries(sources)
            .filter(([key]) => related(key))
            .map(([, source]) => source),
        ),
      ];
      return from.length > 0 ? `${line} (set in ${from.join(', ')})` : line;
    });
    return { ok: false, kind: 'invalid', problem: listProblems(problems), kiosk: merged.kiosk === true || kiosk };
  }
  return { ok: true, policy: parsed.data, sources, conflicts };
}

/** What is wrong in one layer alone: unknown keys, values that break their key's schema, machine keys set for a user. */
function layerProblems(layer: PolicyLayer, tree: PolicyTree): string[] {
  const lines: string[] = [];
  const groups = new Map(tree.groups.map((group) => [group.key, group]));
  const leaves = new Map(tree.leaves.map((leaf) => [leaf.key, leaf]));
  const visit = (document: Record<string, unknown>, path: string[]) => {
    for (const [name, value] of Object.entries(document)) {
      const here = [...path, name];
      const key = here.join('.');
      if (path.length === 0 && policyFormatKeys.includes(name)) continue;
      const group = groups.get(key);
      if (group) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) lines.push(`${key}: must be an object ({ … }) of ${group.key}'s keys`);
        else visit(value as Record<string, unknown>, here);
        continue;
      }
      const leaf = leaves.get(key);
      if (!leaf) {
        lines.push(unknownKeyLine(path.join('.'), name));
        continue;
      }
      if (layer.kind === 'os-user' && policyLeafWords[leaf.key]?.perUser !== true) {
        lines.push(`${key}: is set for the whole computer only, not per user`);
        continue;
      }
      const parsed = leaf.schema.safeParse(value);
      if (!parsed.success) lines.push(...issueLines(parsed.error.issues.map((issue) => ({ ...issue, path: [...here, ...issue.path] }))));
    }
  };
  visit(layer.document, []);
  return lines;
}

/** JSON with object keys sorted: equal values compare equal whatever order a source wrote them in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
