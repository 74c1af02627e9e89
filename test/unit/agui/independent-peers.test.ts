import { HttpAgent } from '@ag-ui/client';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AguiItem, AguiThreadView } from '../../../src/shared/agui/run-model';
import type { IpcResult } from '../../../src/shared/base/errors';
import { peerMissing, startPeer, type PeerName, type RunningPeer } from '../../support/agui-peers';
import { followAguiRuns, runToEnd } from '../../support/agui-runs';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * AgentDesk against AG-UI servers nobody here wrote (test/peers: a bare @ag-ui/encoder server,
 * @ag-ui/a2a in front of an @a2a-js/sdk 1.3 agent, @mastra/core behind @ag-ui/mastra, and
 * @copilotkit/runtime's BuiltInAgent; the LLMs are `ai/test` mock models). Each peer is added as an
 * agent and chatted with through the real main services and dispatcher; the test checks what the
 * user would see (the thread the renderer gets) and what the server received, request body by
 * request body against what @ag-ui/client 1.0 (the reference client) sends for the same conversation.
 * A peer whose packages are not installed is skipped, and the test says why.
 */

const tempDir = useTempDirs();
/** A test chats over real processes (a peer, and @ag-ui/client against it too): generous under a loaded machine. */
const runTimeoutMs = 60_000;

function value<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message} (${result.error.path ?? ''})`);
  return result.value;
}

/** The real services with one plain AG-UI agent at `url`, and what the renderer would get from its runs. */
async function agentDeskWith(url: string) {
  const dir = await tempDir();
  const app = await startTestServices(dir);
  const shown: string[] = [];
  app.events.connect((channel, payload) => {
    // Everything that goes to the renderer, to check what never may.
    if (channel.startsWith('agentdesk:event:')) shown.push(JSON.stringify(payload));
  });
  const runs = followAguiRuns(app);
  value(await app.call('settings.update', { patch: { developer: { allowLocalHttp: true } } }));
  const check = value(await app.call('agents.check', { address: url, kind: 'agui' }));
  const { agent } = value(await app.call('agents.add', { address: url, kind: 'agui' }));
  const opened = value(await app.call('agui.open', { agentId: agent.id }));
  shown.push(JSON.stringify(opened));
  const finish = async (call: Promise<IpcResult<{ runId: string }>>): Promise<AguiThreadView> => {
    const { thread } = await runToEnd(runs, agent.id, call);
    shown.push(JSON.stringify(thread));
    return thread;
  };
  return {
    app,
    check,
    agentId: agent.id,
    threadId: opened.thread.threadId,
    shown,
    send: (messageId: string, text: string) => finish(app.call('agui.send', { agentId: agent.id, messageId, text })),
    resume: (answers: Record<string, { status: 'resolved'; payload?: unknown } | { status: 'cancelled' }>) =>
      finish(app.call('agui.resume', { agentId: agent.id, answers })),
    saved: async () => JSON.parse(await readFile(join(dir, 'agui-threads', `${agent.id}.json`), 'utf8')) as AguiThreadView,
  };
}

/** The same conversation through @ag-ui/client's HttpAgent: what it sends is the reference. */
function referenceClient(url: string, threadId: string) {
  const agent = new HttpAgent({ url, threadId });
  let runs = 0;
  return {
    agent,
    send: async (id: string, text: string) => {
      agent.addMessage({ id, role: 'user', content: text });
      await agent.runAgent({ runId: `reference-run-${++runs}` });
    },
    resume: async (resume: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[]) => {
      await agent.runAgent({ runId: `reference-run-${++runs}`, resume });
    },
  };
}

const idKeys = new Set(['threadId', 'runId', 'id', 'messageId', 'toolCallId', 'parentMessageId', 'entityId', 'interruptId']);

/**
 * A request body with every id the server or the client made up replaced by its order of first
 * appearance (`#1`, `#2`, …), and keys sorted: two clients' bodies for the same conversation compare
 * equal exactly when they carry the same messages, fields and values.
 */
function canonical(body: unknown): unknown {
  const ids = new Map<string, string>();
  const walk = (node: unknown, key?: string): unknown => {
    if (typeof node === 'string' && key !== undefined && idKeys.has(key)) {
      if (!ids.has(node)) ids.set(node, `#${ids.size + 1}`);
      return ids.get(node);
    }
    if (typeof node === 'string')
      return node.replace(/run_[0-9a-f-]{36}|reference-run-\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => ids.get(id) ?? id);
    if (Array.isArray(node)) return node.map((entry) => walk(entry));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.keys(node)
          .sort()
          .map((name) => [name, walk((node as Record<string, unknown>)[name], name)]),
      );
    }
    return node;
  };
  return walk(body);
}

