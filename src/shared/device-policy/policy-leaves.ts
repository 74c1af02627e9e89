import { z } from 'zod';
import { devicePolicySchema } from './device-policy';

/**
 * The device policy as the fleet channels see it (issue #28): a tree of groups (objects such as
 * `voice`) whose leaves are the keys an administrator sets one by one — `voice.mode`, `kiosk`,
 * `agents.list`. Every channel derives from this one walk of the zod schema: the Windows templates
 * (one ADMX policy per leaf), the registry reader (a group is a subkey, a leaf a value), the macOS
 * profile and the merge of several sources (a key set in two places is one leaf set twice). A key
 * added to the schema is a new leaf here without any change to this file; only its words
 * (policy-template-words.ts) are new.
 */

/** How a leaf is set: what a template offers and what a registry value must be. */
export type PolicyLeafKind = 'boolean' | 'integer' | 'enum' | 'string' | 'list';

export interface PolicyLeaf {
  /** `voice.mode`: how people, the words table and the sources name it. */
  key: string;
  path: readonly string[];
  kind: PolicyLeafKind;
  /** The leaf's own schema (not optional): one value is checked alone with it. */
  schema: z.ZodType;
  /** The schema's words for it (English). */
  description: string;
  /** Its group cannot be set without it (`voice.allowed` when anything of `voice` is set). */
  requiredInGroup: boolean;
  /** integer: the range (JSON Schema minimum and maximum). */
  minimum?: number;
  maximum?: number;
  /** string: the longest value. */
  maxLength?: number;
  /** enum: the values, in the schema's order. */
  values?: readonly string[];
  /** list: what one item is (a string, or a JSON object), its item properties for an object, and the longest list. */
  items?: { kind: 'string' } | { kind: 'object'; properties: readonly { name: string; required: boolean; description: string }[] };
  maxItems?: number;
}

export interface PolicyGroup {
  key: string;
  path: readonly string[];
  /** Its leaves that must be set whenever the group is. */
  required: readonly string[];
}

export interface PolicyTree {
  leaves: readonly PolicyLeaf[];
  groups: readonly PolicyGroup[];
}

/** Keys of the format itself, not settings: no template offers them (the templates are of one policy version). */
export const policyFormatKeys: readonly string[] = ['$schema', 'policyVersion'];

type JsonSchemaNode = {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  items?: JsonSchemaNode;
};

/**
 * The leaves and groups of a policy schema (default: the device policy's). Throws for a key whose
 * form no channel can carry yet (a number with a fraction, an object inside a list inside a list …),
 * so a schema change that needs a new form fails the generators' tests instead of being left out.
 */
export function policyTree(schema: z.ZodType = devicePolicySchema): PolicyTree {
  const json = z.toJSONSchema(schema, { io: 'input' }) as JsonSchemaNode;
  const leaves: PolicyLeaf[] = [];
  const groups: PolicyGroup[] = [];
  walk(unwrapObject(schema), json, [], leaves, groups);
  return { leaves, groups };
}

function walk(shape: Record<string, z.ZodType>, json: JsonSchemaNode, path: string[], leaves: PolicyLeaf[], groups: PolicyGroup[]): void {
  const required = new Set(json.required ?? []);
  for (const [name, node] of Object.entries(json.properties ?? {})) {
    if (path.length === 0 && policyFormatKeys.includes(name)) continue;
    const here = [...path, name];
    const zod = unwrapOptional(shape[name]!);
    if (node.type === 'object') {
      groups.push({ key: here.join('.'), path: here, required: node.required ?? [] });
      walk(unwrapObject(zod), node, here, leaves, groups);
      continue;
    }
    leaves.push(leafOf(here, node, zod, required.has(name)));
  }
}

function leafOf(path: string[], node: JsonSchemaNode, schema: z.ZodType, requiredInGroup: boolean): PolicyLeaf {
  const key = path.join('.');
  const description = node.description ?? schema.description ?? '';
  const base = { key, path, schema, description, requiredInGroup };
  if (node.type === 'boolean') return { ...base, kind: 'boolean' };
  if (node.type === 'integer')
    return {
      ...base,
      kind: 'integer',
      ...(node.minimum === undefined ? {} : { minimum: node.minimum }),
      ...(node.maximum === undefined ? {} : { maximum: node.maximum }),
    };
  if (node.type === 'string' && node.enum) return { ...base, kind: 'enum', values: node.enum.map(String) };
  if (node.type === 'string') return { ...base, kind: 'string', ...(node.maxLength === undefined ? {} : { maxLength: node.maxLength }) };
  if (node.type === 'array' && node.items?.type === 'string')
    return { ...base, kind: 'list', items: { kind: 'string' }, ...(node.maxItems === undefined ? {} : { maxItems: node.maxItems }) };
  if (node.type === 'array' && node.items?.type === 'object') {
    const itemRequired = new Set(node.items.required ?? []);
    const properties = Object.entries(node.items.properties ?? {}).map(([name, property]) => {
      if (property.type === 'object' || property.type === 'array')
        throw new Error(`policy key ${key}: an item property "${name}" that is itself a ${property.type} has no template form`);
      return { name, required: itemRequired.has(name), description: property.description ?? '' };
    });
    return { ...base, kind: 'list', items: { kind: 'object', properties }, ...(node.maxItems === undefined ? {} : { maxItems: node.maxItems }) };
  }
  throw new Error(
    `policy key ${key}: a ${node.type ?? 'value without a type'}${node.type === 'array' ? ` of ${node.items?.type ?? 'anything'}` : ''} has no template form yet (policy-leaves.ts)`,
  );
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? unwrapOptional(schema.unwrap() as z.ZodType) : schema;
}

function unwrapObject(schema: z.ZodType): Record<string, z.ZodType> {
  const inner = unwrapOptional(schema);
  if (!(inner instanceof z.ZodObject)) throw new Error('policyTree: a group must be an object schema');
  return inner.shape as Record<string, z.ZodType>;
}

/** The leaf named `key`, if the tree has one. */
export function leafNamed(tree: PolicyTree, key: string): PolicyLeaf | undefined {
  return tree.leaves.find((leaf) => leaf.key === key);
}

/** The value at `path` of a document (undefined when any step is missing or not an object). */
export function valueAt(document: unknown, path: readonly string[]): unknown {
  let here: unknown = document;
  for (const name of path) {
    if (here === null || typeof here !== 'object' || Array.isArray(here) || !Object.hasOwn(here, name)) return undefined;
    here = (here as Record<string, unknown>)[name];
  }
  return here;
}

/** Sets `value` at `path`, making the groups on the way (own properties only). */
export function setValueAt(document: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let here = document;
  for (const name of path.slice(0, -1)) {
    const next = Object.hasOwn(here, name) ? here[name] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next))
      Object.defineProperty(here, name, { value: {}, enumerable: true, writable: true, configurable: true });
    here = here[name] as Record<string, unknown>;
  }
  Object.defineProperty(here, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}
