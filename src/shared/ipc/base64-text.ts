/**
 * Image bytes cross the web shell's JSON IPC as base64 text of up to 32 MiB. Checking text that
 * long with an anchored pattern (/^[A-Za-z0-9+/]*={0,2}$/) takes V8 about 5 ns a character, 24 ms
 * for one 1280 × 720 camera frame; searching for one character outside the alphabet takes an eighth
 * of that. Grouped patterns (zod's z.base64()) overflow V8's regexp stack on such strings.
 */

const outsideAlphabet = /[^A-Za-z0-9+/=]/;

/**
 * True when `text` uses only the standard base64 alphabet (RFC 4648 §4) with at most two `=` at
 * its end: no whitespace, line breaks or base64url characters. Length and canonical form (padding
 * to a multiple of 4, unused bits zero) are the decoder's to check.
 */
export function isBase64Alphabet(text: string): boolean {
  if (outsideAlphabet.test(text)) return false;
  const padding = text.indexOf('=');
  if (padding === -1) return true;
  return padding >= text.length - 2 && (padding === text.length - 1 || text[text.length - 1] === '=');
}
