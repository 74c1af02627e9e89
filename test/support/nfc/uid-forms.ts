/**
 * The ways a card ID could leak into text: hex (both cases, with and without separators, both
 * byte orders), base64 / base64url, and decimal (the whole ID as a number, both byte orders).
 */
export function uidForms(uid: Uint8Array): string[] {
  const forms = new Set<string>();
  for (const bytes of [Buffer.from(uid), Buffer.from(uid).reverse()]) {
    const hex = bytes.toString('hex');
    forms.add(hex);
    forms.add(hex.toUpperCase());
    forms.add([...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join(':'));
    forms.add([...bytes].map((byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':'));
    forms.add([...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join(' '));
    forms.add(bytes.toString('base64'));
    forms.add(bytes.toString('base64').replace(/=+$/, ''));
    forms.add(bytes.toString('base64url'));
    forms.add(BigInt(`0x${hex}`).toString(10));
    forms.add([...bytes].join(','));
    forms.add([...bytes].join(', '));
  }
  return [...forms];
}

/** The ID forms found in `text` (expect none). */
export function uidLeaks(text: string, uid: Uint8Array): string[] {
  return uidForms(uid).filter((form) => text.includes(form));
}
