import { EventTypeSchema, MessageSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import {
  addUserMessage,
  aguiLimits,
  applyAguiEvent,
  beginRun,
  createThread,
  groupBySubagent,
  historyMessages,
  markRequestFailed,
  markStreamDropped,
  openInterrupts,
  type AguiItem,
  shownThread,
  type AguiThreadView,
} from '../../../src/shared/agui/run-model';

type Event = Record<string, unknown> & { type: string };
const threadId = 'thread-1';

function fold(events: readonly unknown[], view: AguiThreadView = createThread(threadId)): AguiThreadView {
  return events.reduce<AguiThreadView>((current, event) => applyAguiEvent(current, event), view);
}

/** A run with RUN_STARTED first (and RUN_FINISHED last unless `open`). */
function run(events: readonly Event[], options: { runId?: string; open?: boolean; view?: AguiThreadView } = {}): AguiThreadView {
  const runId = options.runId ?? 'run-1';
  const all: Event[] = [{ type: 'RUN_STARTED', threadId, runId }, ...events];
  if (!options.open) all.push({ type: 'RUN_FINISHED', threadId, runId });
  return fold(all, beginRun(options.view ?? createThread(threadId), { runId }));
}

function item<K extends AguiItem['kind']>(view: AguiThreadView, kind: K, id: string): Extract<AguiItem, { kind: K }> {
  const found = view.items.find((entry) => entry.kind === kind && entry.id === id);
  if (!found) throw new Error(`no ${kind} ${id} in ${JSON.stringify(view.items.map((entry) => `${entry.kind}:${entry.id}`))}`);
  return found as Extract<AguiItem, { kind: K }>;
}

const codes = (view: AguiThreadView) => view.notes.map((note) => note.code);

/** One stream that uses every AG-UI 1.0 event type. */
const everyEvent: Event[] = [
  { type: 'RUN_STARTED', threadId, runId: 'run-1' },
  { type: 'STEP_STARTED', stepName: 'plan' },
  { type: 'REASONING_START', messageId: 'r-span' },
  { type: 'REASONING_MESSAGE_START', messageId: 'r-1', role: 'reasoning' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'Thinking about ' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'it.' },
  { type: 'REASONING_MESSAGE_END', messageId: 'r-1' },
  { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r-1', encryptedValue: 'SECRET-CIPHERTEXT-1' },
  { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r-2', delta: 'More ' },
  { type: 'REASONING_MESSAGE_CHUNK', delta: 'thought.' },
  { type: 'REASONING_END', messageId: 'r-span' },
  { type: 'STEP_FINISHED', stepName: 'plan' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Hello ' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'world' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm-2', delta: 'chunked ' },
  { type: 'TEXT_MESSAGE_CHUNK', delta: 'text' },
  { type: 'TOOL_CALL_START', toolCallId: 't-1', toolCallName: 'deploy', parentMessageId: 'm-1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '{"stack":' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '"web","n":2}' },
  { type: 'TOOL_CALL_END', toolCallId: 't-1' },
  { type: 'TOOL_CALL_RESULT', messageId: 'tm-1', toolCallId: 't-1', content: 'deployed' },
  { type: 'TOOL_CALL_CHUNK', toolCallId: 't-2', toolCallName: 'list', delta: '{"a"' },
  { type: 'TOOL_CALL_CHUNK', delta: ':1}' },
  { type: 'STATE_SNAPSHOT', snapshot: { count: 1, tags: [] } },
  {
    type: 'STATE_DELTA',
    delta: [
      { op: 'replace', path: '/count', value: 2 },
      { op: 'add', path: '/tags/-', value: 'x' },
    ],
  },
  { type: 'ACTIVITY_SNAPSHOT', messageId: 'act-1', activityType: 'PLAN', content: { steps: [{ title: 'a', done: false }] } },
  { type: 'ACTIVITY_DELTA', messageId: 'act-1', activityType: 'PLAN', patch: [{ op: 'replace', path: '/steps/0/done', value: true }] },
  { type: 'SUBAGENT_STARTED', subagentRunId: 'sub-1', name: 'researcher' },
  { type: 'TEXT_MESSAGE_START', messageId: 's-m', subagentRunId: 'sub-1' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 's-m', delta: 'sub text', subagentRunId: 'sub-1' },
  { type: 'TEXT_MESSAGE_END', messageId: 's-m', subagentRunId: 'sub-1' },
  { type: 'SUBAGENT_FINISHED', subagentRunId: 'sub-1' },
  { type: 'SUBAGENT_STARTED', subagentRunId: 'sub-2', name: 'researcher' },
  { type: 'SUBAGENT_ERROR', subagentRunId: 'sub-2', message: 'quota', code: 'quota' },
  { type: 'CUSTOM', name: 'iac-code.pipeline.v1.stack', value: { id: 'stack-a', title: 'Stack A', status: 'CREATE_COMPLETE' } },
  { type: 'CUSTOM', name: 'someone.else.v9', value: { anything: true } },
  { type: 'RAW', event: { provider: 'native' }, source: 'x' },
  { type: 'MESSAGES_SNAPSHOT', messages: [] },
  { type: 'RUN_FINISHED', threadId, runId: 'run-1' },
  { type: 'RUN_ERROR', message: 'after the fact' },
];

describe('every AG-UI 1.0 event type', () => {
  it('the fixture stream covers every type @ag-ui/core defines', () => {
    const used = new Set(everyEvent.map((event) => event.type));
    expect(EventTypeSchema.options.filter((type) => !used.has(type))).toEqual([]);
  });

  it('folds the whole stream without a single invalid or unknown event', () => {
    const withoutSnapshot = everyEvent.filter((event) => event.type !== 'MESSAGES_SNAPSHOT' && event.type !== 'RUN_ERROR');
    const view = fold(withoutSnapshot, beginRun(createThread(threadId), { runId: 'run-1' }));
    expect(view.notes).toEqual([]);
    expect(view.runState).toBe('finished');
    expect(view.eventCount).toBe(withoutSnapshot.length);
    expect(item(view, 'text', 'm-1')).toMatchObject({ text: 'Hello world', streaming: false, role: 'assistant' });
    expect(item(view, 'text', 'm-2')).toMatchObject({ text: 'chunked text', streaming: false });
    expect(item(view, 'reasoning', 'r-1')).toMatchObject({ text: 'Thinking about it.', spanId: 'r-span', streaming: false, encryptedHidden: true });
    expect(item(view, 'reasoning', 'r-2')).toMatchObject({ text: 'More thought.', spanId: 'r-span', streaming: false });
    expect(item(view, 'toolCall', 't-1')).toMatchObject({
      name: 'deploy',
      argsText: '{"stack":"web","n":2}',
      argsStatus: 'json',
      state: 'completed',
      result: { messageId: 'tm-1', text: 'deployed' },
    });
    expect(item(view, 'toolCall', 't-1').argsPretty).toBe('{\n  "stack": "web",\n  "n": 2\n}');
    expect(item(view, 'toolCall', 't-2')).toMatchObject({ name: 'list', argsText: '{"a":1}', argsStatus: 'json', state: 'called' });
    expect(view.steps).toEqual([{ id: expect.any(String), name: 'plan', runId: 'run-1', state: 'finished' }]);
    expect(view.state).toEqual({ count: 2, tags: ['x'] });
    expect(item(view, 'activity', 'act-1')).toMatchObject({ activityType: 'PLAN', content: { steps: [{ title: 'a', done: true }] } });
    expect(view.subagents).toMatchObject([
      { id: 'sub-1', name: 'researcher', state: 'finished' },
      { id: 'sub-2', name: 'researcher', state: 'failed', error: { message: 'quota', code: 'quota' } },
    ]);
    expect(item(view, 'text', 's-m')).toMatchObject({ subagentRunId: 'sub-1', text: 'sub text' });
    expect(item(view, 'custom', 'iac-code.pipeline.v1:stack:stack-a')).toMatchObject({ title: 'Stack A', text: 'CREATE_COMPLETE', label: 'Pipeline' });
    expect(view.items.filter((entry) => entry.kind === 'custom')).toHaveLength(1); // the unknown namespace is ignored
    expect(JSON.stringify(view)).not.toContain('native'); // RAW is ignored
  });

  it('keeps the view plain JSON: a JSON round trip is identical', () => {
    const view = fold(everyEvent, beginRun(createThread(threadId), { runId: 'run-1' }));
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });

  it('keeps encrypted values for the next run’s history where @ag-ui/client puts them, and never in what the renderer gets (events and snapshots)', () => {
    const sealed = run([
      { type: 'REASONING_MESSAGE_START', messageId: 'r-1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'Thinking.' },
      { type: 'REASONING_MESSAGE_END', messageId: 'r-1' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r-1', encryptedValue: 'SECRET-CIPHERTEXT-1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Hello' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'm-1', encryptedValue: 'SECRET-CIPHERTEXT-2' },
      { type: 'TOOL_CALL_START', toolCallId: 't-1', toolCallName: 'deploy', parentMessageId: 'm-1' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 't-1' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: 't-1', encryptedValue: 'SECRET-CIPHERTEXT-3' },
      // A call announced without its message: its implicit assistant message carries the value.
      { type: 'TOOL_CALL_START', toolCallId: 't-2', toolCallName: 'list', parentMessageId: 'm-2' },
      { type: 'TOOL_CALL_END', toolCallId: 't-2' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'm-2', encryptedValue: 'SECRET-CIPHERTEXT-4' },
      // A value for nothing known is noted and not kept (as @ag-ui/client drops it).
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'nobody', encryptedValue: 'SECRET-CIPHERTEXT-5' },
    ]);
    expect(codes(sealed)).toEqual(['encrypted_value_unknown_entity']);
    expect(item(sealed, 'reasoning', 'r-1').encryptedHidden).toBe(true);
    expect(historyMessages(sealed)).toEqual([
      { id: 'r-1', role: 'reasoning', content: 'Thinking.', encryptedValue: 'SECRET-CIPHERTEXT-1' },
      {
        id: 'm-1',
        role: 'assistant',
        content: 'Hello',
        encryptedValue: 'SECRET-CIPHERTEXT-2',
        toolCalls: [{ id: 't-1', type: 'function', function: { name: 'deploy', arguments: '{}' }, encryptedValue: 'SECRET-CIPHERTEXT-3' }],
      },
      {
        id: 'm-2',
        role: 'assistant',
        encryptedValue: 'SECRET-CIPHERTEXT-4',
        toolCalls: [{ id: 't-2', type: 'function', function: { name: 'list', arguments: '' } }],
      },
    ]);
    for (const message of historyMessages(sealed)) expect(MessageSchema.safeParse(message).success).toBe(true);
    // What crosses to the renderer has none of them.
    expect(JSON.stringify(shownThread(sealed))).not.toContain('SECRET-CIPHERTEXT');
    expect(shownThread(sealed)).toEqual({ ...sealed, encryptedValues: undefined });

    const snapshot = run([
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          { id: 'r-x', role: 'reasoning', content: 'visible', encryptedValue: 'SECRET-CIPHERTEXT-6' },
          {
            id: 'a-x',
            role: 'assistant',
            content: 'hi',
            encryptedValue: 'SECRET-CIPHERTEXT-7',
            toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' }, encryptedValue: 'SECRET-CIPHERTEXT-8' }],
          },
        ],
      },
    ]);
    expect(item(snapshot, 'reasoning', 'r-x')).toMatchObject({ text: 'visible', encryptedHidden: true });
    expect(historyMessages(snapshot)).toEqual([
      { id: 'r-x', role: 'reasoning', content: 'visible', encryptedValue: 'SECRET-CIPHERTEXT-6' },
      {
        id: 'a-x',
        role: 'assistant',
        content: 'hi',
        encryptedValue: 'SECRET-CIPHERTEXT-7',
        toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' }, encryptedValue: 'SECRET-CIPHERTEXT-8' }],
      },
    ]);
    expect(JSON.stringify(shownThread(snapshot))).not.toContain('SECRET-CIPHERTEXT');
    // A later snapshot that sends the message again without its value drops the value (and its call's), as @ag-ui/client
    // replaces the message; the reasoning it does not name stays, with its value (a snapshot without reasoning keeps ours).
    const resent = run([{ type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'a-x', role: 'assistant', content: 'hi' }] }], { view: snapshot, runId: 'run-2' });
    expect(historyMessages(resent)).toEqual([
      { id: 'r-x', role: 'reasoning', content: 'visible', encryptedValue: 'SECRET-CIPHERTEXT-6' },
      { id: 'a-x', role: 'assistant', content: 'hi' },
    ]);
    expect(resent.encryptedValues).toEqual([{ subtype: 'message', entityId: 'r-x', value: 'SECRET-CIPHERTEXT-6' }]);
  });

  it('bounds encrypted values: one larger than the limit is noted and not kept; the oldest go beyond the total', () => {
    const reasoning = (id: string, value: string): Event[] => [
      { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' },
      { type: 'REASONING_MESSAGE_END', messageId: id },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: id, encryptedValue: value },
    ];
    const big = run(reasoning('r-big', 'x'.repeat(aguiLimits.encryptedValueChars + 1)));
    expect(codes(big)).toEqual(['encrypted_value_too_large']);
    expect(big.encryptedValues ?? []).toEqual([]);
    const many = Math.floor(aguiLimits.encryptedTotalChars / aguiLimits.encryptedValueChars) + 2;
    const full = run(Array.from({ length: many }, (_, index) => reasoning(`r-${index}`, String(index).padEnd(aguiLimits.encryptedValueChars, '.'))).flat());
    const kept = (full.encryptedValues ?? []).map((entry) => entry.entityId);
    expect(kept.length).toBeLessThan(many);
    expect(kept.at(-1)).toBe(`r-${many - 1}`);
    expect((full.encryptedValues ?? []).reduce((total, entry) => total + entry.value.length, 0)).toBeLessThanOrEqual(aguiLimits.encryptedTotalChars);
  });
});

describe('validation and protocol notes', () => {
  it('turns bad input into notes with stable codes, never a crash, and leaves the view otherwise unchanged', () => {
    const start = run([], { open: true });
    const bad: unknown[] = [
      null,
      'text',
      42,
      [],
      { type: 'HOLOGRAM_START' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'x' },
      { type: 'TEXT_MESSAGE_START', messageId: 7 },
      { type: 'TEXT_MESSAGE_START', messageId: 'x'.repeat(301) },
    ];
    const view = fold(bad, start);
    expect(codes(view)).toEqual([
      'event_not_object',
      'event_not_object',
      'event_not_object',
      'event_not_object',
      'event_unknown_type',
      'event_invalid',
      'event_invalid',
      'event_id_too_long',
    ]);
    expect(view.items).toEqual(start.items);
    expect(view.notes[5]?.message).toContain('TEXT_MESSAGE_CONTENT');
    expect(view.notes[4]).toMatchObject({ eventType: 'HOLOGRAM_START' });
  });

  it('ignores events outside a running run and RUN_STARTED for another thread', () => {
    const idle = fold([{ type: 'TEXT_MESSAGE_START', messageId: 'm' }]);
    expect(codes(idle)).toEqual(['run_not_active']);
    expect(idle.items).toEqual([]);
    const other = fold([{ type: 'RUN_STARTED', threadId: 'elsewhere', runId: 'r' }]);
    expect(codes(other)).toEqual(['run_thread_mismatch']);
    expect(other.runState).toBe('idle');
    const late = run([]);
    expect(codes(applyAguiEvent(late, { type: 'TEXT_MESSAGE_START', messageId: 'late' }))).toEqual(['run_not_active']);
    expect(applyAguiEvent(late, { type: 'RUN_ERROR', message: 'too late' })).toMatchObject({ runState: 'finished', notes: [{ code: 'run_not_active' }] });
    // A server may fail a run before RUN_STARTED: RUN_ERROR is accepted while the request is starting.
    expect(applyAguiEvent(beginRun(createThread(threadId), { runId: 'r' }), { type: 'RUN_ERROR', message: 'no', code: 'bad_input' })).toMatchObject({
      runState: 'error',
      error: { code: 'bad_input' },
    });
  });

  it('notes content for unknown messages and calls', () => {
    const view = run([
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'nope', delta: 'x' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'nope', delta: 'x' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'nope', delta: 'x' },
      { type: 'STEP_FINISHED', stepName: 'never' },
      { type: 'TOOL_CALL_RESULT', messageId: 'tm', toolCallId: 'orphan', content: 'result' },
    ]);
    expect(codes(view)).toEqual(['text_unknown_message', 'tool_unknown_call', 'reasoning_unknown_message', 'step_not_started', 'tool_result_without_call']);
    expect(item(view, 'toolCall', 'orphan')).toMatchObject({ started: false, state: 'completed', result: { text: 'result' } });
    expect(historyMessages(view)).toEqual([{ id: 'tm', role: 'tool', toolCallId: 'orphan', content: 'result' }]);
  });
});

