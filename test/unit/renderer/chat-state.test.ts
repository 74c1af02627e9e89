import { describe, expect, it } from 'vitest';
import { builtInDemoAgentId, type EventPayload } from '../../../src/shared/ipc/contract';
import type { Action } from '../../../src/shared/talkie/content';
import type { ConversationItem, RunUpdate } from '../../../src/shared/talkie/conversation';
import { chatReducer, initialChatState, lastUserMessage, maxBufferedEvents, type ChatEvent, type ChatState } from '../../../src/shared/talkie/chat-state';

const at = '2026-03-01T10:00:00.000Z';
const later = '2026-03-01T10:01:00.000Z';

function run(state: ChatState, ...events: ChatEvent[]): ChatState {
  return events.reduce(chatReducer, state);
}

function update(runKey: string, value: RunUpdate): ChatEvent {
  return { type: 'run.event', event: { kind: 'update', payload: { agentId: builtInDemoAgentId, runKey, update: value } }, at };
}

function ended(runKey: string, outcome: EventPayload<'talkie.runEnded'>['outcome'], extra: Partial<EventPayload<'talkie.runEnded'>> = {}): ChatEvent {
  return { type: 'run.event', event: { kind: 'ended', payload: { agentId: builtInDemoAgentId, runKey, outcome, ...extra } }, at };
}

/** A message delivered (attempt 1) and accepted as run-1 of thread t-1. */
function sent(text = 'Hello', state: ChatState = initialChatState()): ChatState {
  return run(state, { type: 'deliver', attempt: 1, messageId: 'm-1', text, at }, { type: 'send.accepted', attempt: 1, runKey: 'run-1', threadId: 't-1', at });
}

function answered(): ChatState {
  return run(
    sent(),
    update('run-1', { type: 'run.started', threadId: 't-1', runId: 'run-1' }),
    update('run-1', { type: 'text.start', messageId: 'a-1' }),
    update('run-1', { type: 'text.delta', messageId: 'a-1', delta: 'Hi' }),
    update('run-1', { type: 'text.end', messageId: 'a-1' }),
    update('run-1', { type: 'run.finished' }),
    ended('run-1', { kind: 'finished' }, { threadId: 't-1' }),
  );
}

function action(overrides: Partial<Action> = {}): Action {
  return {
    id: 'act-1',
    threadId: 't-1',
    summary: 'Send the offer',
    riskLevel: 'low',
    status: 'pending',
    paramsHash: 'sha256:1',
    createdAt: at,
    expiresAt: later,
    buttons: true,
    voice: false,
    ...overrides,
  };
}

const kinds = (state: ChatState) => state.conversation.items.map((item) => `${item.kind}:${item.id}`);

