import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import { applyConversationOps, type ConversationOp } from '../../../src/shared/conversation/update';
import type { ConversationStatus, ConversationView } from '../../../src/shared/conversation/view';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import { conversationBounds } from '../../../src/shared/conversation/bounds';
import type { ConversationAdapter, ConversationSource } from '../../../src/main/conversation/conversation-source';
import { memoryLogger } from '../../support/logger';

/** A protocol source driven by the test: items and status it is told, the messages it was sent. */
class FakeSource implements ConversationSource {
  readonly protocol = 'agui' as const;
  items: ConversationItem[] = [];
  status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped?: number } = { phase: 'ready', run: 'idle' };
  sent: string[] = [];
  ended = false;
  private listener: (() => void) | undefined;
  snapshot() {
    return { items: this.items, status: this.status };
  }
  subscribe(changed: () => void) {
    this.listener = changed;
    return () => (this.listener = undefined);
  }
  change(apply: (source: this) => void) {
    apply(this);
    this.listener?.();
  }
  async send(message: { messageId: string; text: string }) {
    this.sent.push(message.text);
    this.change((source) => {
      source.items = [...source.items, { kind: 'message', id: `m:${message.messageId}`, role: 'user', text: message.text, format: 'plain', state: 'sent' }];
      source.status = { phase: 'ready', run: 'running' };
    });
  }
  async cancel() {
    return false;
  }
  async end() {
    this.ended = true;
  }
}

function setup(items: ConversationItem[] = []) {
  const source = new FakeSource();
  source.items = items;
  const emitted: { conversationId: string; ops: ConversationOp[] }[] = [];
  const pending: (() => void)[] = [];
  const adapter: ConversationAdapter = { protocol: 'agui', open: async () => source, reset: async () => ({ ended: 0, removedFiles: 0 }) };
  const service = new ConversationService({
    adapters: { agui: adapter, talkie: adapter, agentcall: adapter },
    protocolOf: async () => 'agui',
    emit: (payload) => emitted.push(payload),
    log: memoryLogger(),
    schedule: (run) => pending.push(run),
  });
  const tick = () => {
    while (pending.length > 0) pending.shift()?.();
  };
  return { source, service, emitted, tick };
}

const agentMessage = (n: number, text = `answer ${n}`, state: 'done' | 'streaming' = 'done'): ConversationItem => ({
  kind: 'message',
  id: `a:${n}`,
  role: 'agent',
  text,
  format: 'markdown',
  state,
});