describe('deprecated THINKING_* events (the official Python SDK 0.1.20 still sends them)', () => {
  // The exact shapes ag-ui-protocol's EventEncoder writes (camelCase, None fields left out).
  const thinking: Event[] = [
    { type: 'THINKING_START', title: 'Planning', timestamp: 1764600000000 },
    { type: 'THINKING_TEXT_MESSAGE_START' },
    { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Weighing ' },
    { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'the options.' },
    { type: 'THINKING_TEXT_MESSAGE_END' },
    { type: 'THINKING_TEXT_MESSAGE_START' },
    { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Second thought.' },
    { type: 'THINKING_TEXT_MESSAGE_END' },
    { type: 'THINKING_END' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Done.' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
  ];

  it('reads them as reasoning (as @ag-ui/client does), with one deprecation note per run', () => {
    const view = run(thinking);
    const reasoning = view.items.filter((entry) => entry.kind === 'reasoning');
    expect(reasoning.map((entry) => entry.text)).toEqual(['Weighing the options.', 'Second thought.']);
    expect(
      reasoning.every((entry) => entry.kind === 'reasoning' && !entry.streaming && entry.spanId !== undefined && entry.spanId === reasoning[0]?.spanId),
    ).toBe(true);
    expect(new Set(reasoning.map((entry) => entry.id)).size).toBe(2);
    expect(codes(view)).toEqual(['event_deprecated_thinking']);
    expect(view.notes[0]).toMatchObject({ eventType: 'THINKING_START' });
    expect(view.openSpans).toEqual([]);
    // Reasoning goes back in the history like any other, the text after it too.
    expect(historyMessages(view).map((message) => message.role)).toEqual(['reasoning', 'reasoning', 'assistant']);
    // The next run notes it again, once.
    const again = run(thinking.slice(0, 5), { runId: 'run-2', view });
    expect(codes(again)).toEqual(['event_deprecated_thinking', 'event_deprecated_thinking']);
    expect(again.items.filter((entry) => entry.kind === 'reasoning')).toHaveLength(3);
  });

  it('content without a THINKING_TEXT_MESSAGE_START continues nothing (noted), and outside a run they are ignored', () => {
    const view = run([{ type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'orphan' }, { type: 'THINKING_TEXT_MESSAGE_CONTENT' }]);
    expect(codes(view)).toEqual(['event_deprecated_thinking', 'reasoning_unknown_message', 'event_invalid']);
    expect(view.items).toEqual([]);
    expect(codes(fold([{ type: 'THINKING_START' }]))).toEqual(['run_not_active']);
  });
});

describe('chunks', () => {
  it('a chunk with a new id closes the open one; a chunk without an id continues it', () => {
    const view = run(
      [
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'a', role: 'assistant', delta: 'one' },
        { type: 'TEXT_MESSAGE_CHUNK', delta: ' two' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'b', delta: 'three' },
      ],
      { open: true },
    );
    expect(item(view, 'text', 'a')).toMatchObject({ text: 'one two', streaming: false });
    expect(item(view, 'text', 'b')).toMatchObject({ text: 'three', streaming: true });
    expect(view.openChunks).toEqual([{ kind: 'text', id: 'b' }]);
  });

  it('a standard event in the same lane closes the open chunk stream; RUN_FINISHED closes them all', () => {
    const view = run(
      [
        { type: 'TOOL_CALL_CHUNK', toolCallId: 'c', toolCallName: 'f', delta: '{"x":' },
        { type: 'TOOL_CALL_CHUNK', delta: '1}' },
        { type: 'STEP_STARTED', stepName: 's' },
      ],
      { open: true },
    );
    expect(item(view, 'toolCall', 'c')).toMatchObject({ argsStatus: 'json', state: 'called' });
    expect(view.openChunks).toEqual([]);
    const finished = run([{ type: 'REASONING_MESSAGE_CHUNK', messageId: 'r', delta: 'hm' }]);
    expect(item(finished, 'reasoning', 'r')).toMatchObject({ streaming: false, text: 'hm' });
  });

  it('a first chunk without an id or a first tool chunk without a name is noted', () => {
    const view = run([
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'orphan' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 't', delta: '{}' },
    ]);
    expect(codes(view)).toEqual(['chunk_no_open_stream', 'chunk_missing_name']);
    expect(view.items).toEqual([]);
  });

  it('chunks in two subagent lanes stream side by side; an unattributed chunk with two open lanes is ambiguous', () => {
    const view = run(
      [
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'x', subagentRunId: 's1', delta: 'A1' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'y', subagentRunId: 's2', delta: 'B1' },
        { type: 'TEXT_MESSAGE_CHUNK', subagentRunId: 's1', delta: 'A2' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'y', delta: 'B2' },
        { type: 'TEXT_MESSAGE_CHUNK', delta: '??' },
      ],
      { open: true },
    );
    expect(item(view, 'text', 'x')).toMatchObject({ text: 'A1A2', subagentRunId: 's1' });
    expect(item(view, 'text', 'y')).toMatchObject({ text: 'B1B2', subagentRunId: 's2' });
    expect(codes(view)).toEqual(['chunk_ambiguous']);
  });
});

