import { describe, expect, it } from 'vitest';
import { applyJsonPatch, defaultPatchLimits, parsePointer, type PatchOperation } from '../../../src/shared/agui/json-patch';
import type { JsonValue } from '../../../src/shared/agui/json-values';

function ok(document: JsonValue, patch: PatchOperation[]): JsonValue {
  const result = applyJsonPatch(document, patch);
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.document;
}

function code(document: JsonValue, patch: PatchOperation[], limits = defaultPatchLimits): string | undefined {
  const result = applyJsonPatch(document, patch, limits);
  return result.ok ? undefined : result.code;
}

describe('RFC 6902 Appendix A', () => {
  it('A.1–A.4: add an object member, an array element, a nested member; remove', () => {
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ foo: 'bar', baz: 'qux' });
    expect(ok({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] });
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
    expect(ok({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] });
  });

  it('A.5–A.7: replace, move a value, move an array element', () => {
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' });
    expect(ok({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }])).toEqual({
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
    expect(ok({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({ foo: ['all', 'cows', 'eat', 'grass'] });
  });

  it('A.8–A.9: test success and failure', () => {
    expect(
      ok({ baz: 'qux', foo: ['a', 2, 'c'] }, [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ]),
    ).toEqual({ baz: 'qux', foo: ['a', 2, 'c'] });
    expect(code({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }])).toBe('patch_test_failed');
  });

  it('A.10: add a nested member object; A.11: unknown members are ignored', () => {
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }])).toEqual({ foo: 'bar', child: { grandchild: {} } });
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 } as PatchOperation])).toEqual({ foo: 'bar', baz: 'qux' });
  });

  it('A.12: adding to a nonexistent target fails', () => {
    expect(code({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }])).toBe('patch_path_not_found');
  });

  it('A.14: ~ escape ordering; A.15: comparing strings and numbers', () => {
    expect(ok({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }])).toEqual({ '/': 9, '~1': 10 });
    expect(code({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }])).toBe('patch_test_failed');
  });

  it('A.16: add an array value; appending with "-"; copy', () => {
    expect(ok({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).toEqual({ foo: ['bar', ['abc', 'def']] });
    expect(
      ok({ a: { b: [1] } }, [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'add', path: '/c/b/-', value: 2 },
      ]),
    ).toEqual({ a: { b: [1] }, c: { b: [1, 2] } });
  });

  it('the root: add/replace swap the document; remove of the root is refused', () => {
    expect(ok({ a: 1 }, [{ op: 'replace', path: '', value: [1, 2] }])).toEqual([1, 2]);
    expect(ok({ a: 1 }, [{ op: 'add', path: '', value: 'x' }])).toBe('x');
    expect(code({ a: 1 }, [{ op: 'remove', path: '' }])).toBe('patch_cannot_remove_root');
  });

  it('test compares objects regardless of member order', () => {
    expect(ok({ a: { x: 1, y: [true, null] } }, [{ op: 'test', path: '/a', value: { y: [true, null], x: 1 } }])).toEqual({ a: { x: 1, y: [true, null] } });
  });
});

