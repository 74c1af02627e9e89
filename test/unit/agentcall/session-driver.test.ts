import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCallCard } from '../../../src/shared/agentcall/card';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import type { NfcObject } from '../../../src/shared/nfc/ipc-schemas';
import { discoverAgentCard } from '../../../src/main/agentcall/discovery';
import { AgentCallRejection, openAgentCallSession, type AgentCallDriver } from '../../../src/main/agentcall/session-driver';
import { startAgentCallDemoServer, type AgentCallDemoOptions, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { memoryLogger } from '../../support/logger';
import { startScriptedAgent } from '../../support/agentcall/scripted-agent';

/**
 * The session driver (transport + engine) against the real demo agent on 127.0.0.1 and, for the
 * failures, against scripted agents.
 */

const dev = { allowLocalHttp: true };
const servers: AgentCallDemoServer[] = [];
const drivers: AgentCallDriver[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((driver) => driver.end()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function demoCard(options: AgentCallDemoOptions = {}): Promise<AgentCallCard> {
  const server = await startAgentCallDemoServer(options);
  servers.push(server);
  const found = await discoverAgentCard(server.baseUrl, { allowLocalHttp: true });
  if (!found.ok || !found.validation.ok || found.validation.kind !== 'agentcall') throw new Error('the demo card did not validate');
  return found.validation.card;
}

function scriptedCard(wsUrl: string): AgentCallCard {
  return {
    name: 'Scripted agent',
    description: 'test',
    version: '1',
    extensionUri: 'canonical',
    aguiUrl: wsUrl.replace(/^ws/, 'http'),
    voiceOwner: 'client',
    accepted: ['nfc', 'photo'],
    agentRequests: ['nfc', 'photo'],
    bearerRequired: false,
    skills: [],
    uiLinksDeclared: false,
    transport: 'websocket',
    wsUrl,
  };
}

function object(name: string): NfcObject {
  const objectRef = `urn:agentcall:object:${name}`;
  return { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: createHash('sha256').update(objectRef).digest('hex') };
}

async function open(card: AgentCallCard, extra: { bearerToken?: string; establishTimeoutMs?: number } = {}): Promise<AgentCallDriver> {
  const driver = await openAgentCallSession({ card, policy: dev, clientModalities: ['nfc', 'photo'], log: memoryLogger(), ...extra });
  drivers.push(driver);
  return driver;
}

/** Resolves with the first update that matches, after the call. */
function next(driver: AgentCallDriver, test: (update: SessionUpdate) => boolean): Promise<SessionUpdate> {
  return new Promise((resolve) => {
    const off = driver.onUpdate((update) => {
      if (test(update)) {
        off();
        resolve(update);
      }
    });
  });
}
const runDone = (driver: AgentCallDriver) => next(driver, (update) => update.type === 'run.completed' || update.type === 'failure');
const lastAgentText = (driver: AgentCallDriver) => driver.view.items.filter((item) => item.kind === 'agentText').at(-1);

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('AgentCall session driver against the demo agent', () => {
  it('opens an established session and runs text, an observation and a confirmed teaching proposal', async () => {
    const driver = await open(await demoCard());
    expect(driver.view.phase).toBe('established');
    expect(driver.usableModalities).toEqual(['nfc', 'photo']);

    let done = runDone(driver);
    driver.sendText('hello');
    expect((await done).type).toBe('run.completed');
    expect(lastAgentText(driver)).toMatchObject({ state: 'completed', text: expect.stringContaining('demo agent') });

    const router = object('driver-router');
    done = runDone(driver);
    driver.sendObservation({ object: router });
    await done;
    expect(driver.view.focus).toEqual({ objectRef: router.objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag' });

    done = runDone(driver);
    driver.sendText('teach object Workshop router');
    await done;
    const proposalId = driver.view.shownProposalId;
    expect(proposalId).toBeDefined();
    expect(driver.view.items.find((item) => item.kind === 'teaching')).toMatchObject({
      state: 'shown',
      proposal: { objectRef: router.objectRef, label: 'Workshop router' },
    });

    done = runDone(driver);
    driver.answerProposal(proposalId!, 'confirm');
    await done;
    expect(driver.view.items.find((item) => item.kind === 'teaching')).toMatchObject({ state: 'confirmed' });

    done = runDone(driver);
    driver.sendObservation({ object: router });
    await done;
    expect(lastAgentText(driver)?.kind === 'agentText' && lastAgentText(driver)).toMatchObject({ text: 'This is "Workshop router".' });
  });

  it('throws the engine’s refusals as AgentCallRejection with their reason, and session_ended after the end', async () => {
    const driver = await open(await demoCard());
    const requested = next(driver, (update) => update.type === 'interaction.requested');
    const done = runDone(driver);
    driver.sendText('scan an object');
    const request = await requested;
    await done;
    expect(request).toMatchObject({ type: 'interaction.requested', interaction: { kind: 'physical.nfc.scan', modality: 'nfc' } });
    const interactionId = driver.view.pendingInteraction!.interactionId;

    const image = { mediaType: 'image/jpeg' as const, data: 'AAAA', byteCount: 3, sha256: '0'.repeat(64), pixelWidth: 1, pixelHeight: 1 };
    const wrong = await failure(Promise.resolve().then(() => driver.sendObservation({ image, interactionId })));
    expect(wrong).toBeInstanceOf(AgentCallRejection);
    expect(wrong).toMatchObject({ code: 'rejected', reason: 'wrong_modality' });
    expect(driver.view.pendingInteraction?.interactionId).toBe(interactionId);

    const resolved = next(driver, (update) => update.type === 'interaction.state');
    driver.declineInteraction();
    expect(await resolved).toMatchObject({ interactionId, state: 'declined' });

    await driver.end();
    expect(driver.view.endReason).toEqual({ kind: 'client_end', message: 'You ended the session.' });
    expect(await driver.ended()).toMatchObject({ kind: 'client_end' });
    const after = await failure(Promise.resolve().then(() => driver.sendText('hello?')));
    expect(after).toMatchObject({ code: 'session_ended', reason: 'session_ended' });
  });

  it('fails to open with sign_in_required when the upgrade needs a token, and connects with it', async () => {
    const token = 'driver-test-token-0123456789';
    const card = await demoCard({ token });
    expect(card.bearerRequired).toBe(true);
    expect(await failure(open(card))).toMatchObject({ code: 'sign_in_required' });
    const driver = await open(card, { bearerToken: token });
    expect(driver.view.phase).toBe('established');
  });
});

describe('AgentCall session driver against scripted agents', () => {
  it('refuses a WebRTC-only card before connecting', async () => {
    const card = { ...scriptedCard('ws://127.0.0.1:9/agui'), transport: 'webrtc' } as unknown as AgentCallCard;
    expect(await failure(open(card))).toMatchObject({ code: 'incompatible' });
  });

  it('gives up with protocol_error when session.start is never answered, and closes the socket', async () => {
    const agent = await startScriptedAgent();
    const opening = failure(open(scriptedCard(agent.url), { establishTimeoutMs: 300 }));
    expect(await agent.waitForFrames(1)).toEqual([expect.objectContaining({ type: 'session.start' })]);
    expect(await opening).toMatchObject({ code: 'protocol_error', message: expect.stringContaining('did not answer session.start') });
    expect(await agent.waitForFrames(2)).toContainEqual({ type: 'session.end' });
  });

  it('fails with protocol_error when the first event is not session.established', async () => {
    const agent = await startScriptedAgent({
      onConnection: (socket) => socket.once('message', () => socket.send(JSON.stringify({ sequence: 1, event: { type: 'run.started' } }))),
    });
    expect(await failure(open(scriptedCard(agent.url)))).toMatchObject({ code: 'protocol_error', message: expect.stringContaining('run.started') });
  });

  it('ends the session on a sequence regression: an ended update, a 1002 close, and commands refused', async () => {
    const agent = await startScriptedAgent({
      onConnection: (socket) =>
        socket.once('message', () => {
          socket.send(JSON.stringify({ sequence: 1, event: { type: 'session.established', resumed: false } }));
          socket.once('message', () => socket.send(JSON.stringify({ sequence: 1, event: { type: 'run.started' } })));
        }),
    });
    const driver = await open(scriptedCard(agent.url));
    const socket = await agent.nextSocket();
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    // The ack for sequence 1 triggers the regression.
    const reason = await driver.ended();
    expect(reason).toMatchObject({ kind: 'protocol_error', code: 'sequence_duplicate' });
    expect(await closed).toBe(1002);
    expect(() => driver.sendText('still there?')).toThrow(AgentCallRejection);
  });

  it('keeps the session within the conversation budget while an agent answers 8 MB: the oldest items go, counted', { timeout: 60_000 }, async () => {
    const runs = 40;
    const half = 'x'.repeat(100_000);
    const agent = await startScriptedAgent({
      onConnection: (socket) =>
        socket.once('message', () => {
          let sequence = 0;
          const send = (event: object) => socket.send(JSON.stringify({ sequence: ++sequence, event }));
          send({ type: 'session.established', resumed: false });
          for (let index = 0; index < runs; index++) {
            send({ type: 'run.started' });
            send({ type: 'text.delta', text: half });
            send({ type: 'text.delta', text: half });
            send({ type: 'run.completed' });
          }
        }),
    });
    const driver = await open(scriptedCard(agent.url));
    const done = () => driver.view.items.at(-1)?.id === `run-${runs}` && !driver.view.runActive;
    for (let waited = 0; !done() && waited < 30_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    // Main's own view of the session (the renderer folds the same updates the same way).
    expect(driver.view.removedItems).toBeGreaterThan(0);
    expect(itemsChars(driver.view.items)).toBeLessThanOrEqual(conversationBounds.chars);
    expect(driver.view.items.at(-1)).toMatchObject({ kind: 'agentText', id: `run-${runs}`, state: 'completed' });
  });
});
