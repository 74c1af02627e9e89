import { describe, expect, it } from 'vitest';
import { addUserMessage, aguiLimits, applyAguiEvent, beginRun, createThread, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { aguiThreadUpdateSchema, applyThreadUpdate, diffThread, type AguiThreadUpdate } from '../../../src/shared/agui/thread-update';

const threadId = 'thread-1';

/** What the renderer gets: the update as it crosses IPC (validated, a copy without shared objects). */
const overIpc = (update: AguiThreadUpdate): AguiThreadUpdate => aguiThreadUpdateSchema.parse(JSON.parse(JSON.stringify(update)));

/** Main folds `batches` (one per tick) and sends one update per batch; the renderer applies them to its copy of the base. */
function stream(base: AguiThreadView, batches: readonly (readonly unknown[])[]) {
  let main = base;
  let renderer: AguiThreadView = structuredClone(base);
  const updates: AguiThreadUpdate[] = [];
  for (const batch of batches) {
    const before = main;
    for (const event of batch) main = applyAguiEvent(main, event);
    const update = diffThread(before, main);
    if (update === undefined) continue;
    const sent = overIpc(update);
    updates.push(sent);
    const applied = applyThreadUpdate(renderer, sent);
    if (applied === undefined) throw new Error('the renderer refused an update of its own thread');
    renderer = applied;
  }
  return { main, renderer, updates };
}

const started = (runId = 'run-1') => beginRun(addUserMessage(createThread(threadId), { id: 'u1', text: 'hi' }), { runId });

describe('agui.update: main folds, the renderer applies what changed', () => {
  it('a streamed run: applying every update to the base gives main’s thread; a text delta travels as the text appended', () => {
    const deltas = Array.from({ length: 50 }, (_, index) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `word${index} ` }));
    const { main, renderer, updates } = stream(started(), [
      [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }],
      ...deltas.map((delta) => [delta]),
      [{ type: 'TOOL_CALL_START', toolCallId: 't1', toolCallName: 'plan' }, { type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: '{"a":1}' }, { type: 'TOOL_CALL_END', toolCallId: 't1' }],
      [{ type: 'STATE_SNAPSHOT', snapshot: { step: 1 } }, { type: 'STEP_STARTED', stepName: 'check' }],
      [{ type: 'TOOL_CALL_RESULT', toolCallId: 't1', messageId: 'r1', content: 'done' }, { type: 'STEP_FINISHED', stepName: 'check' }],
      [{ type: 'TEXT_MESSAGE_END', messageId: 'm1' }, { type: 'BOGUS' }, { type: 'RUN_FINISHED', threadId, runId: 'run-1' }],
    ]);
    expect(renderer).toEqual(main);
    expect(main.runState).toBe('finished');
    expect(main.items.map((item) => item.kind)).toEqual(['user', 'text', 'toolCall']);
    const deltaUpdates = updates.slice(1, 51);
    expect(deltaUpdates.map((update) => update.items?.changed)).toEqual(deltas.map((delta) => [{ index: 1, id: 'm1', append: delta.delta }]));
    // Only what changed: a delta sends neither the user's message nor the steps, notes or state.
    expect(Object.keys(deltaUpdates[0]!.set).sort()).toEqual(['eventCount']);
  });

  it('past the item bound the head is dropped, not resent; a messages snapshot that reorders is sent as the items it changed', () => {
    const many = Array.from({ length: aguiLimits.items + 30 }, (_, index) => ({ type: 'ACTIVITY_SNAPSHOT', messageId: `a${index}`, activityType: 'x', content: { n: index } }));
    const batches: unknown[][] = [[{ type: 'RUN_STARTED', threadId, runId: 'run-1' }]];
    for (let index = 0; index < many.length; index += 200) batches.push(many.slice(index, index + 200));
    batches.push([{ type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'u1', role: 'user', content: 'hi' }, { id: 'm9', role: 'assistant', content: 'late' }] }]);
    const { main, renderer, updates } = stream(started(), batches);
    expect(renderer).toEqual(main);
    expect(main.droppedItems).toBeGreaterThan(0);
    const full = updates.find((update) => (update.items?.dropped ?? 0) > 0);
    expect(full!.items!.changed.length).toBeLessThanOrEqual(200);
  });

  it('an update made for another thread state is refused, not applied', () => {
    const base = applyAguiEvent(started(), { type: 'RUN_STARTED', threadId, runId: 'run-1' });
    const next = applyAguiEvent(base, { type: 'TEXT_MESSAGE_START', messageId: 'm1' });
    const update = overIpc(diffThread(base, next)!);
    expect(applyThreadUpdate(structuredClone(base), update)).toEqual(next);
    expect(applyThreadUpdate(started(), update)).toBeUndefined();
    expect(applyThreadUpdate({ ...structuredClone(base), threadId: 'other' }, update)).toBeUndefined();
    expect(diffThread(next, next)).toBeUndefined();
  });

  it('the update schema is strict and bounded', () => {
    const base = applyAguiEvent(started(), { type: 'RUN_STARTED', threadId, runId: 'run-1' });
    const update = diffThread(started(), base)!;
    expect(aguiThreadUpdateSchema.safeParse({ ...update, token: 'x' }).success).toBe(false);
    expect(aguiThreadUpdateSchema.safeParse({ ...update, set: { ...update.set, items: [] } }).success).toBe(false);
    expect(aguiThreadUpdateSchema.safeParse({ ...update, items: { dropped: 0, length: aguiLimits.items + 1, changed: [] } }).success).toBe(false);
    expect(aguiThreadUpdateSchema.safeParse({ ...update, items: { dropped: 0, length: 1, changed: [{ index: 0, id: 'm', append: 'x'.repeat(aguiLimits.textChars + 1) }] } }).success).toBe(false);
  });
});
