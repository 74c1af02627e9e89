import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Action } from '../../../src/shared/talkie/content';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { ActionItem } from '../../../src/renderer/conversation/protocols/talkie/ActionItem';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

/**
 * Everyday wording (#26): words meant for developers do not reach everyday screens. The protocols'
 * names (and their transports) are not on Home or in the sidebar — only under Add an agent's
 * Advanced —, a proposed action's state is a word, and its Undo counts down in the seconds its text uses.
 */

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const developerWords = /AG-UI|Talkie|AgentCall|A2A|POST|SSE|endpoint|\brun\b/i;

/** The text a user sees in `root`: without what a closed disclosure hides. */
function shownText(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement;
  for (const hidden of copy.querySelectorAll('details:not([open]) > :not(summary)')) hidden.remove();
  return copy.textContent ?? '';
}

describe('everyday words on Home and in the sidebar', () => {
  it('names the demos by what you do there, and the protocols only under Add an agent’s Advanced', async () => {
    const { user } = await renderApp();
    const main = screen.getByRole('main');
    for (const name of ['Chat with the demo assistant', 'Scan and teach objects', 'Watch an agent work'])
      expect(within(main).getByRole('button', { name })).toBeTruthy();
    const sidebar = screen.getByRole('navigation', { name: 'AgentDesk' });
    for (const name of ['Demo: chat with an assistant', 'Demo: objects and photos', 'Demo: an agent at work'])
      expect(within(sidebar).getByRole('button', { name })).toBeTruthy();
    expect(shownText(main)).not.toMatch(developerWords);
    expect(shownText(sidebar)).not.toMatch(developerWords);

    // Advanced holds the one choice that needs a protocol's name.
    const advanced = within(main).getByText('Advanced').closest('details') as HTMLDetailsElement;
    expect(advanced.open).toBe(false);
    await user.click(within(advanced).getByText('Advanced'));
    await user.click(within(advanced).getByRole('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }));
    // Ticked, it stays in view.
    await user.click(within(advanced).getByText('Advanced'));
    expect(advanced.open).toBe(true);
  });

  it('says what an address turned out to be in words: a chat assistant, one for objects and photos, an information page, something that may work on tasks', async () => {
    const backend = createFakeBackend({
      checks: {
        'workshop.example.com': { found: true, kind: 'agentcall', display: 'workshop.example.com', name: 'Workshop agent' },
        'payroll.example.com': { found: true, kind: 'a2a', display: 'payroll.example.com', name: 'Larkfield Payroll' },
      },
    });
    const { user } = await renderApp({ backend });
    const field = screen.getByRole('textbox', { name: 'Agent address' });
    const check = async (address: string) => {
      await user.clear(field);
      await user.type(field, address);
      await user.click(screen.getByRole('button', { name: 'Check' }));
    };
    await check('crm.example.com');
    expect(await screen.findByText('Found: “Server at crm.example.com”, an assistant to chat with')).toBeTruthy();
    await check('workshop.example.com');
    expect(await screen.findByText('Found: “Workshop agent”, an assistant for objects and photos')).toBeTruthy();
    await check('payroll.example.com');
    expect(await screen.findByText('Found: “Larkfield Payroll”')).toBeTruthy();
    await user.click(screen.getByText('Advanced'));
    await user.click(screen.getByRole('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }));
    await check('ide.example.com/agui');
    expect(await screen.findByText('Found: something answers at ide.example.com/agui')).toBeTruthy();
    expect(screen.getByText('Whether it is an agent that works on tasks shows the first time you send it something.')).toBeTruthy();
  });

  it('shows an opened agent’s kind as what it does: Works on tasks, Information page', async () => {
    const backend = createFakeBackend({
      agents: [
        { id: 'agent-ide', url: 'https://ide.example.com/agui', display: 'ide.example.com/agui', addedAt: '2026-10-01T00:00:00Z', protocol: 'agui' },
        { id: 'agent-pay', url: 'https://payroll.example.com', display: 'payroll.example.com', addedAt: '2026-10-01T00:00:00Z', name: 'Larkfield Payroll' },
      ],
    });
    await renderApp({ backend });
    const sidebar = within(screen.getByRole('navigation', { name: 'AgentDesk' }));
    await waitFor(() => expect(sidebar.getByRole('button', { name: /^ide\.example\.com\/agui/ }).textContent).toContain('Works on tasks'));
    expect(sidebar.getByRole('button', { name: /^Larkfield Payroll/ }).textContent).toContain('Information page');
  });
});

describe('a proposed action in words', () => {
  const at = Date.parse('2026-03-03T10:00:00Z');
  const action = (overrides: Partial<Action>): Action => ({
    id: 'a_77',
    threadId: 't-1',
    summary: 'Send offer N-2026-014 to novak@alfa.cz',
    riskLevel: 'medium',
    status: 'pending',
    paramsHash: 'sha256:4f1c',
    createdAt: new Date(at).toISOString(),
    buttons: true,
    voice: false,
    ...overrides,
  });
  const handlers = { decide: async () => ({}), refresh: async () => undefined, announce: () => undefined };

  it('its state is a word, not "Status: running"; Undo counts down in the seconds its text says ("about 10 s")', () => {
    vi.useFakeTimers({ now: at, toFake: ['Date', 'setInterval', 'clearInterval'] });
    const view = render(
      <I18nProvider setting="en">
        <ActionItem action={action({ status: 'running', undoUntil: new Date(at + 10_000).toISOString() })} handlers={handlers} />
      </I18nProvider>,
    );
    const card = within(screen.getByRole('article', { name: 'Send offer N-2026-014 to novak@alfa.cz' }));
    expect(card.getByText('Under way')).toBeTruthy();
    expect(card.queryByText(/Status/)).toBeNull();
    const undo = card.getByRole('button', { name: 'Undo: Send offer N-2026-014 to novak@alfa.cz' });
    expect(undo.textContent).toBe('Undo (10 s left)');
    act(() => vi.advanceTimersByTime(1_000));
    expect(undo.textContent).toBe('Undo (9 s left)');
    act(() => vi.advanceTimersByTime(8_500));
    expect(undo.textContent).toBe('Undo (1 s left)');

    view.rerender(
      <I18nProvider setting="cs">
        <ActionItem action={action({ status: 'running', undoUntil: new Date(at + 10 * 60_000).toISOString() })} handlers={handlers} />
      </I18nProvider>,
    );
    expect(card.getByText('Probíhá')).toBeTruthy();
    expect(card.getByRole('button', { name: 'Vrátit zpět: Send offer N-2026-014 to novak@alfa.cz' }).textContent).toBe('Vrátit zpět (zbývá 10 min)');
  });

  it('says each state as a sentence', () => {
    vi.useFakeTimers({ now: at, toFake: ['Date', 'setInterval', 'clearInterval'] });
    const states: [Action['status'], string][] = [
      ['pending', 'Waiting for your decision'],
      ['done', 'Completed'],
      ['failed', 'It did not work'],
      ['cancelled', 'Cancelled'],
      ['expired', 'Expired: nothing was done'],
    ];
    for (const [status, words] of states) {
      render(
        <I18nProvider setting="en">
          <ActionItem action={action({ status, id: `a_${status}` })} handlers={handlers} />
        </I18nProvider>,
      );
      expect(screen.getByText(words)).toBeTruthy();
      cleanup();
    }
  });
});
