import { afterEach, describe, expect, it } from 'vitest';
import { startAgentCallDemoServer, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { applySessionUpdate, emptySessionView, type SessionUpdate, type SessionView } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId, eventChannel } from '../../../src/shared/ipc/contract';
import type { NfcScanResult } from '../../../src/shared/nfc/ipc-schemas';
import { memoryLogger } from '../../support/logger';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { photoLikeJpeg } from '../photo/fixtures';

/**
 * The app's AgentCall service through the real dispatcher, against the demo agent's AgentCall side
 * over a real WebSocket: text turns, a tag observation named by scan, a real photo through sharp,
 * the agent's requests, teaching, and what is released when the session ends.
 */

const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

interface Harness {
  services: TestServices;
  demo: AgentCallDemoServer;
  /** Every agentcall.update, folded. */
  view(): SessionView;
  updates: SessionUpdate[];
  /** Emits a tag observation as the NFC service would. */
  tap(scanId: string, objectRef: string): void;
  waitFor(test: (view: SessionView) => boolean, what: string): Promise<SessionView>;
}

async function harness(options: { token?: string } = {}): Promise<Harness> {
  const demo = await startAgentCallDemoServer({ log: memoryLogger(), ...(options.token ? { token: options.token } : {}) });
  open.push(demo);
  const nfcListeners = new Set<(result: NfcScanResult) => void>();
  const services = await startTestServices(await tempDir(), {
    demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', agentCallCardUrl: demo.cardUrl }) },
    agentCallNfc: {
      onResult: (listener) => {
        nfcListeners.add(listener);
        return () => nfcListeners.delete(listener);
      },
    },
  });
  open.push({ close: () => services.dispose() });
  const updates: SessionUpdate[] = [];
  services.events.connect((channel, payload) => {
    if (channel === eventChannel('agentcall.update')) updates.push(...(payload as { updates: SessionUpdate[] }).updates);
  });
  const view = () => updates.reduce(applySessionUpdate, emptySessionView);
  return {
    services,
    demo,
    updates,
    view,
    tap: (scanId, objectRef) => {
      for (const listener of nfcListeners) {
        listener({
          scanId,
          outcome: 'observation',
          reader: 'Virtual PCD 00 00',
          object: { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: 'a'.repeat(64) },
        });
      }
    },
    waitFor: async (test, what) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const current = view();
        if (test(current)) return current;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`timed out waiting for ${what}; items: ${JSON.stringify(view().items.slice(-5))}`);
    },
  };
}

const lastAgentText = (view: SessionView): string | undefined => {
  const item = [...view.items].reverse().find((entry) => entry.kind === 'agentText' && entry.state === 'completed');
  return item?.kind === 'agentText' ? item.text : undefined;
};
const idle = (view: SessionView) => view.phase === 'established' && !view.runActive;

async function openDemo(h: Harness): Promise<string> {
  const opened = await h.services.call('agentcall.open', { agentId: builtInAgentCallDemoId });
  if (!opened.ok) throw new Error(opened.error.message);
  h.updates.push(...opened.value.updates);
  expect(opened.value.agent.name).toBe('AgentDesk demo agent');
  expect(opened.value.agent.accepted).toEqual(['nfc', 'photo']);
  await h.waitFor((view) => view.phase === 'established', 'session.established');
  return opened.value.sessionKey;
}

