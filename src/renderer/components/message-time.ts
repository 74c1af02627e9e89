import type { Language } from '../i18n/strings';

/** Creating an Intl formatter costs far more than using one: keep one per language and style. */
const locales: Record<Language, string> = { en: 'en-GB', cs: 'cs-CZ' };
const formats = new Map<string, Intl.DateTimeFormat>();
function formatter(language: Language, style: 'clock' | 'full' | 'day' | 'dayInYear'): Intl.DateTimeFormat {
  const key = `${language}:${style}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === 'clock'
        ? { hour: '2-digit', minute: '2-digit' }
        : style === 'full'
          ? { dateStyle: 'full', timeStyle: 'short' }
          : style === 'day'
            ? { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }
            : { weekday: 'long', day: 'numeric', month: 'long' };
    format = new Intl.DateTimeFormat(locales[language], options);
    formats.set(key, format);
  }
  return format;
}

/** Milliseconds since the epoch of an ISO date, or undefined when it cannot be read. */
export function readTime(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/** "14:05" in both languages (24-hour, local time). */
export function formatClock(time: number, language: Language): string {
  return formatter(language, 'clock').format(time);
}

/** "Monday 2 March 2026 at 14:05" / "pondělí 2. března 2026 v 14:05": the title of a message's time. */
export function formatFullDateTime(time: number, language: Language): string {
  return formatter(language, 'full').format(time);
}

/** The local calendar day of a time, as a key: two times on the same local day share it. */
export function localDay(time: number): string {
  const date = new Date(time);
  return `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;
}

/**
 * What a day separator says: "today" or "yesterday" (the caller words them), else the date in the
 * app's language, without the year when it is this year.
 */
export function dayName(time: number, now: number, language: Language): 'today' | 'yesterday' | { date: string } {
  const today = new Date(now);
  if (localDay(time) === localDay(now)) return 'today';
  // The calendar's day before (not 24 hours before: a day may have 23 or 25 of them).
  if (localDay(time) === localDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1).getTime())) return 'yesterday';
  const sameYear = new Date(time).getFullYear() === today.getFullYear();
  return { date: formatter(language, sameYear ? 'dayInYear' : 'day').format(time) };
}

/** Where a day separator goes: before each item whose local day differs from the last dated item's (and before the first dated one). Items without a time never start a day. */
export function dayStarts<T>(items: readonly T[], timeOf: (item: T) => number | undefined): Map<number, number> {
  const starts = new Map<number, number>();
  let lastDay: string | undefined;
  items.forEach((item, index) => {
    const time = timeOf(item);
    if (time === undefined) return;
    const day = localDay(time);
    if (day !== lastDay) starts.set(index, time);
    lastDay = day;
  });
  return starts;
}

/** Milliseconds until the next local midnight after `now` (when "Today" becomes "Yesterday"). */
export function untilMidnight(now: number): number {
  const date = new Date(now);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime() - now;
}
