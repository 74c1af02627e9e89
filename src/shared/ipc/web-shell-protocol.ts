import { z } from 'zod';

/**
 * The web shell's frames: the page's generated API on one side, main's dispatcher on the other.
 * The socket is authenticated at the upgrade (the session secret from the launch code exchange,
 * offered as a subprotocol: see webShellSessionProtocolPrefix).
 * Page → shell: `call`s. Shell → page: `ready` (first), `result` (per call id) and `event`s.
 * A frame is JSON text, or one binary frame when it carries bytes (`encodeWireFrame` below).
 */
export const pageFrameSchema = z.discriminatedUnion('t', [
  /**
   * `activation`: the page had transient user activation (`navigator.userActivation.isActive`,
   * a click or key press in the last moments) when it made this call. Main accepts it as the
   * user's gesture for this one call only, for the methods the contract marks `gesture`.
   */
  z.strictObject({
    t: z.literal('call'),
    id: z.number().int().nonnegative(),
    channel: z.string().max(200),
    payload: z.unknown(),
    activation: z.boolean().optional(),
  }),
]);

export type PageFrame = z.infer<typeof pageFrameSchema>;

/** Close codes the shell uses, and what the page shows for each. */
export const webShellCloseCodes = {
  /** A newer page of the same session took over (a reload, a second tab). */
  replaced: 4409,
  /** A frame that is not of the protocol above (the close reason says what was wrong). */
  badFrame: 4400,
  /** The shell is shutting down. */
  goingAway: 1001,
} as const;

export const webShellIpcPath = '/ipc';

/**
 * The page's session secret. The launch code exchange redirects to `/#session=SECRET` (a fragment
 * is never sent to any server); the page keeps SECRET in its tab's sessionStorage (one origin:
 * scheme, host and port) and offers it on the upgrade as the WebSocket subprotocol
 * `agentdesk.session.SECRET` beside `agentdesk`, the only one the shell ever answers with.
 */
export const webShellSessionFragment = 'session';
/** The tab's sessionStorage key for the secret. */
export const webShellSessionStorageKey = 'agentdesk.webShellSession';
export const webShellProtocol = 'agentdesk';
export const webShellSessionProtocolPrefix = 'agentdesk.session.';
/** What a secret may look like (the shell makes 32 random bytes, base64url): only WebSocket subprotocol token characters. */
export const webShellSessionSecretPattern = /^[A-Za-z0-9_-]{16,128}$/;
/** 25 MiB: one `photo.stage` call carries up to 24 MiB of image bytes (a binary frame) plus a small header. */
export const maxPageFrameBytes = 25 * 1024 * 1024;

/**
 * Binary frames. A frame whose value holds Uint8Arrays (fields the contract declares `ipcBytes`)
 * travels as one binary WebSocket frame, all integers unsigned 32-bit big-endian:
 *
 *   [part count n ≤ 16][length of part 0] … [length of part n − 1][JSON length][JSON, UTF-8][part 0] … [part n − 1]
 *
 * In the JSON every Uint8Array is replaced by `{"$bytes": i}` (i: its part), each part used exactly
 * once; so in a binary frame an object whose only field is `$bytes` is always a reference (the
 * encoder refuses to send such an object as data). Every declared length is checked against the
 * frame before anything is read; a malformed frame is refused with a reason, never thrown. Frames
 * without bytes stay JSON text.
 */
export const maxBinaryParts = 16;
const referenceKey = '$bytes';

export type WireDecoded = { ok: true; value: unknown } | { ok: false; reason: string };