describe('AgentCall sessions in main', () => {
  it('teaches the demo an object scanned on this machine and recognises it on the next scan', async () => {
    const h = await harness();
    const sessionKey = await openDemo(h);
    expect(h.view().usableModalities).toEqual(['nfc', 'photo']);

    h.tap('scan-1', 'urn:agentcall:object:workshop-router');
    expect(
      await h.services.call('agentcall.sendObservation', { sessionKey, scan: { scanId: 'scan-1', objectRef: 'urn:agentcall:object:workshop-router' } }),
    ).toEqual({ ok: true, value: { sent: true } });
    let view = await h.waitFor((current) => idle(current) && lastAgentText(current) !== undefined, 'the answer to the scan');
    expect(view.focus?.objectRef).toBe('urn:agentcall:object:workshop-router');

    await h.services.call('agentcall.sendText', { sessionKey, text: 'teach object Workshop router' });
    view = await h.waitFor((current) => current.shownProposalId !== undefined && idle(current), 'the teaching proposal');
    const proposal = view.items.find((item) => item.kind === 'teaching');
    expect(proposal?.kind === 'teaching' && proposal.proposal).toMatchObject({ objectRef: 'urn:agentcall:object:workshop-router', label: 'Workshop router' });

    // The same scan cannot be sent twice: main used it up.
    const reused = await h.services.call('agentcall.sendObservation', {
      sessionKey,
      scan: { scanId: 'scan-1', objectRef: 'urn:agentcall:object:workshop-router' },
    });
    expect(reused.ok || reused.error.code).toBe('not_found');

    expect((await h.services.call('agentcall.answerProposal', { sessionKey, proposalId: view.shownProposalId, answer: 'confirm' })).ok).toBe(true);
    await h.waitFor((current) => current.items.some((item) => item.kind === 'teaching' && item.state === 'confirmed') && idle(current), 'the confirmation');

    h.tap('scan-2', 'urn:agentcall:object:workshop-router');
    await h.services.call('agentcall.sendObservation', { sessionKey, scan: { scanId: 'scan-2', objectRef: 'urn:agentcall:object:workshop-router' } });
    view = await h.waitFor((current) => idle(current) && (lastAgentText(current) ?? '').includes('Workshop router'), 'the label on rescan');
    expect(view.phase).toBe('established');
  });

  it('refuses an object the NFC bridge did not produce, and an observation without a user gesture', async () => {
    const h = await harness();
    const sessionKey = await openDemo(h);
    const forged = await h.services.call('agentcall.sendObservation', { sessionKey, scan: { scanId: 'made-up', objectRef: 'urn:agentcall:object:anything' } });
    expect(forged.ok || forged.error.code).toBe('not_found');
    h.tap('scan-9', 'urn:agentcall:object:x');
    const noGesture = await h.services.call(
      'agentcall.sendObservation',
      { sessionKey, scan: { scanId: 'scan-9', objectRef: 'urn:agentcall:object:x' } },
      false,
    );
    expect(noGesture.ok || noGesture.error.code).toBe('no_user_gesture');
  });

  it('answers an agent-requested photo with a photo staged through sharp, tied to the request', async () => {
    const h = await harness();
    const sessionKey = await openDemo(h);
    await h.services.call('agentcall.sendText', { sessionKey, text: 'take a photo' });
    const view = await h.waitFor((current) => current.pendingInteraction !== undefined && idle(current), 'the photo request');
    expect(view.pendingInteraction?.kind).toBe('physical.photo.capture');

    const jpeg = await photoLikeJpeg(800, 600, { seed: 3 });
    const staged = await h.services.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(jpeg) });
    if (!staged.ok) throw new Error(staged.error.message);
    // A wrong-modality answer (an object for a photo request) is refused before anything is sent.
    h.tap('scan-3', 'urn:agentcall:object:y');
    const wrong = await h.services.call('agentcall.sendObservation', {
      sessionKey,
      scan: { scanId: 'scan-3', objectRef: 'urn:agentcall:object:y' },
      interactionId: view.pendingInteraction!.interactionId,
    });
    expect(wrong.ok || wrong.error.code).toBe('rejected');

    const sent = await h.services.call('agentcall.sendObservation', {
      sessionKey,
      photoId: staged.value.photoId,
      interactionId: view.pendingInteraction!.interactionId,
      intent: 'inspect',
    });
    expect(sent.ok).toBe(true);
    const size = `${staged.value.pixelWidth}×${staged.value.pixelHeight}`;
    const answered = await h.waitFor(
      (current) =>
        current.items.some((item) => item.kind === 'interaction' && item.state === 'answered') &&
        idle(current) &&
        (lastAgentText(current) ?? '').includes(size),
      'the answered request and the agent’s answer about the photo',
    );
    expect(answered.pendingInteraction).toBeUndefined();
    // Sent photos are gone from main.
    expect(h.services.photos.diagnostics().staged).toEqual([]);
  });

  it('releases staged photos when the session ends, and refuses commands afterwards', async () => {
    const h = await harness();
    const sessionKey = await openDemo(h);
    const staged = await h.services.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(await photoLikeJpeg(320, 240, { seed: 4 })) });
    expect(staged.ok).toBe(true);
    expect(await h.services.call('agentcall.end', { sessionKey })).toEqual({ ok: true, value: { ended: true } });
    await h.waitFor((view) => view.phase === 'ended', 'the end');
    expect(h.services.photos.diagnostics().staged).toEqual([]);
    const after = await h.services.call('agentcall.sendText', { sessionKey, text: 'hello' });
    expect(after.ok || after.error.code).toBe('session_ended');
  });

  it('asks for a token when the card requires one, then connects with the pasted token', async () => {
    const h = await harness({ token: 'agent-secret-token-1' });
    const first = await h.services.call('agentcall.open', { agentId: builtInAgentCallDemoId });
    expect(first.ok || first.error.code).toBe('sign_in_required');
    expect((await h.services.call('agentcall.useToken', { agentId: builtInAgentCallDemoId, token: 'agent-secret-token-1' })).ok).toBe(true);
    await openDemo(h);
  });

  it('describes the agent without a session: a WebSocket card whose voice the client owns', async () => {
    const h = await harness();
    const described = await h.services.call('agentcall.card', { agentId: builtInAgentCallDemoId });
    if (!described.ok) throw new Error(described.error.message);
    expect(described.value.agent).toMatchObject({ name: 'AgentDesk demo agent', voice: { owner: 'client', transport: 'websocket', explicitTurns: false } });
    expect(h.updates).toEqual([]);
  });

  it('explains why an agent cannot be used', async () => {
    const h = await harness();
    const added = await h.services.call('agents.add', { address: 'https://127.0.0.1:9/' });
    if (!added.ok) throw new Error(added.error.message);
    const identified = await h.services.call('agents.identify', { agentId: added.value.agent.id });
    expect(identified.ok).toBe(false);
    const opened = await h.services.call('agentcall.open', { agentId: added.value.agent.id });
    expect(opened.ok).toBe(false);
    expect(await h.services.call('agents.identify', { agentId: builtInAgentCallDemoId })).toEqual({ ok: true, value: { protocol: 'agentcall' } });
  });
});
