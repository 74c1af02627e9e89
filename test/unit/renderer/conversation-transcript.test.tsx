import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import { ConversationStore, type ConversationPort } from '../../../src/renderer/conversation/conversation-store';
import { commonItemViews, Transcript } from '../../../src/renderer/conversation/Transcript';
import { ItemActionsContext } from '../../../src/renderer/conversation/item-actions';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { answer, fakeConversations, FakeConversationSource } from './fake-conversation';

/** The page's port to main's real ConversationService over a driven source, as the preload or the web shell would give it. */
function connect(source: FakeConversationSource) {
  const listeners = new Set<(payload: Parameters<Parameters<ConversationPort['onUpdate']>[0]>[0]) => void>();
  const conversations = fakeConversations((payload) => listeners.forEach((listener) => listener(payload)));
  const service = conversations.service;
  Object.assign(conversations.source('agent-1'), { items: source.items });
  const driven = conversations.source('agent-1');
  const port: ConversationPort = {
    open: (request) => answer(() => service.openConversation(request.agentId, request.threadId === undefined ? {} : { threadId: request.threadId })),
    view: (request) => answer(() => service.view(request.agentId, request.conversationId)),
    send: (request) => answer(() => service.send(request.agentId, request.conversationId, { messageId: request.messageId, text: request.text })),
    unqueue: (request) => answer(() => service.unqueue(request.agentId, request.conversationId, request.messageId)),
    cancel: (request) => answer(() => service.cancel(request.agentId, request.conversationId)),
    earlier: (request) => answer(() => service.earlier(request.agentId, request.conversationId)),
    close: (request) => answer(async () => ({ closed: await service.close(request.agentId) })),
    onUpdate: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { port, source: driven };
}

const settle = () => act(async () => new Promise((resolve) => setTimeout(resolve, 30)));

function Shown({ store }: { store: ConversationStore }) {
  const state = store.getSnapshot();
  return (
    <ItemActionsContext.Provider value={{ unqueue: (id) => void store.unqueue(id) }}>
      <Transcript view={state.status === 'open' ? state.view : undefined} views={commonItemViews} onEarlier={() => store.earlier()} />
    </ItemActionsContext.Provider>
  );
}

describe('the one transcript', () => {
  it('is one log named Conversation that shows the items main sends, kept current by its updates', async () => {
    const given = new FakeConversationSource();
    given.items = [{ kind: 'message', id: 'a:1', role: 'agent', text: 'Hello **there**', format: 'markdown', state: 'done' }];
    const { port, source } = connect(given);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(
      <I18nProvider setting="en">
        <Shown store={store} />
      </I18nProvider>,
    );
    const detach = store.attach();
    store.subscribe(() =>
      view.rerender(
        <I18nProvider setting="en">
          <Shown store={store} />
        </I18nProvider>,
      ),
    );
    const log = await screen.findByRole('log', { name: 'Conversation' });
    await waitFor(() => expect(within(log).getByText('there').tagName).toBe('STRONG'));
    expect(log.getAttribute('aria-live')).toBe('off');
    expect(within(log).getByText('there').tagName).toBe('STRONG');
    // A tool line in words: present while it runs, past once done.
    act(() => source.change((s) => (s.items = [...s.items, { kind: 'tool', id: 't:1', name: '', label: 'Searching contacts…', state: 'running' }])));
    await waitFor(() => expect(within(log).getByText('Searching contacts…')).toBeTruthy());
    act(() =>
      source.change((s) => (s.items = [s.items[0] as ConversationItem, { kind: 'tool', id: 't:1', name: '', label: 'Searching contacts…', state: 'done' }])),
    );
    await waitFor(() => expect(within(log).getByText('Finished searching contacts')).toBeTruthy());
    expect(within(log).queryByText('Searching contacts…')).toBeNull();
    detach();
  });

  it('shows a message typed during an answer as waiting, and Take back removes it before it goes', async () => {
    const given = new FakeConversationSource();
    const { port, source } = connect(given);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(
      <I18nProvider setting="en">
        <Shown store={store} />
      </I18nProvider>,
    );
    store.subscribe(() =>
      view.rerender(
        <I18nProvider setting="en">
          <Shown store={store} />
        </I18nProvider>,
      ),
    );
    store.attach();
    await settle();
    expect(await store.send('first')).toBeUndefined();
    expect(await store.send('second')).toBeUndefined();
    await waitFor(() => expect(screen.getByText('Waiting: sent when the agent has answered')).toBeTruthy());
    await userEvent.click(screen.getByRole('button', { name: 'Take back' }));
    await waitFor(() => expect(screen.queryByText('second')).toBeNull());
    act(() => source.change((s) => (s.status = { phase: 'ready', run: 'idle' })));
    await settle();
    expect(source.sent.map((message) => message.text)).toEqual(['first']);
  });

  it('opens a long conversation on its newest items; Show earlier brings the rest', async () => {
    const given = new FakeConversationSource();
    given.items = Array.from({ length: 210 }, (_, n): ConversationItem => ({
      kind: 'message',
      id: `a:${n}`,
      role: 'agent',
      text: `answer ${n}`,
      format: 'plain',
      state: 'done',
    }));
    const { port } = connect(given);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(
      <I18nProvider setting="en">
        <Shown store={store} />
      </I18nProvider>,
    );
    store.subscribe(() =>
      view.rerender(
        <I18nProvider setting="en">
          <Shown store={store} />
        </I18nProvider>,
      ),
    );
    store.attach();
    await screen.findByText('answer 209');
    expect(screen.queryByText('answer 0')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Show 160 earlier messages' }));
    await screen.findByText('answer 0');
    expect(screen.queryByRole('button', { name: /earlier/ })).toBeNull();
  }, 30_000);
});
