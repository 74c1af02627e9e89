import fc from 'fast-check';
import type { z } from 'zod';
import { ipcBytesLimits } from '../../src/shared/base/binary';

/**
 * The fuzzing kit: what a target is, and the input generators every target shares.
 *
 * A target's input mixes fully random data with structured data built around valid examples
 * (valid documents mutated field by field), so the fuzzer gets past the first type check and
 * reaches the deep code. Properties throw (or reject) when the code under test breaks a rule:
 * an unexpected exception, a result outside its documented bounds, a broken round trip.
 */
export interface FuzzTarget<T = unknown> {
  name: string;
  /** Share of `npm run fuzz`'s total budget (relative to the other targets). */
  weight: number;
  /** Inputs in the bounded `npm test` run (default 100). */
  quickRuns?: number;
  /** An input slower than this is a hang (default 2000 ms). */
  hangMs?: number;
  arbitrary: fc.Arbitrary<T>;
  property: (input: T) => void | Promise<void>;
}

export const target = <T>(spec: FuzzTarget<T>): FuzzTarget => spec as unknown as FuzzTarget;

/** Fails the property with a message (a broken rule, not an exception from the code under test). */
export function check(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Error(`property broken: ${typeof message === 'string' ? message : message()}`);
}

/** Round-trips through JSON text, as a value read from the wire or a file would be. */
export const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const isJsonSerializable = (value: unknown): boolean => {
  try {
    return typeof JSON.stringify(value) === 'string';
  } catch {
    return false;
  }
};

/** Values that break naive validators: edges of every JSON type. */
export const nastyStrings = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udc00x',
  '\u202eevil',
  'a'.repeat(300),
  'b'.repeat(5000),
  '__proto__',
  'constructor',
  'toString',
  'javascript:alert(1)',
  'data:text/html,x',
  'file:///etc/passwd',
  'http://127.0.0.1:1/x',
  'https://evil.example/',
  'https://user:pass@host.example/',
  'https://xn--nxasmq6b.example/',
  '/relative/path',
  '//protocol-relative.example/x',
  '#0B7A75',
  '{x}',
  '/t/{toString}',
  '%zz',
  '~1~0/a',
  '2026-09-07T10:00:00Z',
  'null',
  '😀',
];

const nastyLeaves: unknown[] = [...nastyStrings, 0, -1, 1, -0.5, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, true, false, null, [], {}];

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nastyLeaves) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}') as unknown) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((depth) => deepArray(depth)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2000 }).map((length) => Array.from({ length }, (_, index) => index)) },
);

function deepArray(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { nested: value };
  return value;
}

/** Any JSON value, biased towards small objects and the nasty leaves. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: nastyValue },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...nastyStrings.slice(0, 12), 'type', 'id', 'name', 'url'), nastyValue, { maxKeys: 6 }) },
);

type Path = (string | number)[];

function pathsOf(value: unknown, limit = 400): Path[] {
  const paths: Path[] = [[]];
  const walk = (current: unknown, path: Path) => {
    if (paths.length >= limit) return;
    if (Array.isArray(current)) {
      current.forEach((entry, index) => {
        paths.push([...path, index]);
        walk(entry, [...path, index]);
      });
    } else if (current !== null && typeof current === 'object') {
      for (const key of Object.keys(current)) {
        paths.push([...path, key]);
        walk((current as Record<string, unknown>)[key], [...path, key]);
      }
    }
  };
  walk(value, []);
  return paths;
}

interface Mutation {
  at: number;
  action: 'replace' | 'delete' | 'insert' | 'duplicate' | 'wrap' | 'stringify';
  key: string;
  value: unknown;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  action: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'delete', 'insert', 'duplicate', 'wrap', 'stringify'),
  key: fc.oneof(fc.constantFrom(...nastyStrings.slice(0, 10)), fc.string({ maxLength: 8 })),
  value: nastyValue,
});

function setOwnKey(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Applies one mutation to a deep copy's node at a chosen path (paths are re-read after every change). */
function mutate(document: unknown, original: Mutation): unknown {
  // Generated values may be shared between inputs (constants): never link one into a document.
  const mutation = { ...original, value: viaJson(original.value) };
  const paths = pathsOf(document);
  const path = paths[mutation.at % paths.length]!;
  if (path.length === 0) {
    if (mutation.action === 'replace') return mutation.value;
    if (mutation.action === 'wrap') return [document];
    if (mutation.action === 'stringify') return JSON.stringify(document);
    if (mutation.action === 'insert' && document !== null && typeof document === 'object' && !Array.isArray(document)) {
      setOwnKey(document as Record<string, unknown>, mutation.key, mutation.value);
    }
    return document;
  }
  let parent = document as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  const current = parent[last];
  switch (mutation.action) {
    case 'replace':
      parent[last] = mutation.value;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'insert':
      if (Array.isArray(current)) current.splice(mutation.at % (current.length + 1), 0, mutation.value);
      else if (current !== null && typeof current === 'object') setOwnKey(current as Record<string, unknown>, mutation.key, mutation.value);
      else parent[last] = mutation.value;
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(Number(last), 0, structuredClone(current));
      else if (Array.isArray(current)) current.push(...structuredClone(current));
      else parent[last] = [current, current];
      break;
    case 'wrap':
      parent[last] = [current];
      break;
    case 'stringify':
      parent[last] = JSON.stringify(current) ?? 'undefined';
      break;
  }
  return document;
}

