import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startAgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { applySessionUpdate, emptySessionView, type SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { builtInAguiDemoId, eventChannel } from '../../../src/shared/ipc/contract';
import type { NfcScanResult } from '../../../src/shared/nfc/ipc-schemas';
import { memoryLogger } from '../../support/logger';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const running: TestServices[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((services) => services.dispose()));
});

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('kiosk.reset (issue #18)', () => {
  it("is refused outside kiosk mode: nothing of a user's session is wiped", async () => {
    const services = await startTestServices(await tempDir());
    running.push(services);
    await services.call('ui.saveDraft', { key: 'talkie:a', text: 'mine' });
    expect(await services.call('kiosk.reset')).toMatchObject({ ok: false, error: { code: 'not_allowed', message: expect.stringContaining('Only a kiosk') } });
    expect(await services.call('kiosk.startTag', { sessionKey: 'k', scanId: 's', objectRef: 'r' })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed' },
    });
    expect(await services.call('ui.restore')).toMatchObject({ ok: true, value: { drafts: [{ key: 'talkie:a', text: 'mine' }] } });
  });

  it('in kiosk mode ends the runs and wipes the staged photo, the UI memory and the AG-UI thread files', async () => {
    const userData = await tempDir();
    const services = await startTestServices(userData, { kiosk: true });
    running.push(services);
    expect(await services.call('policy.status')).toEqual({ ok: true, value: { state: 'none', kiosk: true } });
    // Nothing opens the system browser over a kiosk: not a link, not a sign-in.
    for (const [method, request] of [
      ['talkie.signIn', { agentId: 'a' }],
      ['talkie.openSignInLink', { agentId: 'a' }],
      ['external.open', { url: 'https://example.com/' }],
    ] as const) {
      expect(await services.call(method, request), method).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
    }
    // A session's traces: a draft and the screen in main's memory, a staged photo, an AG-UI thread on disk.
    await services.call('ui.saveScreen', { screen: { name: 'chat', agentId: builtInAguiDemoId, label: 'Demo' } });
    await services.call('ui.saveDraft', { key: `agui:${builtInAguiDemoId}`, text: 'half a sentence' });
    // A camera frame (a kiosk takes no photos from files: issue #27).
    const rgba = await sharp({ create: { width: 64, height: 48, channels: 4, background: '#884422ff' } })
      .raw()
      .toBuffer();
    const staged = await services.call('photo.stage', { kind: 'frame', width: 64, height: 48, rgba: new Uint8Array(rgba) });
    if (!staged.ok) throw new Error(JSON.stringify(staged.error));
    expect((await services.call('agui.open', { agentId: builtInAguiDemoId })).ok).toBe(true);
    expect((await services.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'm1', text: 'hello' })).ok).toBe(true);
    const threads = join(userData, 'agui-threads');
    await until(async () => existsSync(threads) && (await readdir(threads)).length > 0, 'the AG-UI thread file');
    // A second run, still going when the reset comes ("slow" makes the demo take its time).
    await until(async () => (await services.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'm2', text: 'slow' })).ok, 'the first run to end');

    const reset = await services.call('kiosk.reset');
    expect(reset).toEqual({ ok: true, value: { ended: 1, discardedPhotos: 1, removedFiles: expect.any(Number) } });
    if (reset.ok) expect(reset.value.removedFiles).toBeGreaterThanOrEqual(1);
    expect(existsSync(threads)).toBe(false);
    expect(await services.call('photo.discard', { photoId: staged.value.photoId })).toEqual({ ok: true, value: { discarded: false } });
    expect(await services.call('ui.restore')).toEqual({ ok: true, value: { drafts: [] } });
    // The agent's thread starts empty again.
    const view = await services.call('agui.open', { agentId: builtInAguiDemoId });
    expect(view).toMatchObject({ ok: true });
    expect(JSON.stringify(view)).not.toContain('hello');
    // Nothing left: a second reset ends and wipes nothing.
    expect(await services.call('kiosk.reset')).toEqual({ ok: true, value: { ended: 0, discardedPhotos: 0, removedFiles: 0 } });
  });

  it('tells the updater after each reset, when nothing is going on any more (issue #28: the idle-reset install moment)', { timeout: 30_000 }, async () => {
    const services = await startTestServices(await tempDir(), { kiosk: true });
    running.push(services);
    const seen: { busy: boolean }[] = [];
    const stop = services.onKioskReset(() => seen.push(services.activity()));
    expect(services.activity()).toEqual({ busy: false, lastActivityAt: undefined });
    // An AG-UI run through the one conversation screen: busy while the answer comes ("slow" makes the demo take its time).
    const opened = await services.call('conversation.open', { agentId: builtInAguiDemoId });
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    expect(
      (await services.call('conversation.send', { agentId: builtInAguiDemoId, conversationId: opened.value.conversationId, messageId: 'm1', text: 'slow' })).ok,
    ).toBe(true);
    await until(() => services.activity().busy, 'the run to start');
    expect(services.activity().lastActivityAt).toEqual(expect.any(Number));
    expect(seen).toEqual([]);
    expect((await services.call('kiosk.reset')).ok).toBe(true);
    expect(seen).toEqual([{ busy: false, lastActivityAt: expect.any(Number) }]);
    stop();
    expect((await services.call('kiosk.reset')).ok).toBe(true);
    expect(seen).toHaveLength(1);
  });
});

