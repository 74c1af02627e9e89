import { describe, expect, it } from 'vitest';
import { classifyUtterance, normalize } from '../../../../src/shared/talkie/voice/confirm-words';

const kind = classifyUtterance;

describe('normalize', () => {
  it('folds case, diacritics and punctuation, and joins apostrophes', () => {
    expect(normalize('  Ano, POTVRZUJI!  ')).toBe('ano potvrzuji');
    expect(normalize('Zruš to… prosím')).toBe('zrus to prosim');
    expect(normalize('Don’t send it.')).toBe('dont send it');
  });
});

describe('classifyUtterance (C7, C8)', () => {
  it('C7 confirm: a short sentence with a confirm word, in English or Czech', () => {
    expect(kind('ano, potvrzuji')).toEqual({ kind: 'confirm' });
    expect(kind('Yes, go ahead.')).toEqual({ kind: 'confirm' });
    expect(kind('Jasně, udělej to', { locale: 'cs' })).toEqual({ kind: 'confirm' });
  });

  it('C7 at most six words', () => {
    expect(kind('yes yes yes yes yes yes')).toEqual({ kind: 'confirm' });
    expect(kind('yes I think you should send it now')).toMatchObject({ kind: 'conversation', reason: 'too_long' });
  });

  it('C7 no negation (words, and the Czech ne- prefix)', () => {
    expect(kind('yes, not now')).toMatchObject({ kind: 'conversation', reason: 'negation' });
    expect(kind('ano, neposílej')).toMatchObject({ kind: 'conversation', reason: 'negation' });
    expect(kind('ano nebo')).toEqual({ kind: 'confirm' });
  });

  it('C7 not a question: no "?" and no question word', () => {
    expect(kind('ano?')).toMatchObject({ kind: 'conversation', reason: 'question' });
    expect(kind('why yes')).toMatchObject({ kind: 'conversation', reason: 'question' });
    expect(kind('Is it ok')).toMatchObject({ kind: 'conversation', reason: 'question' });
    expect(kind('a kolik to stojí, ano')).toMatchObject({ kind: 'conversation', reason: 'question' });
  });

  it('C7 no hesitation word: "nevím, asi ano" does not confirm', () => {
    expect(kind('nevím, asi ano', { locale: 'cs' })).toMatchObject({ kind: 'conversation', reason: 'hesitation' });
    expect(kind('maybe yes')).toMatchObject({ kind: 'conversation', reason: 'hesitation' });
    expect(kind('No jo, ano', { locale: 'cs' })).toMatchObject({ kind: 'conversation', reason: 'hesitation' });
  });

  it("C7 the action's keyword, when it sets one, must be said", () => {
    expect(kind('ano, potvrzuji', {}, 'odeslat')).toMatchObject({ kind: 'conversation', reason: 'keyword_missing' });
    expect(kind('Ano, odeslat.', {}, 'odeslat')).toEqual({ kind: 'confirm' });
    expect(kind('yes, send it', {}, 'Send')).toEqual({ kind: 'confirm' });
    expect(kind('odeslat', {}, 'odeslat')).toMatchObject({ kind: 'conversation', reason: 'no_consent_word' });
  });

  it("C7 the session's consent.confirm words add to the built-in ones (they do not replace them)", () => {
    expect(kind('platí')).toMatchObject({ kind: 'conversation', reason: 'no_consent_word' });
    expect(kind('platí', { confirm: ['platí'] })).toEqual({ kind: 'confirm' });
    expect(kind('ano', { confirm: ['platí'] })).toEqual({ kind: 'confirm' });
  });

  it('C8 an explicit refusal (built-in and consent.refuse) → refuse', () => {
    expect(kind('ne')).toEqual({ kind: 'refuse' });
    expect(kind('Zruš to', { locale: 'cs' })).toEqual({ kind: 'refuse' });
    expect(kind("No, don't.")).toEqual({ kind: 'refuse' });
    expect(kind('nepotvrzuji')).toEqual({ kind: 'refuse' });
    expect(kind('nech to být')).toMatchObject({ kind: 'conversation' });
    expect(kind('nech to být', { refuse: ['nech to být'] })).toEqual({ kind: 'refuse' });
  });

  it('C8 a questioned, hedged or mixed refusal is conversation', () => {
    expect(kind('cancel?')).toMatchObject({ kind: 'conversation', reason: 'question' });
    expect(kind('ne, potvrzuji')).toMatchObject({ kind: 'conversation', reason: 'mixed' });
    expect(kind('yes, cancel it')).toMatchObject({ kind: 'conversation', reason: 'mixed' });
  });

  it('C9 anything else is conversation', () => {
    expect(kind('')).toMatchObject({ kind: 'conversation', reason: 'empty' });
    expect(kind('kolik to stojí')).toMatchObject({ kind: 'conversation' });
    expect(kind('send the other one')).toMatchObject({ kind: 'conversation', reason: 'no_consent_word' });
  });
});
