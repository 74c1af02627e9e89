import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../src/shared/agentcall/session-view';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import { eventChannel } from '../../../src/shared/ipc/contract';
import { startScriptedAgent, type ScriptedAgent } from '../../support/agentcall/scripted-agent';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Hostile AgentCall agents against the app's real path: the card through the guarded network layer,
 * the WebSocket transport, the session engine and the agentcall.update events the renderer folds.
 * Each agent is a real WebSocket server on 127.0.0.1 that does one bad thing after a correct start.
 */

const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const card = (extension: Record<string, unknown> = {}) => ({
  name: 'Hostile agent',
  description: 'Misbehaves on purpose.',
  version: '1.0.0',
  supportedInterfaces: [],
  capabilities: {
    extensions: [
      {
        uri: 'https://agentcall.smartycode.com/ext/agentcall-agui/0.1',
        required: false,
        params: {
          schemaVersion: '0.1',
          agui: { url: '{{agui}}', transport: 'websocket', session: { resume: false, replay: false } },
          voice: { owner: 'client' },
          physicalObservations: { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] },
        },
      },
      ...(Object.keys(extension).length > 0 ? [extension] : []),
    ],
  },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

interface Session {
  services: TestServices;
  /** The size of every agentcall.update event as it would cross IPC. */
  eventChars: number[];
  agent: ScriptedAgent;
  socket: WebSocket;
  sessionKey: string;
  /** Sends an envelope (or any raw text) as the agent. */
  send(event: object | string, sequence?: number): void;
  view(): SessionView;
  waitFor(test: (view: SessionView) => boolean, what: string): Promise<SessionView>;
}

async function session(): Promise<Session> {
  const agent = await startScriptedAgent({ card: card() });
  const services = await startTestServices(await tempDir());
  open.push({ close: () => services.dispose() });
  await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
  const added = await services.call('agents.add', { address: `http://127.0.0.1:${agent.port}` });
  if (!added.ok) throw new Error(added.error.message);
  const updates: SessionUpdate[] = [];
  const eventChars: number[] = [];
  services.events.connect((channel, payload) => {
    if (channel !== eventChannel('agentcall.update')) return;
    updates.push(...(payload as { updates: SessionUpdate[] }).updates);
    eventChars.push(JSON.stringify(payload).length);
  });
  let sequence = 0;
  const socketPromise = agent.nextSocket();
  const opening = services.call('agentcall.open', { agentId: added.value.agent.id });
  const socket = await socketPromise;
  await agent.waitForFrames(1);
  socket.send(JSON.stringify({ sequence: ++sequence, event: { type: 'session.established', resumed: false } }));
  const opened = await opening;
  if (!opened.ok) throw new Error(opened.error.message);
  updates.unshift(...opened.value.updates);
  const view = () => updates.reduce(applySessionUpdate, emptySessionView);
  return {
    services,
    eventChars,
    agent,
    socket,
    sessionKey: opened.value.sessionKey,
    send: (event, explicit) => {
      if (typeof event === 'string') socket.send(event);
      else {
        sequence = explicit ?? sequence + 1;
        socket.send(JSON.stringify({ sequence, event }));
      }
    },
    view,
    waitFor: async (test, what) => {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        if (test(view())) return view();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(view().items.slice(-3))}`);
    },
  };
}

const ended = (view: SessionView) => view.phase === 'ended';

describe('hostile AgentCall agents', () => {
  it('an oversized frame ends the session with a clear reason and nothing of it is shown', async () => {
    const s = await session();
    s.send(JSON.stringify({ sequence: 2, event: { type: 'text.delta', text: 'x'.repeat(130 * 1024) } }));
    const view = await s.waitFor(ended, 'the end');
    expect(view.endReason).toMatchObject({ kind: 'transport_closed', closeCode: 1009 });
    expect(view.endReason?.message).toMatch(/128 KiB/);
    expect(JSON.stringify(view)).not.toContain('xxxxxxxxxx');
  });

  it('a binary frame ends the session (1003)', async () => {
    const s = await session();
    s.socket.send(Buffer.from(JSON.stringify({ sequence: 2, event: { type: 'run.started' } })), { binary: true });
    const view = await s.waitFor(ended, 'the end');
    expect(view.endReason).toMatchObject({ kind: 'transport_closed', closeCode: 1003 });
  });

  it('a sequence regression ends the session with a protocol error, and later commands are refused', async () => {
    const s = await session();
    s.send({ type: 'run.started' });
    s.send({ type: 'run.completed' }, 1);
    const view = await s.waitFor(ended, 'the end');
    expect(view.endReason).toMatchObject({ kind: 'protocol_error', code: 'sequence_regression' });
    const after = await s.services.call('agentcall.sendText', { sessionKey: s.sessionKey, text: 'hello' });
    expect(after.ok || after.error.code).toBe('session_ended');
  });

  it('an event before session.established is a protocol error: open fails and says so', async () => {
    const agent = await startScriptedAgent({ card: card() });
    const services = await startTestServices(await tempDir());
    open.push({ close: () => services.dispose() });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await services.call('agents.add', { address: `http://127.0.0.1:${agent.port}` });
    if (!added.ok) throw new Error(added.error.message);
    const socketPromise = agent.nextSocket();
    const opening = services.call('agentcall.open', { agentId: added.value.agent.id });
    const socket = await socketPromise;
    await agent.waitForFrames(1);
    socket.send(JSON.stringify({ sequence: 1, event: { type: 'text.delta', text: 'hi' } }));
    const opened = await opening;
    expect(opened.ok).toBe(false);
    if (!opened.ok) {
      expect(opened.error.code).toBe('protocol_error');
      expect(opened.error.message).toMatch(/session\.established/);
    }
  });

  it('interaction.resolved for an unknown id changes nothing but a notice', async () => {
    const s = await session();
    s.send({ type: 'interaction.resolved', interactionId: 'never-asked', outcome: 'answered' });
    const view = await s.waitFor((current) => current.items.some((item) => item.kind === 'notice'), 'the notice');
    expect(view.phase).toBe('established');
    expect(view.pendingInteraction).toBeUndefined();
    expect(view.items.filter((item) => item.kind === 'interaction')).toEqual([]);
  });

  it('a failure with a 10 KiB message is shown with its code, bounded, and the session goes on', async () => {
    const s = await session();
    await s.services.call('agentcall.sendText', { sessionKey: s.sessionKey, text: 'hello' });
    s.send({ type: 'run.started' });
    s.send({ type: 'failure', code: 'model_overloaded', message: `Bearer sk-secret ${'y'.repeat(10 * 1024)}` });
    const view = await s.waitFor((current) => current.items.some((item) => item.kind === 'failure'), 'the failure');
    const failure = view.items.find((item) => item.kind === 'failure');
    expect(failure).toMatchObject({ code: 'model_overloaded' });
    expect(failure?.kind === 'failure' && failure.message.length).toBeLessThanOrEqual(500);
    expect(view.phase).toBe('established');
    expect(view.runActive).toBe(false);
  });

  it('HTML and script in text.delta arrive as inert text', async () => {
    const s = await session();
    await s.services.call('agentcall.sendText', { sessionKey: s.sessionKey, text: 'hello' });
    s.send({ type: 'run.started' });
    s.send({ type: 'text.delta', text: '<script>alert(1)</script><img src=x onerror=alert(2)>' });
    s.send({ type: 'run.completed' });
    const view = await s.waitFor((current) => !current.runActive && current.items.some((item) => item.kind === 'agentText'), 'the text');
    const text = view.items.find((item) => item.kind === 'agentText');
    expect(text?.kind === 'agentText' && text.text).toBe('<script>alert(1)</script><img src=x onerror=alert(2)>');
  });

  it('an agent request for a modality this session cannot give opens nothing', async () => {
    const s = await session();
    // No reader in this run (NFC off): nfc is not usable, so a scan request is ignored with a notice.
    s.send({ type: 'interaction.requested', interactionId: 'i-1', kind: 'physical.nfc.scan', prompt: 'Scan it', options: [], allowsFreeform: false });
    const view = await s.waitFor((current) => current.items.some((item) => item.kind === 'notice'), 'the notice');
    expect(view.pendingInteraction).toBeUndefined();
    expect(view.usableModalities).toEqual(['photo']);
  });

  it('a card with mixed canonical and legacy declarations is refused before any connection', async () => {
    const legacy = card().capabilities.extensions[0]!;
    const agent = await startScriptedAgent({ card: card({ ...legacy, uri: 'https://agentcall.invalid/ext/agentcall-agui/0.1' }) });
    const services = await startTestServices(await tempDir());
    open.push({ close: () => services.dispose() });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await services.call('agents.add', { address: `http://127.0.0.1:${agent.port}` });
    if (!added.ok) throw new Error(added.error.message);
    const opened = await services.call('agentcall.open', { agentId: added.value.agent.id });
    expect(opened.ok || opened.error.code).toBe('incompatible');
    expect(agent.upgrades).toEqual([]);
  });

  it('a local http:// agent is refused once the development setting is off, before any connection', async () => {
    const agent = await startScriptedAgent({ card: card() });
    const services = await startTestServices(await tempDir());
    open.push({ close: () => services.dispose() });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await services.call('agents.add', { address: `http://127.0.0.1:${agent.port}` });
    if (!added.ok) throw new Error(added.error.message);
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: false } } });
    const opened = await services.call('agentcall.open', { agentId: added.value.agent.id });
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.error.message).toMatch(/development setting|http:\/\//);
    expect(agent.upgrades).toEqual([]);
  });

  it(
    'answers far over the conversation budget: the session keeps about 4 MB, the oldest removed and counted, and no event to the page over 1 MB',
    { timeout: 60_000 },
    async () => {
      const s = await session();
      // 40 answers of 200,000 characters each: 8 MB of text, twice the budget, sent as fast as the socket takes them.
      const runs = 40;
      const half = 'x'.repeat(100_000);
      for (let index = 0; index < runs; index++) {
        s.send({ type: 'run.started' });
        s.send({ type: 'text.delta', text: `${index}:${half.slice(String(index).length + 1)}` });
        s.send({ type: 'text.delta', text: half });
        s.send({ type: 'run.completed' });
      }
      const view = await s.waitFor(
        (current) =>
          current.items.filter((item) => item.kind === 'agentText' && item.state === 'completed').length > 0 &&
          !current.runActive &&
          current.items.at(-1)?.kind === 'agentText' &&
          current.items.at(-1)?.id === `run-${runs}`,
        'the last answer',
      );
      expect(view.removedItems).toBeGreaterThan(0);
      expect(itemsChars(view.items)).toBeLessThanOrEqual(conversationBounds.chars);
      const last = view.items.at(-1);
      expect(last?.kind === 'agentText' && last.text.startsWith(`${runs - 1}:`)).toBe(true);
      expect(Math.max(...s.eventChars)).toBeLessThan(conversationBounds.windowChars + 64 * 1024);
      expect(view.phase).toBe('established');
    },
  );
});
