import type { Language } from '../i18n/strings';

/** Remaining time as mm:ss (minutes grow past 59; never negative). */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}

const locales: Record<Language, string> = { en: 'en-GB', cs: 'cs-CZ' };
/** "12,000" in English, "12 000" in Czech. */
const numberLocales: Record<Language, string> = { en: 'en-US', cs: 'cs-CZ' };

export function formatNumber(value: number, language: Language): string {
  return new Intl.NumberFormat(numberLocales[language], { maximumFractionDigits: 1 }).format(value);
}

/** 48211 → "48.2 kB" (SI units, as file managers on most systems show them). */
export function formatFileSize(bytes: number, language: Language): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const shown = unit === 0 ? String(value) : formatNumber(Math.round(value * 10) / 10, language);
  return `${shown} ${units[unit] ?? 'B'}`;
}

/** A date the server sent, as a short local date and time; undefined when it cannot be read. */
export function formatDateTime(iso: string | undefined, language: Language): string | undefined {
  if (iso === undefined) return undefined;
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return undefined;
  return dateTimeFormat(language).format(time);
}

/** Creating an Intl formatter costs far more than using one: keep one per language. */
const dateTimeFormats = new Map<Language, Intl.DateTimeFormat>();
function dateTimeFormat(language: Language): Intl.DateTimeFormat {
  let format = dateTimeFormats.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(locales[language], { dateStyle: 'medium', timeStyle: 'short' });
    dateTimeFormats.set(language, format);
  }
  return format;
}

/** Milliseconds since the epoch of a server timestamp, or undefined. */
export function parseTime(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/** The host of an address, for people (its scheme and path add little); the text itself when it is not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The origin of an address ("" when it is not a URL): links from the same origin are the agent's own. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
