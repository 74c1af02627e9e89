import { describe, expect, it } from 'vitest';
import { threadItems } from '../../../src/main/talkie/thread-view';

describe('a stored thread (Talkie 1 §9) as conversation items', () => {
  it('keeps what was said in a voice call marked as spoken, and chat messages as they were', () => {
    const view = threadItems({
      thread: { id: 't_voice' },
      messages: [
        { id: 'm1', role: 'user', content: 'Typed question' },
        { id: 'item_1', role: 'user', content: 'Find Acme', channel: 'voice' },
        { id: 'item_2', role: 'assistant', content: 'Two records found.', channel: 'voice', cards: [{ id: 'c1', fallbackText: 'Acme' }] },
        { id: 'item_3', role: 'assistant', content: '', channel: 'voice' },
        { id: 'm2', role: 'assistant', content: 'Typed answer', channel: 'chat' },
      ],
    });
    expect(view?.items).toEqual([
      { kind: 'user', id: 'm1', text: 'Typed question', state: 'sent' },
      { kind: 'spoken', id: 'item_1', role: 'user', text: 'Find Acme', state: 'final' },
      { kind: 'spoken', id: 'item_2', role: 'assistant', text: 'Two records found.', state: 'final' },
      { kind: 'card', id: 'c1', card: { id: 'c1', fallbackText: 'Acme', blocks: [] } },
      { kind: 'assistant', id: 'm2', text: 'Typed answer', streaming: false },
    ]);
  });

  it("carries each message's createdAt onto its items (cards too) and an action's own createdAt; a date that cannot be read is left out", () => {
    const view = threadItems({
      messages: [
        { id: 'm1', role: 'user', content: 'Hello', createdAt: '2026-03-01T09:15:00Z' },
        { id: 'm2', role: 'assistant', content: 'Hi', createdAt: '2026-03-02T10:00:00.000Z', cards: [{ id: 'c1', fallbackText: 'Card' }] },
        { id: 'm3', role: 'assistant', content: 'Undated', createdAt: 'yesterday-ish' },
        { id: 'm4', role: 'assistant', content: 'No time' },
      ],
      actions: [{ id: 'a1', summary: 'Send it', riskLevel: 'low', status: 'pending', paramsHash: 'h', createdAt: '2026-03-02T10:01:00Z' }],
    });
    expect(view?.items.map((item) => [item.id, item.at])).toEqual([
      ['m1', '2026-03-01T09:15:00Z'],
      ['m2', '2026-03-02T10:00:00.000Z'],
      ['c1', '2026-03-02T10:00:00.000Z'],
      ['m3', undefined],
      ['m4', undefined],
      ['a1', '2026-03-02T10:01:00Z'],
    ]);
    expect(view?.items.find((item) => item.id === 'm3')).not.toHaveProperty('at');
  });

  it('rejects a thread whose message time is longer than any date', () => {
    expect(threadItems({ messages: [{ id: 'm1', role: 'user', content: 'x', createdAt: '2'.repeat(41) }] })).toBeUndefined();
  });
});

describe('a reopened thread keeps its order (#26)', () => {
  const action = (id: string, createdAt?: string) => ({
    id,
    summary: `Proposal ${id}`,
    riskLevel: 'low',
    status: 'pending',
    paramsHash: 'h',
    ...(createdAt === undefined ? {} : { createdAt }),
  });

  it('puts each proposed action where it was proposed: after what was said before it, before the messages that came later', () => {
    const view = threadItems({
      messages: [
        { id: 'u1', role: 'user', content: 'Send the offer', createdAt: '2026-03-02T10:00:00Z' },
        { id: 'a1', role: 'assistant', content: 'The offer is ready.', createdAt: '2026-03-02T10:00:02Z' },
        { id: 'u2', role: 'user', content: 'Thanks', createdAt: '2026-03-02T10:05:00Z' },
        { id: 'a2', role: 'assistant', content: 'You are welcome.', createdAt: '2026-03-02T10:05:01Z', cards: [{ id: 'c1', fallbackText: 'Card' }] },
      ],
      // Listed apart from the messages (Talkie 1 §9), the later one first.
      actions: [action('p2', '2026-03-02T10:05:01Z'), action('p1', '2026-03-02T10:00:01Z'), action('p3')],
    });
    expect(view?.items.map((item) => item.id)).toEqual(['u1', 'p1', 'a1', 'u2', 'a2', 'c1', 'p2', 'p3']);
  });

  it('keeps an action after a message of the same moment, and at the end when no message came after it', () => {
    const view = threadItems({
      messages: [
        { id: 'u1', role: 'user', content: 'Delete the draft', createdAt: '2026-03-02T10:00:00Z' },
        { id: 'a1', role: 'assistant', content: 'Confirm below.', createdAt: '2026-03-02T10:00:00Z' },
      ],
      actions: [action('p1', '2026-03-02T10:00:00Z'), action('p2', '2026-03-02T11:00:00Z')],
    });
    expect(view?.items.map((item) => item.id)).toEqual(['u1', 'a1', 'p1', 'p2']);
  });
});
