import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/talkie/conversation';
import { createTalkieProjector } from '../../../src/shared/conversation/project-talkie';
import { dayName, dayStarts, formatClock, untilMidnight } from '../../../src/renderer/components/message-time';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import type { Language } from '../../../src/renderer/i18n/strings';
import { commonItemViews, Transcript } from '../../../src/renderer/conversation/Transcript';
import { agentCallItemViews } from '../../../src/renderer/conversation/protocols/agentcall/items';
import type { ConversationView } from '../../../src/shared/conversation/view';
import { createThread, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { createAguiProjector } from '../../../src/shared/conversation/project-agui';

// Local dates (the test's own time zone), so the days and clocks are the same wherever it runs.
const local = (...parts: [number, number, number, number?, number?]) => new Date(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0);
const iso = (...parts: [number, number, number, number?, number?]) => local(...parts).toISOString();
const now = local(2026, 3, 3, 18, 30).getTime();

afterEach(cleanup);

const items: ConversationItem[] = [
  { kind: 'user', id: 'u0', text: 'Last year', state: 'sent', at: iso(2025, 12, 31, 23, 50) },
  { kind: 'user', id: 'u1', text: 'Back in February', state: 'sent', at: iso(2026, 2, 27, 8, 0) },
  { kind: 'assistant', id: 'a1', text: 'Same day answer', streaming: false, at: iso(2026, 2, 27, 8, 1) },
  { kind: 'user', id: 'u2', text: 'Yesterday question', state: 'sent', at: iso(2026, 3, 2, 14, 5) },
  { kind: 'tool', id: 't1', label: 'Undated tool', state: 'ok' },
  { kind: 'assistant', id: 'a2', text: 'Today answer', streaming: false, at: iso(2026, 3, 3, 9, 7) },
];

/** A Talkie thread as main projects it into the one conversation log (its items carry the server's times). */
function show(language: Language, shown: ConversationItem[] = items) {
  const view = {
    conversationId: 'c-1',
    agentId: 'agent-t',
    protocol: 'talkie' as const,
    status: { phase: 'ready' as const, run: 'idle' as const, earlier: 0, dropped: 0 },
    items: createTalkieProjector()({ runState: 'idle', items: shown }).items,
  };
  return render(
    <I18nProvider setting={language}>
      <Transcript view={view} views={commonItemViews} onEarlier={async () => undefined} now={now} />
    </I18nProvider>,
  );
}

function entryOf(text: string): HTMLElement {
  const entry = screen.getByText(text).closest('li');
  if (!entry) throw new Error(`no entry for ${text}`);
  return entry;
}

describe('message times and day separators (Talkie transcript)', () => {
  it("shows each dated message's time as a <time> with the full date and time as its title (English)", () => {
    show('en');
    const time = within(entryOf('Yesterday question')).getByText('14:05');
    expect(time.tagName).toBe('TIME');
    expect(time.getAttribute('dateTime')).toBe(iso(2026, 3, 2, 14, 5));
    expect(time.getAttribute('title')).toBe('Monday, 2 March 2026 at 14:05');
    expect(within(entryOf('Today answer')).getByText('09:07').tagName).toBe('TIME');
    // An item without a time shows none (no invented time).
    expect(entryOf('Finished undated tool').querySelector('time')).toBeNull();
  });

  it('shows the time and its title in Czech', () => {
    show('cs');
    const time = within(entryOf('Yesterday question')).getByText('14:05');
    expect(time.getAttribute('title')).toBe('pondělí 2. března 2026 v 14:05');
  });

  it('puts a named separator between messages of different local days: the date, Yesterday, Today', () => {
    show('en');
    const separators = screen.getAllByRole('separator');
    expect(separators.map((separator) => separator.getAttribute('aria-label'))).toEqual([
      'Wednesday, 31 December 2025',
      'Friday 27 February',
      'Yesterday',
      'Today',
    ]);
    expect(screen.getByRole('separator', { name: 'Today' })).toBeTruthy();
  });

  it('names the days in Czech', () => {
    show('cs');
    expect(screen.getAllByRole('separator').map((separator) => separator.getAttribute('aria-label'))).toEqual([
      'středa 31. prosince 2025',
      'pátek 27. února',
      'Včera',
      'Dnes',
    ]);
  });

  it('keeps separators out of .transcript__item: the newest message stays the last one', () => {
    const { container } = show('en');
    const entries = container.querySelectorAll('.transcript__item');
    expect(entries).toHaveLength(items.length);
    expect(entries[entries.length - 1]?.textContent).toContain('Today answer');
    expect(container.querySelectorAll('.transcript__item [role="separator"]')).toHaveLength(0);
    // Each separator comes right before the first message of its day.
    const today = screen.getByRole('separator', { name: 'Today' }).closest('li');
    expect(today?.nextElementSibling).toBe(entryOf('Today answer'));
  });

  it("keeps the time reachable while a message's Copy has keyboard focus (it is inside the entry)", async () => {
    show('en');
    const user = userEvent.setup();
    const entry = entryOf('Today answer');
    const copy = within(entry).getByRole('button', { name: 'Copy the message' });
    await user.click(copy);
    expect(entry.contains(document.activeElement)).toBe(true);
    expect(entry.matches(':focus-within')).toBe(true);
    expect(within(entry).getByText('09:07')).toBeTruthy();
  });

  it('shows no separator and no time for a thread without times', () => {
    show('en', [{ kind: 'user', id: 'u', text: 'Old server', state: 'sent' }]);
    expect(screen.queryAllByRole('separator')).toHaveLength(0);
    expect(document.querySelector('time')).toBeNull();
  });
});

describe('the day helpers', () => {
  it('words today and yesterday by the local calendar, not by 24 hours', () => {
    expect(dayName(local(2026, 3, 3, 0, 1).getTime(), now, 'en')).toBe('today');
    expect(dayName(local(2026, 3, 2, 23, 59).getTime(), local(2026, 3, 3, 0, 1).getTime(), 'en')).toBe('yesterday');
    expect(dayName(local(2026, 3, 1, 23, 59).getTime(), local(2026, 3, 3, 0, 1).getTime(), 'en')).toEqual({ date: 'Sunday 1 March' });
  });

  it('starts a day at the first dated item and at each change of day; undated items never start one', () => {
    const times = [undefined, local(2026, 3, 1, 10).getTime(), undefined, local(2026, 3, 1, 12).getTime(), local(2026, 3, 2, 1).getTime()];
    expect([...dayStarts(times, (time) => time).keys()]).toEqual([1, 4]);
  });

  it('formats a 24-hour clock in both languages and finds the next midnight', () => {
    expect(formatClock(local(2026, 3, 3, 21, 4).getTime(), 'en')).toBe('21:04');
    expect(formatClock(local(2026, 3, 3, 21, 4).getTime(), 'cs')).toBe('21:04');
    expect(untilMidnight(local(2026, 3, 3, 23, 0).getTime())).toBe(local(2026, 3, 4).getTime() - local(2026, 3, 3, 23, 0).getTime());
  });
});

describe('message times (AgentCall conversation)', () => {
  it('shows the time main noted for each item (AgentCall events carry none, see agentcall-source.ts) and a separator per day (Czech)', () => {
    const view: ConversationView = {
      conversationId: 'c-1',
      agentId: 'agent',
      protocol: 'agentcall',
      status: { phase: 'ready', run: 'idle', earlier: 0, dropped: 0 },
      items: [
        { kind: 'message', id: 'userText:u1', role: 'user', text: 'Late question', format: 'plain', state: 'sent', at: local(2026, 3, 2, 23, 58).getTime() },
        {
          kind: 'message',
          id: 'agentText:r1',
          role: 'agent',
          text: 'After midnight',
          format: 'markdown',
          state: 'done',
          at: local(2026, 3, 3, 0, 2).getTime(),
        },
      ],
    };
    const { container } = render(
      <I18nProvider setting="cs">
        <Transcript view={view} views={{ ...commonItemViews, ...agentCallItemViews }} onEarlier={async () => undefined} now={now} />
      </I18nProvider>,
    );
    expect(screen.getAllByRole('separator').map((separator) => separator.getAttribute('aria-label'))).toEqual(['Včera', 'Dnes']);
    expect(within(entryOf('Late question')).getByText('23:58').getAttribute('title')).toBe('pondělí 2. března 2026 v 23:58');
    expect(within(entryOf('After midnight')).getByText('00:02').tagName).toBe('TIME');
    const entries = container.querySelectorAll('.transcript__item');
    expect(entries[entries.length - 1]?.textContent).toContain('After midnight');
  });
});

describe('message times (a plain AG-UI thread in the conversation transcript)', () => {
  it('shows the time main stamped on each item, a separator per day, and none for undated history', () => {
    const thread: AguiThreadView = {
      ...createThread('t1'),
      items: [
        { kind: 'text', id: 'old', role: 'assistant', text: 'From a snapshot', streaming: false },
        { kind: 'user', id: 'u1', text: 'Question yesterday', at: local(2026, 3, 2, 16, 45).getTime() },
        { kind: 'text', id: 'm1', role: 'assistant', text: 'Answer today', streaming: false, at: local(2026, 3, 3, 8, 3).getTime() },
      ],
    };
    const { items: projected, status } = createAguiProjector()(thread);
    render(
      <I18nProvider setting="en">
        <Transcript
          view={{ conversationId: 'c-1', agentId: 'agent-1', protocol: 'agui', status: { ...status, earlier: 0, dropped: 0 }, items: projected }}
          views={commonItemViews}
          onEarlier={async () => undefined}
          now={now}
        />
      </I18nProvider>,
    );
    expect(screen.getAllByRole('separator').map((separator) => separator.getAttribute('aria-label'))).toEqual(['Yesterday', 'Today']);
    expect(within(entryOf('Question yesterday')).getByText('16:45').getAttribute('title')).toBe('Monday, 2 March 2026 at 16:45');
    expect(within(entryOf('Answer today')).getByText('08:03').tagName).toBe('TIME');
    expect(entryOf('From a snapshot').querySelector('time')).toBeNull();
  });
});