describe('chat state: sending', () => {
  it('a new chat is idle with nothing followed; a reopened thread knows its id', () => {
    expect(initialChatState().run).toBeUndefined();
    expect(initialChatState().conversation.threadId).toBeUndefined();
    expect(initialChatState('t-9').conversation.threadId).toBe('t-9');
  });

  it('deliver shows the message as sending and follows its run; a second deliver meanwhile is ignored', () => {
    const state = run(initialChatState(), { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'Hello', at });
    expect(state.run).toEqual({ attempt: 1, messageId: 'm-1', buffer: [] });
    expect(state.conversation.items).toEqual([{ kind: 'user', id: 'm-1', text: 'Hello', state: 'sending', at }]);
    expect(state.conversation.runState).toBe('running');
    expect(chatReducer(state, { type: 'deliver', attempt: 2, messageId: 'm-2', text: 'Again', at })).toBe(state);
  });

  it('send.accepted gives the run its key and the conversation the thread main assigned', () => {
    const state = sent();
    expect(state.run?.runKey).toBe('run-1');
    expect(state.conversation.threadId).toBe('t-1');
    // A thread already known stays.
    const known = sent('Hi', initialChatState('t-own'));
    expect(known.conversation.threadId).toBe('t-own');
  });

  it('send.failed marks the message failed with the reason; an answer of another attempt changes nothing', () => {
    const delivering = run(initialChatState(), { type: 'deliver', attempt: 3, messageId: 'm-1', text: 'Hello', at });
    const error = { code: 'network_error', message: 'No answer.', retryable: true };
    expect(chatReducer(delivering, { type: 'send.failed', attempt: 2, error })).toBe(delivering);
    const failed = chatReducer(delivering, { type: 'send.failed', attempt: 3, error });
    expect(failed.run).toBeUndefined();
    expect(failed.conversation.items[0]).toMatchObject({ kind: 'user', id: 'm-1', state: 'failed' });
    expect(failed.conversation.runState).toBe('idle');
    expect(failed.failures.get('m-1')).toEqual(error);
    expect(failed.lastFailure).toBe(error);
    // Sent again with the same id: one message, the failure gone.
    const again = chatReducer(failed, { type: 'deliver', attempt: 4, messageId: 'm-1', text: 'Hello', at: later });
    expect(kinds(again)).toEqual(['user:m-1']);
    expect(again.failures.has('m-1')).toBe(false);
    expect(again.conversation.items[0]).toMatchObject({ state: 'sending', at });
  });

  it('events that come before the runKey are buffered and applied in order once it is known (others dropped)', () => {
    const delivering = run(
      initialChatState(),
      { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'Quick', at },
      update('run-1', { type: 'run.started', threadId: 't-1', runId: 'run-1' }),
      update('run-other', { type: 'text.start', messageId: 'x' }),
      update('run-1', { type: 'text.start', messageId: 'a-1' }),
      update('run-1', { type: 'text.delta', messageId: 'a-1', delta: 'Early' }),
    );
    expect(delivering.run?.buffer).toHaveLength(4);
    expect(kinds(delivering)).toEqual(['user:m-1']);
    const accepted = chatReducer(delivering, { type: 'send.accepted', attempt: 1, runKey: 'run-1', threadId: 't-1', at });
    expect(kinds(accepted)).toEqual(['user:m-1', 'assistant:a-1']);
    expect(accepted.conversation.items[1]).toMatchObject({ text: 'Early', streaming: true });
    expect(accepted.run?.buffer).toEqual([]);
  });

  it('a buffered end stops following: buffered events after it are not applied', () => {
    const accepted = run(
      initialChatState(),
      { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'Quick', at },
      ended('run-1', { kind: 'finished' }, { threadId: 't-1' }),
      update('run-1', { type: 'text.start', messageId: 'late' }),
      { type: 'send.accepted', attempt: 1, runKey: 'run-1', threadId: 't-1', at },
    );
    expect(accepted.run).toBeUndefined();
    expect(kinds(accepted)).toEqual(['user:m-1']);
  });

  it('the buffer is bounded', () => {
    let state = run(initialChatState(), { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'Quick', at });
    for (let i = 0; i < maxBufferedEvents + 10; i += 1) state = chatReducer(state, update('run-1', { type: 'text.delta', messageId: 'a', delta: 'x' }));
    expect(state.run?.buffer).toHaveLength(maxBufferedEvents);
  });
});

