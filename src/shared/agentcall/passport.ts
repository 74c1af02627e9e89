import { z } from 'zod';
import { parseNdefMessage, tnf } from '../nfc/ndef';
import { maxReferenceChars } from '../nfc/object-ref';
import { safeLink } from '../talkie/content';
import { boundedId, limits, schemaVersion } from './protocol';

/**
 * The optional object passport (AgentCall 0.1): AgentDesk's binding of its fields, from the agent's `object.passport` event
 * or an NDEF record beside the tag's reference. Untrusted data: shown as plain text, nothing fetched or run, a recipe only
 * asked of the agent after the user confirms (session.ts); unknown fields dropped. Fields: docs/protocols.md#object-passports.
 * Decision: docs/architecture.md#object-passports
 */

/** The NDEF media type (TNF 2) of a passport record on a tag; its payload is the passport's UTF-8 JSON. Compared case-insensitively, as media types are. */
export const passportMediaType = 'application/vnd.agentcall.object-passport+json';

export const passportLimits = {
  /** The passport's JSON text in UTF-8 (an NDEF payload, or the event's `passport` as it came). */
  jsonBytes: 16 * 1024,
  summaryChars: 1_000,
  facts: 16,
  factNameChars: 100,
  factValueChars: 500,
  links: 8,
  linkTitleChars: 200,
  urlChars: 2_048,
  actions: 8,
  recipeIdChars: 64,
  actionTitleChars: 200,
  actionDescriptionChars: 1_000,
} as const;

const text = (max: number) => z.string().min(1).max(max);

/** Exact references are printable ASCII without spaces (as a tag's are), compared byte for byte. */
export const passportObjectRefSchema = z
  .string()
  .min(1)
  .max(maxReferenceChars)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

/** An https link without user name or password: the only links the app opens (safeLink's rule; nothing else is a link). */
const httpsLink = z
  .string()
  .max(passportLimits.urlChars)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .refine((url) => safeLink(url, '')?.kind === 'external', 'an https link without user name or password');

export const actionRecipeSchema = z.object({
  recipeId: boundedId(passportLimits.recipeIdChars),
  title: text(passportLimits.actionTitleChars),
  /** What it would do, in words. */
  description: text(passportLimits.actionDescriptionChars).optional(),
  requiresConfirmation: z.literal(true),
});

export const objectPassportSchema = z.object({
  schemaVersion: z.literal(schemaVersion),
  objectRef: passportObjectRefSchema,
  label: text(limits.labelChars),
  summary: text(passportLimits.summaryChars).optional(),
  facts: z
    .array(z.object({ name: text(passportLimits.factNameChars), value: text(passportLimits.factValueChars) }))
    .max(passportLimits.facts)
    .optional(),
  links: z
    .array(z.object({ title: text(passportLimits.linkTitleChars), url: httpsLink }))
    .max(passportLimits.links)
    .optional(),
  actions: z
    .array(actionRecipeSchema)
    .max(passportLimits.actions)
    .refine((actions) => new Set(actions.map((action) => action.recipeId)).size === actions.length, 'recipe ids must be unique')
    .optional(),
});
export type ObjectPassport = z.infer<typeof objectPassportSchema>;
export type ActionRecipe = z.infer<typeof actionRecipeSchema>;

export type PassportParse = { ok: true; passport: ObjectPassport } | { ok: false; reason: string };

const encoder = new TextEncoder();

/** Checks a passport as it came (the event's `passport`): its JSON size, then the schema. The reason names the field, never quotes it. */
export function parseObjectPassport(value: unknown): PassportParse {
  if (value === undefined) return { ok: false, reason: 'there is no passport' };
  if (encoder.encode(JSON.stringify(value)).byteLength > passportLimits.jsonBytes) {
    return { ok: false, reason: `it is larger than ${passportLimits.jsonBytes / 1024} KiB` };
  }
  const parsed = objectPassportSchema.safeParse(value);
  if (parsed.success) return { ok: true, passport: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue && issue.path.length > 0 ? `/${issue.path.map(String).join('/')}: ` : '';
  // zod's messages say what was expected, never the value itself.
  return { ok: false, reason: `${path}${issue?.message ?? 'invalid'}`.slice(0, 200) };
}

/**
 * What a tag's NDEF message holds as a passport: none, one readable passport, or one that cannot be
 * shown (`note` says why, never quoting the tag). A malformed message is `none` here: the reference
 * check already says so.
 */
export type NdefPassport = { kind: 'none' } | { kind: 'passport'; passport: ObjectPassport } | { kind: 'unreadable'; note: string };

export function passportFromNdef(message: Uint8Array): NdefPassport {
  const parsed = parseNdefMessage(message);
  if (!parsed.ok) return { kind: 'none' };
  const records = parsed.records.filter((record) => record.tnf === tnf.media && asciiLower(record.type) === passportMediaType);
  if (records.length === 0) return { kind: 'none' };
  const unreadable = (why: string): NdefPassport => ({ kind: 'unreadable', note: `The tag's object passport is not shown: ${why}.` });
  if (records.length > 1) return unreadable('the tag holds more than one');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(records[0]!.payload));
  } catch {
    return unreadable('it is not UTF-8 JSON');
  }
  const checked = parseObjectPassport(json);
  return checked.ok ? { kind: 'passport', passport: checked.passport } : unreadable(checked.reason);
}

function asciiLower(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += String.fromCharCode(byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);
  return out;
}
