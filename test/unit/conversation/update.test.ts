import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import { applyConversationOp, applyConversationOps, conversationOpSchema, diffConversation } from '../../../src/shared/conversation/update';
import { emptyConversationView, type ConversationView } from '../../../src/shared/conversation/view';

const base = emptyConversationView('c-1', 'agent-1', 'agui');
const view = (items: ConversationItem[], status = base.status): ConversationView => ({ ...base, status, items });
const agent = (id: string, text: string, state: 'streaming' | 'done' = 'streaming'): ConversationItem => ({
  kind: 'message',
  id,
  role: 'agent',
  text,
  format: 'markdown',
  state,
});
const user = (id: string, text: string): ConversationItem => ({ kind: 'message', id, role: 'user', text, format: 'plain', state: 'sent' });

describe('diffConversation', () => {
  it('sends nothing for the same view', () => {
    const v = view([user('u1', 'hi'), agent('a1', 'hello')]);
    expect(diffConversation(v, v)).toEqual([]);
    expect(diffConversation(v, { ...v, items: [...v.items] })).toEqual([]);
  });

  it('sends only what a streaming answer appended', () => {
    const before = view([user('u1', 'hi'), agent('a1', 'Hel')]);
    const after = view([user('u1', 'hi'), agent('a1', 'Hello there')]);
    expect(diffConversation(before, after)).toEqual([{ op: 'text', id: 'a1', append: 'lo there' }]);
  });

  it('sends the whole item when more than its text changed', () => {
    const before = view([agent('a1', 'Hello')]);
    const after = view([agent('a1', 'Hello', 'done')]);
    expect(diffConversation(before, after)).toEqual([{ op: 'upsert', item: agent('a1', 'Hello', 'done') }]);
  });

  it('appends new items at the end and anchors one inserted in the middle', () => {
    const before = view([user('u1', 'a'), agent('a1', 'b')]);
    const after = view([user('u1', 'a'), agent('t1', 'tool'), agent('a1', 'b'), user('u2', 'c')]);
    expect(diffConversation(before, after)).toEqual([
      { op: 'upsert', item: agent('t1', 'tool'), after: 'u1' },
      { op: 'upsert', item: user('u2', 'c') },
    ]);
  });

  it('removes items the conversation no longer has (the size bound dropped the oldest)', () => {
    const before = view([user('u1', 'a'), agent('a1', 'b'), user('u2', 'c')]);
    const after = view([user('u2', 'c')]);
    expect(diffConversation(before, after)).toEqual([{ op: 'remove', ids: ['u1', 'a1'] }]);
  });

  it('sends a reordered or another conversation whole', () => {
    const before = view([user('u1', 'a'), agent('a1', 'b')]);
    const reordered = view([agent('a1', 'b'), user('u1', 'a')]);
    expect(diffConversation(before, reordered)).toEqual([{ op: 'reset', view: reordered }]);
    const other = { ...before, conversationId: 'c-2' };
    expect(diffConversation(before, other)).toEqual([{ op: 'reset', view: other }]);
  });

  it('sends a changed status', () => {
    const before = view([]);
    const after = view([], { ...base.status, phase: 'ready', run: 'running' });
    expect(diffConversation(before, after)).toEqual([{ op: 'status', status: after.status }]);
  });
});

describe('applyConversationOp', () => {
  it('refuses an op that does not fit the view, so the renderer asks for the whole view', () => {
    const v = view([user('u1', 'a')]);
    expect(applyConversationOp(v, { op: 'text', id: 'missing', append: 'x' })).toBeUndefined();
    expect(applyConversationOp(v, { op: 'upsert', item: agent('a1', 'x'), after: 'missing' })).toBeUndefined();
    expect(applyConversationOp(v, { op: 'upsert', item: { kind: 'notice', id: 'u1', tone: 'info', code: 'x', message: 'y' } })).toBeUndefined();
    expect(applyConversationOp(v, { op: 'text', id: 'u1', append: '!' })?.items).toEqual([user('u1', 'a!')]);
  });

  it('puts earlier items before the first one, once', () => {
    const v = view([user('u2', 'b')]);
    const next = applyConversationOp(v, { op: 'earlier', items: [user('u1', 'a'), user('u2', 'b')] });
    expect(next?.items.map((item) => item.id)).toEqual(['u1', 'u2']);
  });
});

/** Random conversations: a diff applied to the first gives the second, and every op is valid for IPC. */
describe('diff then apply', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
  const item = fc
    .record({ id: ids, text: fc.string({ maxLength: 6 }), done: fc.boolean() })
    .map(({ id, text, done }) => agent(id, text, done ? 'done' : 'streaming'));
  const items = fc.uniqueArray(item, { selector: (entry) => entry.id, maxLength: 7 });
  it('rebuilds the second view from the first', () => {
    fc.assert(
      fc.property(items, items, fc.boolean(), (a, b, grow) => {
        // Half the time the second view is the first one grown (the common streaming case).
        const second = grow
          ? [
              ...a.map((entry) => (entry.kind === 'message' ? { ...entry, text: `${entry.text}+` } : entry)),
              ...b.filter((entry) => !a.some((old) => old.id === entry.id)),
            ]
          : b;
        const before = view(a);
        const after = view(second);
        const ops = diffConversation(before, after);
        for (const op of ops) expect(conversationOpSchema.safeParse(op).success).toBe(true);
        expect(applyConversationOps(before, ops)).toEqual(after);
      }),
      { numRuns: 2_000 },
    );
  });
});
