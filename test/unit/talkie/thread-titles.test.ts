import { describe, expect, it } from 'vitest';
import { FirstMessages } from '../../../src/main/talkie/thread-view';
import type { EventPayload } from '../../../src/shared/ipc/contract';
import { threadTitleFromMessage } from '../../../src/shared/talkie/thread-title';
import { json, manifestFor, startServer } from '../../support/http-server';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

describe('threadTitleFromMessage', () => {
  it('makes one trimmed line of at most 60 characters, with an ellipsis when cut', () => {
    expect(threadTitleFromMessage('  Prepare\n\tthe   offer  ')).toBe('Prepare the offer');
    expect(threadTitleFromMessage(' \n ')).toBe('');
    const long = `${'word '.repeat(20)}end`;
    const title = threadTitleFromMessage(long);
    expect([...title]).toHaveLength(60);
    expect(title.endsWith('word…')).toBe(true);
    expect(threadTitleFromMessage('x'.repeat(60))).toBe('x'.repeat(60));
    expect(threadTitleFromMessage('x'.repeat(61))).toBe(`${'x'.repeat(59)}…`);
    // Counted in characters, never cutting an emoji in half; applying it again changes nothing.
    const emoji = threadTitleFromMessage('😀'.repeat(70));
    expect(emoji).toBe(`${'😀'.repeat(59)}…`);
    expect(threadTitleFromMessage(emoji)).toBe(emoji);
    expect(threadTitleFromMessage(title)).toBe(title);
  });
});

describe('FirstMessages', () => {
  it('titles untitled threads only, keeps a new thread’s first send, and a loaded thread replaces it', () => {
    const titles = new FirstMessages();
    titles.sent('a', 't1', 'First  message');
    titles.sent('a', 't1', 'Second message');
    titles.sent('b', 't1', 'Another agent');
    const list = [
      { id: 't1', title: '' },
      { id: 't2', title: 'Server title' },
      { id: 't3', title: '  ' },
    ];
    expect(titles.fill('a', list)).toEqual([
      { id: 't1', title: '', firstMessage: 'First message' },
      { id: 't2', title: 'Server title' },
      { id: 't3', title: '  ' },
    ]);
    titles.sent('a', 't2', 'Never shown: the server titled it');
    titles.loaded('a', 't3', [
      { kind: 'assistant', id: 'x', text: 'Hello', streaming: false },
      { kind: 'user', id: 'u1', text: 'Loaded first', state: 'sent' },
      { kind: 'user', id: 'u2', text: 'Loaded second', state: 'sent' },
    ]);
    expect(titles.fill('a', list).map((thread) => (thread as { firstMessage?: string }).firstMessage)).toEqual(['First message', undefined, 'Loaded first']);
    titles.forget('a', 't1');
    expect(titles.fill('a', list)[0]).toEqual({ id: 't1', title: '' });
  });

  it('keeps at most its bound, forgetting the oldest', () => {
    const titles = new FirstMessages(2);
    titles.sent('a', 't1', 'one');
    titles.sent('a', 't2', 'two');
    titles.sent('a', 't3', 'three');
    const list = ['t1', 't2', 't3'].map((id) => ({ id, title: '' }));
    expect(titles.fill('a', list).map((thread) => (thread as { firstMessage?: string }).firstMessage)).toEqual([undefined, 'two', 'three']);
  });
});

describe('talkie.threads: a title from the first message for threads the server leaves untitled', () => {
  const tempDir = useTempDirs();

  it('from a new thread’s first send and from a loaded thread, never over the server’s title', async () => {
    const runThreads: string[] = [];
    const server = await startServer((request, response, self) => {
      const path = request.url ?? '';
      if (path === '/.well-known/talkie.json') return json(response, 200, manifestFor(self.origin, { name: 'Untitled threads' }));
      if (path === '/run') {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const threadId = (JSON.parse(body) as { threadId: string }).threadId;
          runThreads.push(threadId);
          response.writeHead(200, { 'Content-Type': 'text/event-stream' });
          response.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId, runId: 'r' })}\n\n`);
          response.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId, runId: 'r' })}\n\n`);
        });
        return;
      }
      if (path === '/threads') {
        return json(response, 200, {
          threads: [
            ...runThreads.map((id) => ({ id, title: '', channel: 'chat' })),
            { id: 'old', channel: 'chat' },
            { id: 'named', title: 'Offer for Alfa', channel: 'chat' },
          ],
        });
      }
      if (path === '/threads/old')
        return json(response, 200, {
          thread: { id: 'old' },
          messages: [{ id: 'u1', role: 'user', content: 'What did we\nagree with Alfa last week about the delivery dates and penalties?' }],
          actions: [],
        });
      json(response, 404, { error: { code: 'not_found', message: 'no', retryable: false } });
    });
    const app = await startTestServices(await tempDir());
    try {
      await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
      const added = await app.call('agents.add', { address: server.url });
      if (!added.ok) throw new Error(added.error.message);
      const agentId = added.value.agent.id;
      expect(await app.call('talkie.useToken', { agentId, token: 'dev_token' })).toMatchObject({ ok: true });

      const ended = new Promise<void>((resolve) =>
        app.events.connect(
          (channel, payload) => channel.endsWith('talkie.runEnded') && (payload as EventPayload<'talkie.runEnded'>).agentId === agentId && resolve(),
        ),
      );
      const sent = await app.call('talkie.send', { agentId, messageId: 'm1', text: '  Prepare the offer\nfor Alfa  ' });
      if (!sent.ok) throw new Error(sent.error.message);
      await ended;

      const titled = (threads: { id: string; title: string; firstMessage?: string }[]) =>
        threads.map(({ id, title, firstMessage }) => ({ id, title, firstMessage }));
      const listed = await app.call('talkie.threads', { agentId });
      expect(listed.ok && titled(listed.value.threads)).toEqual([
        { id: sent.value.threadId, title: '', firstMessage: 'Prepare the offer for Alfa' },
        { id: 'old', title: '', firstMessage: undefined },
        { id: 'named', title: 'Offer for Alfa', firstMessage: undefined },
      ]);

      expect(await app.call('talkie.thread', { agentId, threadId: 'old' })).toMatchObject({ ok: true });
      const again = await app.call('talkie.threads', { agentId });
      expect(again.ok && again.value.threads[1]).toEqual({
        id: 'old',
        title: '',
        channel: 'chat',
        firstMessage: 'What did we agree with Alfa last week about the delivery da…',
      });
    } finally {
      await app.dispose();
    }
  });
});
