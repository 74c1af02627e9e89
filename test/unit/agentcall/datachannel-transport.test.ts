import * as ndc from 'node-datachannel';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentCallCard } from '../../../src/shared/agentcall/card';
import { webrtcDescriptor } from '../../../src/shared/agentcall/webrtc-profile';
import type { SessionView } from '../../../src/shared/agentcall/session-view';
import { connectNodeDataChannel } from '../../../src/main/agentcall/datachannel-transport';
import { AgentCallRejection, openAgentCallOverChannel, type AgentCallDriver } from '../../../src/main/agentcall/session-driver';
import { createAgentCallOfferer, within, type AgentCallOfferer } from '../../../src/main/cli/voice-peer';
import { AgentCallDemoSession } from '../../../src/main/demo/agentcall/agentcall-demo-agent';
import { gatheredDescription, offerAudioMid } from '../../../src/main/demo/voice/realtime-provider';
import { keepUntilExit } from '../../../src/main/platform/keep-until-exit';
import { memoryLogger } from '../../support/logger';

/**
 * The session engine over the agentcall-webrtc-0.1 data channel, between two real node-datachannel
 * peers on 127.0.0.1: the app's offerer (createAgentCallOfferer, as `agentdesk conformance` makes it)
 * and an answerer that runs the demo agent's session logic on the channel it receives. No timings are
 * asserted; each wait is bounded only so a broken peer fails the test instead of hanging it.
 */

interface Answerer {
  answer: string;
  pc: ndc.PeerConnection;
  /** The channel the agent side received, with its label and subprotocol. */
  channel: Promise<{ label: string; protocol: string; dc: ndc.DataChannel }>;
  /** Every client message the agent received, in order. */
  received: string[];
}

const peers: { close(): void }[] = [];
afterAll(() => {
  for (const peer of peers) peer.close();
});

/** The agent's side: an Opus track and, on the app's channel, the demo agent's session (or `raw`: a hand-driven channel). */
async function answerer(offer: string, mode: 'agent' | 'raw' = 'agent'): Promise<Answerer> {
  const pc = new ndc.PeerConnection('agent', { iceServers: [], bindAddress: '127.0.0.1' });
  const audio = new ndc.Audio(offerAudioMid(offer) ?? '0', 'SendRecv');
  audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
  audio.addSSRC(777, 'agent', 'agent-stream', 'agent-audio');
  const track = pc.addTrack(audio);
  const received: string[] = [];
  const channel = new Promise<{ label: string; protocol: string; dc: ndc.DataChannel }>((resolve) => {
    pc.onDataChannel((dc) => {
      keepUntilExit(dc);
      if (mode === 'agent') {
        const session = new AgentCallDemoSession({
          io: {
            send: (envelope) => {
              if (dc.isOpen()) dc.sendMessage(JSON.stringify(envelope));
            },
            close: () => dc.close(),
          },
        });
        dc.onMessage((message) => {
          if (typeof message !== 'string') return;
          received.push(message);
          void session.receive(message);
        });
        dc.onClosed(() => session.dispose());
      } else {
        dc.onMessage((message) => {
          if (typeof message === 'string') received.push(message);
        });
      }
      resolve({ label: dc.getLabel(), protocol: dc.getProtocol(), dc });
    });
  });
  keepUntilExit(pc, track);
  peers.push(pc);
  const answer = await gatheredDescription(pc, () => pc.setRemoteDescription(offer, 'offer'));
  return { answer, pc, channel, received };
}

function cardWith(supportsExplicitTurns: boolean): AgentCallCard {
  return {
    name: 'Demo over WebRTC',
    description: '',
    version: '1',
    extensionUri: 'canonical',
    aguiUrl: 'http://127.0.0.1:9/agui',
    voiceOwner: 'agent',
    accepted: ['nfc', 'photo'],
    agentRequests: ['nfc', 'photo'],
    bearerRequired: false,
    skills: [],
    uiLinksDeclared: false,
    transport: 'webrtc',
    webrtc: { ...webrtcDescriptor, supportsExplicitTurns },
  };
}

