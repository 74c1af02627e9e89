import { existsSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAguiDemoServer, type AguiDemoOptions, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { openInterrupts, type AguiItem, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import { createAguiProjector } from '../../../src/shared/conversation/project-agui';
import { applyConversationOps } from '../../../src/shared/conversation/update';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import type { IpcResult } from '../../../src/shared/base/errors';
import { memoryLogger } from '../../support/logger';
import { startServer, type TestServer } from '../../support/http-server';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { followAguiRuns, runToEnd } from '../../support/agui-runs';

/**
 * Plain AG-UI servers through the real dispatcher (agui.* methods, the runs followed as the page follows
 * them: through the agent's conversation), against the built-in
 * demo's plain AG-UI endpoint over real HTTP/SSE on 127.0.0.1 — directly, or through a small proxy
 * that records what went over the wire (headers, bodies, framing) and can cut a stream — and
 * against a hostile SSE server.
 */

const tempDir = useTempDirs();
const closers: { close(): Promise<void> }[] = [];
const apps = new Set<TestServices>();
afterEach(async () => {
  await Promise.all([...apps].map((app) => dispose(app)));
  await Promise.all(closers.splice(0).map((server) => server.close()));
});

async function dispose(app: TestServices): Promise<void> {
  apps.delete(app);
  await app.dispose();
}

async function demoServer(options: AguiDemoOptions = {}): Promise<AguiDemoServer> {
  const server = await startAguiDemoServer({ timeScale: 0.02, ...options });
  closers.push(server);
  return server;
}

/** The real services; the built-in demo's AG-UI side is `aguiUrl` (its other sides are not started). */
async function services(dir: string, aguiUrl?: string, log = memoryLogger()): Promise<TestServices> {
  const app = await startTestServices(dir, {
    log,
    demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', ...(aguiUrl === undefined ? {} : { aguiUrl }) }) },
  });
  apps.add(app);
  return app;
}

function value<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message} (${result.error.path ?? ''})`);
  return result.value;
}

/** What the page sees of the runs: the agents' conversations (test/support/agui-runs.ts). */
const watch = followAguiRuns;
type Watch = ReturnType<typeof watch>;

function runTo(watcher: Watch, agentId: string, call: Promise<IpcResult<{ runId: string }>>) {
  return runToEnd(watcher, agentId, call);
}

const texts = (thread: AguiThreadView) =>
  thread.items.filter((item): item is Extract<AguiItem, { kind: 'text' }> => item.kind === 'text').map((item) => item.text);
const ofKind = <K extends AguiItem['kind']>(thread: AguiThreadView, kind: K) =>
  thread.items.filter((item): item is Extract<AguiItem, { kind: K }> => item.kind === kind);

/**
 * A proxy in front of an AG-UI endpoint: records each request (Authorization, path, body) and
 * whether the answer used CRLF framing; `cutWhen` destroys the client's socket once the answer
 * contains that text (a dropped stream).
 */
async function proxyTo(target: string) {
  const upstreamUrl = new URL(target);
  const seen = { bodies: [] as string[], crlf: false, cutWhen: undefined as string | undefined };
  const server: TestServer = await startServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.bodies.push(body.toString('utf8'));
      const { connection: _hop, ...headers } = { ...request.headers, host: upstreamUrl.host };
      const upstream = httpRequest(
        { host: upstreamUrl.hostname, port: upstreamUrl.port, path: upstreamUrl.pathname, method: request.method, headers, agent: false },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, { 'Content-Type': answer.headers['content-type'] ?? 'application/octet-stream' });
          answer.on('data', (chunk: Buffer) => {
            const text = chunk.toString('utf8');
            if (text.includes('\r\n')) seen.crlf = true;
            if (seen.cutWhen !== undefined && text.includes(seen.cutWhen)) {
              response.socket?.destroy();
              answer.destroy();
              return;
            }
            response.write(chunk);
          });
          answer.on('end', () => response.end());
          answer.on('error', () => undefined);
        },
      );
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  return { url: `${server.origin}/agui`, server, seen };
}

/** A registry agent added as a plain AG-UI endpoint (http:// needs the development setting). */
async function addAguiAgent(app: TestServices, url: string): Promise<string> {
  value(await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } }));
  const { agent } = value(await app.call('agents.add', { address: url, kind: 'agui' }));
  expect(agent.protocol).toBe('agui');
  return agent.id;
}

describe('plain AG-UI servers through the contract, against the demo agent', () => {
  it('streams a run: main folds the events; the page gets what changed through the conversation, never the raw events, and ends with main’s thread', async () => {
    const demo = await demoServer();
    const app = await services(await tempDir(), demo.url);
    const watcher = watch(app);
    expect(value(await app.call('demo.openAgui'))).toEqual({ agentId: builtInAguiDemoId });
    expect(value(await app.call('agents.identify', { agentId: builtInAguiDemoId }))).toEqual({ protocol: 'agui' });
    const opened = value(await app.call('agui.open', { agentId: builtInAguiDemoId }));
    expect(opened).toMatchObject({ endpoint: demo.url, hasToken: false, forwardedProps: '{}', thread: { runState: 'idle', items: [] } });
    // The page's side: the conversation's first view, then every update.
    const first = value(await app.call('conversation.open', { agentId: builtInAguiDemoId }));
    await watcher.follow(builtInAguiDemoId);

    const { runId, thread } = await runTo(
      watcher,
      builtInAguiDemoId,
      app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'user-1', text: 'What would change?' }),
    );
    expect(thread.runState).toBe('finished');
    expect(thread.runId).toBe(runId);
    // Main stamped the user's message with its time.
    expect(thread.items.find((item) => item.id === 'user-1')?.at).toBeTypeOf('number');
    // The run streamed: several updates, the run's states among them, and the streamed text as what was appended.
    const updates = watcher.updates.filter((update) => update.agentId === builtInAguiDemoId && update.conversationId === first.conversationId);
    const ops = updates.flatMap((update) => update.ops);
    expect(updates.length).toBeGreaterThan(1);
    expect(ops.flatMap((op) => (op.op === 'status' ? [op.status.run] : []))).toEqual(expect.arrayContaining(['running', 'idle']));
    expect(ops.some((op) => op.op === 'text')).toBe(true);
    // None carries the raw events, and an update sends only what changed, not the whole conversation again.
    expect(JSON.stringify(updates)).not.toContain('TEXT_MESSAGE_CHUNK');
    expect(ops.some((op) => op.op === 'reset')).toBe(false);
    // Applying them gives main's thread, projected.
    const applied = applyConversationOps(first, ops);
    expect(applied?.items).toEqual(createAguiProjector()(thread).items);
    expect(applied?.status).toMatchObject({ phase: 'ready', run: 'idle', outcome: 'done', threadId: thread.threadId });

    const reasoning = ofKind(thread, 'reasoning');
    expect(reasoning).toEqual([expect.objectContaining({ text: expect.stringContaining('The user wants'), encryptedHidden: true, streaming: false })]);
    expect(JSON.stringify(thread)).not.toContain('demo-encrypted:');
    expect(thread.steps.map((step) => [step.name, step.state])).toEqual([
      ['plan', 'finished'],
      ['check', 'finished'],
    ]);
    expect(ofKind(thread, 'toolCall')).toEqual([
      expect.objectContaining({
        name: 'iac_plan',
        state: 'completed',
        argsStatus: 'json',
        result: expect.objectContaining({ text: expect.stringContaining('"add":1') }),
      }),
    ]);
    expect(ofKind(thread, 'activity')).toEqual([
      expect.objectContaining({
        activityType: 'iac-code.checks',
        content: expect.objectContaining({
          checks: [expect.objectContaining({ status: 'passed' }), expect.objectContaining({ status: 'passed' }), expect.objectContaining({ name: 'estimate' })],
        }),
      }),
    ]);
    expect(texts(thread).join('\n')).toContain('This is the first message of the thread.');
    expect(thread.state).toMatchObject({ status: 'checked' });

    // The next turn: same thread, a new run, and the whole history goes along.
    const second = await runTo(watcher, builtInAguiDemoId, app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'user-2', text: 'And now?' }));
    expect(second.runId).not.toBe(runId);
    expect(second.thread.threadId).toBe(thread.threadId);
    expect(texts(second.thread).join('\n')).toContain('This thread has 2 user messages so far');

    const fresh = value(await app.call('agui.newThread', { agentId: builtInAguiDemoId }));
    expect(fresh.thread).toMatchObject({ runState: 'idle', items: [] });
    expect(fresh.thread.threadId).not.toBe(thread.threadId);
  });

  it('a message typed while a run goes waits in the conversation and is sent once the run is over (main does not refuse it as too early)', async () => {
    const demo = await demoServer();
    const log = memoryLogger();
    const app = await services(await tempDir(), demo.url, log);
    const watcher = watch(app);
    const { conversationId } = value(await app.call('conversation.open', { agentId: builtInAguiDemoId }));
    await watcher.follow(builtInAguiDemoId);
    expect(value(await app.call('conversation.send', { agentId: builtInAguiDemoId, conversationId, messageId: 'u-1', text: 'What would change?' }))).toEqual({
      queued: false,
    });
    expect(value(await app.call('conversation.send', { agentId: builtInAguiDemoId, conversationId, messageId: 'u-2', text: 'And now?' }))).toEqual({
      queued: true,
    });
    const users = (thread: AguiThreadView) => ofKind(thread, 'user').map((item) => item.text);
    const thread = await watcher.until(builtInAguiDemoId, (shown) => users(shown).length === 2 && shown.runState === 'finished', true);
    expect(users(thread)).toEqual(['What would change?', 'And now?']);
    expect(texts(thread).join('\n')).toContain('This thread has 2 user messages so far');
    expect(log.lines.filter((line) => line.includes('queued message'))).toEqual([]);
  });

  it('"apply": the interrupt survives a restart of the app (and of the demo, which keeps its key) and is resumed: "Applied."', async () => {
    const dir = await tempDir();
    const secretPath = join(dir, 'agui-demo.key');
    let demo = await demoServer({ secretPath });
    let app = await services(dir, demo.url);
    let watcher = watch(app);
    value(await app.call('demo.openAgui'));
    const opened = value(await app.call('agui.open', { agentId: builtInAguiDemoId }));
    const asked = await runTo(
      watcher,
      builtInAguiDemoId,
      app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'user-1', text: 'Please apply the plan' }),
    );
    expect(asked.thread.runState).toBe('awaitingInput');
    const [interrupt, ...others] = openInterrupts(asked.thread);
    expect(others).toEqual([]);
    expect(interrupt).toMatchObject({
      reason: 'confirmation',
      kind: 'confirmation',
      message: expect.stringContaining('demo-network'),
      responseSchema: { required: ['approve'] },
    });
    expect(opened.thread.threadId).toBe(asked.thread.threadId);

    expect(await app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'user-2', text: 'hello?' })).toMatchObject({
      ok: false,
      error: { code: 'rejected' },
    });
    expect(await app.call('agui.retry', { agentId: builtInAguiDemoId })).toMatchObject({ ok: false, error: { code: 'rejected' } });
    const answers = { [interrupt!.id]: { status: 'resolved', payload: { approve: true } } };
    expect(await app.call('agui.resume', { agentId: builtInAguiDemoId, answers }, false)).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    const wrong = await app.call('agui.resume', {
      agentId: builtInAguiDemoId,
      answers: { [interrupt!.id]: { status: 'resolved', payload: { approve: 'yes' } } },
    });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'invalid_request', path: `/answers/${interrupt!.id}/approve` } });
    expect(await app.call('agui.resume', { agentId: builtInAguiDemoId, answers: {} })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: `/answers/${interrupt!.id}` },
    });
    expect(await app.call('agui.resume', { agentId: builtInAguiDemoId, answers: { ...answers, nope: { status: 'cancelled' } } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/answers/nope' },
    });

    // Quit the app and the demo; start both again on the same folders (the demo on a new port).
    await dispose(app);
    await demo.close();
    expect(existsSync(join(dir, 'agui-threads', `${builtInAguiDemoId}.json`))).toBe(true);
    demo = await demoServer({ secretPath });
    app = await services(dir, demo.url);
    watcher = watch(app);
    const reopened = value(await app.call('agui.open', { agentId: builtInAguiDemoId }));
    expect(reopened.endpoint).toBe(demo.url);
    expect(reopened.thread.runState).toBe('awaitingInput');
    expect(openInterrupts(reopened.thread).map((open) => open.id)).toEqual([interrupt!.id]);

    const resumed = await runTo(watcher, builtInAguiDemoId, app.call('agui.resume', { agentId: builtInAguiDemoId, answers }));

    expect(resumed.thread.runState).toBe('finished');
    expect(resumed.thread.interrupts.find((entry) => entry.id === interrupt!.id)?.status).toBe('resolved');
    expect(texts(resumed.thread).at(-1)).toBe('Applied.');
    expect(ofKind(resumed.thread, 'toolCall').at(-1)).toMatchObject({ name: 'iac_apply', state: 'completed' });
    expect(resumed.thread.state).toMatchObject({ status: 'applied', applied: ['demo-network'] });
    // Answered: a new message is accepted again.
    const after = await runTo(watcher, builtInAguiDemoId, app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'user-3', text: 'thanks' }));
    expect(after.thread.runState).toBe('finished');
  });

  it('"deploy": one approval and one cancelled answer resume both interrupts in one run', async () => {
    const demo = await demoServer();
    const app = await services(await tempDir(), demo.url);
    const watcher = watch(app);
    const asked = await runTo(watcher, builtInAguiDemoId, app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u1', text: 'deploy it' }));
    const open = openInterrupts(asked.thread);
    expect(open).toHaveLength(2);
    const staging = open.find((entry) => entry.message?.includes('staging'))!;
    const production = open.find((entry) => entry.message?.includes('production'))!;
    const answers = { [staging.id]: { status: 'resolved', payload: { approve: true, note: 'ok' } }, [production.id]: { status: 'cancelled' } };
    const resumed = await runTo(watcher, builtInAguiDemoId, app.call('agui.resume', { agentId: builtInAguiDemoId, answers }));
    expect(resumed.thread.runState).toBe('finished');
    expect(texts(resumed.thread).at(-1)).toBe('Applied to staging. Cancelled for production: nothing changed there.');
    expect(
      resumed.thread.interrupts
        .filter((entry) => entry.runId === asked.runId)
        .map((entry) => entry.status)
        .sort(),
    ).toEqual(['cancelled', 'resolved']);
  });

  it('an expired interrupt is answered as cancelled whatever the user chose', async () => {
    // The demo's clock runs an hour behind: its 10-minute interrupts have already expired here.
    const demo = await demoServer({ now: () => Date.now() - 3_600_000 });
    const app = await services(await tempDir(), demo.url);
    const watcher = watch(app);
    const asked = await runTo(watcher, builtInAguiDemoId, app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u1', text: 'apply' }));
    const [interrupt] = openInterrupts(asked.thread);
    expect(interrupt!.expiresAtMs).toBeLessThan(Date.now());
    // Had "resolved" been sent, the demo would have refused it (interrupt_expired).
    const resumed = await runTo(
      watcher,
      builtInAguiDemoId,
      app.call('agui.resume', { agentId: builtInAguiDemoId, answers: { [interrupt!.id]: { status: 'resolved', payload: { approve: true } } } }),
    );
    expect(resumed.thread.runState).toBe('finished');
    expect(texts(resumed.thread).at(-1)).toBe('Cancelled, nothing changed.');
    expect(resumed.thread.interrupts.find((entry) => entry.id === interrupt!.id)?.status).toBe('cancelled');
  });

  it('one run at a time; agui.cancel stops a run, which is shown interrupted and can be retried', async () => {
    const demo = await demoServer({ timeScale: 1 });
    const app = await services(await tempDir(), demo.url);
    const watcher = watch(app);
    const { runId } = value(await app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u1', text: 'go slow' }));
    await watcher.until(builtInAguiDemoId, (thread) => thread.runId === runId && thread.runState === 'running');
    expect(await app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u2', text: 'again' })).toMatchObject({
      ok: false,
      error: { code: 'rejected' },
    });
    expect(await app.call('agui.newThread', { agentId: builtInAguiDemoId })).toMatchObject({ ok: false, error: { code: 'rejected' } });
    expect(value(await app.call('agui.cancel', { agentId: builtInAguiDemoId }))).toEqual({ cancelled: true });
    const end = await watcher.ended(builtInAguiDemoId, runId);
    expect(end).toMatchObject({ runState: 'dropped', error: { code: 'stream_dropped', message: 'You stopped this run.' } });
    expect(value(await app.call('agui.cancel', { agentId: builtInAguiDemoId }))).toEqual({ cancelled: false });
    const reopened = value(await app.call('agui.open', { agentId: builtInAguiDemoId }));
    expect(reopened.thread.runState).toBe('dropped');
  });

  it('a dropped stream is shown interrupted; agui.retry sends the same history as a new run', async () => {
    const demo = await demoServer({ timeScale: 0.05 });
    const proxy = await proxyTo(demo.url);
    const app = await services(await tempDir());
    const watcher = watch(app);
    const agentId = await addAguiAgent(app, proxy.url);
    expect(value(await app.call('agents.identify', { agentId }))).toEqual({ protocol: 'agui' });
    proxy.seen.cutWhen = 'Slowly';
    const dropped = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'slow please' }));
    expect(dropped.thread).toMatchObject({ runState: 'dropped', error: { code: 'stream_dropped' } });
    expect(watcher.updates.filter((update) => update.agentId === agentId).length).toBeGreaterThan(0);
    expect(ofKind(dropped.thread, 'toolCall')[0]?.state).toBe('completed');

    proxy.seen.cutWhen = undefined;
    const retried = await runTo(watcher, agentId, app.call('agui.retry', { agentId }));
    expect(retried.runId).not.toBe(dropped.runId);
    expect(retried.thread.runState).toBe('finished');
    expect(texts(retried.thread).join('')).toContain('done.');
    const [first, second] = proxy.seen.bodies.map((body) => JSON.parse(body) as { threadId: string; runId: string; messages: unknown[] });
    expect(second!.threadId).toBe(first!.threadId);
    expect(second!.runId).not.toBe(first!.runId);
    expect(second!.messages).toEqual(first!.messages);
    expect(await app.call('agui.retry', { agentId })).toMatchObject({ ok: false, error: { code: 'rejected' } });
  });

  it('forwardedProps: saved as JSON text, sent with each run (CRLF framing parsed), refused with a path when not an object', async () => {
    const demo = await demoServer();
    const proxy = await proxyTo(demo.url);
    const dir = await tempDir();
    const app = await services(dir);
    const watcher = watch(app);
    const agentId = await addAguiAgent(app, proxy.url);

    expect(await app.call('agui.setForwardedProps', { agentId, json: '{"demo": {"framing": "crlf"' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/json', message: expect.stringContaining('not JSON') },
    });
    expect(await app.call('agui.setForwardedProps', { agentId, json: '[1, 2]' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/json' },
    });
    const json = '{"demo": {"framing": "crlf"}, "iacCode": {"schemaVersion": 1, "cwd": "/work/stacks/demo"}}';
    expect(value(await app.call('agui.setForwardedProps', { agentId, json })).forwardedProps).toBe(json);

    const run = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'plan' }));
    expect(proxy.seen.crlf).toBe(true);
    expect(run.thread.runState).toBe('finished');
    expect(ofKind(run.thread, 'toolCall')[0]?.argsText).toContain('/work/stacks/demo');
    expect(JSON.parse(proxy.seen.bodies[0]!)).toMatchObject({ forwardedProps: { demo: { framing: 'crlf' }, iacCode: { cwd: '/work/stacks/demo' } } });

    // A value the server refuses (400 with problems): the run fails with its message and path.
    value(await app.call('agui.setForwardedProps', { agentId, json: '{"demo": {"framing": "morse"}}' }));
    const refused = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u2', text: 'plan again' }));
    expect(refused.thread).toMatchObject({
      runState: 'error',
      error: { code: 'invalid_request', message: expect.stringContaining('/forwardedProps/demo/framing') },
    });

    // Kept across a restart.
    await dispose(app);
    const again = await services(dir);
    expect(value(await again.call('agui.open', { agentId })).forwardedProps).toBe('{"demo": {"framing": "morse"}}');
    // Removing the agent removes its thread and forwardedProps.
    expect(existsSync(join(dir, 'agui-threads', `${agentId}.json`))).toBe(true);
    value(await again.call('agents.remove', { id: agentId }));
    expect(existsSync(join(dir, 'agui-threads', `${agentId}.json`))).toBe(false);
    expect(await again.call('agui.open', { agentId })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a bearer token is kept in main and sent only as the Authorization header; a refused run asks for it', async () => {
    const token = 'agui_test_token_0123456789abcdef';
    const demo = await demoServer({ token });
    const proxy = await proxyTo(demo.url);
    const app = await services(await tempDir());
    const watcher = watch(app);
    const agentId = await addAguiAgent(app, proxy.url);

    const refused = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'plan' }));
    expect(refused.thread).toMatchObject({ runState: 'error', error: { code: 'sign_in_required', message: expect.stringContaining('401') } });
    expect(await app.call('agui.useToken', { agentId, token: 'has space' })).toMatchObject({ ok: false, error: { code: 'invalid_request', path: '/token' } });
    const view = value(await app.call('agui.useToken', { agentId, token: ` ${token} ` }));
    expect(view.hasToken).toBe(true);
    expect(JSON.stringify(view)).not.toContain(token);

    const retried = await runTo(watcher, agentId, app.call('agui.retry', { agentId }));
    expect(retried.thread.runState).toBe('finished');
    expect(JSON.stringify(retried.thread)).not.toContain(token);
    expect(proxy.server.requests.map((request) => request.authorization)).toEqual([undefined, `Bearer ${token}`]);
    expect(proxy.server.requests.every((request) => !request.path.includes(token))).toBe(true);
    expect(proxy.seen.bodies.every((body) => !body.includes(token))).toBe(true);

    expect(value(await app.call('agui.useToken', { agentId, token: '' })).hasToken).toBe(false);
    const again = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u2', text: 'plan again' }));
    expect(again.thread.error?.code).toBe('sign_in_required');
  });

  it('a plain AG-UI agent is only what it was added as', async () => {
    const app = await services(await tempDir());
    value(await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } }));
    const { agent } = value(await app.call('agents.add', { address: 'http://127.0.0.1:9/not-agui' }));
    expect(agent.protocol).toBeUndefined();
    expect(await app.call('agui.open', { agentId: agent.id })).toMatchObject({ ok: false, error: { code: 'incompatible' } });
    expect(await app.call('agui.open', { agentId: 'no-such-agent' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('a hostile AG-UI server', () => {
  it('junk lines, non-JSON data and an oversized event: bounded notes, the stream closed, no crash', async () => {
    const log = memoryLogger();
    const server = await startServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { threadId, runId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { threadId: string; runId: string };
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write(': ping\n\n');
        response.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId, runId })}\r\n\r\n`);
        response.write('this is junk\nmore: junk\n\n');
        response.write('data: <html>not json</html>\n\n');
        response.write(`data: ${JSON.stringify({ type: 'NOT_A_TYPE' })}\n\n`);
        response.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' })}\n\n`);
        response.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'hello' })}\n\n`);
        response.end(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'x'.repeat(2 * 1024 * 1024) })}\n\n`);
      });
    });
    const app = await services(await tempDir(), undefined, log);
    const watcher = watch(app);
    const agentId = await addAguiAgent(app, `${server.origin}/agui`);
    const run = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'hi' }));
    expect(run.thread).toMatchObject({ runState: 'dropped', error: { code: 'event_too_large' } });
    expect(run.thread.notes.map((note) => note.code)).toEqual(expect.arrayContaining(['event_not_object', 'event_unknown_type']));
    expect(texts(run.thread)).toEqual(['hello']);
    // What crosses IPC: main's fold, with a note for the non-JSON frame and nothing of its text.
    expect(JSON.stringify(watcher.updates)).not.toContain('<html>');
    expect(JSON.stringify(run.thread)).not.toContain('<html>');
    expect(log.lines.some((line) => line.includes('2 line(s) that are not SSE'))).toBe(true);
    // The service still answers.
    expect(value(await app.call('agui.open', { agentId })).thread.runState).toBe('dropped');
  });

  it('an answer that is not an event stream, and a 500, fail the run with a clear code', async () => {
    let status = 200;
    const server = await startServer((_request, response) => {
      if (status === 200) {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end('<html>hi</html>');
        return;
      }
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'boom', message: `Upstream\u0007 exploded ${'!'.repeat(2000)}` } }));
    });
    const app = await services(await tempDir());
    const watcher = watch(app);
    const agentId = await addAguiAgent(app, `${server.origin}/agui`);
    const html = await runTo(watcher, agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'hi' }));
    expect(html.thread).toMatchObject({ runState: 'error', error: { code: 'protocol_error' } });
    status = 503;
    const failed = await runTo(watcher, agentId, app.call('agui.retry', { agentId }));
    expect(failed.thread).toMatchObject({ runState: 'error', error: { code: 'server_error', message: expect.stringContaining('Upstream exploded') } });
    expect(failed.thread.error!.message.length).toBeLessThan(700);
  });

  it(
    'a run far over the conversation budget: main keeps about 4 MB, saves about 4 MB, and sends the page windows of at most 1 MB, also after a restart',
    { timeout: 120_000 },
    async () => {
      // 60 answers of 190,000 characters each: 11.4 MB of text, almost three times the budget.
      const answers = 60;
      const chunk = 'x'.repeat(95_000);
      const server = await startServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (part: Buffer) => chunks.push(part));
        request.on('end', () => {
          const { threadId, runId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { threadId: string; runId: string };
          response.writeHead(200, { 'Content-Type': 'text/event-stream' });
          const send = (event: object) => response.write(`data: ${JSON.stringify(event)}\n\n`);
          send({ type: 'RUN_STARTED', threadId, runId });
          for (let index = 0; index < answers; index++) {
            send({ type: 'TEXT_MESSAGE_START', messageId: `m${index}`, role: 'assistant' });
            send({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${index}`, delta: `${index}:${chunk}` });
            send({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${index}`, delta: chunk });
            send({ type: 'TEXT_MESSAGE_END', messageId: `m${index}` });
          }
          response.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId, runId })}\n\n`);
        });
      });
      const dir = await tempDir();
      let app = await services(dir);
      // Every message to the page, as it would cross IPC.
      const sizes: { channel: string; chars: number }[] = [];
      const measure = (target: TestServices) => target.events.connect((channel, payload) => sizes.push({ channel, chars: JSON.stringify(payload).length }));
      measure(app);
      const agentId = await addAguiAgent(app, `${server.origin}/agui`);
      const run = await runTo(watch(app), agentId, app.call('agui.send', { agentId, messageId: 'u1', text: 'hi' }));
      expect(run.thread.runState).toBe('finished');

      // The oldest answers were removed (the page says so) and the newest kept, within the budget.
      expect(run.thread.droppedItems).toBeGreaterThan(0);
      expect(texts(run.thread).at(-1)).toMatch(new RegExp(`^${answers - 1}:x`));
      expect(itemsChars(run.thread.items)).toBeLessThanOrEqual(conversationBounds.chars);
      const slack = 64 * 1024;
      expect(sizes.length).toBeGreaterThan(2);
      expect(Math.max(...sizes.map((size) => size.chars))).toBeLessThan(conversationBounds.windowChars + slack);
      // The saved thread is within the budget too.
      expect(statSync(join(dir, 'agui-threads', `${agentId}.json`)).size).toBeLessThan(conversationBounds.chars + slack);

      // After a restart, opening the conversation sends its newest window; "Show earlier" the ones before, until none is left.
      await dispose(app);
      sizes.length = 0;
      app = await services(dir);
      measure(app);
      const reopened = value(await app.call('conversation.open', { agentId }));
      expect(JSON.stringify(reopened).length).toBeLessThan(conversationBounds.windowChars + slack);
      expect(reopened.status.earlier).toBeGreaterThan(0);
      expect(reopened.status.dropped).toBeGreaterThan(0);
      const newest = reopened.items.at(-1);
      expect(newest?.kind === 'message' ? newest.text : '').toMatch(new RegExp(`^${answers - 1}:x`));
      let earlier = reopened.status.earlier;
      let held = reopened.items.length;
      while (earlier > 0) {
        const more = value(await app.call('conversation.earlier', { agentId, conversationId: reopened.conversationId }));
        expect(JSON.stringify(more).length).toBeLessThan(conversationBounds.windowChars + slack);
        expect(more.items.length).toBeGreaterThan(0);
        held += more.items.length;
        earlier = more.earlier;
      }
      // All main holds of the thread reached the page, window by window: every item of it, projected.
      expect(held).toBeGreaterThanOrEqual(texts(run.thread).length);
      expect(Math.max(...sizes.map((size) => size.chars))).toBeLessThan(conversationBounds.windowChars + slack);
    },
  );
});