function containsBytes(value: unknown, depth = 0): boolean {
  if (value instanceof Uint8Array) return true;
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((entry) => containsBytes(entry, depth + 1));
  for (const key in value) if (Object.hasOwn(value, key) && containsBytes((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

const isReference = (entry: unknown): entry is Record<string, unknown> =>
  entry !== null && typeof entry === 'object' && !Array.isArray(entry) && Object.hasOwn(entry, referenceKey) && Object.keys(entry).length === 1;

/**
 * A frame → JSON text, or the binary frame above when it holds bytes (which are not copied into
 * JSON). Throws a RangeError for what a binary frame cannot carry: more than 16 byte fields, or an
 * object whose only field is `$bytes` beside bytes.
 */
export function encodeWireFrame(value: unknown): string | Uint8Array<ArrayBuffer> {
  if (!containsBytes(value)) return JSON.stringify(value);
  const parts: Uint8Array[] = [];
  const json = new TextEncoder().encode(
    JSON.stringify(value, (_key, entry: unknown) => {
      if (isReference(entry)) throw new RangeError(`A web shell frame with bytes cannot carry an object whose only field is "${referenceKey}".`);
      if (!(entry instanceof Uint8Array)) return entry;
      if (parts.length === maxBinaryParts) throw new RangeError(`A web shell frame carries at most ${maxBinaryParts} byte fields.`);
      return { [referenceKey]: parts.push(entry) - 1 };
    }),
  );
  const headerBytes = 4 * (parts.length + 2);
  const total = headerBytes + json.byteLength + parts.reduce((sum, part) => sum + part.byteLength, 0);
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint32(0, parts.length);
  parts.forEach((part, index) => view.setUint32(4 * (index + 1), part.byteLength));
  view.setUint32(4 * (parts.length + 1), json.byteLength);
  frame.set(json, headerBytes);
  let offset = headerBytes + json.byteLength;
  for (const part of parts) {
    frame.set(part, offset);
    offset += part.byteLength;
  }
  return frame;
}

/**
 * A received frame → its value: text is parsed as JSON; a binary frame is checked (part table, JSON
 * length, total, UTF-8, references) and its byte fields become views of `data` (no copy).
 */
export function decodeWireFrame(data: string | Uint8Array): WireDecoded {
  if (typeof data === 'string') {
    try {
      return { ok: true, value: JSON.parse(data) as unknown };
    } catch {
      return { ok: false, reason: 'a text frame that is not JSON' };
    }
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 8) return { ok: false, reason: `a binary frame of ${data.byteLength} bytes, shorter than its header` };
  const count = view.getUint32(0);
  if (count > maxBinaryParts) return { ok: false, reason: `a binary frame declaring ${count} byte parts (at most ${maxBinaryParts})` };
  const headerBytes = 4 * (count + 2);
  if (data.byteLength < headerBytes) return { ok: false, reason: `a binary frame of ${data.byteLength} bytes, shorter than its header of ${headerBytes}` };
  const lengths = Array.from({ length: count }, (_, index) => view.getUint32(4 * (index + 1)));
  const jsonLength = view.getUint32(4 * (count + 1));
  const declared = headerBytes + jsonLength + lengths.reduce((sum, length) => sum + length, 0);
  if (declared !== data.byteLength) return { ok: false, reason: `a binary frame of ${data.byteLength} bytes whose header declares ${declared}` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(headerBytes, headerBytes + jsonLength));
  } catch {
    return { ok: false, reason: 'a binary frame whose JSON is not UTF-8' };
  }
  const offsets: number[] = [];
  let offset = headerBytes + jsonLength;
  for (const length of lengths) {
    offsets.push(offset);
    offset += length;
  }
  const used = new Set<number>();
  let broken: string | undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, (_key, entry: unknown) => {
      if (!isReference(entry)) return entry;
      const index = entry[referenceKey];
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) broken = 'a byte reference that names no part';
      else if (used.has(index)) broken = `byte part ${index} referenced twice`;
      if (broken !== undefined) return null;
      used.add(index as number);
      return data.subarray(offsets[index as number], offsets[index as number]! + lengths[index as number]!);
    }) as unknown;
  } catch {
    return { ok: false, reason: 'a binary frame whose JSON does not parse' };
  }
  if (broken !== undefined) return { ok: false, reason: `a binary frame with ${broken}` };
  if (used.size !== count) return { ok: false, reason: `a binary frame declaring ${count} byte parts that uses ${used.size}` };
  return { ok: true, value };
}
