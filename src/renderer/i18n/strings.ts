import type { IpcErrorCode } from '../../shared/base/errors';
import type { NoticeCode } from '../../shared/ipc/notices';
import { en, type Catalogue, type MessageKey } from './catalogue.en';
import { cs } from './catalogue.cs';

/**
 * The renderer's words and how they are looked up. The texts live one language a file:
 * `catalogue.en.ts` (the source catalogue, whose keys are `MessageKey`) and `catalogue.cs.ts` (the
 * same keys in Czech). This file re-exports them, so code imports everything from here.
 */
export { en, cs, type Catalogue, type MessageKey };

export type Language = 'en' | 'cs';

export const catalogues: Readonly<Record<Language, Catalogue>> = { en, cs };

export type MessageParams = Readonly<Record<string, string | number>>;

/** Fills `{name}` placeholders; a placeholder without a value is left as it is. */
export function format(template: string, params?: MessageParams): string {
  if (!params) return template;
  return template.replace(/\{([a-zA-Z0-9_]+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** The placeholders a template uses, for example `['name']` for `'Added {name}'`. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((match) => match[1] ?? '');
}

export function translate(language: Language, key: MessageKey, params?: MessageParams): string {
  return format(catalogues[language][key], params);
}

/** `system` follows the browser: Czech when `navigator.language` starts with `cs`, else English. */
export function resolveLanguage(setting: 'system' | Language, navigatorLanguage: string | undefined): Language {
  if (setting !== 'system') return setting;
  return navigatorLanguage?.toLowerCase().startsWith('cs') ? 'cs' : 'en';
}

/** The catalogue key for an IPC error code; every code has one (checked by the typecheck). */
export function errorKey(code: IpcErrorCode): MessageKey {
  const key: `error.${IpcErrorCode}` = `error.${code}`;
  return key satisfies MessageKey;
}

/** The catalogue key for a notice code; every code has one (checked by the typecheck). */
export function noticeKey(code: NoticeCode): MessageKey {
  const key: `notice.${NoticeCode}` = `notice.${code}`;
  return key satisfies MessageKey;
}