describe('chat state: streaming and run end', () => {
  it('stream deltas grow one assistant message; other runs are ignored; without a followed run everything is', () => {
    const state = run(
      sent(),
      update('run-1', { type: 'run.started', threadId: 't-1', runId: 'run-1' }),
      update('run-1', { type: 'text.start', messageId: 'a-1' }),
      update('run-1', { type: 'text.delta', messageId: 'a-1', delta: 'Hi, ' }),
      update('run-other', { type: 'text.delta', messageId: 'a-1', delta: 'not mine' }),
      update('run-1', { type: 'text.delta', messageId: 'a-1', delta: 'there' }),
    );
    expect(state.conversation.items[0]).toMatchObject({ kind: 'user', state: 'sent' });
    expect(state.conversation.items[1]).toMatchObject({ kind: 'assistant', text: 'Hi, there', streaming: true });
    const idle = initialChatState();
    expect(chatReducer(idle, update('run-1', { type: 'text.start', messageId: 'a' }))).toBe(idle);
  });

  it('usage updates the meters', () => {
    const usage = [{ label: 'Tokens today', used: 1, limit: 10, unit: 'tokens' }];
    expect(run(sent(), update('run-1', { type: 'usage', usage })).usage).toEqual(usage);
  });

  it('finished: the run is answered and no longer followed', () => {
    const state = answered();
    expect(state.run).toBeUndefined();
    expect(state.conversation.runState).toBe('finished');
    expect(state.conversation.items[1]).toMatchObject({ streaming: false });
  });

  it('error: an error item with the server message (once), the run ends', () => {
    const error = { kind: 'error', code: 'upstream_unavailable', message: 'Down (test).', retryable: true } as const;
    const state = run(
      sent(),
      update('run-1', { type: 'run.started', threadId: 't-1', runId: 'run-1' }),
      update('run-1', { type: 'run.error', code: error.code, message: error.message, retryable: true }),
      ended('run-1', error, { threadId: 't-1' }),
    );
    expect(state.run).toBeUndefined();
    expect(state.conversation.runState).toBe('error');
    expect(state.conversation.items.filter((item) => item.kind === 'error')).toEqual([
      { kind: 'error', id: 'error:run-1', code: error.code, message: error.message, retryable: true, at },
    ]);
    // Only the end said it: the item comes from the end.
    const onlyEnd = run(sent(), ended('run-1', { kind: 'error', message: 'Gone' }));
    expect(onlyEnd.conversation.items.at(-1)).toMatchObject({ kind: 'error', code: 'internal', message: 'Gone', retryable: false });
  });

  it('not_sent: the message is failed with its reason (unauthorized asks for sign-in)', () => {
    const state = run(sent(), ended('run-1', { kind: 'not_sent', code: 'unauthorized', message: 'Sign in again.' }));
    expect(state.conversation.items[0]).toMatchObject({ state: 'failed' });
    expect(state.failures.get('m-1')).toEqual({ code: 'sign_in_required', message: 'Sign in again.' });
    expect(state.lastFailure?.code).toBe('sign_in_required');
    const timeout = run(sent(), ended('run-1', { kind: 'not_sent', code: 'net_timeout', message: 'Late.', retryable: true }));
    expect(timeout.failures.get('m-1')).toEqual({ code: 'server_error', message: 'Late.', retryable: true });
  });

  it('interrupted: the stored thread replaces the transcript (recovered), or the run shows as interrupted', () => {
    const items: ConversationItem[] = [{ kind: 'assistant', id: 'stored', text: 'Whole answer', streaming: false }];
    const recovered = run(sent(), ended('run-1', { kind: 'interrupted', message: 'hang up' }, { threadId: 't-1', items }));
    expect(recovered.conversation.items).toEqual(items);
    expect(recovered.note).toBe('recovered');
    const interrupted = run(sent(), ended('run-1', { kind: 'interrupted', message: 'hang up' }));
    expect(interrupted.conversation.runState).toBe('interrupted');
    expect(interrupted.note).toBe('interrupted');
  });

  it('the end names the thread: it is adopted', () => {
    expect(run(sent(), ended('run-1', { kind: 'finished' }, { threadId: 't-server' })).conversation.threadId).toBe('t-server');
  });
});