describe('tool calls', () => {
  it('keeps streamed arguments as text, pretty JSON when they parse, and says when they do not', () => {
    const view = run([
      { type: 'TOOL_CALL_START', toolCallId: 'good', toolCallName: 'f' },
      ...'{"path":"/tmp","recursive":true}'.split('').map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId: 'good', delta })),
      { type: 'TOOL_CALL_END', toolCallId: 'good' },
      { type: 'TOOL_CALL_START', toolCallId: 'bad', toolCallName: 'g' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'bad', delta: '{"unterminated' },
      { type: 'TOOL_CALL_END', toolCallId: 'bad' },
      { type: 'TOOL_CALL_START', toolCallId: 'none', toolCallName: 'h' },
      { type: 'TOOL_CALL_END', toolCallId: 'none' },
    ]);
    expect(item(view, 'toolCall', 'good')).toMatchObject({
      argsText: '{"path":"/tmp","recursive":true}',
      argsStatus: 'json',
      argsPretty: '{\n  "path": "/tmp",\n  "recursive": true\n}',
    });
    expect(item(view, 'toolCall', 'bad')).toMatchObject({ argsText: '{"unterminated', argsStatus: 'invalid' });
    expect(item(view, 'toolCall', 'bad')).not.toHaveProperty('argsPretty');
    expect(item(view, 'toolCall', 'none')).toMatchObject({ argsStatus: 'empty' });
  });

  it('a call still streaming when the run ends is incomplete; arguments after the end are noted', () => {
    const view = run([
      { type: 'TOOL_CALL_START', toolCallId: 'a', toolCallName: 'f' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'a', delta: '{"x":1}' },
    ]);
    expect(item(view, 'toolCall', 'a')).toMatchObject({ state: 'incomplete', argsStatus: 'json' });
    const after = run([
      { type: 'TOOL_CALL_START', toolCallId: 'b', toolCallName: 'f' },
      { type: 'TOOL_CALL_END', toolCallId: 'b' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'b', delta: 'more' },
    ]);
    expect(codes(after)).toEqual(['tool_args_after_end']);
    expect(item(after, 'toolCall', 'b').argsText).toBe('');
  });

  it('summarises multimodal results without keeping media bytes', () => {
    const view = run([
      { type: 'TOOL_CALL_START', toolCallId: 'p', toolCallName: 'shot' },
      { type: 'TOOL_CALL_END', toolCallId: 'p' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'pm',
        toolCallId: 'p',
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', source: { type: 'data', value: 'QkFTRTY0LUJZVEVT', mimeType: 'image/png' } },
        ],
      },
    ]);
    expect(item(view, 'toolCall', 'p').result).toEqual({ messageId: 'pm', text: 'here it is', media: [{ type: 'image', mimeType: 'image/png' }] });
    expect(JSON.stringify(view)).not.toContain('QkFTRTY0LUJZVEVT');
  });
});

