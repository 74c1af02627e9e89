import { Fragment, useEffect, useState, type ReactElement } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { dayName, dayStarts, formatClock, formatFullDateTime, readTime, untilMidnight } from './message-time';

/**
 * A message's time ("14:05"), subtle: shown when its entry is hovered or something in it has focus
 * (styles/chat/transcript.css), always in the page for screen readers; the full date and time are its title.
 */
export function MessageTime({ at }: { at: string | number | undefined }) {
  const { language } = useI18n();
  const time = typeof at === 'number' ? at : readTime(at);
  if (time === undefined) return null;
  const full = formatFullDateTime(time, language);
  return (
    <p className="item-time">
      <time dateTime={new Date(time).toISOString()} title={full}>
        {formatClock(time, language)}
      </time>
    </p>
  );
}

/**
 * A day separator between entries of different local days: "Today", "Yesterday" or the date. Its
 * own list entry, never a `.transcript__item` (it is no message, and it never follows the newest one).
 */
export function DaySeparator({ time, now }: { time: number; now: number }) {
  const { t, language } = useI18n();
  const name = dayName(time, now, language);
  const label = name === 'today' ? t('transcript.today') : name === 'yesterday' ? t('transcript.yesterday') : name.date;
  return (
    <li className="transcript__day">
      <div role="separator" aria-label={label} className="day-separator">
        <span className="day-separator__label">{label}</span>
      </div>
    </li>
  );
}

/**
 * Now, for naming days: read when the transcript mounts and again at each local midnight (so
 * "Today" becomes "Yesterday" without a ticking clock). `fixed` (tests) replaces it.
 */
export function useDayNow(fixed?: number): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return undefined;
    const timer = setTimeout(() => setNow(Date.now()), untilMidnight(now) + 1000);
    return () => clearTimeout(timer);
  }, [fixed, now]);
  return fixed ?? now;
}

/**
 * A transcript's list entries with a DaySeparator before the first dated entry of each local day.
 * `render` gives each entry's own `<li>`; the separator is a sibling before it (same key scope).
 */
export function withDaySeparators<T>(
  entries: readonly T[],
  { timeOf, keyOf, now, render }: { timeOf: (entry: T) => number | undefined; keyOf: (entry: T) => string; now: number; render: (entry: T) => ReactElement },
): ReactElement[] {
  const days = dayStarts(entries, timeOf);
  return entries.map((entry, index) => {
    const dayStart = days.get(index);
    return (
      <Fragment key={keyOf(entry)}>
        {dayStart === undefined ? null : <DaySeparator time={dayStart} now={now} />}
        {render(entry)}
      </Fragment>
    );
  });
}