describe('chat state: cancel', () => {
  it('cancel.requested only once the run has a key; its answer clears the flag or shows why it failed', () => {
    const delivering = run(initialChatState(), { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'Slow', at });
    expect(chatReducer(delivering, { type: 'cancel.requested' })).toBe(delivering);
    const cancelling = chatReducer(sent(), { type: 'cancel.requested' });
    expect(cancelling.cancelling).toBe(true);
    expect(chatReducer(cancelling, { type: 'cancel.answered', attempt: 1 }).cancelling).toBe(false);
    const error = { code: 'network_error', message: 'No answer.' };
    const failed = chatReducer(cancelling, { type: 'cancel.answered', attempt: 1, error });
    expect(failed).toMatchObject({ cancelling: false, cancelError: error, lastFailure: error });
    // An answer for an earlier delivery changes nothing.
    expect(chatReducer(cancelling, { type: 'cancel.answered', attempt: 7, error })).toBe(cancelling);
  });

  it('the cancelled end keeps the partial text and says Cancelled', () => {
    const state = run(
      chatReducer(sent(), { type: 'cancel.requested' }),
      update('run-1', { type: 'text.start', messageId: 'a-1' }),
      update('run-1', { type: 'text.delta', messageId: 'a-1', delta: 'Part 1.' }),
      ended('run-1', { kind: 'cancelled' }),
    );
    expect(state).toMatchObject({ run: undefined, cancelling: false, note: 'cancelled' });
    expect(state.conversation.runState).toBe('cancelled');
    expect(state.conversation.items[1]).toMatchObject({ text: 'Part 1.', streaming: false });
  });
});

describe('chat state: retry', () => {
  it('retry after a run error drops the error item and sends the last message again with its id', () => {
    const failed = run(sent(), ended('run-1', { kind: 'error', code: 'upstream_unavailable', message: 'Down', retryable: true }));
    const retried = chatReducer(failed, { type: 'deliver', attempt: 2, messageId: 'm-1', text: 'Hello', at: later, dropErrorItem: 'error:' });
    expect(kinds(retried)).toEqual(['user:m-1']);
    expect(retried.run).toMatchObject({ attempt: 2, messageId: 'm-1' });
    expect(retried.conversation.runState).toBe('running');
  });
});

describe('chat state: threads', () => {
  it('thread.open leaves the conversation (nothing followed, failures gone) and shows the thread loading; its answer fills it', () => {
    const failing = run(
      initialChatState(),
      { type: 'deliver', attempt: 1, messageId: 'm-1', text: 'x', at },
      { type: 'send.failed', attempt: 1, error: { code: 'network_error', message: 'x' } },
    );
    const opening = chatReducer(failing, { type: 'thread.open', threadId: 't-2' });
    expect(opening).toMatchObject({ loading: 't-2', run: undefined, generation: 1, editing: undefined });
    expect(opening.failures.size).toBe(0);
    expect(opening.conversation).toEqual({ runState: 'idle', items: [], threadId: 't-2' });
    const items: ConversationItem[] = [{ kind: 'user', id: 'u', text: 'Old', state: 'sent' }];
    const loaded = chatReducer(opening, { type: 'thread.loaded', generation: 1, threadId: 't-2', items });
    expect(loaded.loading).toBeUndefined();
    expect(loaded.conversation.items).toEqual(items);
  });

  it('a thread switch drops the answers of the one left: its load, and its run', () => {
    const first = chatReducer(initialChatState(), { type: 'thread.open', threadId: 't-1' });
    const second = chatReducer(first, { type: 'thread.open', threadId: 't-2' });
    const items: ConversationItem[] = [{ kind: 'user', id: 'u', text: 'From t-1', state: 'sent' }];
    expect(chatReducer(second, { type: 'thread.loaded', generation: first.generation, threadId: 't-1', items })).toBe(second);
    // A run still streaming in the thread left is no longer followed.
    const streaming = sent();
    const left = chatReducer(streaming, { type: 'thread.open', threadId: 't-2' });
    expect(chatReducer(left, update('run-1', { type: 'text.start', messageId: 'a' }))).toBe(left);
    expect(chatReducer(left, { type: 'send.accepted', attempt: 1, runKey: 'run-1', threadId: 't-1', at })).toBe(left);
  });

  it('a thread that fails to load says why', () => {
    const opening = chatReducer(initialChatState(), { type: 'thread.open', threadId: 't-2' });
    const error = { code: 'not_found', message: 'Gone.' };
    expect(chatReducer(opening, { type: 'thread.failed', generation: opening.generation, threadId: 't-2', error })).toMatchObject({
      loading: undefined,
      loadError: { threadId: 't-2', error },
      lastFailure: error,
    });
  });

  it('chat.new empties the conversation; thread.adopt takes a voice session’s thread', () => {
    const cleared = chatReducer(answered(), { type: 'chat.new' });
    expect(cleared.conversation).toEqual({ runState: 'idle', items: [] });
    expect(cleared.generation).toBe(1);
    expect(chatReducer(cleared, { type: 'thread.adopt', threadId: 'v-1' }).conversation.threadId).toBe('v-1');
  });
});

