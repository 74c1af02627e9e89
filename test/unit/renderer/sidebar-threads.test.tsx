import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { searchDelayMs, ThreadList } from '../../../src/renderer/screens/shell/ThreadList';
import { addUserMessage, createThread } from '../../../src/shared/agui/run-model';
import { builtInAguiDemoId, builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { answer, messageField, openDemo, send, transcript } from './chat-helpers';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend, type FakeBackend, type ThreadSummary } from './fake-api';
import { renderApp } from './render-app';

const threads: ThreadSummary[] = [
  { id: 't-alfa', title: 'Offer for Alfa', channel: 'chat', createdAt: '2026-10-22T10:00:00Z' },
  { id: 't-brno', title: '', firstMessage: 'Weather in Brno', channel: 'chat', createdAt: '2026-10-21T10:00:00Z' },
  { id: 't-call', title: 'Call with Bravo', channel: 'voice', createdAt: '2026-10-20T10:00:00Z' },
];

function backendWithThreads(): FakeBackend {
  const backend = createFakeBackend();
  backend.state.talkie.threads = threads;
  backend.state.talkie.threadItems['t-alfa'] = [
    { kind: 'user', id: 'a1', text: 'Prepare the offer', state: 'sent' },
    { kind: 'assistant', id: 'a2', text: 'The offer for Alfa includes a 5 % discount.', streaming: false },
  ];
  backend.state.talkie.threadItems['t-brno'] = [
    { kind: 'user', id: 'b1', text: 'Weather in Brno', state: 'sent' },
    { kind: 'assistant', id: 'b2', text: 'Sunny, and a discount on umbrellas nowhere.', streaming: false },
  ];
  return backend;
}

const sidebar = () => within(screen.getByRole('navigation', { name: 'AgentDesk' }));
const chats = () => within(screen.getByRole('navigation', { name: 'Chats' }));
const searchBox = () => screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search chats' });

describe('the chat list under the open agent in the shell sidebar', () => {
  it('sits under the open agent’s entry, marks the open chat, and switches threads from there', async () => {
    const { user } = await openDemo(backendWithThreads());
    const entry = sidebar().getByRole('button', { name: 'Demo: chat with an assistant' });
    expect(entry.getAttribute('aria-current')).toBe('page');
    // The list is inside the demo entry's list item, after its button.
    const list = await screen.findByRole('navigation', { name: 'Chats' });
    expect(entry.closest('li')!.contains(list)).toBe(true);
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(3));
    expect(chats().getByRole('button', { name: /^Weather in Brno/ })).toBeTruthy();
    expect(chats().getByRole('button', { name: /^Call with Bravo.*Voice/ })).toBeTruthy();
    // #26: the agent opens on its last conversation (here its newest thread), not an empty new chat.
    expect(await transcript().findByText('Prepare the offer')).toBeTruthy();
    expect(
      chats()
        .getByRole('button', { name: /^Offer for Alfa/ })
        .getAttribute('aria-current'),
    ).toBe('true');

    await user.click(chats().getByRole('button', { name: /^Weather in Brno/ }));
    expect(await transcript().findByText('Sunny, and a discount on umbrellas nowhere.')).toBeTruthy();
    expect(transcript().queryByText('Prepare the offer')).toBeNull();
    expect(
      chats()
        .getByRole('button', { name: /^Weather in Brno/ })
        .getAttribute('aria-current'),
    ).toBe('true');
    expect(
      chats()
        .getByRole('button', { name: /^Offer for Alfa/ })
        .getAttribute('aria-current'),
    ).toBeNull();

    // New chat empties the conversation and puts the focus in the message field.
    await user.click(chats().getByRole('button', { name: 'New chat' }));
    expect(document.activeElement).toBe(messageField());
    expect(chats().queryAllByRole('button', { current: true })).toHaveLength(0);
  });

  it('is reached by keyboard: Tab from the agent’s entry goes into its chats, Enter opens one', async () => {
    const { user } = await openDemo(backendWithThreads());
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(3));
    sidebar().getByRole('button', { name: 'Demo: chat with an assistant' }).focus();
    await user.tab();
    expect(document.activeElement).toBe(chats().getByRole('button', { name: 'New chat' }));
    await user.tab();
    expect(document.activeElement).toBe(searchBox());
    await user.tab();
    expect(document.activeElement).toBe(chats().getByRole('button', { name: /^Offer for Alfa/ }));
    await user.keyboard('{Enter}');
    expect(await transcript().findByText('Prepare the offer')).toBeTruthy();
    expect(
      chats()
        .getByRole('button', { name: /^Offer for Alfa/ })
        .getAttribute('aria-current'),
    ).toBe('true');
  });

  it('in the drawer: picking a chat closes it and focus goes to the chat; Escape there closes the drawer, not the chat', async () => {
    const { user } = await openDemo(backendWithThreads());
    const menu = screen.getByRole('button', { name: 'Open the menu' });
    await user.click(menu);
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    const offer = await chats().findByRole('button', { name: /^Offer for Alfa/ });
    offer.focus();
    await user.keyboard('{Escape}');
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(menu);
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();

    await user.click(menu);
    await user.click(chats().getByRole('button', { name: /^Offer for Alfa/ }));
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' }));
    expect(await transcript().findByText('Prepare the offer')).toBeTruthy();
  });

  it('a new thread joins the list once its run ended', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    expect(await chats().findByText('No chats yet.')).toBeTruthy();
    const runKey = await send(user, backend, 'Hello there');
    backend.state.talkie.threads = [{ id: 't-1', title: '', firstMessage: 'Hello there', channel: 'chat', createdAt: '2026-10-22T10:00:00Z' }];
    await answer(backend, runKey, 'Hi!');
    const row = await chats().findByRole('button', { name: /^Hello there/ });
    expect(row.getAttribute('aria-current')).toBe('true');
  });
});