describe('state, activity and JSON Patch', () => {
  it('an invalid state patch is a note and leaves the state unchanged', () => {
    const view = run([
      { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } },
      {
        type: 'STATE_DELTA',
        delta: [
          { op: 'replace', path: '/a', value: 2 },
          { op: 'test', path: '/a', value: 3 },
        ],
      },
      { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/missing' }] },
    ]);
    expect(view.state).toEqual({ a: 1 });
    expect(codes(view)).toEqual(['patch_test_failed', 'patch_path_not_found']);
  });

  it('a structurally invalid patch fails @ag-ui/core validation and is noted', () => {
    const view = run([
      { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/b' }] },
    ]);
    expect(codes(view)).toEqual(['event_invalid']);
    expect(view.state).toEqual({ a: 1 });
  });

  it('a delta with no snapshot patches an empty object; too many operations are refused', () => {
    const view = run([{ type: 'STATE_DELTA', delta: [{ op: 'add', path: '/x', value: 1 }] }]);
    expect(view.state).toEqual({ x: 1 });
    const many = Array.from({ length: aguiLimits.patchOperations + 1 }, (_, index) => ({ op: 'add', path: `/k${index}`, value: 1 }));
    const refused = run([{ type: 'STATE_DELTA', delta: many }], { view });
    expect(codes(refused)).toEqual(['patch_too_many_operations']);
    expect(refused.state).toEqual({ x: 1 });
  });

  it('refuses oversized or too deep snapshots', () => {
    let deep: unknown = 1;
    for (let level = 0; level < aguiLimits.jsonDepth + 1; level++) deep = { d: deep };
    const view = run([
      { type: 'STATE_SNAPSHOT', snapshot: { ok: true } },
      { type: 'STATE_SNAPSHOT', snapshot: deep },
      { type: 'STATE_SNAPSHOT', snapshot: 'x'.repeat(aguiLimits.stateChars + 1) },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'T', content: { big: 'x'.repeat(aguiLimits.activityChars) } },
    ]);
    expect(view.state).toEqual({ ok: true });
    expect(codes(view)).toEqual(['state_too_large', 'state_too_large', 'activity_too_large']);
  });

  it('activity: snapshots replace unless replace is false; deltas patch; bad deltas are noted and change nothing', () => {
    const view = run([
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { n: 1 } },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { n: 2 }, replace: false },
      { type: 'ACTIVITY_DELTA', messageId: 'a', activityType: 'PLAN', patch: [{ op: 'add', path: '/m', value: 'x' }] },
      { type: 'ACTIVITY_DELTA', messageId: 'a', activityType: 'PLAN', patch: [{ op: 'replace', path: '', value: [1] }] },
      { type: 'ACTIVITY_DELTA', messageId: 'a', activityType: 'PLAN', patch: [{ op: 'move', from: '/zzz', path: '/y' }] },
      { type: 'ACTIVITY_DELTA', messageId: 'ghost', activityType: 'PLAN', patch: [] },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'b', activityType: 'PLAN', content: { n: 1 } },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'b', activityType: 'PLAN', content: { n: 3 } },
    ]);
    expect(item(view, 'activity', 'a').content).toEqual({ n: 1, m: 'x' });
    expect(item(view, 'activity', 'b').content).toEqual({ n: 3 });
    expect(codes(view)).toEqual(['activity_not_object', 'patch_path_not_found', 'activity_unknown_message']);
    expect(historyMessages(view)).toEqual([]); // activity stays local
  });
});

