import { cloneJson, getOwn, isPlainObject, jsonEqual, measureJson, setOwn, type JsonBounds, type JsonValue } from './json-values';

/**
 * A small, bounded RFC 6902 (JSON Patch) applier for STATE_DELTA and ACTIVITY_DELTA.
 *
 * Why not a library: fast-json-patch is in node_modules only as a dependency of the
 * @ag-ui/client dev dependency, so shipped code cannot rely on it; this file does the six
 * operations (add, remove, replace, move, copy, test) over RFC 6901 pointers, and nothing else.
 *
 * - Atomic: the input document is never modified; on any failure the caller keeps the old one.
 * - Copy-on-write: only the containers along touched paths are copied, once per patch.
 * - Bounded: at most `maxOperations` operations, pointers no deeper than `maxDepth` tokens,
 *   and the result (and every intermediate growth) within `maxDepth`/`maxChars`.
 * - Unknown members of an operation are ignored (RFC 6902 §4), as @ag-ui/core's schemas allow.
 */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

export interface PatchLimits extends JsonBounds {
  maxOperations: number;
}

export type PatchErrorCode =
  | 'patch_too_many_operations'
  | 'patch_invalid_operation'
  | 'patch_invalid_pointer'
  | 'patch_path_not_found'
  | 'patch_move_into_itself'
  | 'patch_cannot_remove_root'
  | 'patch_test_failed'
  | 'patch_value_invalid'
  | 'patch_result_too_large'
  | 'patch_result_too_deep';

export type PatchResult = { ok: true; document: JsonValue } | { ok: false; code: PatchErrorCode; message: string; operationIndex: number };

export const defaultPatchLimits: PatchLimits = { maxOperations: 1_000, maxDepth: 32, maxChars: 262_144 };

type Container = JsonValue[] | Record<string, unknown>;

class PatchFailure {
  constructor(
    readonly code: PatchErrorCode,
    readonly message: string,
  ) {}
}

