import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId, eventChannel } from '../../../src/shared/ipc/contract';
import { createAgentCallOfferer, within, type AgentCallOfferer } from '../../../src/main/cli/voice-peer';
import { startAgentCallDemoServer, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { memoryLogger } from '../../support/logger';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * An agentcall-webrtc-0.1 call through main's services and the real dispatcher, with a node-datachannel
 * offerer in the renderer's place: it makes the offer, relays every channel message to main
 * (`agentcall.callMessage`) and puts on the channel exactly what main emits (`agentcall.channelSend`).
 * The agent is the demo's WebRTC side. Main makes the SDP POST and runs the session engine.
 */

const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
const peers: AgentCallOfferer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => {
  for (const peer of peers) peer.close();
});

interface Renderer {
  services: TestServices;
  demo: AgentCallDemoServer;
  offerer: AgentCallOfferer;
  updates: SessionUpdate[];
  sent: string[];
  closedByMain: string[];
  view(): SessionView;
  waitFor(test: (view: SessionView) => boolean, what: string): Promise<SessionView>;
}

async function renderer(options: { kiosk?: boolean } = {}): Promise<Renderer> {
  const demo = await startAgentCallDemoServer({ log: memoryLogger() });
  open.push(demo);
  const services = await startTestServices(await tempDir(), {
    ...options,
    demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', agentCallCardUrl: demo.webrtcCardUrl }) },
  });
  open.push({ close: () => services.dispose() });
  const offerer = await createAgentCallOfferer({ name: 'renderer' });
  peers.push(offerer);
  const updates: SessionUpdate[] = [];
  const sent: string[] = [];
  const closedByMain: string[] = [];
  services.events.connect((channel, payload) => {
    if (channel === eventChannel('agentcall.update')) updates.push(...(payload as { updates: SessionUpdate[] }).updates);
    if (channel === eventChannel('agentcall.channelSend')) {
      const { text } = payload as { text: string };
      sent.push(text);
      offerer.channel.sendMessage(text);
    }
    if (channel === eventChannel('agentcall.channelClose')) {
      closedByMain.push((payload as { callKey: string }).callKey);
      offerer.channel.close();
    }
  });
  const view = () => updates.reduce(applySessionUpdate, emptySessionView);
  return {
    services,
    demo,
    offerer,
    updates,
    sent,
    closedByMain,
    view,
    waitFor: async (test, what) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (test(view())) return view();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`timed out waiting for ${what}; items: ${JSON.stringify(view().items.slice(-3))}`);
    },
  };
}

/** Offer → answer → channel open → relay → callOpened; returns the session key. */
async function connect(r: Renderer): Promise<{ callKey: string; explicitTurns: boolean }> {
  const offered = await r.services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: r.offerer.offer });
  if (!offered.ok) throw new Error(`callOffer failed: ${offered.error.code} ${offered.error.message}`);
  const { callKey, sdp, explicitTurns } = offered.value;
  r.offerer.accept(sdp);
  await within(r.offerer.opened, 10_000, 'the channel did not open');
  r.offerer.channel.onMessage((message) => {
    void r.services.call('agentcall.callMessage', typeof message === 'string' ? { callKey, text: message } : { callKey, refused: 'binary' });
  });
  r.offerer.channel.onClosed(() => void r.services.call('agentcall.callClosed', { callKey, why: 'closed', clean: true }));
  const opened = await r.services.call('agentcall.callOpened', { callKey });
  if (!opened.ok) throw new Error(`callOpened failed: ${opened.error.code} ${opened.error.message}`);
  expect(opened.value.sessionKey).toBe(callKey);
  return { callKey, explicitTurns };
}

