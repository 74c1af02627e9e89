import { afterEach, describe, expect, it } from 'vitest';
import { startTalkieDemoServer, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import type { EventPayload } from '../../../src/shared/ipc/contract';
import { addUserMessage, applyUpdate, emptyConversation, type Conversation } from '../../../src/shared/talkie/conversation';
import { json, manifestFor, startServer } from '../../support/http-server';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const demos: TalkieDemoServer[] = [];
afterEach(async () => {
  await Promise.all(demos.splice(0).map((demo) => demo.close()));
});

async function services(): Promise<TestServices> {
  return startTestServices(await tempDir(), {
    demo: {
      start: async () => {
        const demo = await startTalkieDemoServer({ timeScale: 0.02 });
        demos.push(demo);
        return { baseUrl: demo.baseUrl, token: demo.token };
      },
    },
    talkieRecovery: { delaysMs: [50, 100, 200, 400, 800] },
  });
}

/** The services with a Talkie server on 127.0.0.1 added and a pasted token used for it. */
async function signedInTo(address: string): Promise<{ app: TestServices; agentId: string }> {
  const app = await services();
  await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
  const added = await app.call('agents.add', { address });
  const agentId = added.ok ? added.value.agent.id : '';
  await app.call('talkie.useToken', { agentId, token: 't' });
  return { app, agentId };
}

/** Sends text and folds the streamed events into a conversation until the run ends. */
async function converse(app: TestServices, agentId: string, text: string, threadId?: string) {
  let conversation: Conversation = addUserMessage(emptyConversation, `m_${Math.random()}`, text);
  const messageId = conversation.items.at(-1)!.id;
  const ended = new Promise<EventPayload<'talkie.runEnded'>>((resolve) => {
    app.events.connect((channel, payload) => {
      if (channel === 'agentdesk:event:talkie.update') conversation = applyUpdate(conversation, (payload as EventPayload<'talkie.update'>).update);
      if (channel === 'agentdesk:event:talkie.runEnded') resolve(payload as EventPayload<'talkie.runEnded'>);
    });
  });
  const sent = await app.call('talkie.send', { agentId, messageId, text, ...(threadId ? { threadId } : {}) });
  if (!sent.ok) throw new Error(sent.error.message);
  const end = await ended;
  return { conversation: () => conversation, end, threadId: sent.value.threadId };
}

describe('Talkie through the contract, against the built-in demo', () => {
  it('opens the demo, shows its brand, and streams an echo', async () => {
    const app = await services();
    const opened = await app.call('demo.open');
    expect(opened).toEqual({ ok: true, value: { agentId: 'builtin-demo' } });
    const view = await app.call('talkie.connect', { agentId: 'builtin-demo' });
    expect(view).toMatchObject({
      ok: true,
      value: {
        name: 'AgentDesk demo',
        accent: '#0b7a75',
        signedIn: true,
        testMode: true,
        maxMessageChars: 4000,
        logo: expect.stringMatching(/^data:image\/png;base64,/),
      },
    });
    expect(JSON.stringify(view)).not.toMatch(/demo_[A-Za-z0-9_-]{20,}/); // the demo's token never reaches the page

    const { conversation, end } = await converse(app, 'builtin-demo', 'talkie-test:echo Hello **world** <b>x</b>');
    expect(end.outcome.kind).toBe('finished');
    const assistant = conversation().items.find((item) => item.kind === 'assistant');
    expect(assistant).toMatchObject({ text: 'Hello **world** <b>x</b>', streaming: false });
  });

  it('proposes an action, confirms it only on a user gesture, and explains a repeat', async () => {
    const app = await services();
    const { conversation } = await converse(app, 'builtin-demo', 'talkie-test:action');
    const action = conversation().items.find((item) => item.kind === 'action');
    expect(action).toMatchObject({ action: { status: 'pending', riskLevel: 'low', buttons: true } });
    const actionId = action!.id;

    expect(await app.call('talkie.decide', { agentId: 'builtin-demo', actionId, decision: 'confirm' }, false)).toMatchObject({
      ok: false,
      error: { code: 'no_user_gesture' },
    });
    const confirmed = await app.call('talkie.decide', { agentId: 'builtin-demo', actionId, decision: 'confirm' });
    expect(confirmed).toMatchObject({ ok: true, value: { action: { status: 'done' } } });
    expect(confirmed.ok && confirmed.value.updates.some((update) => update.type === 'card')).toBe(true);
    const opposite = await app.call('talkie.decide', { agentId: 'builtin-demo', actionId, decision: 'cancel' });
    expect(opposite).toMatchObject({ ok: true, value: { action: { status: 'done' }, note: expect.stringContaining('already') } });
  });

  it('lists, reopens and deletes threads', async () => {
    const app = await services();
    const first = await converse(app, 'builtin-demo', 'talkie-test:card');
    await converse(app, 'builtin-demo', 'talkie-test:echo second');
    const threads = await app.call('talkie.threads', { agentId: 'builtin-demo' });
    expect(threads.ok && threads.value.threads.length).toBe(2);
    const reopened = await app.call('talkie.thread', { agentId: 'builtin-demo', threadId: first.threadId });
    expect(reopened.ok && reopened.value.items.map((item) => item.kind)).toEqual(expect.arrayContaining(['user', 'assistant', 'card']));
    const afterDelete = await app.call('talkie.deleteThread', { agentId: 'builtin-demo', threadId: first.threadId });
    expect(afterDelete.ok && afterDelete.value.threads.map((thread) => thread.id)).not.toContain(first.threadId);
  });

  it("enforces the server's message limit before sending", async () => {
    const app = await services();
    await app.call('demo.open');
    expect(await app.call('talkie.send', { agentId: 'builtin-demo', messageId: 'm1', text: 'x'.repeat(4001) })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('4000') },
    });
  });

  it('cancels a slow run', async () => {
    const app = await services();
    await app.call('demo.open');
    const ended = new Promise<EventPayload<'talkie.runEnded'>>((resolve) =>
      app.events.connect((channel, payload) => channel.endsWith('talkie.runEnded') && resolve(payload as EventPayload<'talkie.runEnded'>)),
    );
    const sent = await app.call('talkie.send', { agentId: 'builtin-demo', messageId: 'm_slow', text: 'talkie-test:slow' });
    if (!sent.ok) throw new Error(sent.error.message);
    expect(await app.call('talkie.cancel', { agentId: 'builtin-demo', runKey: sent.value.runKey })).toEqual({ ok: true, value: { cancelled: true } });
    expect((await ended).outcome.kind).toBe('cancelled');
  });
});

