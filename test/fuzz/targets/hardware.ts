import fc from 'fast-check';
import { readType2Content } from '../../../src/main/nfc/tag-read';
import { jpegFrameSize, observationJpegProblems, readJpegSegments } from '../../../src/main/photo/jpeg-markers';
import { PhotoError, photoLimits, processImage, sniffFormat } from '../../../src/main/photo/photo-pipeline';
import { objectPassportSchema, passportFromNdef, passportLimits, passportMediaType } from '../../../src/shared/agentcall/passport';
import { strictBase64Pattern } from '../../../src/shared/agentcall/protocol';
import { maxNdefMessageBytes, parseNdefMessage, recordText, type NdefRecord } from '../../../src/shared/nfc/ndef';
import { maxReferenceChars, referenceFromNdef } from '../../../src/shared/nfc/object-ref';
import { tagContentSchema } from '../../../src/shared/nfc/reader-protocol';
import { parseCapabilityContainer, scanTlvs } from '../../../src/shared/nfc/type2';
import { check, isJsonSerializable, mutatedBytes, mutatedFrom, target } from '../kit';
import { baselineJpegBase64, pngBase64, progressiveJpegBase64, webpBase64 } from '../seeds';

/** What comes from hardware and files: NDEF and Type 2 tag memory, JPEG markers, photo files. */

// --- NDEF and Type 2 -------------------------------------------------------------------------

interface RecordSpec {
  tnf: number;
  type: Uint8Array;
  id: Uint8Array;
  payload: Uint8Array;
  short: boolean;
}

function encodeNdef(records: readonly RecordSpec[]): Uint8Array {
  const out: number[] = [];
  records.forEach((record, index) => {
    const short = record.short && record.payload.length < 256;
    const header = (index === 0 ? 0x80 : 0) | (index === records.length - 1 ? 0x40 : 0) | (short ? 0x10 : 0) | (record.id.length > 0 ? 0x08 : 0) | record.tnf;
    out.push(header, record.type.length);
    if (short) out.push(record.payload.length);
    else
      out.push(
        (record.payload.length >>> 24) & 0xff,
        (record.payload.length >>> 16) & 0xff,
        (record.payload.length >>> 8) & 0xff,
        record.payload.length & 0xff,
      );
    if (record.id.length > 0) out.push(record.id.length);
    out.push(...record.type, ...record.id, ...record.payload);
  });
  return Uint8Array.from(out);
}

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff);

/** Object passports as a tag would carry them (docs/protocols.md#object-passports), to be damaged field by field. */
const passportSeeds = [
  { schemaVersion: '0.1', objectRef: 'urn:agentcall:object:kettle', label: 'Kettle' },
  {
    schemaVersion: '0.1',
    objectRef: 'urn:agentcall:object:kettle',
    label: 'Kettle',
    summary: 'On the shelf.',
    facts: [{ name: 'Volume', value: '1.7 l' }],
    links: [{ title: 'Manual', url: 'https://example.com/kettle' }],
    actions: [{ recipeId: 'descale', title: 'Descale', description: 'Runs vinegar through it.', requiresConfirmation: true }],
  },
];

const recordSpec: fc.Arbitrary<RecordSpec> = fc.oneof(
  // An object passport record (media type in any case), its JSON damaged or not.
  fc.record({
    tnf: fc.constant(2),
    type: fc.constantFrom(passportMediaType, passportMediaType.toUpperCase()).map(ascii),
    id: fc.constant(new Uint8Array()),
    short: fc.boolean(),
    payload: mutatedFrom(passportSeeds, 3).map((passport) => new TextEncoder().encode(JSON.stringify(passport))),
  }),
  // Well-known URI and Text records, the ones decoded.
  fc.record({
    tnf: fc.constant(1),
    type: fc.constant(ascii('U')),
    id: fc.constant(new Uint8Array()),
    short: fc.boolean(),
    payload: fc.tuple(fc.integer({ min: 0, max: 0x24 }), fc.string({ maxLength: 60 })).map(([prefix, rest]) => Uint8Array.from([prefix, ...ascii(rest)])),
  }),
  fc.record({
    tnf: fc.constant(1),
    type: fc.constant(ascii('U')),
    id: fc.constant(new Uint8Array()),
    short: fc.boolean(),
    payload: fc.constant(Uint8Array.from([0x13, ...ascii('urn:agentcall:object:kettle')])),
  }),
  fc.record({
    tnf: fc.constant(1),
    type: fc.constant(ascii('T')),
    id: fc.uint8Array({ maxLength: 3 }),
    short: fc.boolean(),
    payload: fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.constantFrom('en', 'cs', ''), fc.string({ maxLength: 40 }), fc.boolean())
      .map(([status, language, text, utf16]) => {
        const body = utf16 ? Uint8Array.from([0xfe, 0xff, ...[...text].flatMap((char) => [0, char.charCodeAt(0) & 0xff])]) : ascii(text);
        return Uint8Array.from([(status & 0x80 & (utf16 ? 0xff : 0)) | language.length, ...ascii(language), ...body]);
      }),
  }),
  fc.record({
    tnf: fc.integer({ min: 0, max: 7 }),
    type: fc.uint8Array({ maxLength: 4 }),
    id: fc.uint8Array({ maxLength: 4 }),
    payload: fc.uint8Array({ maxLength: 300 }),
    short: fc.boolean(),
  }),
);

