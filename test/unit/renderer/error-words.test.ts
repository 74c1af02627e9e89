import { describe, expect, it } from 'vitest';
import { isTechnical, splitBracketedCode, wordsFor } from '../../../src/renderer/i18n/error-words';
import { en } from '../../../src/renderer/i18n/strings';

describe('words for people (#15)', () => {
  it('recognises errno codes, PC/SC statuses, TLS codes and stacks as technical', () => {
    for (const message of [
      'connect ECONNREFUSED 127.0.0.1:3000',
      'getaddrinfo ENOTFOUND crm.example',
      'SCardEstablishContext failed: 0x80100013',
      'TypeError: fetch failed\n    at node:internal/deps/undici',
      'request failed, errno -111',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    ])
      expect(isTechnical(message), message).toBe(true);
  });

  it('leaves sentences written for people alone', () => {
    for (const message of [
      'crm.example.com is already in your list.',
      'Enter everything the agent asked for.',
      'The smart-card service stopped.',
      'Error reading the card? Try again.',
    ])
      expect(isTechnical(message), message).toBe(false);
  });

  it('maps known codes to a sentence without the code in it', () => {
    const cases: [string, string][] = [
      ['connect ECONNREFUSED 127.0.0.1:3000', 'error.words.refused'],
      ['getaddrinfo ENOTFOUND crm.example', 'error.words.nameNotFound'],
      ['read ECONNRESET', 'error.words.reset'],
      ['SCardConnect: 0x80100069', 'error.words.cardRemoved'],
      ['SCardEstablishContext: 0x80100013', 'error.words.reader'],
    ];
    for (const [message, key] of cases) {
      expect(wordsFor(message), message).toBe(key);
      expect(isTechnical(en[key as keyof typeof en]), key).toBe(false);
    }
    expect(wordsFor('EWHATEVER happened')).toBeUndefined();
  });

  it('keeps a sentence main wrote and moves only its bracketed code behind Details', () => {
    expect(splitBracketedCode('settings.json could not be saved in /tmp/x: the operation is not permitted (EPERM). The saved copy is unchanged.')).toEqual({
      sentence: 'settings.json could not be saved in /tmp/x: the operation is not permitted. The saved copy is unchanged.',
      codes: '(EPERM)',
    });
    expect(splitBracketedCode('connect ECONNREFUSED 127.0.0.1:3000 (ECONNREFUSED)')).toBeUndefined();
    expect(splitBracketedCode('The smart-card service stopped.')).toBeUndefined();
  });
});