describe("an AgentCall call relayed between the renderer's channel and main", () => {
  it('describes a WebRTC card as a call with agent-owned voice and explicit turns (agentcall.card), without connecting', async () => {
    const r = await renderer();
    const described = await r.services.call('agentcall.card', { agentId: builtInAgentCallDemoId });
    if (!described.ok) throw new Error(described.error.message);
    expect(described.value.agent.voice).toEqual({ owner: 'agent', transport: 'webrtc', explicitTurns: true });
    expect(r.demo.webrtc.openCalls).toBe(0);
  });

  it('opens with session.start built by main, then works as a session: text, explicit audio turns, end', async () => {
    const r = await renderer();
    const { callKey, explicitTurns } = await connect(r);
    expect(explicitTurns).toBe(true);
    expect(JSON.parse(r.sent[0]!)).toEqual({
      type: 'session.start',
      sessionId: `agentdesk-${callKey}`,
      clientCapabilities: { physicalObservations: { modalities: ['photo'] }, audioTurnControl: { mode: 'explicit' } },
    });
    expect(r.demo.webrtc.received[0]).toBe(r.sent[0]);

    expect((await r.services.call('agentcall.sendText', { sessionKey: callKey, text: 'hello' })).ok).toBe(true);
    await r.waitFor((view) => view.items.some((item) => item.kind === 'agentText' && item.state === 'completed'), 'the answer');

    const started = await r.services.call('agentcall.audioTurn', { sessionKey: callKey, action: 'start', microphoneStopped: false });
    expect(started).toEqual({ ok: true, value: { turn: 2 } });
    const early = await r.services.call('agentcall.audioTurn', { sessionKey: callKey, action: 'commit', microphoneStopped: false });
    expect(early.ok || early.error.code).toBe('rejected');
    expect(await r.services.call('agentcall.audioTurn', { sessionKey: callKey, action: 'cancel', microphoneStopped: true })).toEqual({
      ok: true,
      value: { turn: 2 },
    });
    expect(r.sent.map((text) => JSON.parse(text) as { type: string; turn?: number }).filter((message) => message.type.startsWith('audio.turn'))).toEqual([
      { type: 'audio.turn.start', turn: 2 },
      { type: 'audio.turn.cancel', turn: 2 },
    ]);

    expect(await r.services.call('agentcall.end', { sessionKey: callKey })).toEqual({ ok: true, value: { ended: true } });
    expect(r.closedByMain).toEqual([callKey]);
    expect(JSON.parse(r.sent.at(-1)!)).toEqual({ type: 'session.end' });
  });

  it("the agent's conversation, open before the call, follows the session the call opens: its first updates and a committed spoken turn", async () => {
    const r = await renderer();
    const before = await r.services.call('conversation.open', { agentId: builtInAgentCallDemoId });
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.status).toMatchObject({ phase: 'ready', reach: 'call' });
    const { callKey } = await connect(r);
    expect((await r.services.call('agentcall.audioTurn', { sessionKey: callKey, action: 'start', microphoneStopped: false })).ok).toBe(true);
    expect((await r.services.call('agentcall.audioTurn', { sessionKey: callKey, action: 'commit', microphoneStopped: true })).ok).toBe(true);
    const view = async () => {
      const answer = await r.services.call('conversation.view', { agentId: builtInAgentCallDemoId, conversationId: before.value.conversationId });
      if (!answer.ok) throw new Error(answer.error.message);
      return answer.value;
    };
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline && !(await view()).items.some((item) => item.kind === 'speech')) await new Promise((resolve) => setTimeout(resolve, 20));
    const live = await view();
    expect(live.status).toMatchObject({ phase: 'ready', session: callKey, reach: 'call', accepts: ['photo'] });
    expect(live.items[0]).toMatchObject({ kind: 'speech', role: 'user', state: 'final', durationMs: expect.any(Number) });
  });

  it('ends the session when the renderer reports its channel gone, and when it relays a binary message', async () => {
    for (const how of ['closed', 'binary'] as const) {
      const r = await renderer();
      const { callKey } = await connect(r);
      if (how === 'closed') await r.services.call('agentcall.callClosed', { callKey, why: 'ICE failed', clean: false });
      else await r.services.call('agentcall.callMessage', { callKey, refused: 'binary' });
      const ended = await r.waitFor((view) => view.phase === 'ended', 'the end');
      const reason = ended.items.find((item) => item.kind === 'ended');
      expect(reason && reason.kind === 'ended' && reason.reason.kind).toBe('transport_closed');
      const refused = await r.services.call('agentcall.sendText', { sessionKey: callKey, text: 'still there?' });
      expect(refused.ok || refused.error.code).toBe('session_ended');
    }
  });

  it('refuses a call to a WebSocket card, and an offer without a click', async () => {
    const r = await renderer();
    const noGesture = await r.services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: r.offerer.offer }, false);
    expect(noGesture.ok || noGesture.error.code).toBe('no_user_gesture');
    const wsDemo = await startAgentCallDemoServer({ log: memoryLogger() });
    open.push(wsDemo);
    const services = await startTestServices(await tempDir(), {
      demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', agentCallCardUrl: wsDemo.cardUrl }) },
    });
    open.push({ close: () => services.dispose() });
    const refused = await services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: r.offerer.offer });
    expect(refused.ok || refused.error.code).toBe('incompatible');
    expect(wsDemo.webrtc.openCalls).toBe(0);
  });

  it('drops a call whose renderer hung up before its channel opened at once, not at its 30 s timeout', async () => {
    const r = await renderer();
    const offered = await r.services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: r.offerer.offer });
    if (!offered.ok) throw new Error(offered.error.message);
    const { callKey } = offered.value;
    // The renderer hung up while main was POSTing: it never accepts the answer, it tells main the channel is gone.
    expect(await r.services.call('agentcall.callClosed', { callKey, why: 'hung up while connecting', clean: true })).toEqual({
      ok: true,
      value: { ended: true },
    });
    expect(r.closedByMain).toEqual([callKey]);
    const late = await r.services.call('agentcall.callOpened', { callKey });
    expect(late.ok || late.error.code).toBe('session_ended');
  });

  it('closes a call still connecting at the kiosk reset (and at shutdown), telling the renderer, besides ending open sessions', async () => {
    const r = await renderer({ kiosk: true });
    const live = await connect(r);
    const second = await createAgentCallOfferer({ name: 'renderer-2' });
    peers.push(second);
    const offered = await r.services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: second.offer });
    if (!offered.ok) throw new Error(offered.error.message);
    const pending = offered.value.callKey;
    second.accept(offered.value.sdp);
    await within(second.opened, 10_000, 'the second channel did not open');
    // The second offer to the same agent ended the first call's session (one session per agent).
    await r.waitFor((view) => view.phase === 'ended', 'the first call to end');
    expect(r.closedByMain).toEqual([live.callKey]);

    const reset = await r.services.call('kiosk.reset', {});
    if (!reset.ok) throw new Error(`kiosk.reset failed: ${reset.error.code} ${reset.error.message}`);
    expect(reset.value.ended).toBe(1);
    expect(r.closedByMain).toEqual([live.callKey, pending]);
    const late = await r.services.call('agentcall.callOpened', { callKey: pending });
    expect(late.ok || late.error.code).toBe('session_ended');

    const atShutdown = await r.services.call('agentcall.callOffer', { agentId: builtInAgentCallDemoId, sdp: r.offerer.offer });
    if (!atShutdown.ok) throw new Error(atShutdown.error.message);
    await r.services.dispose();
    expect(r.closedByMain).toEqual([live.callKey, pending, atShutdown.value.callKey]);
  });
});