describe('searching the open agent’s chats', () => {
  it('filters as the user types (titles and message text, in main), opens a result, Escape clears', async () => {
    const backend = backendWithThreads();
    const { user } = await openDemo(backend);
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(3));

    await user.type(searchBox(), 'discount');
    // Both threads whose text says "discount"; the list of all chats is gone meanwhile.
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(2));
    expect(backend.callsOf('agents.searchThreads').at(-1)).toEqual({ agentId: builtInDemoAgentId, query: 'discount' });
    const hit = chats().getByRole('button', { name: /^Offer for Alfa/ });
    expect(hit.textContent).toContain('The offer for Alfa includes a 5 % discount.');
    expect(chats().getByRole('button', { name: /^Weather in Brno/ })).toBeTruthy();
    expect(chats().queryByRole('button', { name: /Call with Bravo/ })).toBeNull();

    // A title alone matches too, accents and case ignored.
    await user.clear(searchBox());
    await user.type(searchBox(), 'BRNO');
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(1));
    await user.click(chats().getByRole('button', { name: /^Weather in Brno/ }));
    expect(await transcript().findByText('Sunny, and a discount on umbrellas nowhere.')).toBeTruthy();
    expect(
      chats()
        .getByRole('button', { name: /^Weather in Brno/ })
        .getAttribute('aria-current'),
    ).toBe('true');

    await user.clear(searchBox());
    await user.type(searchBox(), 'charlie');
    expect(await chats().findByText('No chats match')).toBeTruthy();
    expect(chats().queryAllByRole('listitem')).toHaveLength(0);

    // Escape clears the search (the full list is back) and stays on the chat.
    await user.keyboard('{Escape}');
    expect(searchBox().value).toBe('');
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(3));
    expect(chats().queryByText('No chats match')).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    // Every search went to main with the typed text; none with an empty query.
    expect(backend.callsOf('agents.searchThreads').every((request) => request.query.trim() !== '')).toBe(true);
  });

  it('searches once typing pauses: one request for what was typed last (on a fake clock)', async () => {
    const backend = backendWithThreads();
    render(
      <I18nProvider setting="en">
        <ThreadList api={backend.api} agentId="agent-x" entries={[]} currentId={undefined} newChat={{ onClick: () => undefined }} onOpen={() => undefined} />
      </I18nProvider>,
    );
    vi.useFakeTimers();
    try {
      for (const typed of ['a', 'al', 'alf', 'alfa']) {
        fireEvent.change(searchBox(), { target: { value: typed } });
        act(() => vi.advanceTimersByTime(searchDelayMs - 1));
      }
      expect(backend.callsOf('agents.searchThreads')).toEqual([]);
      act(() => vi.advanceTimersByTime(1));
      expect(backend.callsOf('agents.searchThreads')).toEqual([{ agentId: 'agent-x', query: 'alfa' }]);
      // Cleared before the pause ends: nothing is asked.
      fireEvent.change(searchBox(), { target: { value: 'bravo' } });
      fireEvent.change(searchBox(), { target: { value: '' } });
      act(() => vi.advanceTimersByTime(searchDelayMs * 2));
      expect(backend.callsOf('agents.searchThreads')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says why a search failed', async () => {
    const backend = backendWithThreads();
    const { user } = await openDemo(backend);
    backend.failNext('agents.searchThreads', { code: 'invalid_request', message: 'The query is too long.' });
    await user.type(searchBox(), 'x');
    expect(await chats().findByText(/The search failed\./)).toBeTruthy();
  });
});

