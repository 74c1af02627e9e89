import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import type { IpcResult } from '../../../src/shared/base/errors';
import { followAguiRuns, runToEnd } from '../../support/agui-runs';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * A plain AG-UI agent's earlier threads (issue #15): New chat keeps the open thread, the list names
 * each by its first message, an earlier one opens again and runs continue it, a delete removes its
 * file; all through the real dispatcher against the demo's AG-UI endpoint on 127.0.0.1.
 */

const tempDir = useTempDirs();
const closers: { close(): Promise<void> }[] = [];
const apps: TestServices[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.dispose()));
  await Promise.all(closers.splice(0).map((server) => server.close()));
});

const agentId = builtInAguiDemoId;

function value<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message} (${result.error.path ?? ''})`);
  return result.value;
}

async function services(dir: string, server: AguiDemoServer): Promise<TestServices> {
  const app = await startTestServices(dir, { demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', aguiUrl: server.url }) } });
  apps.push(app);
  return app;
}

const followed = new WeakMap<TestServices, ReturnType<typeof followAguiRuns>>();

/** Sends text and waits for the run's end; the thread as main then holds it. */
async function say(app: TestServices, text: string) {
  let runs = followed.get(app);
  if (runs === undefined) followed.set(app, (runs = followAguiRuns(app)));
  return (await runToEnd(runs, agentId, app.call('agui.send', { agentId, messageId: `msg-${Math.random()}`, text }))).thread;
}

describe('a plain AG-UI agent’s threads', () => {
  it('New chat keeps the open thread; the list, reopening (runs continue it), search, a restart and delete', async () => {
    const dir = await tempDir();
    const server = await startAguiDemoServer({ timeScale: 0.02 });
    closers.push(server);
    let app = await services(dir, server);
    value(await app.call('agui.open', { agentId }));
    // A fresh thread is not listed until it has something in it.
    expect(value(await app.call('agui.threads', { agentId })).threads).toEqual([]);

    const first = await say(app, 'First topic: hello');
    const afterFirst = value(await app.call('agui.threads', { agentId }));
    expect(afterFirst).toEqual({
      currentThreadId: first.threadId,
      threads: [{ threadId: first.threadId, title: 'First topic: hello', updatedAt: expect.any(Number) }],
    });

    const fresh = value(await app.call('agui.newThread', { agentId }));
    expect(fresh.thread.items).toEqual([]);
    const folder = join(dir, 'agui-threads', agentId);
    expect(await readdir(folder)).toHaveLength(1);
    const second = await say(app, 'Second topic: hello again');
    expect(second.threadId).toBe(fresh.thread.threadId);
    const both = value(await app.call('agui.threads', { agentId }));
    expect(both.currentThreadId).toBe(second.threadId);
    expect(both.threads.map((thread) => thread.title)).toEqual(['Second topic: hello again', 'First topic: hello']);

    // The earlier thread opens again, as it was; the next run continues it (its whole history goes along).
    const reopened = value(await app.call('agui.openThread', { agentId, threadId: first.threadId }));
    expect(reopened.thread).toEqual(first);
    const continued = await say(app, 'Back to the first');
    expect(continued.threadId).toBe(first.threadId);
    expect(continued.items.filter((item) => item.kind === 'user').map((item) => (item.kind === 'user' ? item.text : ''))).toEqual([
      'First topic: hello',
      'Back to the first',
    ]);
    const swapped = value(await app.call('agui.threads', { agentId }));
    expect(swapped.currentThreadId).toBe(first.threadId);
    expect(swapped.threads.map((thread) => thread.threadId).sort()).toEqual([first.threadId, second.threadId].sort());

    // Search reads the open thread and the earlier ones from main.
    expect(value(await app.call('agents.searchThreads', { agentId, query: 'again' })).results.map((result) => result.threadId)).toEqual([second.threadId]);
    expect(value(await app.call('agents.searchThreads', { agentId, query: 'hello' })).results).toHaveLength(2);

    // After a restart both are still there: the open one in its file, the earlier one in the folder.
    await apps.splice(0)[0]!.dispose();
    app = await services(dir, server);
    const restarted = value(await app.call('agui.threads', { agentId }));
    expect(restarted).toEqual(swapped);
    expect(value(await app.call('agents.searchThreads', { agentId, query: 'second' })).results).toHaveLength(1);

    // Deleting the earlier thread removes its file; deleting the open one leaves a fresh thread.
    const remaining = value(await app.call('agui.deleteThread', { agentId, threadId: second.threadId }));
    expect(remaining.threads.map((thread) => thread.threadId)).toEqual([first.threadId]);
    expect(await readdir(folder)).toEqual([]);
    const emptied = value(await app.call('agui.deleteThread', { agentId, threadId: first.threadId }));
    expect(emptied.threads).toEqual([]);
    expect(emptied.currentThreadId).not.toBe(first.threadId);
    expect(value(await app.call('agui.open', { agentId })).thread.items).toEqual([]);
    expect(value(await app.call('agents.searchThreads', { agentId, query: 'hello' })).results).toEqual([]);
  });

  it('refuses what is not one of the agent’s threads, whatever its id says', async () => {
    const dir = await tempDir();
    const server = await startAguiDemoServer({ timeScale: 0.02 });
    closers.push(server);
    const app = await services(dir, server);
    await say(app, 'Something');
    for (const threadId of ['no-such-thread', '../../settings', `../${agentId}`]) {
      expect(await app.call('agui.openThread', { agentId, threadId })).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await app.call('agui.deleteThread', { agentId, threadId })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    }
    expect(await app.call('agui.openThread', { agentId, threadId: 'x'.repeat(301) })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/threadId' },
    });
    // The open thread's own file (what a path built from the id could have named) is untouched.
    expect(existsSync(join(dir, 'agui-threads', `${agentId}.json`))).toBe(true);
    // An empty thread is not kept: New chat twice leaves nothing behind but the first.
    value(await app.call('agui.newThread', { agentId }));
    value(await app.call('agui.newThread', { agentId }));
    expect(value(await app.call('agui.threads', { agentId })).threads.map((thread) => thread.title)).toEqual(['Something']);
  });

  it('removing the agent removes its earlier threads with its open one', async () => {
    const dir = await tempDir();
    const server = await startAguiDemoServer({ timeScale: 0.02 });
    closers.push(server);
    const app = await services(dir, server);
    value(await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } }));
    const { agent } = value(await app.call('agents.add', { address: server.url, kind: 'agui' }));
    const runs = followAguiRuns(app);
    await runToEnd(runs, agent.id, app.call('agui.send', { agentId: agent.id, messageId: 'm1', text: 'Kept for later' }));
    value(await app.call('agui.newThread', { agentId: agent.id }));
    await runToEnd(runs, agent.id, app.call('agui.send', { agentId: agent.id, messageId: 'm2', text: 'The open one' }));
    expect(value(await app.call('agui.threads', { agentId: agent.id })).threads).toHaveLength(2);
    const folder = join(dir, 'agui-threads', agent.id);
    expect(await readdir(folder)).toHaveLength(1);

    value(await app.call('agents.remove', { id: agent.id }));
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(join(dir, 'agui-threads', `${agent.id}.json`))).toBe(false);
  });
});
