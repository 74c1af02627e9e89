import { EventSchemas } from '@ag-ui/core/schemas';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { api, custom, getThread, ofType, runInput, sleep, stream, waitFor, type AnyEvent } from './demo-helpers';
import { useDemoServers } from './demo-helpers';

const start = useDemoServers({ timeScale: 0.05 });

interface Action {
  id: string;
  threadId: string;
  status: string;
  paramsHash: string;
  riskLevel: string;
  expiresAt: string;
  undoUntil?: string;
  toolCallId: string;
}

async function propose(server: TalkieDemoServer, message = 'talkie-test:action', threadId?: string) {
  const run = await stream(server, runInput(message, threadId === undefined ? {} : { threadId }));
  const [action] = custom(run.events, 'talkie.action') as unknown as Action[];
  if (!action) throw new Error('no action proposed');
  return { action, run };
}

const decide = (server: TalkieDemoServer, action: Action, decision: 'confirm' | 'cancel', overrides: Record<string, unknown> = {}) =>
  api(server, 'POST', `/api/talkie/actions/${encodeURIComponent(action.id)}/decision`, {
    body: { decision, paramsHash: action.paramsHash, method: 'button', ...overrides },
  });

const getAction = async (server: TalkieDemoServer, id: string) =>
  (await api(server, 'GET', `/api/talkie/actions/${encodeURIComponent(id)}`)).json as unknown as Action;

