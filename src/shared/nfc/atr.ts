/**
 * What a contactless card is, from the ATR a PC/SC reader builds for it (PC/SC Part 3, 3.1.3.2.3).
 * Storage cards (ISO 14443-3) get `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`:
 * byte 5 = 0x4F, SS the standard, NN NN the card name. Everything else is an ISO 14443-4 card
 * (a contactless smart card, a Type 4 tag, or a phone), which nfc-pcsc can only handle with an AID.
 */

export type CardStandard = 'iso14443-3' | 'iso14443-4';
export type CardType = 'nfcForumType1' | 'nfcForumType2' | 'nfcForumType3' | 'mifareClassic' | 'iso14443-4' | 'unknown';

export interface CardDescription {
  standard: CardStandard;
  type: CardType;
}

const pcscRid = [0xa0, 0x00, 0x00, 0x03, 0x06];

export function describeAtr(atr: Uint8Array): CardDescription {
  // The same test nfc-pcsc applies (Reader.selectStandardByAtr), so both sides agree on the standard.
  if (atr[5] !== 0x4f) return { standard: 'iso14443-4', type: 'iso14443-4' };
  const ridMatches = atr.length >= 15 && atr[6] === 0x0c && pcscRid.every((byte, index) => atr[7 + index] === byte);
  if (!ridMatches) return { standard: 'iso14443-3', type: 'unknown' };
  const name = (atr[13]! << 8) | atr[14]!;
  return { standard: 'iso14443-3', type: cardTypeByName(name) };
}

function cardTypeByName(name: number): CardType {
  switch (name) {
    case 0x0003: // MIFARE Ultralight (and NTAG21x, which readers report the same way)
    case 0x003a: // MIFARE Ultralight C
      return 'nfcForumType2';
    case 0x0001: // MIFARE Classic 1K
    case 0x0002: // MIFARE Classic 4K
    case 0x0026: // MIFARE Mini
      return 'mifareClassic';
    case 0xf004: // Topaz / Jewel
      return 'nfcForumType1';
    case 0xf011: // FeliCa 212K
    case 0xf012: // FeliCa 424K
      return 'nfcForumType3';
    default:
      return 'unknown';
  }
}