describe('messages snapshot and history', () => {
  it('replaces the message history and keeps it sendable', () => {
    const before = run([
      { type: 'TEXT_MESSAGE_START', messageId: 'old' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'old', delta: 'stale' },
      { type: 'TEXT_MESSAGE_END', messageId: 'old' },
      { type: 'CUSTOM', name: 'agentdesk.note.v1', value: { text: 'kept' } },
    ]);
    const messages = [
      { id: 'u1', role: 'user', content: 'hi' },
      { id: 'a1', role: 'assistant', content: 'calling', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":1}' } }] },
      { id: 't1', role: 'tool', toolCallId: 'c1', content: 'done' },
      { id: 'a2', role: 'assistant', content: 'all good' },
    ];
    const view = run([{ type: 'MESSAGES_SNAPSHOT', messages }], { runId: 'run-2', view: before });
    // The custom note (its id is the event's ordinal: RUN_STARTED, START, CONTENT, END, CUSTOM) is kept; "old" is gone.
    expect(view.items.map((entry) => `${entry.kind}:${entry.id}`)).toEqual(['custom:agentdesk.note.v1#5', 'user:u1', 'text:a1', 'toolCall:c1', 'text:a2']);
    expect(item(view, 'toolCall', 'c1')).toMatchObject({ argsStatus: 'json', state: 'completed', result: { text: 'done' } });
    const history = historyMessages(view);
    expect(history).toEqual(messages);
    for (const message of history) expect(MessageSchema.safeParse(message).success).toBe(true);
  });

  it('builds the history from a streamed run: user, assistant with tool calls, tool results, reasoning', () => {
    const view = run(
      [
        { type: 'REASONING_MESSAGE_START', messageId: 'r', role: 'reasoning' },
        { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r', delta: 'hm' },
        { type: 'REASONING_MESSAGE_END', messageId: 'r' },
        { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f', parentMessageId: 'a' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c' },
        { type: 'TEXT_MESSAGE_START', messageId: 'a' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'text after the call' },
        { type: 'TEXT_MESSAGE_END', messageId: 'a' },
        { type: 'TOOL_CALL_RESULT', messageId: 'tr', toolCallId: 'c', content: 'ok' },
      ],
      { view: addUserMessage(createThread(threadId), { id: 'u', text: 'please' }) },
    );
    expect(historyMessages(view)).toEqual([
      { id: 'u', role: 'user', content: 'please' },
      { id: 'r', role: 'reasoning', content: 'hm' },
      { id: 'a', role: 'assistant', content: 'text after the call', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { id: 'tr', role: 'tool', toolCallId: 'c', content: 'ok' },
    ]);
  });
});

describe('subagents', () => {
  it('parallel invocations with distinct ids never merge, even with the same name and interleaved events', () => {
    const view = run([
      { type: 'SUBAGENT_STARTED', subagentRunId: 'inv-1', name: 'pipeline' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 'inv-2', name: 'pipeline' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', subagentRunId: 'inv-1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm2', subagentRunId: 'inv-2' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'one', subagentRunId: 'inv-1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'two', subagentRunId: 'inv-2' },
      { type: 'STEP_STARTED', stepName: 'deploy', subagentRunId: 'inv-1' },
      { type: 'STEP_STARTED', stepName: 'deploy', subagentRunId: 'inv-2' },
      { type: 'STEP_FINISHED', stepName: 'deploy', subagentRunId: 'inv-2' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'HIJACK', subagentRunId: 'inv-2' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', subagentRunId: 'inv-2' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f', parentMessageId: 'm1' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'inv-1', outcome: { type: 'suspended', interruptIds: ['i-1'] } },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'inv-2' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 'inv-1', name: 'again' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'ghost' },
    ]);
    expect(item(view, 'text', 'm1')).toMatchObject({ text: 'one', subagentRunId: 'inv-1', streaming: false });
    expect(item(view, 'text', 'm2')).toMatchObject({ text: 'two', subagentRunId: 'inv-2' });
    expect(item(view, 'toolCall', 'c1')).toMatchObject({ subagentRunId: 'inv-1' });
    expect(view.steps.map((step) => [step.subagentRunId, step.state])).toEqual([
      ['inv-1', 'running'],
      ['inv-2', 'finished'],
    ]);
    expect(codes(view)).toEqual(['subagent_mismatch', 'subagent_mismatch', 'subagent_duplicate', 'subagent_unknown']);
    expect(view.subagents).toMatchObject([
      { id: 'inv-1', state: 'suspended', interruptIds: ['i-1'] },
      { id: 'inv-2', state: 'finished' },
    ]);
    const groups = groupBySubagent(view);
    expect(groups.main).toEqual([]);
    expect(groups.subagents.map((group) => [group.subagentRunId, group.items.map((entry) => entry.id)])).toEqual([
      ['inv-1', ['m1', 'c1']],
      ['inv-2', ['m2']],
    ]);
  });
});

describe('custom events, steps and run errors', () => {
  it('renders known namespaces, updates keyed entries in place, ignores unknown ones and notes malformed ones', () => {
    const view = run([
      { type: 'CUSTOM', name: 'iac-code.pipeline.v1.stack', value: { id: 's', title: 'Stack', status: 'CREATING' } },
      { type: 'CUSTOM', name: 'iac-code.pipeline.v1.stack', value: { id: 's', title: 'Stack', status: 'DONE' } },
      { type: 'CUSTOM', name: 'iac-code.pipeline.v1.cleanup', value: 'not an object' },
      { type: 'CUSTOM', name: 'iac-code.pipeline.v10', value: { id: 'x' } },
      { type: 'CUSTOM', name: 'talkie.card', value: { id: 'c' } },
      { type: 'CUSTOM', name: 'agentdesk.note.v1', value: { text: '<b>plain</b>' } },
    ]);
    const customs = view.items.filter((entry) => entry.kind === 'custom');
    expect(customs).toHaveLength(2);
    expect(customs[0]).toMatchObject({ id: 'iac-code.pipeline.v1:stack:s', text: 'DONE' });
    expect(customs[1]).toMatchObject({ title: 'Note', text: '<b>plain</b>' });
    expect(codes(view)).toEqual(['custom_invalid']);
  });

  it('shows RUN_ERROR, ends streams, and keeps earlier content', () => {
    const view = fold([
      { type: 'RUN_STARTED', threadId, runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'partial' },
      { type: 'RUN_ERROR', message: 'model overloaded', code: 'overloaded' },
    ]);
    expect(view.runState).toBe('error');
    expect(view.error).toEqual({ message: 'model overloaded', code: 'overloaded' });
    expect(item(view, 'error', 'error:r')).toMatchObject({ message: 'model overloaded', code: 'overloaded' });
    expect(item(view, 'text', 'm')).toMatchObject({ text: 'partial', streaming: false });
  });

  it('a cancelled outcome, a dropped stream and a failed request are distinct states', () => {
    expect(
      fold([
        { type: 'RUN_STARTED', threadId, runId: 'r' },
        { type: 'RUN_FINISHED', threadId, runId: 'r', outcome: { type: 'cancelled' } },
      ]).runState,
    ).toBe('cancelled');
    const dropped = markStreamDropped(run([{ type: 'TEXT_MESSAGE_START', messageId: 'm' }], { open: true }), 'connection reset');
    expect(dropped).toMatchObject({ runState: 'dropped', error: { code: 'stream_dropped', message: 'connection reset' } });
    expect(item(dropped, 'text', 'm').streaming).toBe(false);
    expect(markRequestFailed(createThread(threadId), { code: 'http_401', message: 'Unauthorized' })).toMatchObject({
      runState: 'error',
      error: { code: 'http_401' },
    });
  });

  it('a step started twice in the same lane is noted', () => {
    const view = run([
      { type: 'STEP_STARTED', stepName: 'a' },
      { type: 'STEP_STARTED', stepName: 'a' },
      { type: 'STEP_FINISHED', stepName: 'a' },
      { type: 'STEP_STARTED', stepName: 'a' },
    ]);
    expect(codes(view)).toEqual(['step_already_running']);
    expect(view.steps.map((step) => step.state)).toEqual(['finished', 'running']);
  });
});

describe('interrupts in the view', () => {
  const interrupting = (runId: string, interrupts: unknown[]) => ({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'interrupt', interrupts } });

  it('RUN_FINISHED with an interrupt outcome opens the interrupts; a resume run closes them when it starts', () => {
    const asked = fold(
      [
        { type: 'RUN_STARTED', threadId, runId: 'r1' },
        interrupting('r1', [
          { id: 'i1', reason: 'confirmation', message: 'Delete the stack?', responseSchema: { type: 'object', properties: { approved: { type: 'boolean' } } } },
          { id: 'i2', reason: 'something_new', expiresAt: '2030-01-01T00:00:00Z' },
          { id: 'i1', reason: 'duplicate' },
        ]),
      ],
      beginRun(createThread(threadId), { runId: 'r1' }),
    );
    expect(asked.runState).toBe('awaitingInput');
    expect(openInterrupts(asked)).toMatchObject([
      { id: 'i1', kind: 'confirmation', runId: 'r1', message: 'Delete the stack?', status: 'open' },
      { id: 'i2', kind: 'generic', reason: 'something_new', expiresAtMs: Date.parse('2030-01-01T00:00:00Z') },
    ]);
    expect(codes(asked)).toEqual(['interrupt_duplicate_id']);

    const resuming = beginRun(asked, {
      runId: 'r2',
      resume: [
        { interruptId: 'i1', status: 'resolved' },
        { interruptId: 'i2', status: 'cancelled' },
      ],
    });
    expect(openInterrupts(resuming)).toHaveLength(2); // not yet: the request may still fail
    expect(openInterrupts(markRequestFailed(resuming, { code: 'network', message: 'down' }))).toHaveLength(2);
    const resumed = applyAguiEvent(resuming, { type: 'RUN_STARTED', threadId, runId: 'r2' });
    expect(openInterrupts(resumed)).toEqual([]);
    expect(resumed.interrupts.map((interrupt) => interrupt.status)).toEqual(['resolved', 'cancelled']);
  });

  it('records what the user answered when the resume run starts: fields in the form’s order, nested labels, no record if the request failed', () => {
    const schema = {
      type: 'object',
      properties: {
        approve: { type: 'boolean', title: 'Approve the change' },
        note: { type: 'string', title: 'Note' },
        target: {
          type: 'object',
          title: 'Target',
          properties: { region: { type: 'string', title: 'Region', enum: ['eu', 'us'] }, replicas: { type: 'integer', title: 'Replicas' } },
        },
        checks: { type: 'array', title: 'Checks', items: { type: 'string', enum: ['cost', 'naming', 'drift'] } },
      },
    };
    const asked = fold(
      [
        { type: 'RUN_STARTED', threadId, runId: 'r1' },
        interrupting('r1', [
          { id: 'i1', reason: 'confirmation', message: 'Apply the plan?', responseSchema: schema },
          { id: 'i2', reason: 'input_required' },
        ]),
      ],
      beginRun(createThread(threadId), { runId: 'r1' }),
    );
    const payload = { approve: true, target: { replicas: 3, region: 'eu' }, checks: ['cost', 'drift'], note: 'x'.repeat(2_000), ignored: 'not in the schema' };
    const resuming = beginRun(asked, {
      runId: 'r2',
      resume: [
        { interruptId: 'i1', status: 'resolved', payload },
        { interruptId: 'i2', status: 'cancelled' },
      ],
    });
    expect(markRequestFailed(resuming, { code: 'network', message: 'down' }).items.filter((item) => item.kind === 'answer')).toEqual([]);
    const resumed = applyAguiEvent(resuming, { type: 'RUN_STARTED', threadId, runId: 'r2' });
    const answers = resumed.items.filter((item) => item.kind === 'answer');
    expect(answers).toEqual([
      {
        kind: 'answer',
        id: 'answer:i1',
        interruptId: 'i1',
        question: 'Apply the plan?',
        status: 'resolved',
        fields: [
          { label: 'Approve the change', value: true },
          { label: 'Note', value: 'x'.repeat(500) },
          { label: 'Target › Region', value: 'eu' },
          { label: 'Target › Replicas', value: 3 },
          { label: 'Checks', value: ['cost', 'drift'] },
        ],
      },
      { kind: 'answer', id: 'answer:i2', interruptId: 'i2', question: 'input_required', status: 'cancelled', fields: [] },
    ]);
    // The record stays through a messages snapshot and is never sent back to the agent as a message.
    const snapshotted = applyAguiEvent(resumed, { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'u1', role: 'user', content: 'apply' }] });
    expect(snapshotted.items.filter((item) => item.kind === 'answer')).toHaveLength(2);
    expect(historyMessages(snapshotted).map((message) => message.id)).toEqual(['u1']);
  });

  it('a later finished run supersedes interrupts that were never answered', () => {
    const asked = fold([{ type: 'RUN_STARTED', threadId, runId: 'r1' }, interrupting('r1', [{ id: 'i1', reason: 'tool_call', toolCallId: 'c' }])]);
    const next = fold(
      [
        { type: 'RUN_STARTED', threadId, runId: 'r2' },
        { type: 'RUN_FINISHED', threadId, runId: 'r2' },
      ],
      asked,
    );
    expect(next.interrupts.map((interrupt) => interrupt.status)).toEqual(['superseded']);
  });

  it('an empty interrupt list is invalid per @ag-ui/core and noted', () => {
    const view = fold([{ type: 'RUN_STARTED', threadId, runId: 'r1' }, interrupting('r1', [])]);
    expect(codes(view)).toEqual(['event_invalid']);
    expect(view.runState).toBe('running');
  });

  it('an oversized response schema is dropped with a note, and the interrupt stays answerable (cancel)', () => {
    const huge = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`field${index}`, { type: 'string', description: 'x'.repeat(20) }])),
    };
    const view = fold([{ type: 'RUN_STARTED', threadId, runId: 'r1' }, interrupting('r1', [{ id: 'i', reason: 'input_required', responseSchema: huge }])]);
    expect(codes(view)).toEqual(['interrupt_schema_dropped']);
    expect(openInterrupts(view)[0]).not.toHaveProperty('responseSchema');
    expect(openInterrupts(view)[0]?.schemaProblem).toContain('larger than');
  });
});

