import { EventType } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import { applySessionUpdate, emptySessionView, type SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { applyAguiEvent, addUserMessage as addAguiUser, beginRun, createThread, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { conversationItemSchema } from '../../../src/shared/conversation/items';
import { createAgentCallProjector } from '../../../src/shared/conversation/project-agentcall';
import { createAguiProjector, humanize, readableActivity } from '../../../src/shared/conversation/project-agui';
import { createTalkieProjector } from '../../../src/shared/conversation/project-talkie';
import { addUserMessage, applyUpdate, emptyConversation, type RunUpdate } from '../../../src/shared/talkie/conversation';

function aguiThread(events: object[]): AguiThreadView {
  let thread = addAguiUser(createThread('t1'), { id: 'm1', text: 'Plan it' });
  thread = beginRun(thread, { runId: 'r1' });
  for (const event of events) thread = applyAguiEvent(thread, event);
  return thread;
}

describe('AG-UI projection', () => {
  const events = [
    { type: EventType.RUN_STARTED, threadId: 't1', runId: 'r1' },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'a1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: 'Planning' },
    { type: EventType.TOOL_CALL_START, toolCallId: 'tc1', toolCallName: 'plan', parentMessageId: 'a1' },
    { type: EventType.TOOL_CALL_ARGS, toolCallId: 'tc1', delta: '{"dir":"."}' },
    { type: EventType.TOOL_CALL_END, toolCallId: 'tc1' },
    {
      type: EventType.ACTIVITY_SNAPSHOT,
      messageId: 'act1',
      activityType: 'iac-code.checks',
      content: { title: 'Policy checks', checks: [{ name: 'naming', status: 'passed' }] },
    },
  ];

  it('shows every item as a conversation item, valid for IPC, with unique ids', () => {
    const project = createAguiProjector();
    const { items, status } = project(aguiThread(events));
    expect(items.map((item) => item.kind)).toEqual(['message', 'message', 'tool', 'activity']);
    for (const item of items) expect(conversationItemSchema.safeParse(item).success).toBe(true);
    expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
    expect(items[1]).toMatchObject({ role: 'agent', text: 'Planning', state: 'streaming', format: 'markdown' });
    expect(items[2]).toMatchObject({ kind: 'tool', name: 'plan', state: 'running' });
    expect(items[3]).toMatchObject({ kind: 'activity', title: 'Policy checks', text: '• naming — passed' });
    expect(status).toMatchObject({ phase: 'ready', run: 'running', threadId: 't1' });
  });

  it('keeps the object of an unchanged item, so the diff skips it', () => {
    const project = createAguiProjector();
    const thread = aguiThread(events);
    const first = project(thread);
    const next = applyAguiEvent(thread, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: '…' });
    const second = project(next);
    expect(second.items[0]).toBe(first.items[0]);
    expect(second.items[2]).toBe(first.items[2]);
    expect(second.items[1]).not.toBe(first.items[1]);
  });

  it('puts the open questions last and says the conversation waits', () => {
    const thread = aguiThread([
      { type: EventType.RUN_STARTED, threadId: 't1', runId: 'r1' },
      {
        type: EventType.RUN_FINISHED,
        threadId: 't1',
        runId: 'r1',
        outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'confirmation', message: 'Apply?' }] },
      },
    ]);
    const { items, status } = createAguiProjector()(thread);
    expect(items.at(-1)).toMatchObject({ kind: 'interrupt', interrupts: [{ id: 'i1', message: 'Apply?' }] });
    expect(status.outcome).toBe('waiting');
  });

  it('words an activity for people: its title, or its type made readable', () => {
    expect(humanize('iac-code.checks')).toBe('Checks');
    expect(humanize('lastRunSummary')).toBe('Last run summary');
    expect(readableActivity('deploy.progress', { percent: 40, stage: 'apply' })).toEqual({ title: 'Progress', text: 'Percent: 40\nStage: apply' });
  });
});

