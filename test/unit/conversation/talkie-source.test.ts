import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import type { EventName, EventPayload } from '../../../src/shared/ipc/contract';
import { ServiceError } from '../../../src/shared/base/errors';
import type { Action } from '../../../src/shared/talkie/content';
import type { ConversationItem as TalkieItem, RunUpdate } from '../../../src/shared/talkie/conversation';
import type { ServerView } from '../../../src/shared/talkie/ipc-schemas';
import { toolAlreadyRun } from '../../../src/shared/talkie/voice/voice-call';
import { talkieConversationHandlers, voiceFoldLimits } from '../../../src/main/app/talkie-conversation';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationSource } from '../../../src/main/conversation/conversation-source';
import { talkieAdapter, type TalkiePort } from '../../../src/main/conversation/talkie-source';
import type { TalkieServiceTable } from '../../../src/main/talkie/talkie-table';
import { memoryLogger } from '../../support/logger';

const agentId = 'agent-t';

function action(overrides: Partial<Action> = {}): Action {
  return {
    id: 'a1',
    threadId: 't-1',
    summary: 'Send the offer',
    riskLevel: 'medium',
    status: 'pending',
    paramsHash: 'h',
    buttons: true,
    voice: true,
    ...overrides,
  };
}

/** TalkieService as the conversation sees it, with threads the test keeps, and the bus main's events come on. */
function setup(options: { view?: Partial<ServerView> } = {}) {
  const threads: Record<string, TalkieItem[]> = {};
  const listed: string[] = [];
  const sent: { threadId?: string | undefined; messageId: string; text: string }[] = [];
  let runs = 0;
  let sendFailure: ServiceError | undefined;
  const observers = new Map<string, Set<(payload: never) => void>>();
  const port: TalkiePort = {
    connect: async () => ({ signedIn: true, endpointsAccepted: true, ...options.view }) as ServerView,
    thread: async (_agent, threadId) => {
      const items = threads[threadId];
      if (items === undefined) throw new ServiceError('not_found', 'That chat no longer exists.');
      return { threadId, items };
    },
    heldThread: async (agent, threadId) => ({ ...(await port.thread(agent, threadId)), removedItems: 0 }),
    threads: async () => ({ threads: listed.map((id) => ({ id, title: '', channel: 'chat' })) }),
    send: async (_agent, request) => {
      sent.push(request);
      if (sendFailure) {
        const failure = sendFailure;
        sendFailure = undefined;
        throw failure;
      }
      runs += 1;
      return { runKey: `run-${runs}`, threadId: request.threadId ?? `t-${runs}` };
    },
    cancel: async () => ({ cancelled: true }),
    cancelAll: async () => 0,
  };
  const events = {
    observe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      let set = observers.get(event);
      if (set === undefined) observers.set(event, (set = new Set()));
      set.add(listener as (payload: never) => void);
      return () => set.delete(listener as (payload: never) => void);
    },
  };
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const listener of observers.get(event) ?? []) (listener as (payload: EventPayload<E>) => void)(payload);
  };
  const talkie = talkieAdapter(port, events, () => Date.parse('2026-03-02T10:00:00Z'));
  const push = (runKey: string, ...updates: RunUpdate[]) => {
    for (const update of updates) emit('talkie.update', { agentId, runKey, update });
  };
  const end = (runKey: string, outcome: EventPayload<'talkie.runEnded'>['outcome'], threadId = 't-1', items?: TalkieItem[]) =>
    emit('talkie.runEnded', { agentId, runKey, threadId, outcome, ...(items === undefined ? {} : { items }) });
  return { threads, listed, sent, talkie, push, end, failNextSend: (error: ServiceError) => (sendFailure = error) };
}

const ids = (source: ConversationSource) => source.snapshot().items.map((item) => item.id);
const item = (source: ConversationSource, id: string): ConversationItem | undefined => source.snapshot().items.find((entry) => entry.id === id);

