import { describe, expect, it } from 'vitest';
import { threadItems } from '../../../src/main/talkie/thread-view';

describe('a stored thread (§9) as conversation items', () => {
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
});
