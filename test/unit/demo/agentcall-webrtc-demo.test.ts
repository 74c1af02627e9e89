import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { validateAgentCard, type AgentCallCard } from '../../../src/shared/agentcall/card';
import type { SessionView } from '../../../src/shared/agentcall/session-view';
import { connectNodeDataChannel } from '../../../src/main/agentcall/datachannel-transport';
import { openAgentCallOverChannel, type AgentCallDriver } from '../../../src/main/agentcall/session-driver';
import { postAgentCallOffer } from '../../../src/main/agentcall/webrtc-signalling';
import { createAgentCallOfferer, within, type AgentCallOfferer } from '../../../src/main/cli/voice-peer';
import { startAgentCallDemoServer, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { OpusRtpSender } from '../../../src/main/demo/voice/rtp-opus';
import { memoryLogger } from '../../support/logger';
import { espeak48k, speechUnavailableReason } from '../../support/speech';

/**
 * The demo's AgentCall side over agentcall-webrtc-0.1: its second card, the POST rules of its endpoint,
 * and whole calls between a real node-datachannel offerer (the app's side, as `agentdesk conformance`
 * makes it) and the demo's answerer, through main's own SDP POST, transport and session engine. The
 * voice tests use the real espeak-ng and pocketsphinx; without them they say why and skip.
 */

const servers: AgentCallDemoServer[] = [];
const peers: AgentCallOfferer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => {
  for (const peer of peers) peer.close();
});

const dev = { allowLocalHttp: true };
const token = 'demo-token-0123456789';

async function demo(withToken = false): Promise<{ server: AgentCallDemoServer; card: AgentCallCard }> {
  const server = await startAgentCallDemoServer(withToken ? { token } : {});
  servers.push(server);
  const response = await fetch(server.webrtcCardUrl);
  const result = validateAgentCard(await response.json(), dev);
  if (!result.ok || result.kind !== 'agentcall') throw new Error(`the WebRTC card is not valid: ${JSON.stringify(result.problems)}`);
  return { server, card: result.card };
}

async function call(card: AgentCallCard, sessionId: string, bearerToken?: string): Promise<{ driver: AgentCallDriver; offerer: AgentCallOfferer }> {
  const log = memoryLogger();
  const offerer = await createAgentCallOfferer();
  peers.push(offerer);
  const answer = await postAgentCallOffer({ card, sessionId, offer: offerer.offer, policy: dev, ...(bearerToken === undefined ? {} : { bearerToken }) });
  offerer.accept(answer);
  await within(offerer.opened, 10_000, 'the agentcall.events channel did not open');
  const driver = await openAgentCallOverChannel({
    card,
    connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
    sessionId,
    clientModalities: ['nfc', 'photo'],
    log,
  });
  return { driver, offerer };
}

function until(driver: AgentCallDriver, done: (view: SessionView) => boolean, what: string, ms = 10_000): Promise<SessionView> {
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
    ms,
    `timed out waiting for ${what}`,
  );
}

const completed = (view: SessionView) => view.items.filter((item) => item.kind === 'agentText' && item.state === 'completed').length;

function post(url: string, headers: Record<string, string>, body = 'v=0\r\n'): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
}