describe('a Talkie conversation in main', () => {
  it('opens the thread the agent had open this session, else its newest, and after New chat an empty one', async () => {
    const { threads, listed, talkie } = setup();
    threads['t-new'] = [{ kind: 'user', id: 'm1', text: 'Newest', state: 'sent' }];
    threads['t-old'] = [{ kind: 'user', id: 'm2', text: 'Older', state: 'sent' }];
    listed.push('t-new', 't-old');
    const first = await talkie.open(agentId, {});
    expect(first.snapshot().status.threadId).toBe('t-new');
    await first.end();
    const named = await talkie.open(agentId, { threadId: 't-old' });
    expect(ids(named)).toEqual(['user:m2']);
    await named.end();
    // Coming back to the agent opens the last conversation, not an empty one.
    const again = await talkie.open(agentId, {});
    expect(again.snapshot().status.threadId).toBe('t-old');
    await again.end();
    talkie.startFresh(agentId);
    const fresh = await talkie.open(agentId, {});
    expect(fresh.snapshot().items).toEqual([]);
    expect(fresh.snapshot().status.threadId).toBeUndefined();
  });

  it('opens nothing before the user signed in or accepted the server’s addresses on other sites', async () => {
    await expect(setup({ view: { signedIn: false } }).talkie.open(agentId, {})).rejects.toMatchObject({ code: 'sign_in_required' });
    await expect(setup({ view: { endpointsAccepted: false } }).talkie.open(agentId, {})).rejects.toMatchObject({ code: 'endpoints_not_accepted' });
  });

  it('shows a thread that could not be read as a notice with its error, to retry', async () => {
    const { talkie } = setup();
    const source = await talkie.open(agentId, { threadId: 't-gone' });
    expect(source.snapshot().items).toEqual([
      { kind: 'notice', id: 'load:t-gone', tone: 'error', code: 'not_found', message: 'That chat no longer exists.', retryable: true },
    ]);
    expect(source.snapshot().status.phase).toBe('ready');
  });

  it('sends a message again with its own id and text (Talkie 1 §5), in its place; after a failed answer, its error gives way', async () => {
    const { talkie, sent, push, end } = setup();
    const source = await talkie.open(agentId, {});
    await source.send({ messageId: 'm1', text: 'talkie-test:error' });
    push(
      'run-1',
      { type: 'run.started', threadId: 't-1', runId: 'run-1' },
      { type: 'run.error', code: 'upstream_unavailable', message: 'Unavailable', retryable: true },
    );
    end('run-1', { kind: 'error', code: 'upstream_unavailable', message: 'Unavailable', retryable: true });
    expect(ids(source)).toEqual(['user:m1', 'error:error:run-1']);
    // The page's Retry: the message's id again (the text it sends does not replace the message's).
    await source.send({ messageId: 'm1', text: 'anything' });
    expect(sent.at(-1)).toEqual({ threadId: 't-1', messageId: 'm1', text: 'talkie-test:error' });
    expect(ids(source)).toEqual(['user:m1']);
  });

  it('keeps why a message was not sent on the message, and sends it again in place', async () => {
    const { talkie, sent, failNextSend } = setup();
    const source = await talkie.open(agentId, {});
    failNextSend(new ServiceError('network_error', 'The agent did not answer in time.', undefined, true));
    await source.send({ messageId: 'm1', text: 'Important' });
    expect(item(source, 'user:m1')).toMatchObject({
      state: 'failed',
      error: { code: 'network_error', message: 'The agent did not answer in time.', retryable: true },
    });
    await source.send({ messageId: 'm1', text: 'Important' });
    expect(sent.map((request) => request.messageId)).toEqual(['m1', 'm1']);
    expect(ids(source)).toEqual(['user:m1']);
  });

  it('says when the answer shown is the one the server stored after a dropped stream, until the next message', async () => {
    const { talkie, push, end } = setup();
    const source = await talkie.open(agentId, {});
    await source.send({ messageId: 'm1', text: 'Are you there?' });
    push(
      'run-1',
      { type: 'run.started', threadId: 't-1', runId: 'run-1' },
      { type: 'text.start', messageId: 'half' },
      { type: 'text.delta', messageId: 'half', delta: 'Half an ans' },
    );
    end('run-1', { kind: 'interrupted', message: 'socket hang up' }, 't-1', [
      { kind: 'user', id: 'm1', text: 'Are you there?', state: 'sent' },
      { kind: 'assistant', id: 'stored', text: 'The whole stored answer.', streaming: false },
    ]);
    expect(ids(source)).toEqual(['user:m1', 'assistant:stored', 'note:recovered']);
    expect(item(source, 'note:recovered')).toMatchObject({ kind: 'notice', tone: 'info', code: 'recovered' });
    await source.send({ messageId: 'm2', text: 'Thanks' });
    expect(ids(source)).toEqual(['user:m1', 'assistant:stored', 'user:m2']);
  });
});