describe('chat state: actions', () => {
  it('a proposed action is added and announced once; a newer version replaces it in place without a second announcement', () => {
    const proposed = run(sent(), update('run-1', { type: 'action', action: action() }));
    expect(kinds(proposed)).toEqual(['user:m-1', 'action:act-1']);
    expect(proposed.announcement).toEqual({ kind: 'newAction', summary: 'Send the offer' });
    const again = chatReducer({ ...proposed, announcement: undefined }, update('run-1', { type: 'action', action: action({ version: 2 } as Partial<Action>) }));
    expect(again.announcement).toBeUndefined();
    expect(kinds(again)).toEqual(['user:m-1', 'action:act-1']);
  });

  it('decided: the action and its updates are shown and announced, the followed run untouched; an answer from a conversation left is dropped', () => {
    const proposed = run(answered(), { type: 'voice.updates', updates: [{ type: 'action', action: action() }], at });
    const card = { id: 'card-1', version: 1, title: 'Done', blocks: [], fallbackText: 'Done' };
    const decided = chatReducer(proposed, { type: 'decided', generation: 0, action: action({ status: 'done' }), updates: [{ type: 'card', card }], at: later });
    expect(decided.conversation.items.find((item) => item.kind === 'action')).toMatchObject({ action: { status: 'done' } });
    expect(kinds(decided)).toContain('card:card-1');
    expect(decided.conversation.runState).toBe('finished');
    expect(decided.announcement).toEqual({ kind: 'actionStatus', summary: 'Send the offer', status: 'done' });
    const moved = chatReducer(proposed, { type: 'chat.new' });
    expect(chatReducer(moved, { type: 'decided', generation: 0, action: action({ status: 'done' }), updates: [], at })).toBe(moved);
    // A voice decision carries no generation: it is always shown.
    expect(chatReducer(moved, { type: 'decided', action: action({ status: 'done' }), updates: [], at }).conversation.items).toHaveLength(1);
  });

  it('action.refreshed announces only a changed status', () => {
    const proposed = run(sent(), update('run-1', { type: 'action', action: action() }));
    const quiet = { ...proposed, announcement: undefined };
    expect(chatReducer(quiet, { type: 'action.refreshed', generation: 0, action: action(), at }).announcement).toBeUndefined();
    expect(chatReducer(quiet, { type: 'action.refreshed', generation: 0, action: action({ status: 'expired' }), at }).announcement).toEqual({
      kind: 'actionStatus',
      summary: 'Send the offer',
      status: 'expired',
    });
  });

  it('cards.refreshed replaces only the cards on screen', () => {
    const card = (id: string, title: string) => ({ id, version: 1, title, blocks: [], fallbackText: title });
    const shown = run(sent(), update('run-1', { type: 'card', card: card('c-1', 'Sending…') }));
    const refreshed = chatReducer(shown, {
      type: 'cards.refreshed',
      generation: 0,
      items: [
        { kind: 'card', id: 'c-1', card: card('c-1', 'Sent') },
        { kind: 'card', id: 'c-2', card: card('c-2', 'Never shown') },
      ],
    });
    expect(kinds(refreshed)).toEqual(['user:m-1', 'card:c-1']);
    expect(refreshed.conversation.items[1]).toMatchObject({ card: { title: 'Sent' } });
  });
});