const ndefBytes = fc.oneof(
  { weight: 4, arbitrary: fc.array(recordSpec, { minLength: 1, maxLength: 4 }).map(encodeNdef) },
  { weight: 2, arbitrary: fc.array(recordSpec, { minLength: 1, maxLength: 3 }).chain((records) => mutatedBytes([encodeNdef(records)], { maxEdits: 3 })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1020, max: 1030 })
      .map((length) => encodeNdef([{ tnf: 2, type: ascii('a/b'), id: new Uint8Array(), payload: new Uint8Array(length), short: false }])),
  },
);

const sameRecord = (a: NdefRecord, b: RecordSpec) =>
  a.tnf === b.tnf && a.type.join() === b.type.join() && a.id.join() === b.id.join() && a.payload.join() === b.payload.join();

export const ndefTarget = target({
  name: 'nfc.ndef',
  weight: 7,
  arbitrary: fc.record({ bytes: ndefBytes, wellFormed: fc.array(recordSpec, { minLength: 1, maxLength: 4 }) }),
  property: ({ bytes, wellFormed }) => {
    const parsed = parseNdefMessage(bytes);
    if (parsed.ok) {
      check(parsed.records.length <= 16 && bytes.length <= maxNdefMessageBytes, 'bounded');
      for (const record of parsed.records) {
        const text = recordText(record);
        if (text?.ok)
          check(/^[\x20-\x7e]*$/.test(text.value.replace(/^[a-z:/.@]*/, '')) && text.value.length <= 512 + 30, `record text ${text.value.slice(0, 40)}`);
      }
      // A parsed message encodes back to the same records.
      const again = parseNdefMessage(encodeNdef(parsed.records.map((record) => ({ ...record, short: record.payload.length < 256 }))));
      check(again.ok && again.records.length === parsed.records.length, 'the parsed records encode and parse again');
    } else check(parsed.reason.length > 0, 'a reason');
    const reference = referenceFromNdef(bytes);
    check(isJsonSerializable(reference), 'the reference result is JSON');
    // A passport comes out only when it passes the schema and its bound; a refusal says why in a bounded sentence.
    const passport = passportFromNdef(bytes);
    check(isJsonSerializable(passport), 'the passport result is JSON');
    if (passport.kind === 'passport') {
      check(objectPassportSchema.safeParse(passport.passport).success, 'a passport from a tag passes the schema');
      check(new TextEncoder().encode(JSON.stringify(passport.passport)).length <= passportLimits.jsonBytes, 'a passport from a tag is bounded');
      check(passport.passport.actions?.every((action) => action.requiresConfirmation === true) ?? true, 'every recipe needs confirmation');
    }
    if (passport.kind === 'unreadable') check(passport.note.length <= 300, `passport note of ${passport.note.length} characters`);
    if ('objectRef' in reference && typeof reference.objectRef === 'string') check(reference.objectRef.length <= maxReferenceChars + 64, 'reference bounded');
    // Round trip: a message built from valid records parses to exactly those records.
    const valid = wellFormed.filter((record) => record.tnf >= 1 && record.tnf <= 4 && record.type.length > 0).slice(0, 16);
    if (valid.length > 0 && encodeNdef(valid).length <= maxNdefMessageBytes) {
      const round = parseNdefMessage(encodeNdef(valid));
      check(
        round.ok && round.records.length === valid.length && round.records.every((record, index) => sameRecord(record, valid[index]!)),
        () => `round trip of ${valid.length} records: ${round.ok ? 'records differ' : round.reason}`,
      );
    }
  },
});