describe('AgentCall projection', () => {
  const updates: SessionUpdate[] = [
    { type: 'session.starting', sessionId: 's1', usableModalities: ['nfc', 'photo'], agentRequests: [], focusContext: true },
    { type: 'session.established' },
    {
      type: 'user.observation',
      id: 'o1',
      turn: 1,
      observationId: 'ob1',
      intent: 'identify',
      object: { objectRef: 'urn:agentcall:object:abc', carrier: 'nfc', assurance: 'x' },
    },
    { type: 'run.started', runKey: 'k1' },
    { type: 'speech.segment', runKey: 'k1', segmentId: 's1', text: 'This is' },
    { type: 'text.delta', runKey: 'k1', text: 'This is "Workshop router".' },
    {
      type: 'teaching.proposed',
      proposal: { proposalId: 'p1', objectRef: 'urn:agentcall:object:abc', label: 'Workshop router', confirmText: 'yes', cancelText: 'no' },
    },
    { type: 'run.completed', runKey: 'k1' },
    { type: 'ended', reason: { kind: 'client_end', message: '' } },
    { type: 'ended', reason: { kind: 'client_end', message: '' } },
  ];
  const view = updates.reduce(applySessionUpdate, emptySessionView);

  it('names the scanned object by the label the agent gave it, and never shows speech segments twice', () => {
    const { items } = createAgentCallProjector()(view);
    expect(items.map((item) => item.kind)).toEqual(['observation', 'message', 'teaching', 'ended']);
    expect(items[0]).toMatchObject({ object: { objectRef: 'urn:agentcall:object:abc', label: 'Workshop router' } });
    for (const item of items) expect(conversationItemSchema.safeParse(item).success).toBe(true);
  });

  it("shows a spoken turn as the user's speech with how long it lasted, a failed answer's outcome, and a proposal the end invalidated as ended", () => {
    const call = [
      { type: 'session.starting', sessionId: 's2', usableModalities: [], agentRequests: [], focusContext: true },
      { type: 'session.established' },
      { type: 'user.speech', id: 'audio-1', turn: 1, state: 'hearing' },
      { type: 'user.speech', id: 'audio-1', turn: 1, state: 'final', durationMs: 3_200 },
      { type: 'run.started', runKey: 'k1' },
      { type: 'failure', id: 'f1', runKey: 'k1', code: 'model_unavailable', message: 'No model.' },
      {
        type: 'teaching.proposed',
        proposal: { proposalId: 'p1', objectRef: 'urn:agentcall:object:abc', label: 'Router', confirmText: 'yes', cancelText: 'no' },
      },
    ] satisfies SessionUpdate[];
    const live = call.reduce(applySessionUpdate, emptySessionView);
    const projected = createAgentCallProjector()(live);
    expect(projected.items[0]).toEqual({ kind: 'speech', id: 'userSpeech:audio-1', role: 'user', state: 'final', durationMs: 3_200 });
    expect(projected.status.outcome).toBe('failed');
    const ended = createAgentCallProjector()(applySessionUpdate(live, { type: 'ended', reason: { kind: 'client_end', message: '' } }));
    expect(ended.items.find((item) => item.kind === 'teaching')).toMatchObject({ state: 'ended' });
    for (const item of ended.items) expect(conversationItemSchema.safeParse(item).success).toBe(true);
  });

  it('says the end of a session once', () => {
    const again = applySessionUpdate(view, { type: 'ended', reason: { kind: 'client_end', message: '' } });
    expect(createAgentCallProjector()(again).items.filter((item) => item.kind === 'ended')).toHaveLength(1);
  });
});

describe('Talkie projection', () => {
  it('shows messages, tools, cards and errors with their states', () => {
    let conversation = addUserMessage(emptyConversation, 'm1', 'hi', '2026-12-05T10:00:00Z');
    const updates: RunUpdate[] = [
      { type: 'run.started', threadId: 't1', runId: 'r1' },
      { type: 'tool.start', toolCallId: 'tc', label: 'Searching contacts…' },
      { type: 'tool.end', toolCallId: 'tc', ok: true },
      { type: 'text.start', messageId: 'a1' },
      { type: 'text.delta', messageId: 'a1', delta: 'Found 2.' },
      { type: 'run.error', code: 'rate_limited', message: 'Slow down', retryable: true },
    ];
    for (const update of updates) conversation = applyUpdate(conversation, update);
    const { items, status } = createTalkieProjector()(conversation);
    expect(items.map((item) => [item.kind, 'state' in item ? item.state : undefined])).toEqual([
      ['message', 'sent'],
      ['tool', 'done'],
      ['message', 'done'],
      ['notice', undefined],
    ]);
    expect(items[0]?.at).toBe(Date.parse('2026-12-05T10:00:00Z'));
    expect(items[3]).toMatchObject({ tone: 'error', retryable: true });
    expect(status).toEqual({ run: 'idle', outcome: 'failed', threadId: 't1', dropped: 0 });
  });
});