describe('Talkie against other servers', () => {
  it('uses endpoints on another origin only after the user accepts them, and remembers that per server', async () => {
    let statusUrl = 'https://status.other.example/s';
    const server = await startServer((req, res) => {
      if (req.url === '/.well-known/talkie.json') {
        return json(
          res,
          200,
          manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`, { endpoints: { ...manifestFor('x').endpoints, status: statusUrl } }),
        );
      }
      json(res, 200, { threads: [] });
    });
    const userData = await tempDir();
    const app = await startTestServices(userData);
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
    const added = await app.call('agents.add', { address: server.url });
    const agentId = added.ok ? added.value.agent.id : '';
    expect(await app.call('talkie.connect', { agentId })).toMatchObject({
      ok: true,
      value: { endpointsAccepted: false, crossOriginEndpoints: [{ name: 'status', url: statusUrl }], signedIn: false },
    });
    expect(await app.call('talkie.threads', { agentId })).toMatchObject({ ok: false, error: { code: 'endpoints_not_accepted' } });
    expect(await app.call('talkie.acceptEndpoints', { agentId })).toMatchObject({ ok: true, value: { endpointsAccepted: true } });
    expect(await app.call('talkie.useToken', { agentId, token: 'dev_token' })).toMatchObject({ ok: true, value: { signedIn: true } });
    expect(await app.call('talkie.threads', { agentId })).toEqual({ ok: true, value: { threads: [] } });
    expect(server.requests.find((r) => r.path === '/threads')?.authorization).toBe('Bearer dev_token');

    // After a restart the acceptance is remembered…
    const restarted = await startTestServices(userData);
    expect(await restarted.call('talkie.connect', { agentId })).toMatchObject({ ok: true, value: { endpointsAccepted: true } });
    // …but only for the URLs the user saw: a manifest pointing elsewhere must be accepted again.
    statusUrl = 'https://status.someone-else.example/s';
    const again = await startTestServices(userData);
    expect(await again.call('talkie.connect', { agentId })).toMatchObject({ ok: true, value: { endpointsAccepted: false } });
  });

  it('refuses a pasted token unless the developer switch is on', async () => {
    const server = await startServer((req, res) => json(res, 200, manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`)));
    const app = await services();
    await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await app.call('agents.add', { address: server.url });
    const agentId = added.ok ? added.value.agent.id : '';
    expect(await app.call('talkie.connect', { agentId })).toMatchObject({ ok: true, value: { signIn: { pastedToken: false } } });
    expect(await app.call('talkie.useToken', { agentId, token: 'dev_token' })).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
  });

  it('recovers a run whose stream dropped by reloading the thread (disconnect is not cancel)', async () => {
    let threadId = '';
    let messageId = '';
    const server = await startServer((req, res) => {
      const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
      if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(origin));
      if (req.url === '/run') {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          const input = JSON.parse(body) as { threadId: string; messages: { id: string }[] };
          threadId = input.threadId;
          messageId = input.messages[0]!.id;
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId, runId: 'r' })}\n\n`);
          res.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' })}\n\n`);
          res.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Part' })}\n\n`, () => res.destroy());
        });
        return;
      }
      if (req.url === `/threads/${threadId}`) {
        return json(res, 200, {
          thread: { id: threadId },
          messages: [
            { id: messageId, role: 'user', content: 'hi' },
            { id: 'a1', role: 'assistant', content: 'Part and the rest, stored by the server.' },
          ],
          actions: [],
        });
      }
      json(res, 404, { error: { code: 'not_found', message: 'no', retryable: false } });
    });
    const { app, agentId } = await signedInTo(server.url);
    const { end } = await converse(app, agentId, 'hi');
    expect(end.outcome.kind).toBe('interrupted');
    expect(end.items?.find((item) => item.kind === 'assistant')).toMatchObject({ text: 'Part and the rest, stored by the server.' });
  });

  it(
    'a long thread (4 MiB, the most a Talkie answer may be) opens on its newest window; "Show earlier" brings the rest, never more than one window at a time',
    { timeout: 60_000 },
    async () => {
      const messages = Array.from({ length: 26 }, (_, index) => ({
        id: `m${index}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `${index}:${'x'.repeat(160_000)}`,
      }));
      const server = await startServer((req, res) => {
        const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
        if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(origin));
        if (req.url === '/threads/t-long') return json(res, 200, { thread: { id: 't-long' }, messages, actions: [] });
        json(res, 404, { error: { code: 'not_found', message: 'no', retryable: false } });
      });
      const { app, agentId } = await signedInTo(server.url);
      const opened = await app.call('talkie.thread', { agentId, threadId: 't-long' });
      if (!opened.ok) throw new Error(opened.error.message);
      const slack = 64 * 1024;
      expect(JSON.stringify(opened.value).length).toBeLessThan(conversationBounds.windowChars + slack);
      expect(opened.value.items.at(-1)).toMatchObject({ id: 'm25' });
      expect(opened.value.earlierItems).toBeGreaterThan(0);
      let items = opened.value.items;
      let earlier = opened.value.earlierItems ?? 0;
      const removed = opened.value.removedItems ?? 0;
      while (earlier > 0) {
        const answer = await app.call('talkie.threadEarlier', { agentId, threadId: 't-long', before: removed + earlier });
        if (!answer.ok) throw new Error(answer.error.message);
        expect(JSON.stringify(answer.value).length).toBeLessThan(conversationBounds.windowChars + slack);
        expect(answer.value.end).toBe(removed + earlier);
        items = [...answer.value.items, ...items];
        earlier = answer.value.earlierItems;
      }
      // Everything main holds of it, within the budget: the newest messages, the oldest removed (and said so).
      expect(itemsChars(items)).toBeLessThanOrEqual(conversationBounds.chars);
      expect(items.map((item) => item.id)).toEqual(messages.slice(removed).map((message) => message.id));
      expect(removed).toBeGreaterThan(0);
      expect(await app.call('talkie.threadEarlier', { agentId, threadId: 'another', before: 3 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    },
  );
});