describe('errors, atomicity and bounds', () => {
  it('is atomic and never modifies its input', () => {
    const document = { list: [1, 2, 3], nested: { keep: true } };
    const snapshot = JSON.stringify(document);
    const result = applyJsonPatch(document, [
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'remove', path: '/nested/keep' },
      { op: 'test', path: '/list/0', value: 99 },
    ]);
    expect(result).toMatchObject({ ok: false, code: 'patch_test_failed', operationIndex: 2 });
    expect(JSON.stringify(document)).toBe(snapshot);
    const success = applyJsonPatch(document, [{ op: 'add', path: '/list/-', value: 4 }]);
    expect(success.ok && success.document).toEqual({ list: [1, 2, 3, 4], nested: { keep: true } });
    expect(JSON.stringify(document)).toBe(snapshot);
  });

  it('refuses bad pointers and indexes with stable codes', () => {
    expect(code({ a: 1 }, [{ op: 'add', path: 'a', value: 1 }])).toBe('patch_invalid_pointer');
    expect(code({ a: 1 }, [{ op: 'add', path: '/~2', value: 1 }])).toBe('patch_invalid_pointer');
    expect(code({ a: [1] }, [{ op: 'add', path: '/a/01', value: 1 }])).toBe('patch_invalid_pointer');
    expect(code({ a: [1] }, [{ op: 'add', path: '/a/5', value: 1 }])).toBe('patch_path_not_found');
    expect(code({ a: [1] }, [{ op: 'replace', path: '/a/1', value: 1 }])).toBe('patch_path_not_found');
    expect(code({ a: [1] }, [{ op: 'remove', path: '/a/-' }])).toBe('patch_invalid_pointer');
    expect(code({ a: 'text' }, [{ op: 'add', path: '/a/b', value: 1 }])).toBe('patch_path_not_found');
    expect(code({ a: 1 }, [{ op: 'remove', path: '/b' }])).toBe('patch_path_not_found');
    expect(code({ a: 1 }, [{ op: 'move', path: '/b' } as PatchOperation])).toBe('patch_invalid_operation');
    expect(code({ a: 1 }, [{ op: 'add', path: '/b' } as PatchOperation])).toBe('patch_invalid_operation');
    expect(code({ a: 1 }, [{ op: 'frobnicate', path: '/b' } as unknown as PatchOperation])).toBe('patch_invalid_operation');
    expect(code({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }])).toBe('patch_move_into_itself');
    expect(parsePointer('/a~1b/c~0d', 10)).toEqual(['a/b', 'c~d']);
  });

  it('treats "__proto__" as an ordinary key and never touches a prototype', () => {
    const result = ok({}, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'add', path: '/__proto__/more', value: 1 },
    ]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":true,"more":1}}');
    expect(code({}, [{ op: 'remove', path: '/constructor' }])).toBe('patch_path_not_found');
  });

  it('limits the number of operations, the depth and the size', () => {
    const many = Array.from({ length: defaultPatchLimits.maxOperations + 1 }, (_, index) => ({ op: 'add' as const, path: `/k${index}`, value: index }));
    expect(code({}, many)).toBe('patch_too_many_operations');
    let deep: JsonValue = 1;
    for (let level = 0; level < 40; level++) deep = [deep];
    expect(code({}, [{ op: 'add', path: '/x', value: deep }])).toBe('patch_result_too_deep');
    expect(code({}, [{ op: 'add', path: `/${Array.from({ length: 40 }, () => 'a').join('/')}`, value: 1 }])).toBe('patch_invalid_pointer');
    const big = 'x'.repeat(200_000);
    expect(
      code({}, [
        { op: 'add', path: '/a', value: big },
        { op: 'copy', from: '/a', path: '/b' },
      ]),
    ).toBe('patch_result_too_large');
  });

  it('stops a doubling copy bomb early instead of growing exponentially', () => {
    const bomb: PatchOperation[] = [{ op: 'add', path: '/a', value: 'x'.repeat(1_000) }];
    for (let index = 0; index < 900; index++) bomb.push({ op: 'copy', from: '', path: `/c${index}` });
    const result = applyJsonPatch({}, bomb);
    expect(result).toMatchObject({ ok: false, code: 'patch_result_too_large' });
    expect(!result.ok && result.operationIndex).toBeLessThan(20);
  });

  it('a replace-heavy patch near the size limit still applies (the estimate is re-measured)', () => {
    const limits = { maxOperations: 1_000, maxDepth: 8, maxChars: 50_000 };
    const patch: PatchOperation[] = Array.from({ length: 200 }, () => ({ op: 'replace' as const, path: '/v', value: 'y'.repeat(1_000) }));
    const result = applyJsonPatch({ v: '' }, patch, limits);
    expect(result.ok).toBe(true);
  });

  // Found by `npm run fuzz` (agui.jsonPatch): an empty patch on a document already past the limits
  // named operation -1.
  it('names operation 0, never -1, when an empty patch leaves a document past the limits', () => {
    let deep: JsonValue = 'bottom';
    for (let level = 0; level < 40; level++) deep = [deep];
    expect(applyJsonPatch(deep, [])).toMatchObject({ ok: false, code: 'patch_result_too_deep', operationIndex: 0 });
  });
});