/** A valid example with 0 to `max` field-level mutations, as parsed JSON. */
export function mutatedFrom(seeds: readonly unknown[], max = 4): fc.Arbitrary<unknown> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutationArb, { maxLength: max })).map(([seed, mutations]) => {
    let document: unknown = viaJson(seed);
    for (const mutation of mutations) document = mutate(document, mutation);
    return viaJson(document);
  });
}

/** Random bytes, and byte-level damage of valid bytes (flips, cuts, insertions, repeats). */
export function mutatedBytes(seeds: readonly Uint8Array[], { maxEdits = 6, insertions = [] as readonly number[][] } = {}): fc.Arbitrary<Uint8Array> {
  const edit = fc.record({
    at: fc.nat(),
    kind: fc.constantFrom('flip', 'set', 'cut', 'insert', 'delete', 'repeat', 'truncate'),
    byte: fc.integer({ min: 0, max: 255 }),
    length: fc.integer({ min: 1, max: 64 }),
    insertion: insertions.length > 0 ? fc.constantFrom(...insertions) : fc.constant([0xff]),
  });
  return fc.tuple(fc.constantFrom(...seeds), fc.array(edit, { maxLength: maxEdits })).map(([seed, edits]) => {
    let bytes = [...seed];
    for (const change of edits) {
      const at = bytes.length === 0 ? 0 : change.at % bytes.length;
      switch (change.kind) {
        case 'flip':
          if (bytes.length > 0) bytes[at] = bytes[at]! ^ (1 << (change.byte % 8));
          break;
        case 'set':
          if (bytes.length > 0) bytes[at] = change.byte;
          break;
        case 'cut':
          bytes = bytes.slice(0, at).concat(bytes.slice(at + change.length));
          break;
        case 'insert':
          bytes.splice(at, 0, ...change.insertion);
          break;
        case 'delete':
          bytes.splice(at, 1);
          break;
        case 'repeat':
          bytes.splice(at, 0, ...bytes.slice(at, at + change.length));
          break;
        case 'truncate':
          bytes = bytes.slice(0, at);
          break;
      }
    }
    return Uint8Array.from(bytes);
  });
}

/**
 * Values shaped by a zod schema (zod 4's `_zod.def`): most are valid or one field away from it, so
 * inputs reach past the schema into the code behind it. Checks the generator does not model
 * (refinements, most formats) make some values invalid, which is fine for a fuzzer.
 */
