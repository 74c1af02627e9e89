import { describe, expect, it } from 'vitest';
import { ipcBytes } from '../../../src/shared/base/binary';
import { decodeWireFrame, encodeWireFrame, maxBinaryParts } from '../../../src/shared/ipc/web-shell-protocol';
import { concatBytes } from '../../../src/shared/nfc/bytes';

const u32 = (...values: number[]) => {
  const bytes = new Uint8Array(4 * values.length);
  values.forEach((value, index) => new DataView(bytes.buffer).setUint32(4 * index, value));
  return bytes;
};
const utf8 = (text: string) => new TextEncoder().encode(text);
/** A hand-made binary frame: part table, JSON, parts. */
const frame = (lengths: number[], json: string | Uint8Array, ...parts: Uint8Array[]) => {
  const body = typeof json === 'string' ? utf8(json) : json;
  return concatBytes(u32(lengths.length, ...lengths, body.byteLength), body, ...parts);
};
const reason = (data: string | Uint8Array) => {
  const decoded = decodeWireFrame(data);
  return decoded.ok ? 'decoded' : decoded.reason;
};

describe('web shell wire frames', () => {
  it('a frame without bytes stays JSON text', () => {
    const value = { t: 'call', id: 1, channel: 'agentdesk:app.info', payload: {} };
    const encoded = encodeWireFrame(value);
    expect(encoded).toBe(JSON.stringify(value));
    expect(decodeWireFrame(encoded as string)).toEqual({ ok: true, value });
  });

  it('round-trips bytes as a binary frame, with no base64 and no copy of the bytes into the JSON', () => {
    const rgba = Uint8Array.from({ length: 1000 }, (_, index) => index % 256);
    const tail = Uint8Array.of(9, 8, 7);
    const value = {
      t: 'call',
      id: 7,
      channel: 'agentdesk:photo.stage',
      payload: { kind: 'frame', width: 10, height: 25, rgba, list: [tail, { empty: new Uint8Array(0) }] },
    };
    const encoded = encodeWireFrame(value);
    expect(encoded).toBeInstanceOf(Uint8Array);
    const bytes = encoded as Uint8Array;
    expect(bytes.byteLength).toBeLessThan(1003 + 300);
    const decoded = decodeWireFrame(bytes);
    expect(decoded.ok).toBe(true);
    const out = (decoded as { value: typeof value }).value;
    expect(out.payload.rgba).toBeInstanceOf(Uint8Array);
    expect([...out.payload.rgba]).toEqual([...rgba]);
    expect([...(out.payload.list[0] as Uint8Array)]).toEqual([9, 8, 7]);
    expect((out.payload.list[1] as { empty: Uint8Array }).empty.byteLength).toBe(0);
    expect({ ...out, payload: { ...out.payload, rgba: undefined, list: undefined } }).toEqual({
      ...value,
      payload: { ...value.payload, rgba: undefined, list: undefined },
    });
    // Views of the received frame, not copies.
    expect(out.payload.rgba.buffer).toBe(bytes.buffer);
  });

  it('decoded bytes pass the contract type, and its size check refuses oversize ones', () => {
    const schema = ipcBytes(4);
    const decoded = decodeWireFrame(encodeWireFrame({ a: Uint8Array.of(1, 2, 3, 4), b: Uint8Array.of(1, 2, 3, 4, 5) }) as Uint8Array);
    const value = (decoded as { value: { a: unknown; b: unknown } }).value;
    expect(schema.safeParse(value.a).success).toBe(true);
    expect(schema.safeParse(value.b).error?.issues[0]?.message).toBe('at most 4 bytes');
    expect(schema.safeParse([1, 2]).error?.issues[0]?.message).toBe('bytes (a Uint8Array)');
    expect(ipcBytes(8, { min: 1 }).safeParse(new Uint8Array(0)).error?.issues[0]?.message).toBe('at least 1 byte');
  });

  it('refuses to encode more byte fields than a frame may carry, or data that would read as a reference', () => {
    expect(() => encodeWireFrame({ parts: Array.from({ length: maxBinaryParts + 1 }, () => Uint8Array.of(1)) })).toThrow(/at most 16 byte fields/);
    expect(() => encodeWireFrame({ b: Uint8Array.of(1), data: { $bytes: 0 } })).toThrow(/only field is "\$bytes"/);
    // Beside other fields, or in a frame without bytes, it is plain data.
    const mixed = { b: Uint8Array.of(1), data: { $bytes: 0, x: 1 } };
    expect(decodeWireFrame(encodeWireFrame(mixed))).toEqual({ ok: true, value: mixed });
    expect(encodeWireFrame({ data: { $bytes: 0 } })).toBe('{"data":{"$bytes":0}}');
  });

  it('refuses every malformed binary frame with a reason, never a throw', () => {
    const ok = frame([2], '{"b":{"$bytes":0}}', Uint8Array.of(1, 2));
    expect(reason(ok)).toBe('decoded');
    expect(reason('{not json')).toBe('a text frame that is not JSON');
    expect(reason(new Uint8Array(0))).toBe('a binary frame of 0 bytes, shorter than its header');
    expect(reason(Uint8Array.of(0, 0, 0))).toBe('a binary frame of 3 bytes, shorter than its header');
    expect(reason(u32(17, 0))).toBe('a binary frame declaring 17 byte parts (at most 16)');
    expect(reason(u32(0xffffffff, 0))).toBe('a binary frame declaring 4294967295 byte parts (at most 16)');
    expect(reason(u32(3, 1))).toBe('a binary frame of 8 bytes, shorter than its header of 20');
    // Declared lengths larger, smaller or overflowing what arrived.
    expect(reason(frame([3], '{"b":{"$bytes":0}}', Uint8Array.of(1, 2)))).toBe('a binary frame of 32 bytes whose header declares 33');
    expect(reason(concatBytes(ok, Uint8Array.of(0)))).toBe('a binary frame of 33 bytes whose header declares 32');
    expect(reason(frame([0xffffffff, 0xffffffff], '{}'))).toMatch(/whose header declares 8589934608$/);
    expect(reason(concatBytes(u32(0, 0xffffff00), utf8('{}')))).toMatch(/whose header declares/);
    // The JSON.
    expect(reason(frame([], Uint8Array.of(0x7b, 0xff, 0x7d)))).toBe('a binary frame whose JSON is not UTF-8');
    expect(reason(frame([], '{"t":'))).toBe('a binary frame whose JSON does not parse');
    expect(reason(frame([], ''))).toBe('a binary frame whose JSON does not parse');
    // References.
    expect(reason(frame([1], '{"b":{"$bytes":1}}', Uint8Array.of(1)))).toBe('a binary frame with a byte reference that names no part');
    expect(reason(frame([1], '{"b":{"$bytes":-1}}', Uint8Array.of(1)))).toBe('a binary frame with a byte reference that names no part');
    expect(reason(frame([1], '{"b":{"$bytes":0.5}}', Uint8Array.of(1)))).toBe('a binary frame with a byte reference that names no part');
    expect(reason(frame([1], '{"b":{"$bytes":"0"}}', Uint8Array.of(1)))).toBe('a binary frame with a byte reference that names no part');
    // An object with more fields than `$bytes` is data, not a reference: the declared part stays unused.
    expect(reason(frame([1], '{"b":{"$bytes":0,"x":1}}', Uint8Array.of(1)))).toBe('a binary frame declaring 1 byte parts that uses 0');
    expect(reason(frame([1], '{"b":{"$bytes":0},"c":{"$bytes":0}}', Uint8Array.of(1)))).toBe('a binary frame with byte part 0 referenced twice');
    expect(reason(frame([1, 1], '{"b":{"$bytes":0}}', Uint8Array.of(1), Uint8Array.of(2)))).toBe('a binary frame declaring 2 byte parts that uses 1');
  });

  it('a reference inside a text frame is just an object (only binary frames carry bytes)', () => {
    expect(decodeWireFrame('{"b":{"$bytes":0}}')).toEqual({ ok: true, value: { b: { $bytes: 0 } } });
  });

  it('__proto__ in the JSON of a binary frame stays an own key and pollutes nothing', () => {
    const decoded = decodeWireFrame(frame([1], '{"__proto__":{"polluted":true},"b":{"$bytes":0}}', Uint8Array.of(1)));
    expect(decoded.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
