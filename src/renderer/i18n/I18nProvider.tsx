import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { resolveLanguage, translate, type Language, type MessageKey, type MessageParams } from './strings';

export interface I18n {
  language: Language;
  t: (key: MessageKey, params?: MessageParams) => string;
}

function makeI18n(language: Language): I18n {
  return { language, t: (key, params) => translate(language, key, params) };
}

const I18nContext = createContext<I18n>(makeI18n('en'));

/**
 * Picks the catalogue from the language setting (`system` follows `navigator.language`) and keeps
 * `<html lang>` in step, so screen readers pronounce the page in the right language.
 */
export function I18nProvider({ setting, children }: { setting: 'system' | Language; children: ReactNode }) {
  const language = resolveLanguage(setting, typeof navigator === 'undefined' ? undefined : navigator.language);
  const value = useMemo(() => makeI18n(language), [language]);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
