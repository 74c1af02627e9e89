import { parseNdefMessage, recordText } from './ndef';

/**
 * Object references from NFC tags (AgentCall AG-UI extension 0.1, "Security, photos, and exact
 * object lookup"). Receivers compare objectRef strings exactly, so nothing here normalizes:
 * a reference is accepted byte for byte as the tag holds it, or rejected.
 *
 * Two kinds of objectRef come out of a tap:
 * - local:    `urn:agentcall:local-tag:<64 lowercase hex>`, the keyed alias of the tag's hardware ID
 *             (carrier `localTag`). The namespace differs from portable references on purpose:
 *             no tag can write a reference that equals another tag's local alias.
 * - portable: an NDEF URI or Text record holding `urn:agentcall:object:<name>` or an `https://`
 *             URL (carrier `ndefTag`). HTTPS references are identifiers only and are never fetched.
 * Both carry assurance `unverifiedTag`: tags are writable labels, not proof of anything.
 */

export const localTagCarrier = 'localTag';
/** The carrier value AgentDesk uses for a portable reference read from an NDEF URI or Text record. */
export const portableTagCarrier = 'ndefTag';
export const unverifiedTagAssurance = 'unverifiedTag';

export const localObjectRefPrefix = 'urn:agentcall:local-tag:';
export const portableUrnPrefix = 'urn:agentcall:object:';

/** Longest reference accepted from a tag. */
export const maxReferenceChars = 256;

/** RFC 3986 pchar without percent-encoding: unreserved, sub-delims, ":" and "@". */
const pchar = "A-Za-z0-9._~!$&'()*+,;=:@\\-";
const pctEncoded = '%[0-9A-Fa-f]{2}';
const urnName = new RegExp(`^(?:[${pchar}/]|${pctEncoded})+$`);
const urlPath = new RegExp(`^(?:/(?:[${pchar}/]|${pctEncoded})*)?$`);
const urlQuery = new RegExp(`^(?:[${pchar}/?]|${pctEncoded})*$`);
const dnsLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export type ReferenceCheck = { ok: true; objectRef: string } | { ok: false; reason: string };

/** Accepts `urn:agentcall:object:<name>` or an https URL (no user info, no fragment), at most 256 printable ASCII characters. */
export function checkObjectReference(value: string): ReferenceCheck {
  if (value.length === 0) return { ok: false, reason: 'it is empty' };
  if (value.length > maxReferenceChars) return { ok: false, reason: `it is longer than ${maxReferenceChars} characters` };
  if (!/^[\x21-\x7e]+$/.test(value)) return { ok: false, reason: 'it has spaces or characters outside printable ASCII' };
  if (value.startsWith(portableUrnPrefix)) {
    const name = value.slice(portableUrnPrefix.length);
    if (name.length === 0) return { ok: false, reason: 'the object name after urn:agentcall:object: is empty' };
    if (!urnName.test(name)) return { ok: false, reason: 'the object name has characters a URN does not allow' };
    return { ok: true, objectRef: value };
  }
  if (value.startsWith('https://')) return checkHttps(value);
  if (/^urn:agentcall:/i.test(value)) return { ok: false, reason: 'only urn:agentcall:object: references are accepted (lowercase, exactly)' };
  if (/^http:\/\//i.test(value)) return { ok: false, reason: 'only https references are accepted' };
  return { ok: false, reason: 'it is neither a urn:agentcall:object: reference nor an https URL' };
}

function checkHttps(value: string): ReferenceCheck {
  const rest = value.slice('https://'.length);
  if (rest.includes('#')) return { ok: false, reason: 'the URL has a fragment' };
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const afterAuthority = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  if (authority.includes('@')) return { ok: false, reason: 'the URL carries user information' };
  const portMatch = /^(.*?)(?::(\d{1,5}))?$/.exec(authority);
  const host = portMatch?.[1] ?? '';
  const port = portMatch?.[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return { ok: false, reason: 'the URL has an invalid port' };
  const labels = host.split('.');
  if (host.length === 0 || host.length > 253 || !labels.every((label) => dnsLabel.test(label))) {
    return { ok: false, reason: 'the URL has no valid host name' };
  }
  const queryStart = afterAuthority.indexOf('?');
  const path = queryStart === -1 ? afterAuthority : afterAuthority.slice(0, queryStart);
  const query = queryStart === -1 ? '' : afterAuthority.slice(queryStart + 1);
  if (!urlPath.test(path) || !urlQuery.test(query)) return { ok: false, reason: 'the URL has characters a URL does not allow' };
  return { ok: true, objectRef: value };
}

/** The local objectRef for an alias given as 64 lowercase hex characters. */
export function localObjectRef(aliasHex: string): string {
  if (!/^[0-9a-f]{64}$/.test(aliasHex)) throw new TypeError('an alias is 32 bytes as lowercase hex');
  return `${localObjectRefPrefix}${aliasHex}`;
}

/**
 * What an NDEF message contributes to the observation:
 * - `reference`: exactly one distinct valid reference in its URI/Text records;
 * - `none`: no URI/Text record (an empty or foreign-content tag): use the local alias, nothing to say;
 * - `fallback`: use the local alias and tell the user why (`note`): malformed message, a link that is
 *   not a reference, or conflicting references. Notes never quote tag content.
 */
export type NdefReference = { kind: 'reference'; objectRef: string } | { kind: 'none' } | { kind: 'fallback'; note: string };

export function referenceFromNdef(message: Uint8Array): NdefReference {
  const parsed = parseNdefMessage(message);
  if (!parsed.ok) return { kind: 'fallback', note: `The tag's NDEF message is malformed (${parsed.reason}); using the tag's local alias.` };
  const references = new Set<string>();
  let rejection: string | undefined;
  for (const record of parsed.records) {
    const text = recordText(record);
    if (text === undefined) continue;
    if (!text.ok) {
      rejection ??= text.reason;
      continue;
    }
    const check = checkObjectReference(text.value);
    if (check.ok) references.add(check.objectRef);
    else rejection ??= `the ${text.kind === 'uri' ? 'link' : 'text'} is not an object reference: ${check.reason}`;
  }
  if (references.size === 1) return { kind: 'reference', objectRef: [...references][0]! };
  if (references.size > 1) return { kind: 'fallback', note: "The tag holds more than one object reference; using the tag's local alias." };
  if (rejection !== undefined) return { kind: 'fallback', note: `The tag's content is not an object reference (${rejection}); using the tag's local alias.` };
  return { kind: 'none' };
}
