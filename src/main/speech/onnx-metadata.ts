/**
 * The `metadata_props` of an ONNX file, read without loading it (#17): the speech engine process checks
 * a model before sherpa-onnx loads it (sherpa-onnx ends the process on some missing keys), and main reads
 * a voice's espeak-ng voice from it at import. Plain Node: no sherpa-onnx here.
 */
import { open } from 'node:fs/promises';

/** Top-level fields read before giving up (a model has a dozen). */
const maxFields = 1000;
const maxEntryBytes = 64 * 1024;

/**
 * The `metadata_props` of an ONNX file (ModelProto field 14: key/value strings such as a zipformer
 * encoder's `T`), read without loading the model: the top-level protobuf fields are walked and the graph
 * (field 7, nearly all of the file) is skipped over. Throws on a file that is not protobuf as expected.
 */
export async function onnxMetadata(path: string): Promise<Map<string, string>> {
  const metadata = new Map<string, string>();
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const head = Buffer.alloc(24);
    let offset = 0;
    for (let fields = 0; offset < size; fields++) {
      if (fields >= maxFields) throw new Error('too many fields');
      const { bytesRead } = await file.read(head, 0, head.length, offset);
      const reader = { bytes: head.subarray(0, bytesRead), pos: 0 };
      const tag = varint(reader);
      const [field, wire] = [Math.floor(tag / 8), tag % 8];
      if (wire === 0) varint(reader);
      else if (wire === 1) reader.pos += 8;
      else if (wire === 5) reader.pos += 4;
      else if (wire === 2) {
        const length = varint(reader);
        if (field === 14) {
          if (length > maxEntryBytes) throw new Error('metadata entry too large');
          const entry = Buffer.alloc(length);
          await file.read(entry, 0, length, offset + reader.pos);
          const [key, value] = stringEntry(entry);
          metadata.set(key, value);
        }
        reader.pos += length;
      } else throw new Error(`unexpected protobuf wire type ${wire}`);
      offset += reader.pos;
    }
    // A field running past the end is not a model: random bytes would otherwise pass as "no metadata".
    if (offset !== size) throw new Error('the file ends inside a field');
    return metadata;
  } finally {
    await file.close();
  }
}

function varint(reader: { bytes: Uint8Array; pos: number }): number {
  let value = 0;
  for (let scale = 1; scale < 2 ** 56; scale *= 128) {
    const byte = reader.bytes[reader.pos++];
    if (byte === undefined) throw new Error('truncated varint');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
  }
  throw new Error('varint too long');
}

/** StringStringEntryProto: key (1), value (2). */
function stringEntry(bytes: Uint8Array): [string, string] {
  const reader = { bytes, pos: 0 };
  const parts = ['', ''];
  while (reader.pos < bytes.length) {
    const tag = varint(reader);
    if (tag % 8 !== 2) throw new Error('unexpected metadata entry');
    const length = varint(reader);
    const text = Buffer.from(bytes.subarray(reader.pos, reader.pos + length)).toString('utf8');
    reader.pos += length;
    const field = Math.floor(tag / 8);
    if (field === 1 || field === 2) parts[field - 1] = text;
  }
  return [parts[0]!, parts[1]!];
}
