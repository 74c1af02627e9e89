import { afterEach, describe, expect, it } from 'vitest';
import { startTalkieDemoServer, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import type { MethodName } from '../../../src/shared/ipc/contract';
import { memoryLogger } from '../../support/logger';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { api, waitFor } from './demo-helpers';
import { retryPeerRace, speechAvailable, useAppPeers } from './voice-helpers';

/**
 * The demo speaks (#16) to the app's own client: main's VoiceService (through the real dispatcher)
 * against the running demo server, with a node-datachannel offerer standing in for the renderer.
 */
const tempDir = useTempDirs();
const appPeer = useAppPeers();
const demos: TalkieDemoServer[] = [];
afterEach(async () => {
  await Promise.all(demos.splice(0).map((demo) => demo.close()));
});

const agentId = 'builtin-demo';

describe("the built-in demo's voice through the app's voice service", () => {
  it('start → SDP offer → tools (a card, an action confirmed by voice) → transcripts → usage → end', { timeout: 30_000 }, async () => {
    const log = memoryLogger();
    const app = await startTestServices(await tempDir(), {
      log,
      demo: {
        start: async () => {
          const demo = await startTalkieDemoServer({ timeScale: 0.02, voice: { speechEngines: () => speechAvailable } });
          demos.push(demo);
          return { baseUrl: demo.baseUrl, token: demo.token };
        },
      },
    });
    const events: unknown[] = [];
    app.events.connect((channel, payload) => void events.push({ channel, payload }));
    const answers: unknown[] = [];
    const call = async <M extends MethodName>(method: M, payload?: unknown) => {
      const result = await app.call(method, payload);
      answers.push(result);
      return result;
    };

    expect(await call('demo.open')).toEqual({ ok: true, value: { agentId } });
    const demo = demos[0]!;

    // The renderer's offer goes through main to the demo's provider, with the secret main keeps.
    const { start, peer } = await retryPeerRace(async () => {
      const start = await call('talkie.voiceStart', { agentId, locale: 'en' });
      expect(start).toMatchObject({
        ok: true,
        value: {
          callId: expect.any(String),
          threadId: expect.stringMatching(/^t_/),
          maxSeconds: 300,
          warnSeconds: 30,
          locale: 'en',
          labels: { search_contacts: 'Searching contacts…', send_offer: 'Preparing the offer…' },
          consent: { confirm: ['confirm', 'yes'], refuse: ['no', 'cancel'] },
          voiceConfirm: true,
        },
      });
      if (!start.ok) throw new Error('no voice call');
      const peer = await appPeer();
      const offered = await call('talkie.voiceOffer', { callId: start.value.callId, sdp: peer.offer });
      expect(offered).toMatchObject({ ok: true, value: { sdp: expect.stringMatching(/^v=0/) } });
      if (!offered.ok) throw new Error('no answer');
      try {
        await peer.connect(offered.value.sdp);
      } catch (error) {
        await call('talkie.voiceEnd', { callId: start.value.callId, seconds: 0 });
        throw error;
      }
      return { start: start.value, peer };
    });
    const { callId, threadId } = start;
    await waitFor(async () => (peer.messages.some((text) => (JSON.parse(text) as { type: string }).type === 'session.created') ? true : undefined), 10_000);
    expect(await call('talkie.voiceOffer', { callId, sdp: peer.offer })).toMatchObject({ ok: false, error: { code: 'voice_session_expired' } });

    // The provider asks for the tools; main calls voiceTool once per provider call id.
    const search = await call('talkie.voiceTool', { callId, providerCallId: 'call_1', name: 'search_contacts', arguments: '{"query":"Jana"}' });
    expect(search).toMatchObject({
      ok: true,
      value: { outcome: 'ok', output: expect.stringContaining('Jana Nováková'), updates: [{ type: 'card', card: { title: 'Contacts' } }] },
    });
    expect(await call('talkie.voiceTool', { callId, providerCallId: 'call_1', name: 'search_contacts', arguments: '{}' })).toEqual({
      ok: true,
      value: { outcome: 'duplicate' },
    });
    const offer = await call('talkie.voiceTool', { callId, providerCallId: 'call_2', name: 'send_offer', arguments: '{}' });
    expect(offer).toMatchObject({
      ok: true,
      value: { outcome: 'ok', output: expect.stringContaining('Say "yes, send it"'), updates: [{ type: 'action', action: { status: 'pending' } }] },
    });
    const unknownTool = await call('talkie.voiceTool', { callId, providerCallId: 'call_3', name: 'format_disk', arguments: '{}' });
    expect(unknownTool).toMatchObject({
      ok: true,
      value: { outcome: 'failed', output: expect.stringContaining('The tool failed: The demo has no voice tool named "format_disk"') },
    });

    // The user says "yes, send it" after the proposal: the client decides with method "voice" (Talkie 1 §10.4).
    const action = offer.ok && offer.value.outcome === 'ok' ? offer.value.updates.find((update) => update.type === 'action') : undefined;
    const pending = action && 'action' in action ? (action.action as { id: string; paramsHash?: string }) : undefined;
    expect(pending?.id).toEqual(expect.any(String));
    const stored = (await api(demo, 'GET', `/api/talkie/actions/${encodeURIComponent(pending!.id)}`)).json as { paramsHash: string };
    const decided = await api(demo, 'POST', `/api/talkie/actions/${encodeURIComponent(pending!.id)}/decision`, {
      body: { decision: 'confirm', paramsHash: stored.paramsHash, method: 'voice' },
    });
    expect(decided.json).toMatchObject({ action: { status: 'running' } });

    // Transcripts once per item; usage every 30 s; the final usage at the end.
    expect(await call('talkie.voiceTranscript', { callId, role: 'user', text: 'Search contacts for Jana', itemId: 'item_1' })).toEqual({
      ok: true,
      value: { stored: true },
    });
    expect(await call('talkie.voiceTranscript', { callId, role: 'user', text: 'Search contacts for Jana', itemId: 'item_1' })).toEqual({
      ok: true,
      value: { stored: false },
    });
    expect(await call('talkie.voiceTranscript', { callId, role: 'assistant', text: 'I found Jana Nováková.', itemId: 'item_2' })).toEqual({
      ok: true,
      value: { stored: true },
    });
    expect(await call('talkie.voiceUsage', { callId, seconds: 30 })).toEqual({ ok: true, value: { remainingSeconds: 270 } });
    expect(await call('talkie.voiceEnd', { callId, seconds: 42 })).toEqual({ ok: true, value: { ended: true, remainingSeconds: 258 } });
    expect(await call('talkie.voiceEnd', { callId })).toEqual({ ok: true, value: { ended: false } });

    // The call is in the thread list as a voice thread, with what was said, the card and the action.
    const threads = await call('talkie.threads', { agentId });
    expect(threads.ok && threads.value.threads.find((thread) => thread.id === threadId)).toMatchObject({ title: 'Search contacts for Jana', channel: 'voice' });
    const thread = await call('talkie.thread', { agentId, threadId });
    expect(thread.ok).toBe(true);
    const shown = JSON.stringify(thread);
    for (const text of ['Search contacts for Jana', 'I found Jana Nováková.', 'Jana Nováková', 'Send offer N-2026-014']) expect(shown).toContain(text);
    const status = (await api(demo, 'GET', '/api/talkie/status')).json;
    expect(status.usage).toContainEqual({ label: 'Voice today', used: 0.7, limit: 30, unit: 'minutes' });

    // The client secret never reached the page, an event or the log.
    expect(JSON.stringify({ answers, events, log: log.lines })).not.toContain('ek_demo_');
  });
});