/** Parses an RFC 6901 pointer into reference tokens. */
export function parsePointer(pointer: string, maxTokens: number): string[] | PatchFailure {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return new PatchFailure('patch_invalid_pointer', `"${pointer.slice(0, 80)}" does not start with "/"`);
  const raw = pointer.slice(1).split('/');
  if (raw.length > maxTokens) return new PatchFailure('patch_invalid_pointer', `pointer has more than ${maxTokens} tokens`);
  const tokens: string[] = [];
  for (const token of raw) {
    if (/~[^01]|~$/.test(token)) return new PatchFailure('patch_invalid_pointer', `"${pointer.slice(0, 80)}" has a "~" not followed by 0 or 1`);
    tokens.push(token.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return tokens;
}

export function applyJsonPatch(document: JsonValue, patch: readonly PatchOperation[], limits: PatchLimits = defaultPatchLimits): PatchResult {
  if (patch.length > limits.maxOperations) {
    return {
      ok: false,
      code: 'patch_too_many_operations',
      message: `a patch may have at most ${limits.maxOperations} operations (this one has ${patch.length})`,
      operationIndex: limits.maxOperations,
    };
  }
  const state: WorkState = { root: document, owned: new WeakSet<object>(), size: measureSize(document), remeasures: 0 };
  for (let index = 0; index < patch.length; index++) {
    const operation = patch[index] as PatchOperation;
    try {
      applyOne(state, operation, limits);
    } catch (error) {
      if (error instanceof PatchFailure) return { ok: false, code: error.code, message: error.message, operationIndex: index };
      throw error;
    }
  }
  const result = measureJson(state.root, limits);
  if (!result.ok) {
    const code: PatchErrorCode =
      result.code === 'too_deep' ? 'patch_result_too_deep' : result.code === 'too_large' ? 'patch_result_too_large' : 'patch_value_invalid';
    return { ok: false, code, message: `the patched document is ${result.message}`, operationIndex: Math.max(0, patch.length - 1) };
  }
  return { ok: true, document: state.root as JsonValue };
}

interface WorkState {
  root: unknown;
  owned: WeakSet<object>;
  /** The document's size as measureJson counts it, kept up to date per operation; re-measured when it crosses the limit. */
  size: number;
  remeasures: number;
}

function applyOne(state: WorkState, operation: PatchOperation, limits: PatchLimits): void {
  const path = tokens(operation.path, limits);
  switch (operation.op) {
    case 'add':
      insert(state, path, valueOf(operation, limits), limits);
      return;
    case 'remove':
      if (path.length === 0) throw new PatchFailure('patch_cannot_remove_root', 'the whole document cannot be removed');
      state.size -= measureSize(remove(state, path));
      return;
    case 'replace': {
      const value = valueOf(operation, limits);
      if (path.length === 0) {
        state.root = value;
        state.size = measureSize(value);
        return;
      }
      lookup(state.root, path); // the target must exist
      state.size -= measureSize(remove(state, path));
      insert(state, path, value, limits);
      return;
    }
    case 'move': {
      const from = tokens(requiredFrom(operation), limits);
      if (sameTokens(from, path)) {
        lookup(state.root, from);
        return;
      }
      if (from.length < path.length && from.every((token, index) => token === path[index])) {
        throw new PatchFailure('patch_move_into_itself', `cannot move "${operation.from ?? ''}" into its own child "${operation.path}"`);
      }
      const value = lookup(state.root, from);
      remove(state, from);
      insertMoved(state, path, value);
      return;
    }
    case 'copy': {
      const from = tokens(requiredFrom(operation), limits);
      const source = lookup(state.root, from);
      const measure = measureJson(source, limits);
      if (!measure.ok)
        throw new PatchFailure(measure.code === 'too_deep' ? 'patch_result_too_deep' : 'patch_result_too_large', `the copied value is ${measure.message}`);
      const copy = cloneJson(source);
      if (copy === undefined) throw new PatchFailure('patch_value_invalid', 'the copied value is not JSON');
      insert(state, path, copy, limits);
      return;
    }
    case 'test': {
      const value = valueOf(operation, limits);
      const actual = lookup(state.root, path);
      if (!jsonEqual(actual, value)) throw new PatchFailure('patch_test_failed', `test failed at "${operation.path.slice(0, 200)}"`);
      return;
    }
    default:
      throw new PatchFailure('patch_invalid_operation', `unknown operation ${String((operation as { op?: unknown }).op).slice(0, 40)}`);
  }
}

function tokens(pointer: unknown, limits: PatchLimits): string[] {
  if (typeof pointer !== 'string') throw new PatchFailure('patch_invalid_pointer', 'a path must be a string');
  const parsed = parsePointer(pointer, limits.maxDepth);
  if (parsed instanceof PatchFailure) throw parsed;
  return parsed;
}

function requiredFrom(operation: PatchOperation): string {
  if (typeof operation.from !== 'string') throw new PatchFailure('patch_invalid_operation', `${operation.op} needs "from"`);
  return operation.from;
}

function valueOf(operation: PatchOperation, limits: PatchLimits): JsonValue {
  if (!('value' in operation) || operation.value === undefined) throw new PatchFailure('patch_invalid_operation', `${operation.op} needs "value"`);
  const measure = measureJson(operation.value, limits);
  if (!measure.ok) {
    const code: PatchErrorCode =
      measure.code === 'too_deep' ? 'patch_result_too_deep' : measure.code === 'too_large' ? 'patch_result_too_large' : 'patch_value_invalid';
    throw new PatchFailure(code, `the value is ${measure.message}`);
  }
  return operation.value as JsonValue;
}

function measureSize(value: unknown): number {
  const measure = measureJson(value, { maxDepth: Number.MAX_SAFE_INTEGER, maxChars: Number.MAX_SAFE_INTEGER });
  return measure.ok ? measure.chars : 0;
}

function sameTokens(left: string[], right: string[]): boolean {
  return left.length === right.length && left.every((token, index) => token === right[index]);
}

function arrayIndex(token: string, length: number, allowEnd: boolean, pointerTokens: string[]): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]{0,9})$/.test(token))
    throw new PatchFailure('patch_invalid_pointer', `"${token.slice(0, 40)}" is not an array index (at ${describe(pointerTokens)})`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length))
    throw new PatchFailure('patch_path_not_found', `index ${index} is out of bounds (at ${describe(pointerTokens)})`);
  return index;
}

