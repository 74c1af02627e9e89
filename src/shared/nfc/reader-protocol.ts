import { z } from 'zod';
import { maxNdefMessageBytes } from './ndef';

/**
 * The messages between main and the NFC reader process (an Electron utilityProcess in the app, a
 * Node child process under plain Node). Both directions are plain JSON objects; main validates
 * every message from the reader process against readerToMainSchema and drops what does not match.
 *
 * The tag's hardware ID (`uid`) crosses this channel only, from the reader process to main, which
 * turns it into the keyed alias at once. It never goes further: not to the renderer, not to logs.
 */

export const readerProtocolVersion = 1;

const readerName = z.string().min(1).max(200);
const detail = z.string().max(500);
const hex = (maxBytes: number) =>
  z
    .string()
    .max(maxBytes * 2)
    .regex(/^(?:[0-9a-f]{2})*$/);

export const cardStandardSchema = z.enum(['iso14443-3', 'iso14443-4']);
export const cardTypeSchema = z.enum(['nfcForumType1', 'nfcForumType2', 'nfcForumType3', 'mifareClassic', 'iso14443-4', 'unknown']);

/**
 * What the reader process found on the tag besides its ID:
 * - `message`: an NDEF Message TLV, its value bytes exactly as read (may be empty);
 * - `absent`:  the tag is readable but holds no NDEF message (not formatted, or no NDEF TLV);
 * - `unsupported`: this card type's NDEF mapping is not read (MIFARE Classic, ISO 14443-4, Type 1/3);
 * - `malformed`: the capability container or TLV structure is broken (`reason` says how).
 */
export const tagContentSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('message'), bytes: hex(maxNdefMessageBytes) }),
  z.strictObject({ status: z.literal('absent'), reason: detail }),
  z.strictObject({ status: z.literal('unsupported') }),
  z.strictObject({ status: z.literal('malformed'), reason: detail }),
]);
export type TagContent = z.infer<typeof tagContentSchema>;

/** The smart-card service (pcscd, WinSCard, CryptoTokenKit) as the reader process sees it. */
export const pcscServiceStateSchema = z.enum(['connecting', 'ready', 'missing', 'lost']);
export type PcscServiceState = z.infer<typeof pcscServiceStateSchema>;

export const readerToMainSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), version: z.literal(readerProtocolVersion), pid: z.number().int().nonnegative() }),
  z.strictObject({ type: z.literal('heartbeat') }),
  /** `installed: false` when the service's program is known to be missing (Linux: no pcscd binary). */
  z.strictObject({ type: z.literal('service'), state: pcscServiceStateSchema, installed: z.boolean().optional(), detail: detail.optional() }),
  z.strictObject({
    type: z.literal('readers'),
    readers: z.array(z.strictObject({ name: readerName, cardPresent: z.boolean() })).max(16),
  }),
  z.strictObject({
    type: z.literal('tap'),
    reader: readerName,
    /** Wall-clock time (ms since the epoch, fractional) when PC/SC reported the card. */
    detectedAt: z.number().nonnegative(),
    /** How long reading the ID and the NDEF data took, in ms. */
    readMs: z.number().nonnegative().max(600_000),
    standard: cardStandardSchema,
    cardType: cardTypeSchema,
    /** The hardware ID: 4, 7 or 10 bytes (any length from 4 to 10 is accepted), lowercase hex. Main only. */
    uid: z.string().regex(/^(?:[0-9a-f]{2}){4,10}$/),
    content: tagContentSchema,
  }),
  /** A card was seen but could not be read: lifted too soon, an unsupported card or phone, or a reader error. */
  z.strictObject({
    type: z.literal('tapFailed'),
    reader: readerName,
    reason: z.enum(['removed', 'unsupported', 'readError']),
    detail,
  }),
  /** Something went wrong that the reader process recovered from (shown as the reader's last error). */
  z.strictObject({ type: z.literal('error'), reader: readerName.optional(), detail }),
  /** The reader process cannot work at all here (the PC/SC module is missing or does not load); it exits after this. */
  z.strictObject({ type: z.literal('fatal'), reason: z.enum(['module', 'platform']), detail }),
]);
export type ReaderToMain = z.infer<typeof readerToMainSchema>;

export const mainToReaderSchema = z.discriminatedUnion('type', [
  /** Only while armed does the reader process read a presented card; otherwise it only notes presence. */
  z.strictObject({ type: z.literal('arm'), armed: z.boolean() }),
  /** Reader LED/buzzer feedback on ACR122U/ACR1252U (off unless the setting is on). */
  z.strictObject({ type: z.literal('configure'), readerFeedback: z.boolean() }),
  z.strictObject({ type: z.literal('feedback'), reader: readerName, outcome: z.enum(['success', 'failure']) }),
  z.strictObject({ type: z.literal('shutdown') }),
]);
export type MainToReader = z.infer<typeof mainToReaderSchema>;

/** Exit code of a reader process that sent `fatal`: the supervisor does not restart it. */
export const readerFatalExitCode = 78;

/**
 * The environment variable a launcher sets to main's pid: the reader process ends when that process is
 * gone, also when main died before the reader could hear of it (reader-process.ts).
 */
export const parentPidEnv = 'AGENTDESK_PARENT_PID';