describe('demo actions (Talkie 1 §8)', () => {
  it('confirming the test action → done, with a result card in events and in the thread', async () => {
    const server = await start();
    const { action } = await propose(server);
    expect(await getAction(server, action.id)).toMatchObject({ id: action.id, status: 'pending', paramsHash: action.paramsHash });
    const confirmed = await decide(server, action, 'confirm', { method: 'voice' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.action).toMatchObject({ id: action.id, status: 'done' });
    const events = confirmed.json.events as AnyEvent[];
    expect(events.every((event) => EventSchemas.safeParse(event).success)).toBe(true);
    const [card] = custom(events, 'talkie.card');
    expect(card).toMatchObject({
      version: 1,
      fallbackText: expect.any(String),
      blocks: expect.arrayContaining([expect.objectContaining({ type: 'badge', text: 'Done' })]),
    });
    expect(await getAction(server, action.id)).toMatchObject({ status: 'done' });
    const thread = await getThread(server, action.threadId);
    expect(thread.actions).toEqual([expect.objectContaining({ id: action.id, status: 'done' })]);
    expect(thread.messages.at(-1)).toMatchObject({ role: 'assistant', cards: [card] });
  });

  it('repeating a decision is 200 with the current state; the opposite one is 409 conflict', async () => {
    const server = await start();
    const { action } = await propose(server);
    const first = await decide(server, action, 'confirm');
    const again = await decide(server, action, 'confirm');
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const opposite = await decide(server, action, 'cancel');
    expect(opposite.status).toBe(409);
    expect(opposite.json).toEqual({ error: { code: 'conflict', message: expect.any(String), retryable: false } });

    const { action: other } = await propose(server);
    expect((await decide(server, other, 'cancel')).json).toMatchObject({ action: { status: 'cancelled' }, events: [] });
    expect((await decide(server, other, 'cancel')).status).toBe(200);
    expect((await decide(server, other, 'confirm')).json).toMatchObject({ error: { code: 'conflict' } });
    expect(await getAction(server, other.id)).toMatchObject({ status: 'cancelled' });
  });

  it('a changed paramsHash is 409 stale and leaves the action pending', async () => {
    const server = await start();
    const { action } = await propose(server);
    const stale = await decide(server, action, 'confirm', { paramsHash: `sha256:${'0'.repeat(64)}` });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ error: { code: 'stale' } });
    expect(await getAction(server, action.id)).toMatchObject({ status: 'pending' });
    expect((await decide(server, action, 'confirm')).json).toMatchObject({ action: { status: 'done' } });
  });

  it('after expiresAt a decision is 410 expired and the action reads as expired', async () => {
    const server = await start({ timeScale: 0.0005 }); // 10 min × 0.0005 = 300 ms
    const { action } = await propose(server);
    expect(Date.parse(action.expiresAt) - Date.now()).toBeLessThan(1000);
    await sleep(Math.max(0, Date.parse(action.expiresAt) - Date.now()) + 50);
    const late = await decide(server, action, 'confirm');
    expect(late.status).toBe(410);
    expect(late.json).toMatchObject({ error: { code: 'expired', retryable: false } });
    expect(await getAction(server, action.id)).toMatchObject({ status: 'expired' });
    expect((await getThread(server, action.threadId)).actions).toEqual([expect.objectContaining({ status: 'expired' })]);
  });

  it('refuses malformed decisions (400) and unknown actions (404), and needs the token', async () => {
    const server = await start();
    const { action } = await propose(server);
    for (const body of [
      {},
      { decision: 'maybe', paramsHash: action.paramsHash, method: 'button' },
      { decision: 'confirm', method: 'button' },
      { decision: 'confirm', paramsHash: action.paramsHash, method: 'telepathy' },
    ]) {
      const response = await api(server, 'POST', `/api/talkie/actions/${action.id}/decision`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect((await api(server, 'POST', `/api/talkie/actions/${action.id}/decision`, { rawBody: 'nope' })).status).toBe(400);
    expect((await decide(server, { ...action, id: 'act_missing' }, 'confirm')).json).toMatchObject({ error: { code: 'not_found' } });
    expect((await api(server, 'GET', '/api/talkie/actions/act_missing')).status).toBe(404);
    expect((await api(server, 'GET', `/api/talkie/actions/${action.id}`, { token: null })).status).toBe(401);
    expect(
      (
        await api(server, 'POST', `/api/talkie/actions/${action.id}/decision`, {
          token: 'bad',
          body: { decision: 'confirm', paramsHash: action.paramsHash, method: 'button' },
        })
      ).status,
    ).toBe(401);
    expect(await getAction(server, action.id)).toMatchObject({ status: 'pending' });
  });

  it('the agent side has no path to decisions: only the HTTP server imports the decision module', async () => {
    const dir = new URL('../../../src/main/demo/', import.meta.url);
    for (const file of ['demo-agent.ts', 'demo-run.ts', 'demo-store.ts']) {
      expect(await readFile(new URL(file, dir), 'utf8'), file).not.toMatch(/action-decisions|\/decision/);
    }
    expect(await readFile(new URL('talkie-demo-server.ts', dir), 'utf8')).toMatch(/from '\.\/action-decisions'/);
  });

  it('a new proposal never replaces an older pending one', async () => {
    const server = await start();
    const { action: first } = await propose(server, 'talkie-test:action', 't_two');
    const { action: second } = await propose(server, 'talkie-test:action', 't_two');
    expect(second.id).not.toBe(first.id);
    const thread = await getThread(server, 't_two');
    expect(thread.actions.map((action) => [action.id, action.status])).toEqual([
      [first.id, 'pending'],
      [second.id, 'pending'],
    ]);
  });
});

describe('demo actions: "send the offer" with an undo window', () => {
  it('proposes a medium-risk action after a tool call; confirm → running with undoUntil; cancel during undo → cancelled', async () => {
    const server = await start(); // undo window: 10 s × 0.05 = 500 ms
    const { action, run } = await propose(server, 'please send the offer');
    expect(ofType(run.events, 'TOOL_CALL_START')[0]).toMatchObject({ toolCallId: action.toolCallId, metadata: { label: expect.any(String) } });
    expect(action).toMatchObject({ riskLevel: 'medium', status: 'pending' });
    const confirmed = await decide(server, action, 'confirm');
    expect(confirmed.status).toBe(200);
    const running = confirmed.json.action as Action;
    expect(running.status).toBe('running');
    expect(Date.parse(running.undoUntil ?? '')).toBeGreaterThan(Date.now());
    expect(custom(confirmed.json.events as AnyEvent[], 'talkie.card')).toHaveLength(1);
    expect((await decide(server, action, 'confirm')).json).toMatchObject({ action: { status: 'running' } });

    const undone = await decide(server, action, 'cancel');
    expect(undone.status).toBe(200);
    expect(undone.json.action).toMatchObject({ status: 'cancelled' });
    expect(undone.json.action).not.toHaveProperty('undoUntil');
    await sleep(600); // past the undo window: it must not be sent after all
    expect(await getAction(server, action.id)).toMatchObject({ status: 'cancelled' });
    expect((await decide(server, action, 'cancel')).status).toBe(200);
    expect((await decide(server, action, 'confirm')).json).toMatchObject({ error: { code: 'conflict' } });
    const thread = await getThread(server, action.threadId);
    expect(thread.messages.flatMap((message) => message.cards.map((card) => card.title))).toEqual(['Offer N-2026-014 not sent']);
    // The result replaces the "you can still cancel it" card (same id, #15) instead of standing beside it.
    const [sendingCard] = custom(confirmed.json.events as AnyEvent[], 'talkie.card') as unknown as { id: string }[];
    expect(thread.messages.at(-1)?.cards[0]?.id).toBe(sendingCard?.id);
  });

  it('without a cancel it becomes done when the window closes; a cancel after that is 409 conflict', async () => {
    const server = await start();
    const { action } = await propose(server, 'send the offer');
    await decide(server, action, 'confirm');
    const done = await waitFor(async () => {
      const current = await getAction(server, action.id);
      return current.status === 'done' ? current : undefined;
    });
    expect(done).not.toHaveProperty('undoUntil');
    const late = await decide(server, action, 'cancel');
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ error: { code: 'conflict' } });
    const thread = await getThread(server, action.threadId);
    expect(thread.messages.at(-1)?.cards[0]).toMatchObject({ title: expect.stringContaining('sent') });
  });
});