describe('kiosk.startTag (issue #18)', () => {
  it("sends the tap the reader saw as the first observation of the start agent's session, without a click; nothing else", async () => {
    const userData = await tempDir();
    const demo = await startAgentCallDemoServer({ log: memoryLogger() });
    onTestFinished(() => demo.close());
    const listeners = new Set<(result: NfcScanResult) => void>();
    await writeFile(
      join(userData, 'settings.json'),
      JSON.stringify({
        schemaVersion: 2,
        language: 'en',
        appearance: { theme: 'system', textSize: 'normal' },
        developer: { allowLocalHttp: true, allowPastedTokens: false },
      }),
    );
    const services = await startTestServices(userData, {
      devicePolicy: {
        file: '/etc/agentdesk/policy.json',
        policy: { policyVersion: 1, kiosk: true, developmentSetting: 'user', agents: { list: [{ address: demo.cardUrl }], start: demo.cardUrl } },
      },
      agentCallNfc: {
        onResult: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    });
    running.push(services);
    const updates: SessionUpdate[] = [];
    services.events.connect((channel, payload) => {
      if (channel === eventChannel('agentcall.update')) updates.push(...(payload as { updates: SessionUpdate[] }).updates);
    });
    {
      const status = await services.call('policy.status');
      if (!status.ok || status.value.state !== 'active' || !status.value.startAgentId) throw new Error(JSON.stringify(status));
      const opened = await services.call('agentcall.open', { agentId: status.value.startAgentId });
      if (!opened.ok) throw new Error(JSON.stringify(opened.error));
      const { sessionKey } = opened.value;
      const objectRef = 'urn:agentcall:object:workshop-router';
      // A scan id the reader never reported is refused, as is a session that is not the start agent's.
      expect(await services.call('kiosk.startTag', { sessionKey, scanId: 'never', objectRef }, false)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
      expect(await services.call('kiosk.startTag', { sessionKey: 'another-session', scanId: 'scan-1', objectRef }, false)).toMatchObject({
        ok: false,
        error: { code: 'not_allowed' },
      });
      for (const listener of listeners)
        listener({
          scanId: 'scan-1',
          outcome: 'observation',
          reader: 'Virtual PCD 00 00',
          object: { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: 'a'.repeat(64) },
        });
      // An observation needs a click (the gesture rule); the start tag is the reader's tap, so it needs none.
      expect(await services.call('agentcall.sendObservation', { sessionKey, scan: { scanId: 'scan-1', objectRef }, intent: 'identify' }, false)).toMatchObject({
        ok: false,
        error: { code: 'no_user_gesture' },
      });
      expect(await services.call('kiosk.startTag', { sessionKey, scanId: 'scan-1', objectRef }, false)).toEqual({ ok: true, value: { sent: true } });
      await until(() => JSON.stringify(updates.reduce(applySessionUpdate, emptySessionView).items).includes(objectRef), 'the observation in the session');
      // Used up: the same tap is not sent twice.
      expect(await services.call('kiosk.startTag', { sessionKey, scanId: 'scan-1', objectRef }, false)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
    }
  });
});