function describe(pointerTokens: string[]): string {
  return `"/${pointerTokens.map((token) => token.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}"`.slice(0, 200);
}

/** The value at a pointer; throws patch_path_not_found when any token does not resolve. */
function lookup(root: unknown, path: string[]): unknown {
  let current = root;
  for (const token of path) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false, path)];
    else if (isPlainObject(current) && Object.hasOwn(current, token)) current = getOwn(current, token);
    else throw new PatchFailure('patch_path_not_found', `nothing at ${describe(path)}`);
  }
  return current;
}

/** Makes the containers along `parentPath` private to this patch (shallow copies, once) and returns the last one. */
function ownParent(state: WorkState, parentPath: string[], fullPath: string[]): Container {
  state.root = own(state, state.root, fullPath);
  let current = state.root as Container;
  for (const token of parentPath) {
    let child: unknown;
    if (Array.isArray(current)) {
      const index = arrayIndex(token, current.length, false, fullPath);
      child = own(state, current[index], fullPath);
      current[index] = child as JsonValue;
    } else {
      if (!Object.hasOwn(current, token)) throw new PatchFailure('patch_path_not_found', `nothing at ${describe(fullPath)}`);
      child = own(state, getOwn(current, token), fullPath);
      setOwn(current, token, child);
    }
    current = child as Container;
  }
  return current;
}

function own(state: WorkState, value: unknown, fullPath: string[]): Container {
  if (Array.isArray(value)) {
    if (state.owned.has(value)) return value;
    const copy = value.slice();
    state.owned.add(copy);
    return copy;
  }
  if (isPlainObject(value)) {
    if (state.owned.has(value)) return value;
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(copy, key, value[key]);
    state.owned.add(copy);
    return copy;
  }
  throw new PatchFailure('patch_path_not_found', `${describe(fullPath)} goes through a value that is not an object or array`);
}

function grow(state: WorkState, value: unknown, limits: PatchLimits): void {
  state.size += measureSize(value);
  if (state.size <= limits.maxChars) return;
  // The estimate only grows; measure the real document before refusing (a few times per patch at most).
  if (state.remeasures < 4) {
    state.remeasures += 1;
    state.size = measureSize(state.root);
    if (state.size <= limits.maxChars) return;
  }
  throw new PatchFailure('patch_result_too_large', `the patched document grows beyond ${limits.maxChars} characters`);
}

function insert(state: WorkState, path: string[], value: JsonValue, limits: PatchLimits): void {
  if (path.length === 0) {
    state.root = value;
    state.size = measureSize(value);
    return;
  }
  const parent = ownParent(state, path.slice(0, -1), path);
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, path), 0, value);
  else setOwn(parent, last, value);
  grow(state, value, limits);
}

/** Inserting a value that moved inside this document: its size is already counted. */
function insertMoved(state: WorkState, path: string[], value: unknown): void {
  if (path.length === 0) {
    state.root = value;
    return;
  }
  const parent = ownParent(state, path.slice(0, -1), path);
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, path), 0, value as JsonValue);
  else setOwn(parent, last, value);
}

/** Removes the value at `path` and returns it. */
function remove(state: WorkState, path: string[]): unknown {
  const parent = ownParent(state, path.slice(0, -1), path);
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false, path), 1)[0];
  if (!Object.hasOwn(parent, last)) throw new PatchFailure('patch_path_not_found', `nothing at ${describe(path)}`);
  const removed = getOwn(parent, last);
  delete parent[last];
  return removed;
}
