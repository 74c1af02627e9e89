import { describe, expect, it } from 'vitest';
import { buildResume } from '../../../src/shared/agui/interrupts';
import { addUserMessage, aguiLimits, applyAguiEvent, beginRun, createThread, openInterrupts, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { restoreThread, serializeThread } from '../../../src/shared/agui/thread-persistence';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';

const threadId = 'thread-p';

function fold(view: AguiThreadView, events: unknown[]): AguiThreadView {
  return events.reduce<AguiThreadView>((current, event) => applyAguiEvent(current, event), view);
}

function interruptedThread(): AguiThreadView {
  const start = beginRun(addUserMessage(createThread(threadId), { id: 'u1', text: 'delete the stack' }), { runId: 'r1' });
  return fold(start, [
    { type: 'RUN_STARTED', threadId, runId: 'r1' },
    { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r', delta: 'careful' },
    { type: 'STEP_STARTED', stepName: 'plan' },
    { type: 'STEP_FINISHED', stepName: 'plan' },
    { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'delete_stack' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{"name":"web"}' },
    { type: 'TOOL_CALL_END', toolCallId: 'c' },
    { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { steps: ['x'] } },
    { type: 'STATE_SNAPSHOT', snapshot: { stage: 'confirm' } },
    { type: 'CUSTOM', name: 'agentdesk.note.v1', value: { text: 'hello' } },
    { type: 'BOGUS' },
    {
      type: 'RUN_FINISHED',
      threadId,
      runId: 'r1',
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'i1',
            reason: 'tool_call',
            toolCallId: 'c',
            message: 'Allow delete_stack?',
            responseSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
            expiresAt: '2099-01-01T00:00:00Z',
          },
        ],
      },
    },
  ]);
}