describe('ConversationService', () => {
  it('says whether a conversation is going on and when anything last happened (the updater waits for quiet, issue #28)', async () => {
    const { source, service, tick } = setup();
    expect(service.activity()).toEqual({ busy: false, lastActivityAt: undefined });
    const page = await service.openConversation('agent-1');
    const before = Date.now();
    await service.send('agent-1', page.conversationId, { messageId: 'm1', text: 'hello' });
    tick();
    expect(service.activity()).toEqual({ busy: true, lastActivityAt: expect.any(Number) });
    expect(service.activity().lastActivityAt).toBeGreaterThanOrEqual(before);
    source.change((s) => (s.status = { phase: 'ready', run: 'idle', outcome: 'done' }));
    tick();
    expect(service.activity().busy).toBe(false);
  });

  it('sends the page the view once, then one update per tick with only what changed', async () => {
    const { source, service, emitted, tick } = setup([agentMessage(1)]);
    let page: ConversationView = await service.openConversation('agent-1');
    expect(page.items).toHaveLength(1);
    source.change((s) => (s.items = [...s.items, agentMessage(2, 'Hel', 'streaming')]));
    source.change((s) => (s.items = [s.items[0] as ConversationItem, agentMessage(2, 'Hello', 'streaming')]));
    tick();
    expect(emitted).toHaveLength(1);
    page = applyConversationOps(page, emitted[0]?.ops ?? []) as ConversationView;
    expect(page.items.map((item) => item.kind === 'message' && item.text)).toEqual(['answer 1', 'Hello']);
    source.change((s) => (s.items = [s.items[0] as ConversationItem, agentMessage(2, 'Hello there', 'streaming')]));
    tick();
    expect(emitted[1]?.ops).toEqual([{ op: 'text', id: 'a:2', append: ' there' }]);
  });

  it('opens a long conversation on its newest items and gives earlier ones on request', async () => {
    const items = Array.from({ length: 450 }, (_, n) => agentMessage(n));
    const { service } = setup(items);
    const page = await service.openConversation('agent-1');
    expect(page.items).toHaveLength(conversationBounds.firstWindowItems);
    expect(page.status.earlier).toBe(450 - conversationBounds.firstWindowItems);
    expect(page.items[0]?.id).toBe(`a:${450 - conversationBounds.firstWindowItems}`);
    const first = service.earlier('agent-1', page.conversationId);
    expect(first.items).toHaveLength(conversationBounds.earlierItems);
    expect(first.earlier).toBe(450 - conversationBounds.firstWindowItems - conversationBounds.earlierItems);
    expect(service.earlier('agent-1', page.conversationId)).toMatchObject({ earlier: 0 });
  });

  it('opens a conversation of huge items on no more characters than its window allows (the newest always)', async () => {
    const big = 'x'.repeat(190_000);
    const items = Array.from({ length: 30 }, (_, n) => agentMessage(n, big));
    const { service } = setup(items);
    const page = await service.openConversation('agent-1');
    expect(JSON.stringify(page).length).toBeLessThan(conversationBounds.windowChars + 10_000);
    expect(page.items.at(-1)?.id).toBe('a:29');
    expect(page.status.earlier).toBe(30 - page.items.length);
  });

  it('queues a message typed while the agent answers, shows it as queued, and sends it when the answer ends', async () => {
    const { source, service, emitted, tick } = setup();
    let page = await service.openConversation('agent-1');
    await service.send('agent-1', page.conversationId, { messageId: 'm1', text: 'first' });
    tick();
    expect(await service.send('agent-1', page.conversationId, { messageId: 'm2', text: 'second' })).toEqual({ queued: true });
    tick();
    let applied = 0;
    const catchUp = () => {
      for (; applied < emitted.length; applied++) page = applyConversationOps(page, emitted[applied]?.ops ?? []) as ConversationView;
    };
    catchUp();
    expect(page.items.at(-1)).toMatchObject({ id: 'queued:m2', state: 'queued', text: 'second' });
    expect(source.sent).toEqual(['first']);
    source.change((s) => (s.status = { phase: 'ready', run: 'idle', outcome: 'done' }));
    tick();
    expect(source.sent).toEqual(['first', 'second']);
    catchUp();
    expect(page.items.some((item) => item.id === 'queued:m2')).toBe(false);
    expect(page.items.at(-1)).toMatchObject({ id: 'm:m2', state: 'sent' });
  });

  it('takes back a queued message before it goes', async () => {
    const { source, service, tick } = setup();
    const page = await service.openConversation('agent-1');
    await service.send('agent-1', page.conversationId, { messageId: 'm1', text: 'first' });
    await service.send('agent-1', page.conversationId, { messageId: 'm2', text: 'second' });
    expect(service.unqueue('agent-1', page.conversationId, 'm2')).toEqual({ removed: true });
    source.change((s) => (s.status = { phase: 'ready', run: 'idle' }));
    tick();
    expect(source.sent).toEqual(['first']);
  });

  it("keeps the page's window on the same items while the budget removes the oldest, and counts them", async () => {
    const { source, service, emitted, tick } = setup(Array.from({ length: 60 }, (_, n) => agentMessage(n)));
    let page = await service.openConversation('agent-1');
    expect(page.items[0]?.id).toBe('a:10');
    // The source's bound removes its 5 oldest items (not yet on the page): the page's first item stays a:10.
    source.change((s) => {
      s.items = s.items.slice(5);
      s.status = { ...s.status, dropped: 5 };
    });
    tick();
    for (const update of emitted) page = applyConversationOps(page, update.ops) as ConversationView;
    expect(page.items[0]?.id).toBe('a:10');
    expect(page.status).toMatchObject({ earlier: 5, dropped: 5 });
  });

  it('sends a change too large for one message as the newest window instead', async () => {
    const { source, service, emitted, tick } = setup([agentMessage(0)]);
    await service.openConversation('agent-1');
    const big = 'y'.repeat(150_000);
    source.change((s) => (s.items = [...s.items, ...Array.from({ length: 20 }, (_, n) => agentMessage(n + 1, big))]));
    tick();
    const ops = emitted.at(-1)?.ops ?? [];
    expect(ops).toHaveLength(1);
    expect(ops[0]?.op).toBe('reset');
    expect(JSON.stringify(ops).length).toBeLessThan(conversationBounds.windowChars + 10_000);
  });

  it("opens another thread of the same source on its newest items, not on the old thread's window", async () => {
    const long = Array.from({ length: 300 }, (_, n) => agentMessage(n));
    const { source, service, emitted, tick } = setup(long);
    source.status = { phase: 'ready', run: 'idle', threadId: 't-long' };
    let page: ConversationView = await service.openConversation('agent-1');
    // The user read back to the start of the long thread.
    const earlier = service.earlier('agent-1', page.conversationId);
    page = { ...page, items: [...earlier.items, ...page.items], status: { ...page.status, earlier: earlier.earlier } };
    // The source switches to a short thread (AG-UI's New chat or an earlier thread keeps the conversation).
    source.change((s) => {
      s.items = [agentMessage(1000, 'first of the short thread'), agentMessage(1001, 'second')];
      s.status = { phase: 'ready', run: 'idle', threadId: 't-short' };
    });
    tick();
    for (const update of emitted) page = applyConversationOps(page, update.ops) as ConversationView;
    expect(page.items.map((item) => item.id)).toEqual(['a:1000', 'a:1001']);
    expect(page.status.earlier).toBe(0);
    // And back to a thread as long as the first: its newest window, not its beginning.
    source.change((s) => {
      s.items = long;
      s.status = { phase: 'ready', run: 'idle', threadId: 't-long' };
    });
    tick();
    for (const update of emitted) page = applyConversationOps(page, update.ops) as ConversationView;
    expect(page.items).toHaveLength(conversationBounds.firstWindowItems);
    expect(page.items.at(-1)?.id).toBe('a:299');
  });

  it('opens one source when the page asks twice at once (a reload racing the first open)', async () => {
    const opened: FakeSource[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const adapter: ConversationAdapter = {
      protocol: 'agui',
      open: async () => {
        await gate;
        const source = new FakeSource();
        opened.push(source);
        return source;
      },
      reset: async () => ({ ended: 0, removedFiles: 0 }),
    };
    const service = new ConversationService({
      adapters: { agui: adapter, talkie: adapter, agentcall: adapter },
      protocolOf: async () => 'agui',
      emit: () => undefined,
      log: memoryLogger(),
      schedule: () => undefined,
    });
    const both = Promise.all([service.openConversation('agent-1'), service.openConversation('agent-1')]);
    release();
    const [first, second] = await both;
    expect(opened).toHaveLength(1);
    expect(second.conversationId).toBe(first.conversationId);
    // A new thread asked for while one opens waits for it, then ends it: no source is left behind unended.
    const third = service.openConversation('agent-1', { threadId: 't-2' });
    const fourth = service.openConversation('agent-1', { threadId: 't-3' });
    await Promise.all([third, fourth]);
    expect(opened).toHaveLength(3);
    expect(opened.filter((source) => !source.ended)).toHaveLength(1);
  });

  it('refuses calls for a conversation that is no longer open, and ends every conversation on closeAll', async () => {
    const { source, service } = setup();
    const page = await service.openConversation('agent-1');
    expect(await service.closeAll()).toBe(1);
    expect(source.ended).toBe(true);
    await expect(service.send('agent-1', page.conversationId, { messageId: 'm', text: 'x' })).rejects.toMatchObject({ code: 'session_ended' });
  });
});