const items = <K extends AguiItem['kind']>(thread: AguiThreadView, kind: K) =>
  thread.items.filter((item): item is Extract<AguiItem, { kind: K }> => item.kind === kind);
const texts = (thread: AguiThreadView) => items(thread, 'text').map((item) => item.text);

/** A describe block per peer: started once, skipped (saying why) when its packages are missing. */
function describePeer(name: PeerName, title: string, body: (peer: () => RunningPeer) => void) {
  const missing = peerMissing(name);
  if (missing !== undefined) console.warn(`independent-peers: skipped, ${missing}`);
  describe.skipIf(missing !== undefined)(title, () => {
    let running: RunningPeer | undefined;
    beforeAll(async () => {
      running = await startPeer(name);
    }, 90_000);
    afterAll(async () => {
      await running?.stop();
    });
    body(() => {
      if (!running) throw new Error(`the ${name} peer did not start`);
      return running;
    });
  });
}

const closers: TestServices[] = [];
afterAll(async () => {
  await Promise.all(closers.map((app) => app.dispose()));
});
async function agentDesk(url: string) {
  const desk = await agentDeskWith(url);
  closers.push(desk.app);
  return desk;
}

describePeer('bare', 'a bare @ag-ui/encoder server sending every AG-UI 1.0 event', (peer) => {
  it(
    'is found by Add an agent, shows every event, and sends the next run what @ag-ui/client sends (encrypted values included)',
    async () => {
      const desk = await agentDesk(peer().url);
      // Its GET answers 405.
      expect(desk.check).toMatchObject({ found: true, kind: 'agui' });
      const first = await desk.send('user-1', 'What is the weather?');
      expect(first.runState).toBe('finished');
      expect(first.notes).toEqual([]);
      expect(texts(first)).toEqual(['Here is the weather.', 'Anything else?', 'Helper here.']);
      expect(items(first, 'toolCall').map((call) => [call.name, call.state])).toEqual([
        ['get_weather', 'completed'],
        ['get_time', 'called'],
      ]);
      expect(items(first, 'reasoning').map((item) => [item.text, item.encryptedHidden ?? false])).toEqual([
        ['Weighing the question.', true],
        ['A second thought.', false],
      ]);
      expect(first.state).toEqual({ turns: 1, city: 'Praha' });
      expect(first.subagents.map((subagent) => subagent.state)).toEqual(['finished', 'failed']);
      const second = await desk.send('user-2', 'And tomorrow?');
      expect(second.runState).toBe('finished');

      const reference = referenceClient(peer().url, desk.threadId);
      await reference.send('user-1', 'What is the weather?');
      await reference.send('user-2', 'And tomorrow?');
      const [deskFirst, deskSecond, referenceFirst, referenceSecond] = await peer().received(4);
      // The first run: state {} as @ag-ui/client sends it (some servers' input checks require it).
      expect(deskFirst).toMatchObject({ state: {} });
      expect(canonical(deskFirst)).toEqual(canonical(referenceFirst));
      // The second: the whole history, the encrypted values where @ag-ui/client puts them.
      expect(canonical(deskSecond)).toEqual(canonical(referenceSecond));
      expect(JSON.stringify(deskSecond)).toContain('"encryptedValue":"bare-sealed-call-1"');
      // Kept in the thread file, never sent to the renderer.
      expect(JSON.stringify(await desk.saved())).toContain('bare-sealed-reasoning-1');
      expect(desk.shown.join('\n')).not.toContain('bare-sealed');
    },
    runTimeoutMs,
  );

  it(
    'shows an interrupt without a message by what its metadata says, the raw reason kept for Details',
    async () => {
      const desk = await agentDesk(peer().url);
      const asked = await desk.send('user-1', 'interrupt me');
      expect(asked.runState).toBe('awaitingInput');
      expect(asked.interrupts.map(({ reason, message, detail }) => ({ reason, message, detail }))).toEqual([
        { reason: 'bare:needs_a_word', message: undefined, detail: undefined },
        { reason: 'bare:approval', message: undefined, detail: 'Allow the bare peer to go on?' },
      ]);
    },
    runTimeoutMs,
  );

  it(
    'takes a messages snapshot and a run error as the server sends them',
    async () => {
      const desk = await agentDesk(peer().url);
      const snapshot = await desk.send('user-1', 'snapshot please');
      expect(snapshot.notes).toEqual([]);
      expect(texts(snapshot)).toEqual(['From the snapshot.']);
      const failed = await desk.send('user-2', 'fail now');
      expect(failed.runState).toBe('error');
      expect(failed.error).toEqual({ message: 'The bare peer failed on purpose.', code: 'bare_failure' });
    },
    runTimeoutMs,
  );
});

