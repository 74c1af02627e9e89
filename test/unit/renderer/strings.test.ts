import { describe, expect, it } from 'vitest';
import { ipcErrorCodes } from '../../../src/shared/base/errors';
import { cs, en, errorKey, format, placeholders, resolveLanguage, translate } from '../../../src/renderer/i18n/strings';

describe('string catalogue', () => {
  it('has a non-empty Czech string for every English key, and no extra keys', () => {
    expect(Object.keys(cs).sort()).toEqual(Object.keys(en).sort());
    for (const [key, value] of Object.entries(cs)) {
      expect(typeof value, key).toBe('string');
      expect(value.trim(), key).not.toBe('');
    }
  });

  it('keeps every {placeholder} of the English strings in the Czech ones', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      const wanted = new Set(placeholders(en[key]));
      const found = new Set(placeholders(cs[key]));
      expect(found, key).toEqual(wanted);
    }
  });

  it('actually contains translations rather than copies of English', () => {
    const same = (Object.keys(en) as (keyof typeof en)[]).filter((key) => en[key] === cs[key]);
    // Only names, examples and language names may stay the same.
    expect(same.sort()).toEqual(
      [
        'add.placeholder',
        'app.name',
        'hardware.title',
        'settings.about.line',
        'settings.language.cs',
        'settings.language.en',
        // The app's name as the sidebar's label, and "Agent" (the same word in Czech).
        'shell.navigation',
        'shell.kindUnknown',
        // "Menu" is also Czech: the Menu button's name ("Otevřít menu") contains the word it shows (axe: label-content-name-mismatch).
        'shell.openMenu',
        // Number patterns: the numbers and the server's unit carry the language.
        'chat.composer.counter',
        'chat.usage.ofLimit',
        'chat.usage.ofLimitUnit',
        'chat.usage.used',
        'chat.usage.usedUnit',
        'chat.action.statusAnnounce',
        // "Model" is the same word in Czech; Whisper is a model's name.
        'settings.speech.model',
        'settings.speech.kind.whisper',
        // The kiosk's PIN (the same word in Czech) and its wait in seconds and minutes.
        'kiosk.pinLabel',
        'kiosk.waitSeconds',
        'kiosk.waitMinutes',
      ].sort(),
    );
  });

  it('has a string for every IPC error code', () => {
    for (const code of ipcErrorCodes) expect(en[errorKey(code)]).toMatch(/\S/);
  });

  it('fills placeholders and leaves unknown ones alone', () => {
    expect(format('Added {name}', { name: 'crm.example.com' })).toBe('Added crm.example.com');
    expect(format('{a} and {b}', { a: 1 })).toBe('1 and {b}');
    expect(translate('cs', 'home.removeNamed', { name: 'x.example' })).toBe('Odebrat x.example');
  });

  it('resolves the system language from navigator.language', () => {
    expect(resolveLanguage('system', 'cs-CZ')).toBe('cs');
    expect(resolveLanguage('system', 'CS')).toBe('cs');
    expect(resolveLanguage('system', 'en-GB')).toBe('en');
    expect(resolveLanguage('system', 'de')).toBe('en');
    expect(resolveLanguage('system', undefined)).toBe('en');
    expect(resolveLanguage('cs', 'en-US')).toBe('cs');
    expect(resolveLanguage('en', 'cs-CZ')).toBe('en');
  });
});