describe('the demo agent over agentcall-webrtc-0.1', () => {
  it('publishes a second card with the exact profile, explicit turns and agent-owned voice', async () => {
    const { server, card } = await demo();
    expect(card.transport).toBe('webrtc');
    expect(card.voiceOwner).toBe('agent');
    expect(card.transport === 'webrtc' && card.webrtc.supportsExplicitTurns).toBe(true);
    expect(card.aguiUrl).toBe(`${server.baseUrl}/agui/webrtc`);
    expect(card.accepted).toEqual(['nfc', 'photo']);
  });

  it("answers an offer only with the profile's headers, and the bearer when its card declares one", async () => {
    const { server, card } = await demo(true);
    const url = card.aguiUrl;
    const good = { 'Content-Type': 'application/sdp', Accept: 'application/sdp', 'AgentCall-Session-ID': 's-1', Authorization: `Bearer ${token}` };
    const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([key]) => key !== name));
    expect((await post(url, without('Authorization'))).status).toBe(401);
    expect((await post(`${url}?access_token=${token}`, without('Authorization'))).status).toBe(401);
    expect((await post(url, { ...good, 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post(url, without('Accept'))).status).toBe(406);
    expect((await post(url, without('AgentCall-Session-ID'))).status).toBe(400);
    expect((await post(url, { ...good, 'AgentCall-Session-ID': 'has spaces' })).status).toBe(400);
    expect((await post(url, good, 'not sdp')).status).toBe(400);
    expect((await post(url, good, `v=0\r\n${'a=x\r\n'.repeat(20_000)}`)).status).toBe(413);
    expect(server.webrtc.openCalls).toBe(0);
    // And through main's own POST, with the bearer the card asks for:
    const { driver } = await call(card, 'proof-webrtc', token);
    expect(driver.view.phase).toBe('established');
    await driver.end();
  });

  it('runs the reference-proof steps on the data channel: text, scan request, teaching, rescan', async () => {
    const { server, card } = await demo();
    const { driver } = await call(card, 'proof-1');
    expect(JSON.parse(server.webrtc.received[0]!)).toMatchObject({
      type: 'session.start',
      sessionId: 'proof-1',
      clientCapabilities: { audioTurnControl: { mode: 'explicit' } },
    });
    const object = {
      objectRef: 'urn:agentcall:object:workshop-router',
      carrier: 'localTag' as const,
      assurance: 'unverifiedTag' as const,
      payloadSha256: '0'.repeat(64),
    };
    driver.sendText('scan an object');
    const requested = await until(driver, (view) => view.pendingInteraction !== undefined && !view.runActive, 'the scan request');
    driver.sendObservation({ object, interactionId: requested.pendingInteraction!.interactionId });
    await until(driver, (view) => completed(view) === 2 && !view.runActive, 'the unknown object');
    driver.sendText('teach object Workshop router');
    const proposed = await until(driver, (view) => view.shownProposalId !== undefined && !view.runActive, 'the proposal');
    driver.answerProposal(proposed.shownProposalId!, 'confirm');
    await until(driver, (view) => completed(view) === 4 && !view.runActive, 'the confirmation');
    driver.sendObservation({ object });
    const named = await until(driver, (view) => completed(view) === 5 && !view.runActive, 'the rescan');
    const last = named.items.filter((item) => item.kind === 'agentText').at(-1);
    expect(last && 'text' in last ? last.text : '').toContain('Workshop router');
    await driver.end();
  });

  it('refuses a session.start that names another session than the offer', async () => {
    const { card } = await demo();
    const log = memoryLogger();
    const offerer = await createAgentCallOfferer();
    peers.push(offerer);
    offerer.accept(await postAgentCallOffer({ card, sessionId: 'offer-id', offer: offerer.offer, policy: dev }));
    await within(offerer.opened, 10_000, 'the channel did not open');
    const opening = openAgentCallOverChannel({
      card,
      connection: connectNodeDataChannel(offerer.channel, offerer.pc, log),
      sessionId: 'another-id',
      clientModalities: [],
      log,
      establishTimeoutMs: 10_000,
    });
    await expect(opening).rejects.toThrow(/ended the session before it was established/);
  });

  const voiceSkip = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
  it.skipIf(voiceSkip !== undefined)(
    `speaks its answer as Opus RTP and hears an explicit audio turn${voiceSkip ? ` (skipped: ${voiceSkip})` : ''}`,
    async () => {
      const { server, card } = await demo();
      const { driver, offerer } = await call(card, 'voice-1');
      // The agent's voice: RTP packets on the app's track once it answers.
      let packets = 0;
      offerer.track.onMessage(() => {
        packets += 1;
      });
      driver.sendText('hello');
      await until(driver, (view) => completed(view) === 1 && !view.runActive, 'the spoken answer');
      await within(
        (async () => {
          while (packets < 25) await new Promise((resolve) => setTimeout(resolve, 20));
        })(),
        20_000,
        'the agent did not speak',
      );

      // The app's voice: "take a photo" spoken into an explicit turn, the microphone stopped, then commit.
      const sender = new OpusRtpSender(0x0a6e_7d01, 111, (packet) => {
        if (offerer.track.isOpen()) offerer.track.sendMessageBinary(packet);
      });
      const speech = await espeak48k('take a photo');
      await driver.startAudioTurn();
      await new Promise<void>((resolve) => sender.play(speech, resolve));
      sender.close();
      driver.endAudioTurn('commit', { stopped: true });
      const requested = await until(driver, (view) => view.pendingInteraction !== undefined, 'the photo request the spoken turn asks for', 20_000);
      expect(requested.pendingInteraction!.kind).toBe('physical.photo.capture');
      expect(Math.max(...server.webrtc.audioLevels)).toBeGreaterThan(0.02);
      await driver.end();
    },
  );
});
