import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import type { ConversationStatus } from '../../../src/shared/conversation/view';
import { ok, ServiceError, fail } from '../../../src/shared/ipc/errors';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationAdapter, ConversationSource } from '../../../src/main/conversation/conversation-source';
import { ConversationStore, type ConversationPort } from '../../../src/renderer/conversation/conversation-store';
import { commonItemViews, Transcript } from '../../../src/renderer/conversation/Transcript';
import { ItemActionsContext } from '../../../src/renderer/conversation/item-actions';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { memoryLogger } from '../../support/logger';

class Source implements ConversationSource {
  readonly protocol = 'agui' as const;
  items: ConversationItem[] = [];
  status: Omit<ConversationStatus, 'earlier' | 'dropped'> = { phase: 'ready', run: 'idle' };
  private listener: (() => void) | undefined;
  snapshot() {
    return { items: this.items, status: this.status };
  }
  subscribe(changed: () => void) {
    this.listener = changed;
    return () => (this.listener = undefined);
  }
  change(apply: () => void) {
    apply();
    this.listener?.();
  }
  async send(message: { messageId: string; text: string }) {
    this.change(() => {
      this.items = [...this.items, { kind: 'message', id: `user:${message.messageId}`, role: 'user', text: message.text, format: 'plain', state: 'sent' }];
      this.status = { phase: 'ready', run: 'running' };
    });
  }
  async cancel() {
    return false;
  }
  async end() {}
}

/** The page's port to a real ConversationService, as the preload or the web shell would give it (results wrapped, events delivered). */
function connect(source: Source) {
  const listeners = new Set<(payload: Parameters<Parameters<ConversationPort['onUpdate']>[0]>[0]) => void>();
  const adapter: ConversationAdapter = { protocol: 'agui', open: async () => source };
  const service = new ConversationService({
    adapters: { agui: adapter, talkie: adapter, agentcall: adapter },
    protocolOf: async () => 'agui',
    emit: (payload) => listeners.forEach((listener) => listener(payload)),
    log: memoryLogger(),
  });
  const wrap = async <T,>(run: () => T | Promise<T>) => {
    try {
      return ok(await run());
    } catch (error) {
      return error instanceof ServiceError ? fail(error.code, error.message) : fail('internal', String(error));
    }
  };
  const port: ConversationPort = {
    open: (request) => wrap(() => service.openConversation(request.agentId, request.threadId === undefined ? {} : { threadId: request.threadId })),
    view: (request) => wrap(() => service.view(request.agentId, request.conversationId)),
    send: (request) => wrap(() => service.send(request.agentId, request.conversationId, { messageId: request.messageId, text: request.text })),
    unqueue: (request) => wrap(() => service.unqueue(request.agentId, request.conversationId, request.messageId)),
    cancel: (request) => wrap(() => service.cancel(request.agentId, request.conversationId)),
    earlier: (request) => wrap(() => service.earlier(request.agentId, request.conversationId)),
    close: (request) => wrap(async () => ({ closed: await service.close(request.agentId) })),
    onUpdate: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { port, service };
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
    const source = new Source();
    source.items = [{ kind: 'message', id: 'a:1', role: 'agent', text: 'Hello **there**', format: 'markdown', state: 'done' }];
    const { port } = connect(source);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(
      <I18nProvider setting="en">
        <Shown store={store} />
      </I18nProvider>,
    );
    const detach = store.attach();
    store.subscribe(() => view.rerender(<I18nProvider setting="en"><Shown store={store} /></I18nProvider>));
    await settle();
    const log = screen.getByRole('log', { name: 'Conversation' });
    expect(log.getAttribute('aria-live')).toBe('off');
    expect(within(log).getByText('there').tagName).toBe('STRONG');
    // A tool line in words: present while it runs, past once done.
    act(() => source.change(() => (source.items = [...source.items, { kind: 'tool', id: 't:1', name: '', label: 'Searching contacts…', state: 'running' }])));
    await settle();
    expect(within(log).getByText('Searching contacts…')).toBeTruthy();
    act(() => source.change(() => (source.items = [source.items[0] as ConversationItem, { kind: 'tool', id: 't:1', name: '', label: 'Searching contacts…', state: 'done' }])));
    await settle();
    expect(within(log).getByText('Finished searching contacts')).toBeTruthy();
    expect(within(log).queryByText('Searching contacts…')).toBeNull();
    detach();
  });

  it('shows a message typed during an answer as waiting, and Take back removes it before it goes', async () => {
    const source = new Source();
    const { port } = connect(source);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(<I18nProvider setting="en"><Shown store={store} /></I18nProvider>);
    store.subscribe(() => view.rerender(<I18nProvider setting="en"><Shown store={store} /></I18nProvider>));
    store.attach();
    await settle();
    expect(await store.send('first')).toBeUndefined();
    expect(await store.send('second')).toBeUndefined();
    await settle();
    expect(screen.getByText('Waiting: sent when the agent has answered')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Take back' }));
    await settle();
    expect(screen.queryByText('second')).toBeNull();
    act(() => source.change(() => (source.status = { phase: 'ready', run: 'idle' })));
    await settle();
    expect(source.items.map((item) => (item.kind === 'message' ? item.text : ''))).toEqual(['first']);
  });

  it('opens a long conversation on its newest items; Show earlier brings the rest', async () => {
    const source = new Source();
    source.items = Array.from({ length: 210 }, (_, n): ConversationItem => ({ kind: 'message', id: `a:${n}`, role: 'agent', text: `answer ${n}`, format: 'plain', state: 'done' }));
    const { port } = connect(source);
    const store = new ConversationStore(port, 'agent-1');
    const view = render(<I18nProvider setting="en"><Shown store={store} /></I18nProvider>);
    store.subscribe(() => view.rerender(<I18nProvider setting="en"><Shown store={store} /></I18nProvider>));
    store.attach();
    await settle();
    expect(screen.queryByText('answer 0')).toBeNull();
    expect(screen.getByText('answer 209')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Show 10 earlier messages' }));
    await settle();
    expect(screen.getByText('answer 0')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /earlier/ })).toBeNull();
  }, 30_000);
});