/** Tag memory from page 0: UID/lock pages, the capability container in page 3, then TLVs. */
const tagMemory = fc
  .record({
    cc: fc.oneof(
      fc.constant([0xe1, 0x10, 0x12, 0x00]),
      fc.constant([0xe1, 0x10, 0x6d, 0x00]),
      fc
        .tuple(fc.constantFrom(0xe1, 0x00), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
        .map((bytes) => [...bytes]),
    ),
    tlvs: fc.array(
      fc.oneof(
        fc.constant([0x00]),
        fc.constant([0x01, 0x03, 0xa0, 0x10, 0x44]),
        fc.array(recordSpec, { minLength: 1, maxLength: 2 }).map((records) => {
          const message = [...encodeNdef(records)];
          return message.length < 0xff ? [0x03, message.length, ...message] : [0x03, 0xff, message.length >> 8, message.length & 0xff, ...message];
        }),
        fc.constant([0xfe]),
        fc.uint8Array({ maxLength: 6 }).map((bytes) => [...bytes]),
      ),
      { maxLength: 4 },
    ),
    pad: fc.integer({ min: 0, max: 200 }),
    answer: fc.constantFrom('ok', 'ok', 'ok', 'short', 'status'),
  })
  .chain((spec) => {
    const memory = Uint8Array.from([...new Array(12).fill(0x04), ...spec.cc, ...spec.tlvs.flat(), ...new Array(spec.pad).fill(0)]);
    return fc.record({ memory: mutatedBytes([memory], { maxEdits: 2 }), answer: fc.constant(spec.answer) });
  });

export const type2Target = target({
  name: 'nfc.type2',
  weight: 6,
  arbitrary: tagMemory,
  property: async ({ memory, answer }) => {
    const cc = parseCapabilityContainer(memory.subarray(12, 16));
    if (cc.ok) {
      // The reader's loop: each "need" asks for more than it has, within the data area.
      let area = memory.subarray(16, 32);
      // Each need asks for at least one byte more, so the data area's size bounds the rounds.
      const rounds = cc.dataAreaBytes + 2;
      for (let round = 0; round < rounds; round++) {
        const scan = scanTlvs(area, cc.dataAreaBytes);
        if (scan.kind !== 'need') {
          if (scan.kind === 'ndef')
            check(scan.start >= 0 && scan.start + scan.length <= area.length && scan.length <= maxNdefMessageBytes, 'the NDEF TLV is inside what was read');
          break;
        }
        check(scan.bytes > area.length && scan.bytes <= cc.dataAreaBytes, `need ${scan.bytes} with ${area.length} read of ${cc.dataAreaBytes}`);
        const grown = new Uint8Array(scan.bytes);
        grown.set(area);
        grown.set(memory.subarray(16 + area.length, 16 + scan.bytes), area.length);
        area = grown;
        check(round < rounds - 1, 'the TLV scan terminates');
      }
    }
    // The real read over a fake card that answers from this memory.
    let transmits = 0;
    const transmit = async (apdu: Uint8Array): Promise<Uint8Array> => {
      transmits += 1;
      const page = (apdu[2]! << 8) | apdu[3]!;
      const length = apdu[4]!;
      const start = page * 4;
      if (answer === 'status' && transmits > 1) return Uint8Array.of(0x6a, 0x82);
      if (start + length > memory.length) return Uint8Array.of(0x6b, 0x00);
      const data = memory.subarray(start, start + (answer === 'short' && transmits > 1 ? Math.max(0, length - 1) : length));
      return Uint8Array.from([...data, 0x90, 0x00]);
    };
    let content;
    try {
      content = await readType2Content(transmit);
    } catch (error) {
      // A card that answers with fewer bytes than asked is a transmit-level failure (documented: thrown).
      check(answer === 'short' && error instanceof Error && /returned/.test(error.message), `readType2Content threw: ${String(error)}`);
      return;
    }
    check(tagContentSchema.safeParse(content).success, () => `tag content outside its schema: ${JSON.stringify(content).slice(0, 200)}`);
    check(transmits <= 2 + Math.ceil(memory.length / 16) + 2, `${transmits} reads for ${memory.length} bytes`);
  },
});

// --- JPEG markers and photo input ---------------------------------------------------------------

const fromBase64 = (text: string) => Uint8Array.from(Buffer.from(text, 'base64'));
const baseline = fromBase64(baselineJpegBase64);
const progressive = fromBase64(progressiveJpegBase64);
const pngBytes = fromBase64(pngBase64);
const webpBytes = fromBase64(webpBase64);
const markerInsertions = [
  [0xff, 0xfe, 0x00, 0x04, 0x68, 0x69], // COM
  [0xff, 0xe1, 0x00, 0x02], // empty APP1
  [0xff, 0xff, 0xff], // fill bytes
  [0xff, 0xd0], // RST0
  [0xff, 0xd9], // EOI
  [0xff, 0xd8], // SOI
  [0xff, 0xc2, 0x00, 0x0b, 0x08, 0x00, 0x10, 0x00, 0x18, 0x01, 0x01, 0x11, 0x00], // SOF2
  [0xff, 0xda, 0x00, 0x02], // a bare SOS
  [0xff, 0x00],
  [0x00, 0x00],
  [0xff, 0xc0, 0xff, 0xff], // SOF0 claiming 65535 bytes
];

export const jpegMarkersTarget = target({
  name: 'photo.jpegMarkers',
  weight: 7,
  arbitrary: fc.oneof(
    { weight: 6, arbitrary: mutatedBytes([baseline, progressive], { maxEdits: 5, insertions: markerInsertions }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((tail) => Uint8Array.from([0xff, 0xd8, ...tail])) },
  ),
  property: (bytes) => {
    let segments;
    try {
      segments = readJpegSegments(bytes);
    } catch (error) {
      check(error instanceof Error && error.message.startsWith('not a JPEG'), `readJpegSegments threw ${String(error)}`);
      segments = undefined;
    }
    if (segments) {
      let previous = -1;
      for (const segment of segments) {
        check(
          segment.offset > previous && segment.offset + 2 + segment.length <= bytes.length,
          `segment at ${segment.offset} (+${segment.length}) of ${bytes.length}`,
        );
        check(bytes[segment.offset] === 0xff && bytes[segment.offset + 1] === segment.marker, 'a segment starts at its marker');
        previous = segment.offset;
      }
    }
    const problems = observationJpegProblems(bytes);
    check(Array.isArray(problems) && problems.every((problem) => typeof problem === 'string'), 'problems are strings');
    const size = jpegFrameSize(bytes);
    if (size) check(Number.isInteger(size.width) && Number.isInteger(size.height) && size.width <= 0xffff && size.height <= 0xffff, 'frame size');
    sniffFormat(bytes);
  },
});

export const photoTarget = target({
  name: 'photo.pipeline',
  weight: 0.25,
  quickRuns: 10,
  hangMs: 15_000,
  arbitrary: fc.oneof(
    {
      weight: 6,
      arbitrary: mutatedBytes([baseline, progressive], { maxEdits: 3, insertions: markerInsertions }).map((bytes) => ({ kind: 'file' as const, bytes })),
    },
    { weight: 2, arbitrary: mutatedBytes([pngBytes, webpBytes], { maxEdits: 2 }).map((bytes) => ({ kind: 'file' as const, bytes })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'file' as const, bytes })) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          width: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(0, -1, 1.5, 5000)),
          height: fc.integer({ min: 1, max: 40 }),
          extra: fc.constantFrom(0, 0, 0, 1, -4),
        })
        .map(({ width, height, extra }) => ({
          kind: 'frame' as const,
          width,
          height,
          rgba: new Uint8Array(Math.max(0, (Number.isInteger(width) && width > 0 ? width : 4) * height * 4 + extra)).map((_, index) => (index * 31) & 0xff),
        })),
    },
  ),
  property: async (input) => {
    let photo;
    try {
      photo = await processImage(input);
    } catch (error) {
      check(
        error instanceof PhotoError,
        () => `processImage failed with something other than a PhotoError: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
      return;
    }
    check(photo.byteCount === photo.jpeg.length && photo.byteCount <= photoLimits.maxJpegBytes, 'byteCount');
    check(photo.pixelWidth >= 1 && photo.pixelWidth <= photoLimits.maxSide && photo.pixelHeight >= 1 && photo.pixelHeight <= photoLimits.maxSide, 'sides');
    check(strictBase64Pattern.test(photo.base64) && Buffer.from(photo.base64, 'base64').equals(Buffer.from(photo.jpeg)), 'base64 is the JPEG');
    check(observationJpegProblems(photo.jpeg).length === 0, 'a stripped baseline JPEG');
    check(!JSON.stringify(photo).includes(photo.base64.slice(0, 16)), 'the bytes never reach a log line');
  },
});
