import { z } from 'zod';

/**
 * Bytes in the IPC contract: a field declared `ipcBytes(max)` is a Uint8Array of at most `max`
 * bytes in requests, responses and events alike. Electron carries it by structured clone
 * (ipcRenderer.invoke, webContents.send); the web shell sends a message holding bytes as one binary
 * WebSocket frame (web-shell-protocol.ts), never as base64 inside JSON. The dispatcher and the event
 * bus check the length like every other field, before any service sees the bytes.
 */

/** What the schema of a byte field admits, read by the fuzzing kit (it generates bytes for these). */
const limits = new WeakMap<z.ZodType, { min: number; max: number }>();

export function ipcBytes(max: number, { min = 0 }: { min?: number } = {}): z.ZodType<Uint8Array<ArrayBuffer>> {
  const schema = z
    .custom<Uint8Array<ArrayBuffer>>((value) => value instanceof Uint8Array, 'bytes (a Uint8Array)')
    .refine((bytes) => !(bytes instanceof Uint8Array) || bytes.byteLength <= max, `at most ${max} bytes`)
    .refine((bytes) => !(bytes instanceof Uint8Array) || bytes.byteLength >= min, `at least ${min} byte${min === 1 ? '' : 's'}`);
  limits.set(schema, { min, max });
  return schema;
}

/** The limits of a schema made by ipcBytes, else undefined. */
export function ipcBytesLimits(schema: unknown): { min: number; max: number } | undefined {
  return typeof schema === 'object' && schema !== null ? limits.get(schema as z.ZodType) : undefined;
}

/** A plain Uint8Array view of the same memory (a canvas's Uint8ClampedArray, a Node Buffer): no copy. */
export function asBytes(view: ArrayBufferView<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