export function fromZod(schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> {
  const node = schema as unknown as {
    _zod: { def: Record<string, unknown> };
    minLength?: number | null;
    maxLength?: number | null;
    minValue?: number | null;
    maxValue?: number | null;
    isInt?: boolean;
  };
  const def = node._zod.def;
  const type = def.type as string;
  if (depth > 8) return fc.constant(null);
  // The contract's byte fields (ipcBytes): small byte arrays around its bounds, or an array that is not one.
  const bytes = ipcBytesLimits(schema);
  if (bytes)
    return fc.oneof(
      { weight: 4, arbitrary: fc.uint8Array({ minLength: bytes.min, maxLength: Math.min(bytes.max, bytes.min + 64) }) },
      { weight: 1, arbitrary: fc.constantFrom(new Uint8Array(0), new Uint8ClampedArray(2), [1, 2]) },
    );
  const child = (value: unknown) => fromZod(value as z.ZodType, depth + 1);
  switch (type) {
    case 'string': {
      const checks = (def.checks as { _zod: { def: Record<string, unknown> } }[] | undefined)?.map((entry) => entry._zod.def) ?? [];
      const format = (def.format as string | undefined) ?? (checks.find((entry) => entry.check === 'string_format')?.format as string | undefined);
      const minLength = node.minLength ?? 0;
      const maxLength = Math.min(node.maxLength ?? 40, minLength + 40);
      const prefix = checks.find((entry) => entry.format === 'starts_with')?.prefix as string | undefined;
      const pattern = checks.find((entry) => entry.format === 'regex')?.pattern as RegExp | undefined;
      if (format === 'datetime')
        return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
      if (pattern)
        return fc.oneof(
          { weight: 4, arbitrary: fc.stringMatching(pattern).filter((text) => text.length >= minLength && text.length <= (node.maxLength ?? Infinity)) },
          { weight: 1, arbitrary: fc.string({ maxLength }) },
        );
      const text = fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
      return prefix === undefined ? text : text.map((rest) => `${prefix}${rest}`);
    }
    case 'number': {
      const min = node.minValue ?? -1e6;
      const max = node.maxValue ?? 1e6;
      const low = Math.max(min, -1e9);
      const high = Math.min(max, 1e9);
      if (node.isInt || def.format === 'safeint' || def.format === 'int32') return fc.integer({ min: Math.ceil(low), max: Math.floor(high) });
      return fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
    }
    case 'int':
      return fc.integer();
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional': {
      const inner = child(def.innerType);
      if (type === 'optional') return fc.option(inner, { nil: undefined, freq: 3 });
      if (type === 'nullable') return fc.option(inner, { nil: null, freq: 3 });
      return inner;
    }
    case 'array': {
      const maxLength = Math.min(node.maxLength ?? 4, depth < 2 ? 3 : 1);
      const minLength = Math.min(node.minLength ?? 0, maxLength);
      return fc.array(child(def.element), { minLength, maxLength });
    }
    case 'tuple':
      return fc.tuple(...(def.items as z.ZodType[]).map(child));
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const entries = Object.entries(shape).map(([key, value]) => [key, child(value)] as const);
      return fc.record(Object.fromEntries(entries)).map((record) => {
        const out: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
        return out;
      });
    }
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map(child));
    case 'intersection':
      return fc
        .tuple(child(def.left), child(def.right))
        .map(([left, right]) => (left !== null && typeof left === 'object' && right !== null && typeof right === 'object' ? { ...left, ...right } : left));
    case 'record':
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), child(def.valueType), { maxKeys: 3 });
    case 'pipe':
      return child(def.in);
    case 'lazy':
      return depth > 4 ? fc.jsonValue({ maxDepth: 1 }) : fc.constant(null).chain(() => child((def.getter as () => z.ZodType)()));
    default:
      // custom, unknown, any, json, transform …: any small JSON value.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A zod-shaped value, one field away from it, or anything at all. */
export function aroundZod(schema: z.ZodType): fc.Arbitrary<unknown> {
  const shaped = fromZod(schema);
  return fc.oneof(
    { weight: 5, arbitrary: shaped },
    {
      weight: 3,
      arbitrary: fc
        .tuple(shaped, fc.array(mutationArb, { minLength: 1, maxLength: 2 }))
        .map(([value, mutations]) => mutations.reduce<unknown>((document, mutation) => mutate(document, mutation), viaJson(value ?? null))),
    },
    { weight: 1, arbitrary: anyJson },
  );
}

/** A short, safe preview of an input for the report. */
export function preview(value: unknown, max = 160): string {
  let text: string;
  try {
    text = fc.stringify(value);
  } catch {
    text = String(value);
  }
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