describe('demo threads (Talkie 1 §9)', () => {
  it('lists threads newest first with id, title, channel and timestamps', async () => {
    const server = await start();
    await stream(server, runInput('first thread', { threadId: 't_a' }));
    await stream(server, runInput('second thread', { threadId: 't_b' }));
    const { json } = await api(server, 'GET', '/api/talkie/threads');
    const threads = json.threads as Record<string, string>[];
    expect(threads.map((thread) => thread.id)).toEqual(['t_b', 't_a']);
    expect(threads[1]).toEqual({ id: 't_a', title: 'first thread', channel: 'chat', createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(Date.parse(threads[1]?.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(threads[1]?.createdAt ?? ''));
    // Activity moves a thread to the top.
    await stream(server, runInput('more', { threadId: 't_a' }));
    expect(((await api(server, 'GET', '/api/talkie/threads')).json.threads as { id: string }[]).map((thread) => thread.id)).toEqual(['t_a', 't_b']);
  });

  it('returns at most 50 threads', async () => {
    const server = await start({ timeScale: 0.001 });
    for (let i = 0; i < 52; i++) await stream(server, runInput('hi', { threadId: `t_${i}` }));
    const threads = (await api(server, 'GET', '/api/talkie/threads')).json.threads as { id: string }[];
    expect(threads).toHaveLength(50);
    expect(threads[0]?.id).toBe('t_51');
  });

  it('GET thread returns the thread, its messages with cards and its actions; unknown → 404', async () => {
    const server = await start();
    await stream(server, runInput('talkie-test:card', { threadId: 't_full', messageId: 'm_1' }));
    await stream(server, runInput('talkie-test:action', { threadId: 't_full', messageId: 'm_2' }));
    const thread = await getThread(server, 't_full');
    expect(thread.thread).toMatchObject({ id: 't_full', title: 'talkie-test:card', channel: 'chat' });
    expect(thread.messages.map((message) => [message.id.startsWith('m_') ? message.id : message.role, message.cards.length])).toEqual([
      ['m_1', 0],
      ['assistant', 1],
      ['m_2', 0],
      ['assistant', 0],
    ]);
    for (const message of thread.messages) expect(message).toMatchObject({ createdAt: expect.any(String), content: expect.any(String) });
    expect(thread.actions).toEqual([expect.objectContaining({ status: 'pending', threadId: 't_full' })]);
    const missing = await api(server, 'GET', '/api/talkie/threads/t_nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { code: 'not_found' } });
  });

  it('DELETE thread → { ok: true }, gone from the list, its pending actions cancelled', async () => {
    const server = await start();
    const { action } = await propose(server, 'talkie-test:action', 't_gone');
    await stream(server, runInput('keep me', { threadId: 't_kept' }));
    const deleted = await api(server, 'DELETE', '/api/talkie/threads/t_gone');
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ ok: true });
    expect((await api(server, 'GET', '/api/talkie/threads/t_gone')).status).toBe(404);
    expect(((await api(server, 'GET', '/api/talkie/threads')).json.threads as { id: string }[]).map((thread) => thread.id)).toEqual(['t_kept']);
    expect(await getAction(server, action.id)).toMatchObject({ status: 'cancelled' });
    expect((await decide(server, action, 'confirm')).json).toMatchObject({ error: { code: 'conflict' } });
    expect((await api(server, 'DELETE', '/api/talkie/threads/t_gone')).status).toBe(404);
  });
});