describe('chat state: voice and announcements', () => {
  it('a spoken line is added once and updated in place; voice updates never change the followed run', () => {
    const hearing = chatReducer(sent(), { type: 'voice.spoken', line: { id: 'v-1', role: 'user', text: '', state: 'hearing' }, at });
    const final = chatReducer(hearing, { type: 'voice.spoken', line: { id: 'v-1', role: 'user', text: 'Search contacts', state: 'final' }, at: later });
    expect(kinds(final)).toEqual(['user:m-1', 'spoken:v-1']);
    expect(final.conversation.items[1]).toMatchObject({ text: 'Search contacts', state: 'final', at });
    const usage = [{ label: 'Voice today', used: 2, limit: 60, unit: 'minutes' }];
    const voiced = chatReducer(final, {
      type: 'voice.updates',
      updates: [
        { type: 'usage', usage },
        { type: 'tool.start', toolCallId: 'tc', label: 'Searching…' },
      ],
      at,
    });
    expect(voiced.usage).toEqual(usage);
    expect(voiced.run).toBe(final.run);
    expect(voiced.conversation.runState).toBe(final.conversation.runState);
  });

  it('announce says the given text', () => {
    expect(chatReducer(initialChatState(), { type: 'announce', text: 'Hello' }).announcement).toEqual({ kind: 'text', text: 'Hello' });
  });
});

describe('chat state: editing the last message', () => {
  it('edit.start picks the last typed message (not a spoken line) and keeps the draft it replaces', () => {
    const state = run(answered(), { type: 'voice.spoken', line: { id: 'v-1', role: 'user', text: 'Spoken', state: 'final' }, at });
    expect(lastUserMessage(state.conversation)?.id).toBe('m-1');
    const editing = chatReducer(state, { type: 'edit.start', previousDraft: 'half a thought' });
    expect(editing.editing).toEqual({ messageId: 'm-1', previousDraft: 'half a thought' });
    // Pressing Edit again keeps the first draft (the composer now holds the message's text).
    expect(chatReducer(editing, { type: 'edit.start', previousDraft: 'Hello' }).editing?.previousDraft).toBe('half a thought');
  });

  it('there is nothing to edit in an empty chat or while a run is going', () => {
    const empty = initialChatState();
    expect(chatReducer(empty, { type: 'edit.start', previousDraft: '' })).toBe(empty);
    const streaming = sent();
    expect(chatReducer(streaming, { type: 'edit.start', previousDraft: '' })).toBe(streaming);
  });

  it('sending from the composer ends the edit as a new message (the earlier exchange stays); a retry does not end it', () => {
    const editing = chatReducer(answered(), { type: 'edit.start', previousDraft: '' });
    const resent = chatReducer(editing, { type: 'deliver', attempt: 2, messageId: 'm-2', text: 'Hello again', at: later, fromComposer: true });
    expect(resent.editing).toBeUndefined();
    expect(kinds(resent)).toEqual(['user:m-1', 'assistant:a-1', 'user:m-2']);
    const retried = chatReducer(editing, { type: 'deliver', attempt: 2, messageId: 'm-1', text: 'Hello', at: later });
    expect(retried.editing).toEqual(editing.editing);
  });

  it('edit.stop and leaving the conversation end the edit', () => {
    const editing = chatReducer(answered(), { type: 'edit.start', previousDraft: '' });
    expect(chatReducer(editing, { type: 'edit.stop' }).editing).toBeUndefined();
    expect(chatReducer(editing, { type: 'chat.new' }).editing).toBeUndefined();
    const idle = initialChatState();
    expect(chatReducer(idle, { type: 'edit.stop' })).toBe(idle);
  });
});