describe('what other Talkie methods answered, folded into the open conversation', () => {
  /** The adapter, the conversation service over it, and the folding handlers over a service table the test answers. */
  async function folded(answers: Partial<TalkieServiceTable> = {}) {
    const world = setup();
    world.threads['t-1'] = [
      { kind: 'user', id: 'm1', text: 'Send the offer', state: 'sent' },
      { kind: 'action', id: 'a1', action: action() },
      { kind: 'card', id: 'card_status', card: { id: 'card_status', title: 'Sending', fallbackText: 'Sending; you can still cancel it.' } },
    ];
    world.threads['t-2'] = [{ kind: 'user', id: 'm9', text: 'Another chat', state: 'sent' }];
    world.listed.push('t-1', 't-2');
    const conversations = new ConversationService({
      adapters: { talkie: world.talkie, agui: world.talkie, agentcall: world.talkie },
      protocolOf: async () => 'talkie',
      emit: () => undefined,
      log: memoryLogger(),
      schedule: (run) => run(),
    });
    const table = {
      'talkie.decide': async ({ actionId, decision }) => ({
        action: action({ id: actionId, status: decision === 'confirm' ? 'done' : 'cancelled' }),
        updates: [{ type: 'card', card: { id: 'result', title: 'Offer sent', fallbackText: 'Offer sent.' } }],
      }),
      'talkie.action': async ({ actionId }) => ({ action: action({ id: actionId, status: 'done' }) }),
      'talkie.voiceStart': async () => ({
        callId: 'vc_1',
        threadId: 't-1',
        expiresAt: '2026-03-02T10:01:00Z',
        maxSeconds: 900,
        warnSeconds: 60,
        labels: { search_records: 'Searching the CRM…' },
        consent: { confirm: [], refuse: [] },
        voiceConfirm: true,
      }),
      'talkie.voiceTool': async () => ({
        outcome: 'ok',
        output: 'Found Acme',
        updates: [{ type: 'card', card: { id: 'c_acme', title: 'Acme s.r.o.', fallbackText: 'Acme' } }],
      }),
      'talkie.voiceDecide': async ({ actionId }) => ({ action: action({ id: actionId, status: 'done' }), updates: [] }),
      'talkie.voiceEnd': async () => ({ ended: true }),
      ...answers,
    } as TalkieServiceTable;
    const handlers = talkieConversationHandlers(table, { talkie: world.talkie, conversations });
    const view = () => conversations.view(agentId, current.conversationId);
    let current = await conversations.openConversation(agentId);
    const reopen = async (threadId?: string) => (current = await conversations.openConversation(agentId, threadId === undefined ? {} : { threadId }));
    const shown = () => view().items;
    return { ...world, conversations, handlers, shown, reopen, view };
  }

  it('a decision by button: the action’s new state and its result card, in the conversation that shows it', async () => {
    const { handlers, shown } = await folded();
    await handlers['talkie.decide']({ agentId, actionId: 'a1', decision: 'confirm' });
    expect(shown().find((entry) => entry.id === 'action:a1')).toMatchObject({ action: { status: 'done' } });
    expect(shown().at(-1)).toMatchObject({ kind: 'card', card: { title: 'Offer sent' } });
  });

  it('a decision whose answer comes after the user opened another thread stays out of it', async () => {
    const { handlers, shown, reopen } = await folded();
    await reopen('t-2');
    await handlers['talkie.decide']({ agentId, actionId: 'a1', decision: 'confirm' });
    expect(shown().map((entry) => entry.id)).toEqual(['user:m9']);
  });

  it('an action read again that changed brings the thread’s newer cards (the undo window closed)', async () => {
    const { handlers, shown, threads } = await folded();
    threads['t-1'] = [...threads['t-1']!.slice(0, 2), { kind: 'card', id: 'card_status', card: { id: 'card_status', title: 'Sent', fallbackText: 'Sent.' } }];
    await handlers['talkie.action']({ agentId, actionId: 'a1' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(shown().find((entry) => entry.id === 'action:a1')).toMatchObject({ action: { status: 'done' } });
    expect(shown().find((entry) => entry.id === 'card:card_status')).toMatchObject({ card: { title: 'Sent' } });
    expect(shown()).toHaveLength(3);
  });

  it('a voice call: its thread, a tool’s line as it runs and once done with its card, the lines said, a spoken decision', async () => {
    let finish: (() => void) | undefined;
    const { handlers, shown, reopen } = await folded({
      'talkie.voiceTool': async () => {
        await new Promise<void>((resolve) => (finish = resolve));
        return { outcome: 'ok', output: 'Found Acme', updates: [{ type: 'card', card: { id: 'c_acme', title: 'Acme s.r.o.', fallbackText: 'Acme' } }] };
      },
    });
    await handlers['talkie.newChat']({ agentId });
    await reopen();
    expect(shown()).toEqual([]);
    await handlers['talkie.voiceStart']({ agentId, locale: 'en' });
    const tool = handlers['talkie.voiceTool']({ callId: 'vc_1', providerCallId: 'call_1', name: 'search_records', arguments: '{}' });
    expect(shown()).toEqual([expect.objectContaining({ kind: 'tool', id: 'tool:call_1', label: 'Searching the CRM…', state: 'running' })]);
    finish?.();
    await tool;
    expect(shown().map((entry) => [entry.id, entry.kind === 'tool' ? entry.state : ''])).toEqual([
      ['tool:call_1', 'done'],
      ['card:c_acme', ''],
    ]);
    handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'u1', role: 'user', text: '', state: 'hearing' });
    handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'u1', role: 'user', text: 'Yes, send it', state: 'final' });
    expect(shown().filter((entry) => entry.kind === 'speech')).toEqual([
      expect.objectContaining({ id: 'spoken:u1', role: 'user', text: 'Yes, send it', state: 'final' }),
    ]);
    expect(shown().at(-1)?.id).toBe('spoken:u1');
  });

  it('a voice tool that failed, or that the server had already run, shows its line as failed', async () => {
    const { handlers, shown } = await folded({
      'talkie.voiceTool': async ({ providerCallId }) => {
        if (providerCallId === 'call_2') return { outcome: 'duplicate' };
        throw new ServiceError('not_found', 'This voice call has ended; start a new one.');
      },
    });
    await handlers['talkie.voiceStart']({ agentId });
    await expect(handlers['talkie.voiceTool']({ callId: 'vc_1', providerCallId: 'call_1', name: 'send_offer', arguments: '{}' })).rejects.toThrow();
    await handlers['talkie.voiceTool']({ callId: 'vc_1', providerCallId: 'call_2', name: 'send_offer', arguments: '{}' });
    expect(shown().filter((entry) => entry.kind === 'tool')).toEqual([
      expect.objectContaining({ id: 'tool:call_1', label: 'send_offer', state: 'failed', error: 'This voice call has ended; start a new one.' }),
      expect.objectContaining({ id: 'tool:call_2', state: 'failed', error: toolAlreadyRun }),
    ]);
  });

  it('a call’s lines stay out of another thread, a line of a call main does not know is refused, and a call shows at most so many lines', async () => {
    const { handlers, shown, reopen } = await folded();
    await handlers['talkie.voiceStart']({ agentId });
    await reopen('t-2');
    handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'u1', role: 'user', text: 'Hello', state: 'final' });
    expect(shown().map((entry) => entry.id)).toEqual(['user:m9']);
    expect(() => handlers['talkie.voiceLine']({ callId: 'vc_9', itemId: 'u1', role: 'user', text: 'Hello', state: 'final' })).toThrow(/has ended/);
    for (let line = 1; line < voiceFoldLimits.linesPerCall; line++)
      handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: `l${line}`, role: 'user', text: '', state: 'hearing' });
    expect(() => handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'one-more', role: 'user', text: '', state: 'hearing' })).toThrow(/too many lines/);
    // A line already shown may still change.
    expect(handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'l1', role: 'user', text: 'Now heard', state: 'final' })).toEqual({ shown: true });
    await handlers['talkie.voiceEnd']({ callId: 'vc_1' });
    expect(() => handlers['talkie.voiceLine']({ callId: 'vc_1', itemId: 'l1', role: 'user', text: 'Late', state: 'final' })).toThrow(/has ended/);
  });

  it('a decision spoken in a call reaches the conversation like a button’s', async () => {
    const { handlers, shown } = await folded();
    await handlers['talkie.voiceStart']({ agentId });
    await handlers['talkie.voiceDecide']({ callId: 'vc_1', actionId: 'a1', paramsHash: 'h', decision: 'confirm' });
    expect(shown().find((entry) => entry.id === 'action:a1')).toMatchObject({ action: { status: 'done' } });
  });
});
