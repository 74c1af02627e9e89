import { createHash, createHmac } from 'node:crypto';
import { passportFromNdef, type NdefPassport, type ObjectPassport } from '../../shared/agentcall/passport';
import { fromHex, toHex } from '../../shared/nfc/bytes';
import type { NfcObject } from '../../shared/nfc/ipc-schemas';
import { localObjectRef, localTagCarrier, portableTagCarrier, referenceFromNdef, unverifiedTagAssurance } from '../../shared/nfc/object-ref';
import type { TagContent } from '../../shared/nfc/reader-protocol';

/**
 * From a tap (card ID + NDEF content, in main only) to the observation object that may leave main.
 *
 * Keyed alias (what is hashed, exactly):
 *   alias = HMAC-SHA256(deviceKey, "AgentDesk NFC tag alias v1" ‖ 0x00 ‖ uid)
 *   deviceKey: 32 random bytes kept in the OS keychain (or a policy key file), never leaving this device;
 *   the label is its UTF-8/ASCII bytes, 0x00 separates it from the ID, uid is the card ID bytes as the
 *   reader returned them to GET DATA (FF CA 00 00 00), without the status word.
 * The alias is not reversible without the device key, differs between devices, and is stable for a tag.
 *
 * Local tag (no usable portable reference):
 *   objectRef     = "urn:agentcall:local-tag:" ‖ lowercase hex(alias)
 *   carrier       = "localTag", assurance = "unverifiedTag"
 *   payloadSha256 = lowercase hex SHA-256(alias), the 32 alias bytes (not the hex text, not the ID)
 * Portable reference (one valid urn:agentcall:object: or https reference in an NDEF URI/Text record):
 *   objectRef     = the reference, byte for byte as on the tag (never fetched, never normalized)
 *   carrier       = "ndefTag", assurance = "unverifiedTag"
 *   payloadSha256 = lowercase hex SHA-256 of the NDEF message bytes exactly as read: the value of the
 *                   NDEF Message TLV (all records, headers included; not the TLV tag/length, not the ID)
 * Object passport (an NDEF record of type passportMediaType, src/shared/agentcall/passport.ts): kept
 *   only beside a portable reference it names exactly; otherwise dropped, and the note says why.
 */
export const aliasLabel = 'AgentDesk NFC tag alias v1';
export const deviceKeyBytes = 32;

export function tagAlias(deviceKey: Uint8Array, uid: Uint8Array): Uint8Array {
  if (deviceKey.length !== deviceKeyBytes) throw new TypeError(`the device key must be ${deviceKeyBytes} bytes`);
  const hmac = createHmac('sha256', deviceKey);
  hmac.update(Buffer.from(aliasLabel, 'ascii'));
  hmac.update(Uint8Array.of(0x00));
  hmac.update(uid);
  return new Uint8Array(hmac.digest());
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface TapObservation {
  object: NfcObject;
  /** Why a portable reference (or the tag's passport) was not used; never quotes tag content. */
  note?: string;
  /** The tag's object passport, for main's AgentCall sessions (shown once the scan is sent); it names `object.objectRef`. */
  passport?: ObjectPassport;
  /** The alias as hex, for main's debounce (same tag within the debounce period). Not for the renderer. */
  aliasHex: string;
}

/** The observation for one tap. The UID is consumed here: the caller's hex string is all that remains of it. */
export function observeTap(deviceKey: Uint8Array, uidHex: string, content: TagContent): TapObservation {
  const uid = fromHex(uidHex);
  const alias = tagAlias(deviceKey, uid);
  uid.fill(0);
  const aliasHex = toHex(alias);
  const local = (note?: string): TapObservation => ({
    object: { objectRef: localObjectRef(aliasHex), carrier: localTagCarrier, assurance: unverifiedTagAssurance, payloadSha256: sha256Hex(alias) },
    aliasHex,
    ...(note ? { note } : {}),
  });
  switch (content.status) {
    case 'message': {
      const message = fromHex(content.bytes);
      const found = referenceFromNdef(message);
      const observation: TapObservation =
        found.kind === 'reference'
          ? {
              object: { objectRef: found.objectRef, carrier: portableTagCarrier, assurance: unverifiedTagAssurance, payloadSha256: sha256Hex(message) },
              aliasHex,
            }
          : local(found.kind === 'fallback' ? found.note : undefined);
      return withPassport(observation, passportFromNdef(message));
    }
    case 'malformed':
      return local(`The tag's NDEF data is malformed (${content.reason}); using the tag's local alias.`.slice(0, 500));
    case 'absent':
    case 'unsupported':
      return local();
  }
}

/** The tag's passport beside its observation: kept only beside a portable reference it names exactly, else the note says why not. */
function withPassport(observation: TapObservation, carried: NdefPassport): TapObservation {
  if (carried.kind === 'none') return observation;
  const { object } = observation;
  if (carried.kind === 'passport' && object.carrier === portableTagCarrier && carried.passport.objectRef === object.objectRef)
    return { ...observation, passport: carried.passport };
  const why =
    carried.kind === 'unreadable' ? carried.note : "The tag's object passport is not shown: it does not name the object reference written on the tag.";
  return {
    ...observation,
    note: [observation.note, why]
      .filter((part) => part !== undefined)
      .join(' ')
      .slice(0, 500),
  };
}
