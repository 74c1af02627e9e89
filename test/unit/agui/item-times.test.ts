import { describe, expect, it } from 'vitest';
import { stampNewItems } from '../../../src/shared/agui/item-times';
import { addUserMessage, applyAguiEvent, beginRun, createThread, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { aguiItemSchema } from '../../../src/shared/agui/thread-persistence';

const threadId = 'thread-1';

/** Folds events as main does: each new item gets the time main received it. */
function fold(view: AguiThreadView, events: { type: string; [key: string]: unknown }[], now: number): AguiThreadView {
  return events.reduce((current, event) => stampNewItems(current, applyAguiEvent(current, event), event.type === 'MESSAGES_SNAPSHOT' ? undefined : now), view);
}

describe('AG-UI item times (main stamps what it receives)', () => {
  it('gives a new item the time it arrived and keeps it while the item streams and ends', () => {
    const started = stampNewItems(createThread(threadId), beginRun(addUserMessage(createThread(threadId), { id: 'u1', text: 'Hi' }), { runId: 'r1' }), 1_000);
    expect(started.items[0]?.at).toBe(1_000);
    let view = fold(
      started,
      [
        { type: 'RUN_STARTED', threadId, runId: 'r1' },
        { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      ],
      2_000,
    );
    view = fold(
      view,
      [
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hello' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
        { type: 'RUN_FINISHED', threadId, runId: 'r1' },
      ],
      9_000,
    );
    expect(view.items.map((item) => [item.id, item.at])).toEqual([
      ['u1', 1_000],
      ['m1', 2_000],
    ]);
  });

  it('gives no time to history a MESSAGES_SNAPSHOT brings, and keeps the times of messages it repeats', () => {
    const started = stampNewItems(createThread(threadId), beginRun(addUserMessage(createThread(threadId), { id: 'u1', text: 'Hi' }), { runId: 'r1' }), 1_000);
    const view = fold(
      started,
      [
        { type: 'RUN_STARTED', threadId, runId: 'r1' },
        {
          type: 'MESSAGES_SNAPSHOT',
          messages: [
            { id: 'old', role: 'assistant', content: 'From before' },
            { id: 'u1', role: 'user', content: 'Hi' },
          ],
        },
      ],
      5_000,
    );
    expect(new Map(view.items.map((item) => [item.id, item.at]))).toEqual(
      new Map([
        ['old', undefined],
        ['u1', 1_000],
      ]),
    );
    expect(view.items.find((item) => item.id === 'old')).not.toHaveProperty('at');
  });

  it('leaves the thread untouched when no item changed, and saves a time within the schema', () => {
    const view = createThread(threadId);
    expect(stampNewItems(view, view, 1)).toBe(view);
    expect(aguiItemSchema.safeParse({ kind: 'user', id: 'u', text: 'x', at: 1_780_000_000_000 }).success).toBe(true);
    expect(aguiItemSchema.safeParse({ kind: 'user', id: 'u', text: 'x', at: -1 }).success).toBe(false);
    expect(aguiItemSchema.safeParse({ kind: 'user', id: 'u', text: 'x', at: 'today' }).success).toBe(false);
  });
});