describe('bounds against hostile streams', () => {
  it('100,000 text deltas: the text stops at the bound with one note, and the fold stays fast enough to finish', () => {
    let view = run([{ type: 'TEXT_MESSAGE_START', messageId: 'm' }], { open: true });
    const delta = { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'abcdefghij' };
    for (let index = 0; index < 100_000; index++) view = applyAguiEvent(view, delta);
    expect(item(view, 'text', 'm')).toMatchObject({ truncated: true });
    expect(item(view, 'text', 'm').text).toHaveLength(aguiLimits.textChars);
    expect(codes(view)).toEqual(['text_truncated']);
    expect(view.eventCount).toBe(100_002); // RUN_STARTED, TEXT_MESSAGE_START and the deltas
  }, 60_000);

  it('huge tool arguments are cut at the bound and marked truncated, never parsed', () => {
    let view = run([{ type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f' }], { open: true });
    const chunk = { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: `"${'x'.repeat(65_536)}` };
    for (let index = 0; index < 20; index++) view = applyAguiEvent(view, chunk);
    view = applyAguiEvent(view, { type: 'TOOL_CALL_END', toolCallId: 'c' });
    expect(item(view, 'toolCall', 'c')).toMatchObject({ argsStatus: 'truncated', state: 'called' });
    expect(item(view, 'toolCall', 'c').argsText).toHaveLength(aguiLimits.toolArgsChars);
    expect(codes(view)).toEqual(['tool_args_truncated']);
  });

  it('100,000 distinct messages keep only the latest items; notes are a bounded ring', () => {
    let view = run([], { open: true });
    for (let index = 0; index < 10_000; index++) view = applyAguiEvent(view, { type: 'TEXT_MESSAGE_START', messageId: `m${index}` });
    expect(view.items).toHaveLength(aguiLimits.items);
    expect(view.items[0]?.id).toBe(`m${10_000 - aguiLimits.items}`);
    expect(view.droppedItems).toBe(10_000 - aguiLimits.items);
    for (let index = 0; index < 100_000; index++) view = applyAguiEvent(view, { type: 'BOGUS' });
    expect(view.notes).toHaveLength(aguiLimits.notes);
    expect(view.noteCount).toBe(100_001);
  }, 60_000);

  it('many state deltas keep a bounded state; a growing patch stream stops at the size bound', () => {
    let view = run([{ type: 'STATE_SNAPSHOT', snapshot: { log: [] } }], { open: true });
    const entry = { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/log/-', value: 'y'.repeat(1_000) }] };
    for (let index = 0; index < 1_000; index++) view = applyAguiEvent(view, entry);
    const length = JSON.stringify(view.state).length;
    expect(length).toBeLessThanOrEqual(aguiLimits.stateChars);
    expect(length).toBeGreaterThan(aguiLimits.stateChars - 2_000);
    expect(view.notes.every((note) => note.code === 'patch_result_too_large')).toBe(true);
  }, 60_000);

  it('deeply nested JSON in a custom value or raw event does not crash the fold', () => {
    let deep: unknown = 0;
    for (let level = 0; level < 10_000; level++) deep = [deep];
    const view = run([
      { type: 'RAW', event: deep },
      { type: 'CUSTOM', name: 'iac-code.pipeline.v1', value: { nested: deep } },
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: `${'['.repeat(5_000)}${']'.repeat(5_000)}` },
      { type: 'TOOL_CALL_END', toolCallId: 'c' },
    ]);
    expect(view.runState).toBe('finished');
    expect(item(view, 'toolCall', 'c').argsStatus).toBe('json');
    expect(item(view, 'toolCall', 'c')).not.toHaveProperty('argsPretty');
  });
});