describePeer('a2a', '@ag-ui/a2a in front of an @a2a-js/sdk 1.3 agent (Express)', (peer) => {
  it(
    'is found by Add an agent although its GET answers Express’s 404, chats, and sends what @ag-ui/client sends',
    async () => {
      const desk = await agentDesk(peer().url);
      expect(desk.check).toMatchObject({ found: true, kind: 'agui' });
      const first = await desk.send('user-1', 'hello there');
      expect(first.runState).toBe('finished');
      expect(texts(first)).toEqual(['The A2A agent heard: hello there']);
      const second = await desk.send('user-2', 'and again');
      expect(texts(second)).toEqual(['The A2A agent heard: hello there', 'The A2A agent heard: and again']);

      const reference = referenceClient(peer().url, desk.threadId);
      await reference.send('user-1', 'hello there');
      await reference.send('user-2', 'and again');
      const [deskFirst, deskSecond, referenceFirst, referenceSecond] = await peer().received(4);
      expect(canonical(deskFirst)).toEqual(canonical(referenceFirst));
      expect(canonical(deskSecond)).toEqual(canonical(referenceSecond));
    },
    runTimeoutMs,
  );
});

describePeer('mastra', '@mastra/core behind @ag-ui/mastra, with a tool that suspends', (peer) => {
  it(
    'asks with the tool’s name and reason, resumes, names the result of the call it never announced, and sends what @ag-ui/client sends',
    async () => {
      const desk = await agentDesk(peer().url);
      expect(desk.check).toMatchObject({ found: true, kind: 'agui' });
      const asked = await desk.send('user-1', 'Send 100 EUR to Alice');
      expect(asked.runState).toBe('awaitingInput');
      const [interrupt] = asked.interrupts;
      expect(interrupt).toMatchObject({
        reason: 'mastra:tool_suspend',
        kind: 'generic',
        toolName: 'transfer_money',
        detail: 'Approve sending 100 EUR to Alice?',
        responseSchema: { properties: { approved: { type: 'boolean' } } },
      });
      const resumed = await desk.resume({ [interrupt!.id]: { status: 'resolved', payload: { approved: true } } });
      expect(resumed.runState).toBe('finished');
      expect(items(resumed, 'toolCall')).toMatchObject([
        { name: 'transfer_money', started: false, state: 'completed', result: { text: '{"sent":true,"amount":100}' } },
      ]);
      expect(texts(resumed)).toEqual(['The transfer is done.']);
      expect(items(resumed, 'answer')).toMatchObject([{ question: 'Approve sending 100 EUR to Alice?', status: 'resolved' }]);

      const reference = referenceClient(peer().url, desk.threadId);
      await reference.send('user-1', 'Send 100 EUR to Alice');
      const pending = reference.agent.pendingInterrupts ?? [];
      expect(pending).toHaveLength(1);
      await reference.resume([{ interruptId: pending[0]!.id, status: 'resolved', payload: { approved: true } }]);
      const [deskFirst, deskResume, referenceFirst, referenceResume] = await peer().received(4);
      expect(canonical(deskFirst)).toEqual(canonical(referenceFirst));
      expect(canonical(deskResume)).toEqual(canonical(referenceResume));
    },
    runTimeoutMs,
  );
});

describePeer('copilotkit', '@copilotkit/runtime’s BuiltInAgent on a mock model', (peer) => {
  it(
    'is found by Add an agent, shows the reasoning and the answer, and sends what @ag-ui/client sends',
    async () => {
      const desk = await agentDesk(peer().url);
      expect(desk.check).toMatchObject({ found: true, kind: 'agui' });
      const first = await desk.send('user-1', 'hello');
      expect(first.runState).toBe('finished');
      expect(first.notes).toEqual([]);
      expect(items(first, 'reasoning').map((item) => item.text)).toEqual(['The user said something.']);
      expect(texts(first)).toEqual(['CopilotKit heard 1 message(s).']);
      const second = await desk.send('user-2', 'and again');
      expect(texts(second)).toEqual(['CopilotKit heard 1 message(s).', 'CopilotKit heard 3 message(s).']);

      const reference = referenceClient(peer().url, desk.threadId);
      await reference.send('user-1', 'hello');
      await reference.send('user-2', 'and again');
      const [deskFirst, deskSecond, referenceFirst, referenceSecond] = await peer().received(4);
      expect(canonical(deskFirst)).toEqual(canonical(referenceFirst));
      expect(canonical(deskSecond)).toEqual(canonical(referenceSecond));
    },
    runTimeoutMs,
  );
});