async function call(mode: 'agent' | 'raw' = 'agent'): Promise<{ offerer: AgentCallOfferer; agent: Answerer }> {
  const offerer = await createAgentCallOfferer();
  peers.push(offerer);
  const agent = await answerer(offerer.offer, mode);
  offerer.accept(agent.answer);
  await within(offerer.opened, 10_000, 'the agentcall.events channel did not open');
  return { offerer, agent };
}

/** Resolves once `done()` holds (checked every 10 ms); fails after 10 s with `what`. */
function waitFor(done: () => boolean, what: string): Promise<void> {
  return within(
    (async () => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    10_000,
    what,
  );
}

/** Resolves with the view once `done(view)` holds (checked after every update). */
function until(driver: AgentCallDriver, done: (view: SessionView) => boolean, what: string): Promise<SessionView> {
  if (done(driver.view)) return Promise.resolve(driver.view);
  return within(
    new Promise<SessionView>((resolve) => {
      const off = driver.onUpdate((_update, view) => {
        if (done(view)) {
          off();
          resolve(view);
        }
      });
    }),
    10_000,
    `timed out waiting for ${what}`,
  );
}

const agentTexts = (view: SessionView) => view.items.flatMap((item) => (item.kind === 'agentText' && item.state === 'completed' ? [item.text] : []));
const object = (ref: string) => ({ objectRef: ref, carrier: 'localTag' as const, assurance: 'unverifiedTag' as const, payloadSha256: '0'.repeat(64) });

describe('an AgentCall session over the agentcall.events data channel', () => {
  it('carries session.start first, then text turns, observations and teaching, as over the WebSocket', async () => {
    const log = memoryLogger();
    const { offerer, agent } = await call();
    const seen = await agent.channel;
    expect([seen.label, seen.protocol]).toEqual(['agentcall.events', 'agentcall-agui-dc-0.1']);

    const driver = await openAgentCallOverChannel({
      card: cardWith(false),
      connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
      sessionId: 'proof-1',
      clientModalities: ['nfc', 'photo'],
      log,
    });
    expect(driver.view.phase).toBe('established');
    expect(JSON.parse(agent.received[0]!)).toEqual({
      type: 'session.start',
      sessionId: 'proof-1',
      clientCapabilities: { physicalObservations: { modalities: ['nfc', 'photo'] } },
    });

    driver.sendText('hello');
    await until(driver, (view) => agentTexts(view).length === 1 && !view.runActive, 'the first answer');
    driver.sendObservation({ object: object('urn:agentcall:object:router') });
    await until(driver, (view) => agentTexts(view).length === 2 && !view.runActive, 'the answer to the scan');
    driver.sendText('teach object Workshop router');
    const proposed = await until(driver, (view) => view.shownProposalId !== undefined && !view.runActive, 'the proposal');
    driver.answerProposal(proposed.shownProposalId!, 'confirm');
    await until(driver, (view) => agentTexts(view).length === 4 && !view.runActive, 'the confirmation');
    driver.sendObservation({ object: object('urn:agentcall:object:router') });
    const named = await until(driver, (view) => agentTexts(view).length === 5 && !view.runActive, 'the rescan');
    expect(agentTexts(named)[4]).toContain('Workshop router');

    // Turns share one counter and strictly increase; every envelope was acknowledged in order.
    const messages = agent.received.map((text) => JSON.parse(text) as { type: string; turn?: number; sequence?: number });
    const turns = messages.flatMap((message) => (message.turn === undefined ? [] : [message.turn]));
    expect(turns).toEqual([1, 2, 3, 4, 5]);
    const acks = messages.flatMap((message) => (message.type === 'ack' ? [message.sequence] : []));
    expect(acks).toEqual(acks.map((_sequence, index) => index + 1));

    await driver.end();
    expect(driver.view.phase).toBe('ended');
    // session.end went out before the channel was closed, so the agent gets it.
    await waitFor(() => agent.received.some((text) => JSON.parse(text).type === 'session.end'), 'session.end did not arrive');
  });

  it('asks for explicit audio turns when the card supports them, and carries start/commit/cancel with one turn id', async () => {
    const log = memoryLogger();
    const { offerer, agent } = await call('raw');
    const seen = await agent.channel;
    const opening = openAgentCallOverChannel({
      card: cardWith(true),
      connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
      sessionId: 'proof-2',
      clientModalities: [],
      log,
    });
    await waitFor(() => agent.received.length > 0, 'no session.start arrived');
    expect(JSON.parse(agent.received[0]!)).toEqual({
      type: 'session.start',
      sessionId: 'proof-2',
      clientCapabilities: { physicalObservations: { modalities: [] }, audioTurnControl: { mode: 'explicit' } },
    });
    seen.dc.sendMessage(JSON.stringify({ sequence: 1, event: { type: 'session.established', resumed: false } }));
    const driver = await opening;

    const first = await driver.startAudioTurn();
    await expect(driver.startAudioTurn()).rejects.toThrow(AgentCallRejection); // one audio turn at a time
    expect(() => driver.sendText('typed meanwhile')).toThrow(AgentCallRejection);
    expect(() => driver.endAudioTurn('commit', { stopped: false })).toThrow(/Stop the microphone/);
    driver.endAudioTurn('commit', { stopped: true });
    const second = await driver.startAudioTurn();
    driver.endAudioTurn('cancel', { stopped: true });
    driver.sendText('typed');
    await waitFor(() => agent.received.some((text) => text.includes('"user.turn"')), 'the typed turn did not arrive');
    const messages = agent.received
      .map((text) => JSON.parse(text) as { type: string; turn?: number })
      .filter((message) => message.type !== 'ack' && message.type !== 'session.start');
    expect(messages).toEqual([
      { type: 'audio.turn.start', turn: first },
      { type: 'audio.turn.commit', turn: first },
      { type: 'audio.turn.start', turn: second },
      { type: 'audio.turn.cancel', turn: second },
      { type: 'user.turn', turn: 3, text: 'typed' },
    ]);
    expect([first, second]).toEqual([1, 2]);
    await driver.end();
  });

  it('push to talk pressed while the agent answers is a barge-in: response.cancel, then the turn once the run has ended; an agent that never ends it gets run_active', async () => {
    const log = memoryLogger();
    const { offerer, agent } = await call('raw');
    const seen = await agent.channel;
    const opening = openAgentCallOverChannel({
      card: cardWith(true),
      connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
      sessionId: 'proof-3',
      clientModalities: [],
      log,
    });
    const sent = () =>
      agent.received
        .map((text) => JSON.parse(text) as { type: string; turn?: number })
        .filter((message) => message.type !== 'ack' && message.type !== 'session.start');
    await waitFor(() => agent.received.length > 0, 'no session.start arrived');
    seen.dc.sendMessage(JSON.stringify({ sequence: 1, event: { type: 'session.established', resumed: false } }));
    const driver = await opening;

    seen.dc.sendMessage(JSON.stringify({ sequence: 2, event: { type: 'run.started', runId: 'r1' } }));
    await waitFor(() => driver.view.runActive, 'run.started did not arrive');
    const pressed = driver.startAudioTurn();
    await waitFor(() => sent().length > 0, 'response.cancel did not arrive');
    // The turn does not open while the run is on: one run at a time.
    expect(sent()).toEqual([{ type: 'response.cancel' }]);
    expect(driver.view.runCancelling).toBe(true);
    seen.dc.sendMessage(JSON.stringify({ sequence: 3, event: { type: 'run.completed', runId: 'r1' } }));
    const turn = await pressed;
    driver.endAudioTurn('cancel', { stopped: true });
    await waitFor(() => sent().length === 3, 'the turn did not arrive');
    expect(sent()).toEqual([{ type: 'response.cancel' }, { type: 'audio.turn.start', turn }, { type: 'audio.turn.cancel', turn }]);

    // An agent that never ends its run: the press is refused once the bound has passed, and no turn opens.
    seen.dc.sendMessage(JSON.stringify({ sequence: 4, event: { type: 'run.started', runId: 'r2' } }));
    await waitFor(() => driver.view.runActive, 'the second run.started did not arrive');
    await expect(driver.startAudioTurn(50)).rejects.toMatchObject({ reason: 'run_active', message: expect.stringMatching(/did not stop answering/) });
    expect(driver.openAudioTurn).toBeUndefined();
    await waitFor(() => sent().length === 4, 'the second response.cancel did not arrive');
    expect(sent()[3]).toEqual({ type: 'response.cancel' });
    // A press while the cancel is still unanswered asks nothing again; the run ending then opens the turn.
    const again = driver.startAudioTurn();
    seen.dc.sendMessage(JSON.stringify({ sequence: 5, event: { type: 'run.completed', runId: 'r2' } }));
    const next = await again;
    expect(next).toBe(turn + 1);
    driver.endAudioTurn('commit', { stopped: true });
    await waitFor(() => sent().length === 6, 'the second turn did not arrive');
    expect(sent().slice(4)).toEqual([
      { type: 'audio.turn.start', turn: next },
      { type: 'audio.turn.commit', turn: next },
    ]);
    await driver.end();
  });

  it('ends the session on a binary message, and on one larger than 128 KiB, before parsing', async () => {
    for (const [frame, code] of [
      [Buffer.from('{"sequence":1}'), 1003],
      ['x'.repeat(128 * 1024 + 1), 1009],
    ] as const) {
      const log = memoryLogger();
      const { offerer, agent } = await call('raw');
      const seen = await agent.channel;
      const opening = openAgentCallOverChannel({
        card: cardWith(false),
        connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
        sessionId: 's-1',
        clientModalities: [],
        log,
      });
      await waitFor(() => agent.received.length > 0, 'no session.start arrived');
      seen.dc.sendMessage(JSON.stringify({ sequence: 1, event: { type: 'session.established', resumed: false } }));
      const driver = await opening;
      if (typeof frame === 'string') seen.dc.sendMessage(frame);
      else seen.dc.sendMessageBinary(frame);
      const reason = await within(driver.ended(), 10_000, 'the session did not end');
      expect(reason.kind).toBe('transport_closed');
      expect(reason.kind === 'transport_closed' && reason.closeCode).toBe(code);
    }
  });

  it("ends the session and discards the proposal when the agent's peer goes away (no resume)", async () => {
    const log = memoryLogger();
    const { offerer, agent } = await call();
    const driver = await openAgentCallOverChannel({
      card: cardWith(false),
      connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
      sessionId: 's-2',
      clientModalities: ['nfc'],
      log,
    });
    driver.sendObservation({ object: object('urn:agentcall:object:drill') });
    await until(driver, (view) => agentTexts(view).length === 1 && !view.runActive, 'the answer to the scan');
    driver.sendText('teach object Drill');
    const proposed = await until(driver, (view) => view.shownProposalId !== undefined && !view.runActive, 'the proposal');
    const proposalId = proposed.shownProposalId!;
    agent.pc.close();
    const reason = await within(driver.ended(), 10_000, 'the session did not end when the peer closed');
    expect(reason.kind).toBe('transport_closed');
    expect(() => driver.answerProposal(proposalId, 'confirm')).toThrow(expect.objectContaining({ reason: 'session_ended' }));
    expect(driver.view.phase).toBe('ended');
  });

  it("refuses a channel without the profile's label or subprotocol", async () => {
    const log = memoryLogger();
    for (const options of [{ label: 'oai-events' }, { protocol: '' }]) {
      const offerer = await createAgentCallOfferer(options);
      peers.push(offerer);
      expect(() => connectNodeDataChannel(offerer.channel, offerer.pc, log)).toThrow(/profile needs/);
    }
  });
});
