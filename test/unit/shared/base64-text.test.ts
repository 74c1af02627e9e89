import { describe, expect, it } from 'vitest';
import { isBase64Alphabet } from '../../../src/shared/ipc/base64-text';
import { contract } from '../../../src/shared/ipc/contract';

describe('isBase64Alphabet', () => {
  it('takes the standard alphabet with up to two trailing =', () => {
    for (const good of ['', 'aGVsbG8=', 'aGVsbA==', 'aGVs', 'AZaz09+/', Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256)).toString('base64')]) {
      expect(isBase64Alphabet(good), good).toBe(true);
    }
  });

  it('refuses whitespace, line breaks, base64url, other characters and = anywhere but the end', () => {
    for (const bad of ['aGVs bG8=', 'aGVsbG8=\n', '\naGVs', 'aGVsbG8=\r', '-_-_', 'aGV=bG8=', '=aGV', 'aGVsbG8===', 'aGVsb=8', 'aGVsbG8%', 'aGVsbG8é', 'aGVs\u0000']) {
      expect(isBase64Alphabet(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('answers on a 32 MiB string (the contract’s largest) without overflowing the regexp stack', () => {
    const large = 'QUJD'.repeat(33_554_432 / 4);
    expect(isBase64Alphabet(large)).toBe(true);
    expect(isBase64Alphabet(`${large.slice(0, -1)}!`)).toBe(false);
    expect(isBase64Alphabet(`${large.slice(0, 1_000)} ${large.slice(1_001)}`)).toBe(false);
  });

  it('is the photo.stage contract’s check: a frame with a line break in its base64 is refused at the boundary', () => {
    const schema = contract.methods['photo.stage'].request;
    const rgbaBase64 = Buffer.alloc(4 * 4 * 4, 7).toString('base64');
    expect(schema.safeParse({ kind: 'frame', width: 4, height: 4, rgbaBase64 }).success).toBe(true);
    expect(schema.safeParse({ kind: 'frame', width: 4, height: 4, rgbaBase64: `${rgbaBase64.slice(0, 8)}\n${rgbaBase64.slice(8)}` }).success).toBe(false);
    expect(schema.safeParse({ kind: 'file', bytesBase64: '-_-_' }).success).toBe(false);
  });
});
