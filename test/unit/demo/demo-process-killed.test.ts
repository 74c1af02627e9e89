import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AguiThreadView } from '../../../src/shared/agui/run-model';
import { applySessionUpdate, emptySessionView, type SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, eventChannel, type EventPayload } from '../../../src/shared/ipc/contract';
import { addUserMessage, applyUpdate, emptyConversation, type Conversation } from '../../../src/shared/talkie/conversation';
import { followAguiRuns } from '../../support/agui-runs';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The agent's server process dies in the middle of a run (SIGKILL: no goodbye, the kernel resets
 * its sockets): `agentdesk demo` runs as a real child process and the app's services talk to it
 * over 127.0.0.1. Every run must end as interrupted (with what had arrived kept and Retry
 * possible), and an AgentCall session must end with the reason, never hang on a spinner.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface DemoProcess {
  child: ChildProcess;
  urls: { baseUrl: string; token: string; agentCallCardUrl: string; aguiUrl: string };
  kill(): Promise<void>;
}

/**
 * `agentdesk demo` from the sources, on a free port; its first four stdout lines name its addresses.
 * Node itself with tsx's loader (the tsx command would run the server in a grandchild that a kill misses).
 */
async function demoProcess(): Promise<DemoProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${root}src/main/cli/main.ts`, 'demo'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const reader = createInterface({ input: child.stdout! });
    reader.on('line', (line) => {
      lines.push(line.trim());
      if (lines.length === 4) resolve();
    });
    child.once('exit', (code) => reject(new Error(`agentdesk demo exited with ${String(code)}: ${stderr}`)));
  });
  const [baseUrl, token, agentCall, agui] = lines as [string, string, string, string];
  return {
    child,
    urls: { baseUrl, token: token.replace(/^token /, ''), agentCallCardUrl: agentCall.replace(/^agentcall /, ''), aguiUrl: agui.replace(/^agui /, '') },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function servicesFor(demo: DemoProcess): Promise<TestServices> {
  const app = await startTestServices(await tempDir(), {
    demo: { start: async () => demo.urls },
    // After a dropped stream main reloads the thread from the server; here the server is gone for good.
    talkieRecovery: { delaysMs: [20, 20] },
  });
  cleanups.push(() => app.dispose());
  return app;
}

function next<T>(app: TestServices, event: Parameters<typeof eventChannel>[0], test: (payload: T) => boolean): Promise<T> {
  return new Promise<T>((resolve) => {
    const disconnect = app.events.connect((channel, payload) => {
      if (channel !== eventChannel(event) || !test(payload as T)) return;
      disconnect();
      resolve(payload as T);
    });
  });
}

describe('the agent server process is killed in the middle of a run', () => {
  it('Talkie: the run ends as interrupted, the partial answer kept, and the next message is not blocked by the dead run', async () => {
    const demo = await demoProcess();
    const app = await servicesFor(demo);
    expect(await app.call('demo.open')).toEqual({ ok: true, value: { agentId: builtInDemoAgentId } });
    expect(await app.call('talkie.connect', { agentId: builtInDemoAgentId })).toMatchObject({ ok: true });

    let conversation: Conversation = addUserMessage(emptyConversation, 'm-1', 'talkie-test:slow');
    app.events.connect((channel, payload) => {
      if (channel === eventChannel('talkie.update')) conversation = applyUpdate(conversation, (payload as EventPayload<'talkie.update'>).update);
    });
    const firstPart = next<EventPayload<'talkie.update'>>(app, 'talkie.update', ({ update }) => update.type === 'text.delta');
    const ended = next<EventPayload<'talkie.runEnded'>>(app, 'talkie.runEnded', () => true);
    expect(await app.call('talkie.send', { agentId: builtInDemoAgentId, messageId: 'm-1', text: 'talkie-test:slow' })).toMatchObject({ ok: true });
    await firstPart;
    await demo.kill();

    const end = await ended;
    expect(end.outcome).toMatchObject({ kind: 'interrupted' });
    // The thread could not be reloaded (the server is gone): the renderer keeps what streamed.
    expect(end.items).toBeUndefined();
    const interrupted = applyUpdate(conversation, { type: 'run.interrupted', message: end.outcome.message ?? '' });
    expect(interrupted.runState).toBe('interrupted');
    expect(interrupted.items.find((item) => item.kind === 'assistant')).toMatchObject({ text: expect.stringMatching(/^Part 1 of 20\./) });
    // Sending again is possible (one run at a time: the dead one no longer blocks), and fails plainly.
    const again = await app.call('talkie.send', { agentId: builtInDemoAgentId, messageId: 'm-1', text: 'talkie-test:slow' });
    if (again.ok) expect((await next<EventPayload<'talkie.runEnded'>>(app, 'talkie.runEnded', () => true)).outcome.kind).not.toBe('finished');
    else expect(again.error.code).toBe('network_error');
  }, 60_000);

  it('plain AG-UI: the run ends as dropped (interrupted, with Retry), the partial text kept in main’s thread', async () => {
    const demo = await demoProcess();
    const app = await servicesFor(demo);
    expect(await app.call('demo.openAgui')).toEqual({ ok: true, value: { agentId: builtInAguiDemoId } });
    const opened = await app.call('agui.open', { agentId: builtInAguiDemoId });
    expect(opened.ok).toBe(true);

    // Followed as the page follows it: through the agent's conversation.
    const runs = followAguiRuns(app);
    await runs.follow(builtInAguiDemoId);
    const slowItem = (thread: AguiThreadView | undefined) => thread?.items.find((item) => item.kind === 'text' && item.text.startsWith('Slowly: '));
    const sent = await app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u-1', text: 'slow please' });
    if (!sent.ok) throw new Error(sent.error.message);
    // The slow message (the demo's "slow" trigger) has begun to stream.
    const shown = await runs.until(builtInAguiDemoId, (thread) => slowItem(thread) !== undefined);
    await demo.kill();

    const end = await runs.ended(builtInAguiDemoId, sent.value.runId);
    expect(end.runState).toBe('dropped');
    // The slow message as far as it had streamed before the kill is kept in main's thread, and no longer streaming.
    const streamed = slowItem(shown);
    const streamedText = streamed?.kind === 'text' ? streamed.text : '';
    expect(streamedText).not.toBe('');
    const kept = end.items.find((item) => item.kind === 'text' && item.id === streamed?.id);
    expect(kept).toMatchObject({ text: expect.stringContaining(streamedText), streaming: false });
    // It is saved that way: opened again (a reload), the thread says dropped, and Retry starts the turn again.
    expect(await app.call('agui.open', { agentId: builtInAguiDemoId })).toMatchObject({ ok: true, value: { thread: { runState: 'dropped' } } });
    const retried = await app.call('agui.retry', { agentId: builtInAguiDemoId });
    if (retried.ok) expect((await runs.ended(builtInAguiDemoId, retried.value.runId)).runState).not.toBe('finished');
    else expect(retried.error.code).toBe('network_error');
  }, 60_000);

  it('AgentCall: the session ends with the reason shown, and commands are refused afterwards', async () => {
    const demo = await demoProcess();
    const app = await servicesFor(demo);
    const updates: SessionUpdate[] = [];
    let sessionKey = '';
    app.events.connect((channel, payload) => {
      if (channel !== eventChannel('agentcall.update')) return;
      const event = payload as EventPayload<'agentcall.update'>;
      if (event.sessionKey === sessionKey) updates.push(...event.updates);
    });
    const view = () => updates.reduce(applySessionUpdate, emptySessionView);
    const until = async (test: () => boolean, what: string) => {
      for (let waited = 0; !test(); waited += 10) {
        if (waited > 20_000) throw new Error(`no ${what}: ${JSON.stringify(view())}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const opened = await app.call('agentcall.open', { agentId: builtInAgentCallDemoId });
    if (!opened.ok) throw new Error(opened.error.message);
    sessionKey = opened.value.sessionKey;
    updates.push(...opened.value.updates);
    await until(() => view().phase === 'established', 'established session');
    await app.call('agentcall.sendText', { sessionKey, text: 'hello' });
    await demo.kill();

    await until(() => view().phase === 'ended', 'end of the session');
    const ended = view();
    expect(ended.runActive).toBe(false);
    expect(ended.endReason).toMatchObject({ kind: 'transport_closed', message: expect.stringMatching(/\S/) });
    // The transcript ends with the reason (what the screen shows).
    expect(ended.items.at(-1)).toMatchObject({ kind: 'ended', reason: { kind: 'transport_closed' } });
    const after = await app.call('agentcall.sendText', { sessionKey, text: 'still there?' });
    expect(after.ok || after.error.code).toBe('session_ended');
  }, 60_000);
});
