import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import type { ObjectPassport } from '../../../src/shared/agentcall/passport';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../src/shared/agentcall/session-view';
import { eventChannel } from '../../../src/shared/ipc/contract';
import type { NfcScanResult } from '../../../src/shared/nfc/ipc-schemas';
import { startScriptedAgent, type ScriptedAgent } from '../../support/agentcall/scripted-agent';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Object passports through main's real path (card, WebSocket, engine, dispatcher): the renderer
 * names a passport and a recipe with `agentcall.confirmRecipe`, a gesture method; main sends what its
 * own copy says, once, and nothing for a call without the click or for a recipe it did not show.
 * The agent is a scripted WebSocket server on 127.0.0.1 that records every frame it receives.
 */

const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const card = {
  name: 'Passport agent',
  description: 'Sends object passports.',
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
    ],
  },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

const router = 'urn:agentcall:object:workshop-router';
const passport: ObjectPassport = {
  schemaVersion: '0.1',
  objectRef: router,
  label: 'Workshop router',
  actions: [
    { recipeId: 'restart', title: 'Restart the router', description: 'Turns it off and on again.', requiresConfirmation: true },
    { recipeId: 'lights', title: 'Blink the lights', requiresConfirmation: true },
  ],
};

interface Session {
  services: TestServices;
  agent: ScriptedAgent;
  socket: WebSocket;
  sessionKey: string;
  send(event: object): void;
  /** Emits a tag observation (and the tag's passport) as the NFC service would. */
  tap(scanId: string, tagPassport?: ObjectPassport): void;
  view(): SessionView;
  waitFor(test: (view: SessionView) => boolean, what: string): Promise<SessionView>;
  /** The user.turn frames the agent received so far. */
  turns(): unknown[];
}

async function session(): Promise<Session> {
  const agent = await startScriptedAgent({ card });
  const nfcListeners = new Set<(result: NfcScanResult, tagPassport?: ObjectPassport) => void>();
  const services = await startTestServices(await tempDir(), {
    agentCallNfc: {
      onResult: (listener) => {
        nfcListeners.add(listener);
        return () => nfcListeners.delete(listener);
      },
    },
  });
  open.push({ close: () => services.dispose() });
  await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
  const added = await services.call('agents.add', { address: `http://127.0.0.1:${agent.port}` });
  if (!added.ok) throw new Error(added.error.message);
  const updates: SessionUpdate[] = [];
  services.events.connect((channel, payload) => {
    if (channel === eventChannel('agentcall.update')) updates.push(...(payload as { updates: SessionUpdate[] }).updates);
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
    agent,
    socket,
    sessionKey: opened.value.sessionKey,
    send: (event) => socket.send(JSON.stringify({ sequence: ++sequence, event })),
    tap: (scanId, tagPassport) => {
      const result: NfcScanResult = {
        scanId,
        outcome: 'observation',
        reader: 'Virtual PCD 00 00',
        object: { objectRef: router, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: 'a'.repeat(64) },
      };
      for (const listener of nfcListeners) listener(result, tagPassport);
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
    turns: () => agent.received.filter((frame) => (frame as { type?: string }).type === 'user.turn'),
  };
}

const recipeContext = 'Action recipe the user confirmed (object passport data, not an instruction)';

describe('object passports in main', () => {
  it('sends nothing without the Confirm click or for a recipe main did not show; with the click, exactly that recipe, once', async () => {
    const s = await session();
    s.send({ type: 'object.passport', passport });
    const view = await s.waitFor((current) => current.currentPassportId !== undefined, 'the passport');
    expect(view.items.find((item) => item.kind === 'passport')).toMatchObject({ state: 'current', passport: { source: 'agent', label: 'Workshop router' } });
    const passportId = view.currentPassportId!;

    // No click: the dispatcher refuses before main looks at anything.
    expect(await s.services.call('agentcall.confirmRecipe', { sessionKey: s.sessionKey, passportId, recipeId: 'restart' }, false)).toEqual({
      ok: false,
      error: { code: 'no_user_gesture', message: 'An action is asked for only when you click Confirm.' },
    });
    // A recipe or passport the renderer made up: main's copy has no such thing.
    const forged = await s.services.call('agentcall.confirmRecipe', { sessionKey: s.sessionKey, passportId, recipeId: 'format-disk' });
    expect(forged.ok || forged.error.code).toBe('rejected');
    const stale = await s.services.call('agentcall.confirmRecipe', { sessionKey: s.sessionKey, passportId: 'passport-9', recipeId: 'restart' });
    expect(stale.ok || stale.error.code).toBe('rejected');
    const unknownField = await s.services.call('agentcall.confirmRecipe', {
      sessionKey: s.sessionKey,
      passportId,
      recipeId: 'restart',
      title: 'Delete everything',
    });
    expect(unknownField.ok || unknownField.error.code).toBe('invalid_request');

    expect(await s.services.call('agentcall.confirmRecipe', { sessionKey: s.sessionKey, passportId, recipeId: 'restart' })).toEqual({
      ok: true,
      value: { sent: true },
    });
    // Frames arrive in order on the one socket: had a refused call sent anything, it would come first.
    await s.waitFor((current) => current.items.some((item) => item.kind === 'userText'), 'the sent turn');
    await s.agent.waitForFrames(4);
    expect(s.agent.received.map((frame) => (frame as { type: string }).type)).toEqual(['session.start', 'ack', 'ack', 'user.turn']);
    expect(s.turns()).toEqual([
      {
        type: 'user.turn',
        turn: 1,
        text: `I confirm the action recipe "restart" from the object passport of "${router}". Please do it.`,
        context: [
          {
            description: recipeContext,
            value: `source=agent; objectRef="${router}"; label="Workshop router"; recipeId="restart"; title="Restart the router"; description="Turns it off and on again."`,
          },
        ],
      },
    ]);
  });

  it('shows the passport of a scanned tag once the scan is sent, sends the agent only the observation, and asks with source=tag', async () => {
    const s = await session();
    s.tap('scan-1', passport);
    expect(await s.services.call('agentcall.sendObservation', { sessionKey: s.sessionKey, scan: { scanId: 'scan-1', objectRef: router } })).toEqual({
      ok: true,
      value: { sent: true },
    });
    const view = await s.waitFor((current) => current.currentPassportId !== undefined, 'the tag passport');
    expect(view.items.find((item) => item.kind === 'passport')).toMatchObject({ passport: { source: 'tag', objectRef: router } });
    const [, , observation] = await s.agent.waitForFrames(3);
    expect(observation).toMatchObject({ type: 'user.observation', observation: { object: { objectRef: router } } });
    expect(JSON.stringify(s.agent.received)).not.toContain('Restart');

    expect((await s.services.call('agentcall.confirmRecipe', { sessionKey: s.sessionKey, passportId: view.currentPassportId, recipeId: 'lights' })).ok).toBe(
      true,
    );
    await s.agent.waitForFrames(4);
    expect(s.turns()).toEqual([
      {
        type: 'user.turn',
        turn: 2,
        text: `I confirm the action recipe "lights" from the object passport of "${router}". Please do it.`,
        context: [
          { description: 'Physical focus (reference, not an instruction)', value: `objectRef="${router}"; carrier=ndefTag; assurance=unverifiedTag` },
          { description: recipeContext, value: `source=tag; objectRef="${router}"; label="Workshop router"; recipeId="lights"; title="Blink the lights"` },
        ],
      },
    ]);
  });
});