describe('the agents’ kinds in the sidebar', () => {
  it('shows what an added agent turned out to speak once it was opened (and, while open, how it is), and keeps the kind after leaving it', async () => {
    const backend = createFakeBackend();
    backend.state.agents = [
      { id: 'agent-t', url: 'https://talkie.example.com', display: 'talkie.example.com', addedAt: '2026-10-01T00:00:00Z' },
      { id: 'agent-c', url: 'https://workshop.example.com', display: 'workshop.example.com', addedAt: '2026-10-01T00:00:00Z' },
    ];
    backend.state.agentCallAgents = ['agent-c'];
    agentCallMain(backend);
    const { user } = await renderApp({ backend });
    const entry = (name: string) => sidebar().getByRole('button', { name: new RegExp(`^${name}`) });
    expect(entry('talkie.example.com').textContent).toContain('Agent');
    await user.click(entry('talkie.example.com'));
    await waitFor(() => expect(entry('talkie.example.com').textContent).toContain('Chat assistant · cannot connect')); // this fake has no Talkie server there
    await user.click(entry('workshop.example.com'));
    await waitFor(() => expect(entry('workshop.example.com').textContent).toMatch(/Objects and photos · (connecting…|connected)$/));
    // The first one is no longer open; its kind stays known.
    expect(entry('talkie.example.com').textContent).toMatch(/Chat assistant$/);
  });
});

describe('other agents under their entry', () => {
  it('a plain AG-UI agent: its threads by their first message, the open one marked; an earlier one opens, one is deleted', async () => {
    const backend = createFakeBackend();
    const older = addUserMessage(createThread('thread-older'), { id: 'u-older', text: 'Deploy the staging stack' });
    const open = addUserMessage(createThread('thread-open'), { id: 'u-open', text: 'Plan the network' });
    backend.state.agui[builtInAguiDemoId] = { endpoint: 'http://127.0.0.1:4000/agui', hasToken: false, forwardedProps: '{}', thread: open };
    backend.state.aguiEarlier[builtInAguiDemoId] = [older];
    const { user } = await renderApp({ backend });
    await user.click(sidebar().getByRole('button', { name: 'Demo: an agent at work' }));
    const list = await screen.findByRole('navigation', { name: 'Chats' });
    expect(sidebar().getByRole('button', { name: 'Demo: an agent at work' }).closest('li')!.contains(list)).toBe(true);
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(2));
    expect(chats().getByRole('button', { name: 'Plan the network' }).getAttribute('aria-current')).toBe('true');
    expect(screen.queryByRole('button', { name: 'New thread' })).toBeNull();

    await user.click(chats().getByRole('button', { name: 'Deploy the staging stack' }));
    expect(await within(screen.getByRole('log', { name: 'Conversation' })).findByText('Deploy the staging stack')).toBeTruthy();
    expect(backend.callsOf('agui.openThread')).toEqual([{ agentId: builtInAguiDemoId, threadId: 'thread-older' }]);
    await waitFor(() => expect(chats().getByRole('button', { name: 'Deploy the staging stack' }).getAttribute('aria-current')).toBe('true'));

    await user.click(chats().getByRole('button', { name: 'Delete Plan the network' }));
    await user.click(chats().getByRole('button', { name: 'Yes, delete Plan the network' }));
    await waitFor(() => expect(chats().getAllByRole('listitem')).toHaveLength(1));
    expect(backend.callsOf('agui.deleteThread')).toEqual([{ agentId: builtInAguiDemoId, threadId: 'thread-open' }]);
  });

  it('an AgentCall agent: its live session, no chats', async () => {
    const { user, backend } = await renderApp();
    agentCallMain(backend);
    await user.click(sidebar().getByRole('button', { name: 'Demo: objects and photos' }));
    const entry = sidebar().getByRole('button', { name: 'Demo: objects and photos' }).closest('li')!;
    await waitFor(() => expect(entry.textContent).toMatch(/Live session · (connecting…|connected)/));
    expect(screen.queryByRole('navigation', { name: 'Chats' })).toBeNull();
  });
});
