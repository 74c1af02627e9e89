import type { MessageKey } from './strings';

/**
 * Words for people: which catalogue sentence says what a failure's raw detail means. The one place
 * that maps an error code (errno, PC/SC status, TLS code) or a technical message to a sentence; the
 * raw text is then only a "Details" disclosure away, never the main line.
 */
const known: readonly { pattern: RegExp; key: MessageKey }[] = [
  { pattern: /\bECONNREFUSED\b|connection refused/i, key: 'error.words.refused' },
  { pattern: /\bENOTFOUND\b|\bEAI_AGAIN\b|\bENODATA\b|getaddrinfo/i, key: 'error.words.nameNotFound' },
  { pattern: /\bETIMEDOUT\b|\bESOCKETTIMEDOUT\b|\bUND_ERR_\w*TIMEOUT\b/i, key: 'error.words.timeout' },
  { pattern: /\bECONNRESET\b|\bEPIPE\b|socket hang up|\bUND_ERR_SOCKET\b/i, key: 'error.words.reset' },
  { pattern: /\bENETUNREACH\b|\bEHOSTUNREACH\b|\bENETDOWN\b/i, key: 'error.words.unreachable' },
  { pattern: /CERT_|SELF_SIGNED|UNABLE_TO_VERIFY|\bERR_TLS\w*|certificate/i, key: 'error.words.certificate' },
  { pattern: /0x80100069|0x80100066|0x80100068/i, key: 'error.words.cardRemoved' },
  { pattern: /0x8010\w{4}/i, key: 'error.words.reader' },
];

/** Signs that a message was written for a developer, not for the person using the app. */
const technical: readonly RegExp[] = [
  /\bE[A-Z][A-Z0-9_]{3,}\b/,
  /\b[A-Z]{2,}(?:_[A-Z0-9]+){2,}\b/,
  /\b(?:UND_)?ERR_[A-Z_]{3,}/,
  /^\s*(?:[A-Z]\w*)?Error:/,
  /0x[0-9a-f]{6,}|\berrno\b|\bsyscall\b|\n\s*at\s/i,
];

/** A sentence whose only code is one in parentheses: "… not permitted (EPERM). …". */
const bracketedCode = /\s*\((?:E[A-Z][A-Z0-9_]{2,}|0x[0-9a-f]{6,})\)/gi;

/**
 * A message that is a sentence with the code in parentheses, as main writes them: the sentence
 * without the code (the main line) and the code (for Details). Undefined when anything else in the
 * message is technical, or there is no such code.
 */
export function splitBracketedCode(message: string): { sentence: string; codes: string } | undefined {
  const codes = [...message.matchAll(bracketedCode)].map((match) => match[0].trim());
  if (codes.length === 0) return undefined;
  const sentence = message.replace(bracketedCode, '');
  if (isTechnical(sentence)) return undefined;
  return { sentence, codes: codes.join(' ') };
}

/** ENOTFOUND, 0x80100013, a stack: a line no person should have to read as the main message. */
export function isTechnical(message: string): boolean {
  return technical.some((pattern) => pattern.test(message));
}

/**
 * The catalogue sentence for a technical failure message, when one fits it better than its
 * code's general sentence; undefined when the message names nothing this list knows.
 */
export function wordsFor(message: string): MessageKey | undefined {
  return known.find((entry) => entry.pattern.test(message))?.key;
}
