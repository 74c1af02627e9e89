/**
 * Plain JSON values as the AG-UI view keeps them, with the bounded helpers every other module in
 * src/shared/agui uses: a size/depth measure that stops early, a depth-guarded deep clone and deep
 * equality, and own-property access that never touches a prototype (a key named `__proto__` from
 * the wire is just a key).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface JsonBounds {
  /** Nesting depth: a scalar is depth 0, `[]` and `{}` are depth 1. */
  maxDepth: number;
  /** An upper estimate of the serialized length (strings and keys count their length plus quotes). */
  maxChars: number;
}

export type JsonMeasure = { ok: true; chars: number; depth: number } | { ok: false; code: 'not_json' | 'too_deep' | 'too_large'; message: string };

/** Walks a value without recursion, stopping as soon as a bound is crossed. */
export function measureJson(value: unknown, bounds: JsonBounds): JsonMeasure {
  let chars = 0;
  let maxSeen = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop() as { value: unknown; depth: number };
    const current = entry.value;
    if (current === null) chars += 4;
    else if (typeof current === 'boolean') chars += 5;
    else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { ok: false, code: 'not_json', message: 'a number that JSON cannot carry' };
      chars += 8;
    } else if (typeof current === 'string') chars += current.length + 2;
    else if (Array.isArray(current)) {
      const depth = entry.depth + 1;
      if (depth > bounds.maxDepth) return { ok: false, code: 'too_deep', message: `nested deeper than ${bounds.maxDepth} levels` };
      if (depth > maxSeen) maxSeen = depth;
      chars += 2 + current.length;
      if (chars > bounds.maxChars) break;
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], depth });
    } else if (isPlainObject(current)) {
      const depth = entry.depth + 1;
      if (depth > bounds.maxDepth) return { ok: false, code: 'too_deep', message: `nested deeper than ${bounds.maxDepth} levels` };
      if (depth > maxSeen) maxSeen = depth;
      chars += 2;
      for (const key of Object.keys(current)) {
        chars += key.length + 4;
        stack.push({ value: (current as Record<string, unknown>)[key], depth });
      }
    } else {
      return { ok: false, code: 'not_json', message: `a ${typeof current} is not a JSON value` };
    }
    if (chars > bounds.maxChars) break;
  }
  if (chars > bounds.maxChars) return { ok: false, code: 'too_large', message: `larger than ${bounds.maxChars} characters` };
  return { ok: true, chars, depth: maxSeen };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value);
}

/** Reads an own property only (`__proto__`, `constructor` and friends are ordinary keys here). */
export function getOwn(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Defines an own, enumerable property, so a key named `__proto__` never changes a prototype. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Hard ceiling for the recursive helpers below; values are measured against far smaller bounds first. */
const recursionCeiling = 512;

/** A deep copy, or undefined when the value nests deeper than the ceiling or is not JSON. */
export function cloneJson(value: unknown, depth = 0): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (depth >= recursionCeiling) return undefined;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const entry of value) {
      const copy = cloneJson(entry, depth + 1);
      if (copy === undefined) return undefined;
      out.push(copy);
    }
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const copy = cloneJson(value[key], depth + 1);
      if (copy === undefined) return undefined;
      setOwn(out, key, copy);
    }
    return out as JsonObject;
  }
  return undefined;
}

/** RFC 6902 §4.6 equality: same type, numbers by value, objects by members regardless of order. */
export function jsonEqual(left: unknown, right: unknown, depth = 0): boolean {
  if (left === right) return true;
  if (depth >= recursionCeiling) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!jsonEqual(left[index], right[index], depth + 1)) return false;
    return true;
  }
  if (isPlainObject(left)) {
    if (!isPlainObject(right)) return false;
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key], depth + 1)) return false;
    }
    return true;
  }
  return false;
}

/** Pretty JSON for display, or undefined when it cannot be produced within `maxChars`. */
export function prettyJson(value: unknown, maxChars: number): string | undefined {
  const measure = measureJson(value, { maxDepth: 64, maxChars });
  if (!measure.ok) return undefined;
  try {
    const text = JSON.stringify(value, null, 2);
    return text.length <= maxChars * 2 ? text : undefined;
  } catch {
    return undefined;
  }
}

export function truncate(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