describe('serializeThread / restoreThread', () => {
  it('round-trips a thread with open interrupts, which can be answered after the restart', () => {
    const view = interruptedThread();
    const restored = restoreThread(serializeThread(view));
    expect(restored).toEqual({ ok: true, view });
    if (!restored.ok) return;
    const open = openInterrupts(restored.view);
    expect(open).toMatchObject([{ id: 'i1', kind: 'tool_call', toolCallId: 'c', status: 'open' }]);
    expect(buildResume(open, { i1: { status: 'resolved', payload: { approved: true } } }, Date.parse('2026-01-01T00:00:00Z'))).toMatchObject({
      ok: true,
      resume: [{ interruptId: 'i1', status: 'resolved', payload: { approved: true } }],
    });
  });

  it('keeps the record of the user’s answer across a restart (and refuses one whose fields break the bounds)', () => {
    const resumed = applyAguiEvent(
      beginRun(interruptedThread(), { runId: 'r2', resume: [{ interruptId: 'i1', status: 'resolved', payload: { approved: false } }] }),
      { type: 'RUN_STARTED', threadId, runId: 'r2' },
    );
    const finished = applyAguiEvent(resumed, { type: 'RUN_FINISHED', threadId, runId: 'r2' });
    expect(finished.items.at(-1)).toEqual({
      kind: 'answer',
      id: 'answer:i1',
      interruptId: 'i1',
      question: 'Allow delete_stack?',
      status: 'resolved',
      fields: [{ label: 'approved', value: false }],
    });
    expect(restoreThread(serializeThread(finished))).toEqual({ ok: true, view: finished });
    const tampered = JSON.parse(serializeThread(finished)) as { items: { fields?: unknown[] }[] };
    tampered.items.at(-1)!.fields = [{ label: 'x', value: { nested: 'objects are not answers' } }];
    expect(restoreThread(tampered)).toMatchObject({ ok: false, problems: [{ code: 'thread_invalid' }] });
  });

  it('accepts the already-parsed value as well', () => {
    const view = interruptedThread();
    expect(restoreThread(JSON.parse(serializeThread(view)))).toEqual({ ok: true, view });
  });

  it('a run that was streaming when the app closed comes back as dropped, and an unconfirmed resume is forgotten', () => {
    const asked = interruptedThread();
    const resuming = fold(beginRun(asked, { runId: 'r2', resume: [{ interruptId: 'i1', status: 'cancelled' }] }), []);
    const restoredStarting = restoreThread(serializeThread(resuming));
    expect(restoredStarting.ok && restoredStarting.view).toMatchObject({ runState: 'dropped', error: { code: 'stream_dropped' } });
    expect(restoredStarting.ok && restoredStarting.view).not.toHaveProperty('pendingResume');
    expect(restoredStarting.ok && openInterrupts(restoredStarting.view).map((interrupt) => interrupt.id)).toEqual(['i1']);

    const streaming = fold(beginRun(createThread(threadId), { runId: 'r' }), [
      { type: 'RUN_STARTED', threadId, runId: 'r' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'half' },
      { type: 'TOOL_CALL_START', toolCallId: 't', toolCallName: 'f', subagentRunId: 's' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 't', delta: '{"a":1}', subagentRunId: 's' },
      { type: 'THINKING_START' },
    ]);
    expect(streaming.legacyThinking).toMatchObject({ runId: 'r', spanId: expect.any(String) });
    const restored = restoreThread(serializeThread(streaming));
    expect(restored.ok).toBe(true);
    if (!restored.ok) return;
    expect(restored.view).toMatchObject({ runState: 'dropped', openChunks: [], openSpans: [] });
    // The deprecated THINKING_* bookkeeping belonged to the stream that is gone.
    expect(restored.view).not.toHaveProperty('legacyThinking');
    expect(restored.view.items).toMatchObject([
      { kind: 'text', id: 'm', streaming: false, text: 'half' },
      { kind: 'toolCall', id: 't', state: 'incomplete', argsStatus: 'json' },
    ]);
  });

  it('refuses a corrupt or tampered file with stable codes', () => {
    const good = JSON.parse(serializeThread(interruptedThread())) as Record<string, unknown>;
    expect(restoreThread('{not json')).toMatchObject({ ok: false, problems: [{ code: 'thread_not_json' }] });
    expect(restoreThread({ ...good, version: 4 })).toMatchObject({ ok: false, problems: [{ code: 'thread_invalid', path: '/version' }] });
    expect(restoreThread({ ...good, extra: true })).toMatchObject({ ok: false, problems: [{ code: 'thread_invalid' }] });
    // Encrypted values are kept within their bounds: one too long, or too many characters in all, is refused.
    const sealed = (value: string, entityId = 'x') => ({ subtype: 'message', entityId, value });
    expect(restoreThread({ ...good, encryptedValues: [sealed('y'.repeat(aguiLimits.encryptedValueChars + 1))] })).toMatchObject({
      ok: false,
      problems: [{ code: 'thread_invalid', path: '/encryptedValues/0/value' }],
    });
    const many = Array.from({ length: Math.ceil(aguiLimits.encryptedTotalChars / aguiLimits.encryptedValueChars) + 1 }, (_, index) =>
      sealed('y'.repeat(aguiLimits.encryptedValueChars), `x${index}`),
    );
    expect(restoreThread({ ...good, encryptedValues: many })).toMatchObject({ ok: false, problems: [{ code: 'thread_invalid', path: '/encryptedValues' }] });
    expect(restoreThread({ ...good, items: [{ kind: 'text', id: 'x', role: 'assistant', text: 'y'.repeat(300_000), streaming: false }] })).toMatchObject({
      ok: false,
      problems: [{ code: 'thread_invalid', path: '/items/0/text' }],
    });
    let deep: unknown = 1;
    for (let level = 0; level < 100; level++) deep = { d: deep };
    expect(restoreThread({ ...good, state: deep })).toMatchObject({ ok: false, problems: [{ code: 'thread_invalid', path: '/state' }] });
    expect(restoreThread({ ...good, items: Array.from({ length: 2_001 }, (_, index) => ({ kind: 'user', id: `u${index}`, text: '' })) })).toMatchObject({
      ok: false,
      problems: [{ code: 'thread_invalid', path: '/items' }],
    });
    expect(restoreThread('x'.repeat(16_000_001))).toMatchObject({ ok: false, problems: [{ code: 'thread_too_large' }] });
  });

  it('a thread saved before the conversation bounds (30 answers of 190,000 characters) comes back within them, the oldest removed and counted', () => {
    const items = Array.from({ length: 30 }, (_, index) => ({
      kind: 'text' as const,
      id: `m${index}`,
      role: 'assistant' as const,
      text: `${index}:${'x'.repeat(190_000)}`,
      streaming: false,
    }));
    const saved = serializeThread({ ...createThread(threadId), items, droppedItems: 2 });
    const restored = restoreThread(saved);
    if (!restored.ok) throw new Error(restored.problems[0]?.message);
    expect(itemsChars(restored.view.items)).toBeLessThanOrEqual(conversationBounds.chars);
    expect(restored.view.items.at(-1)?.id).toBe('m29');
    expect(restored.view.droppedItems).toBe(2 + 30 - restored.view.items.length);
    expect(restored.view.items.length).toBeLessThan(30);
  });
});
