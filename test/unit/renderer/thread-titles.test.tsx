import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { openDemo } from './chat-helpers';
import { createFakeBackend } from './fake-api';

function threadTitles(): string[] {
  const list = within(screen.getByRole('navigation', { name: 'Chats' }));
  return list.getAllByRole('listitem').map((item) => item.querySelector('.thread__title')?.textContent ?? '');
}

describe('chat: thread titles', () => {
  it('titles an untitled thread by its first message (one line, at most 60 characters); the server’s title wins; else “Untitled chat”', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = [
      { id: 't1', title: '', channel: 'chat', firstMessage: '  Prepare the offer\nfor   Alfa ' },
      {
        id: 't2',
        title: '',
        channel: 'chat',
        firstMessage: 'What did we agree with Alfa last week about the delivery dates and the penalties for a late one?',
      },
      { id: 't3', title: 'Offer for Beta', channel: 'chat', firstMessage: 'Never shown: the server titled this thread' },
      { id: 't4', title: '  ', channel: 'voice' },
      { id: 't5', title: '', channel: 'chat', firstMessage: ' \n ' },
    ];
    await openDemo(backend);
    await waitFor(() => expect(threadTitles()).toHaveLength(5));
    expect(threadTitles()).toEqual([
      'Prepare the offer for Alfa',
      'What did we agree with Alfa last week about the delivery da…',
      'Offer for Beta',
      'Untitled chat',
      'Untitled chat',
    ]);
    // The title names the thread for its buttons too.
    expect(screen.getByRole('button', { name: 'Delete Prepare the offer for Alfa' })).toBeTruthy();
  });
});
