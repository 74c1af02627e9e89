import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyFailedServices } from '../../../src/main/app/start-under-policy';
import { hashAdminPin } from '../../../src/main/policy/admin-pin';
import { loadDevicePolicy } from '../../../src/main/policy/device-policy-file';
import type { DevicePolicy } from '../../../src/shared/device-policy/device-policy';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, methodChannel, type MethodName } from '../../../src/shared/ipc/contract';
import { memoryLogger } from '../../support/logger';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

async function withPolicy(dir: string, policy: DevicePolicy, clock?: { now: number }) {
  const file = join(dir, 'policy.json');
  await writeFile(file, JSON.stringify(policy));
  const load = await loadDevicePolicy({ systemPath: file });
  if (load.state !== 'active') throw new Error(JSON.stringify(load));
  return startTestServices(join(dir, 'user-data'), {
    devicePolicy: { file: load.file, policy: load.policy },
    ...(clock ? { adminClock: () => clock.now } : {}),
  });
}

describe('the app services under a device policy', () => {
  it('answers policy.status: none without a policy', async () => {
    const services = await startTestServices(await tempDir());
    expect(await services.call('policy.status')).toEqual({ ok: true, value: { state: 'none' } });
  });

  it('forces the settings the policy sets over a user file that loosens them, and refuses changing them', async () => {
    const dir = await tempDir();
    const userData = join(dir, 'user-data');
    const user = await startTestServices(userData);
    await user.call('settings.update', {
      patch: { language: 'en', appearance: { theme: 'dark' }, developer: { allowLocalHttp: true, allowPastedTokens: true }, nfc: { kioskScan: false } },
    });

    const services = await withPolicy(dir, { policyVersion: 1, kiosk: true, language: 'cs', appearance: { theme: 'light' }, nfc: { armedScanning: true } });
    expect(await services.call('settings.get')).toMatchObject({
      ok: true,
      // A kiosk's text is large unless its policy says otherwise.
      value: {
        language: 'cs',
        appearance: { theme: 'light', textSize: 'large' },
        developer: { allowLocalHttp: false, allowPastedTokens: false },
        nfc: { kioskScan: true },
      },
    });
    for (const patch of [
      { language: 'en' },
      { appearance: { theme: 'dark' } },
      { appearance: { textSize: 'normal' } },
      { developer: { allowLocalHttp: true } },
      { developer: { allowPastedTokens: true } },
      { nfc: { kioskScan: false } },
    ]) {
      expect(await services.call('settings.update', { patch }), JSON.stringify(patch)).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining("The administrator's device policy") },
      });
    }
    // A key the policy leaves alone is the user's.
    expect(await services.call('settings.update', { patch: { nfc: { debounceMs: 500 } } })).toMatchObject({
      ok: true,
      value: { appearance: { theme: 'light', textSize: 'large' }, language: 'cs', nfc: { debounceMs: 500 } },
    });
    // The file keeps the user's own choices (they come back without the policy).
    expect(JSON.parse(await readFile(join(userData, 'settings.json'), 'utf8'))).toMatchObject({
      language: 'en',
      appearance: { theme: 'dark', textSize: 'normal' },
      developer: { allowLocalHttp: true },
      nfc: { debounceMs: 500 },
    });
    expect(await services.call('policy.status')).toEqual({
      ok: true,
      value: {
        state: 'active',
        file: join(dir, 'policy.json'),
        kiosk: true,
        agentsLocked: false,
        forced: ['language', 'appearance.theme', 'appearance.textSize', 'developer.allowLocalHttp', 'developer.allowPastedTokens', 'nfc.kioskScan'],
        camera: true,
        filePicker: false,
        voice: true,
        adminPin: false,
      },
    });
  });

  it("locks the agent list to the policy's: no add, check, remove, rename, restore, other address or built-in demo", async () => {
    const dir = await tempDir();
    const userData = join(dir, 'user-data');
    await (await startTestServices(userData)).call('agents.add', { address: 'mine.example.com' });
    const policy: DevicePolicy = {
      policyVersion: 1,
      agents: {
        list: [
          { address: 'workshop.example.com', name: 'Workshop' },
          { address: 'https://ide.example.com/agui', kind: 'agui' },
        ],
        start: 'https://ide.example.com/agui',
      },
    };
    const services = await withPolicy(dir, policy);
    const listed = await services.call('agents.list');
    if (!listed.ok) throw new Error('agents.list failed');
    expect(listed.value.agents).toEqual([
      {
        id: expect.stringMatching(/^policy-[0-9a-f]{32}$/),
        url: 'https://workshop.example.com/',
        display: 'workshop.example.com',
        addedAt: expect.any(String),
        label: 'Workshop',
      },
      {
        id: expect.stringMatching(/^policy-/),
        url: 'https://ide.example.com/agui',
        display: 'ide.example.com/agui',
        addedAt: expect.any(String),
        protocol: 'agui',
      },
    ]);
    const [first, second] = listed.value.agents;
    const refused = {
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining("The agent list is set by the administrator's device policy") },
    };
    expect(await services.call('agents.add', { address: 'other.example.com' })).toMatchObject(refused);
    expect(await services.call('agents.check', { address: 'other.example.com' })).toMatchObject(refused);
    expect(await services.call('agents.remove', { id: first!.id })).toMatchObject(refused);
    expect(await services.call('agents.rename', { id: first!.id, name: 'Mine' })).toMatchObject(refused);
    expect(await services.call('agents.restore', { agent: { ...first!, id: 'x', url: 'https://other.example.com/' }, index: 0 })).toMatchObject(refused);
    for (const method of ['demo.open', 'demo.openAgentCall', 'demo.openAgui'] as const)
      expect(await services.call(method)).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
    // Nor by the demo's ids directly: the demo itself does not start.
    for (const [method, agentId] of [
      ['talkie.connect', builtInDemoAgentId],
      ['agentcall.open', builtInAgentCallDemoId],
      ['agui.open', builtInAguiDemoId],
    ] as const) {
      expect(await services.call(method, { agentId }), method).toMatchObject({
        ok: false,
        error: { code: 'not_allowed', message: expect.stringContaining('the built-in demo is not on it') },
      });
    }
    expect(await services.call('policy.status')).toMatchObject({ ok: true, value: { agentsLocked: true, startAgentId: second!.id } });
    // The same ids at the next start; the user's own agents.json is left as it was.
    expect(await (await withPolicy(dir, policy)).call('agents.list')).toMatchObject({ ok: true, value: { agents: [{ id: first!.id }, { id: second!.id }] } });
    expect(JSON.parse(await readFile(join(userData, 'agents.json'), 'utf8'))).toMatchObject({ agents: [{ display: 'mine.example.com' }] });
  });

  it('refuses the camera and the microphone when the policy does not allow them', async () => {
    const services = await withPolicy(await tempDir(), { policyVersion: 1, camera: { allowed: false }, voice: { allowed: false } });
    expect(await services.call('media.arm', { kinds: ['camera'] })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining('does not allow the camera') },
    });
    expect(await services.call('media.arm', { kinds: ['microphone'] })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining('does not allow voice') },
    });
    expect(services.media.allows(['camera'])).toBe(false);
    expect(await services.call('talkie.voiceStart', { agentId: 'any', threadId: 't' })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining('does not allow voice') },
    });
    const open = await withPolicy(await tempDir(), { policyVersion: 1, voice: { allowed: false } });
    expect(await open.call('media.arm', { kinds: ['camera'] })).toEqual({ ok: true, value: { armed: ['camera'] } });
  });

  it('puts settings behind the admin PIN: refused until the right PIN, for five minutes; wrong tries lock it, also across a restart', async () => {
    const dir = await tempDir();
    const clock = { now: Date.parse('2026-12-02T10:00:00Z') };
    const policy: DevicePolicy = { policyVersion: 1, admin: { pinHash: await hashAdminPin('2468', { ln: 14 }) } };
    const services = await withPolicy(dir, policy, clock);
    const behindPin = { ok: false, error: { code: 'not_allowed', message: "Settings are behind the administrator's PIN (device policy)." } };
    expect(await services.call('settings.update', { patch: { language: 'cs' } })).toEqual(behindPin);
    expect(await services.call('settings.update', { patch: { voice: { bargeIn: 'on' } } })).toEqual(behindPin);
    // The speech model is a setting of the device too.
    expect(await services.call('speech.importModel', { path: dir })).toEqual(behindPin);
    expect(await services.call('speech.removeModel', {})).toEqual(behindPin);
    // Dismissing a notice is the user's own answer, not a setting.
    expect(await services.call('settings.update', { patch: { notices: { dismissed: ['x'] } } })).toMatchObject({ ok: true });
    expect(await services.call('policy.unlockAdmin', { pin: '2468' }, false)).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    expect(await services.call('policy.unlockAdmin', { pin: '1111' })).toEqual({
      ok: true,
      value: { unlocked: false, reason: 'wrong', retryAfterSeconds: 0, freeTriesLeft: 4 },
    });
    expect(await services.call('policy.unlockAdmin', { pin: '2468' })).toEqual({ ok: true, value: { unlocked: true, until: '2026-12-02T10:05:00.000Z' } });
    expect(await services.call('settings.update', { patch: { language: 'cs' } })).toMatchObject({ ok: true, value: { language: 'cs' } });
    // Unlocked, the import runs (and finds no model in the user-data folder).
    expect(await services.call('speech.importModel', { path: dir })).toMatchObject({ ok: false, error: { code: 'speech_model_invalid' } });
    clock.now += 5 * 60_000;
    expect(await services.call('settings.update', { patch: { language: 'en' } })).toEqual(behindPin);

    for (let i = 0; i < 5; i += 1) await services.call('policy.unlockAdmin', { pin: '0000' });
    const restarted = await withPolicy(dir, policy, clock);
    expect(await restarted.call('policy.unlockAdmin', { pin: '2468' })).toEqual({
      ok: true,
      value: { unlocked: false, reason: 'locked', retryAfterSeconds: 30, freeTriesLeft: 0 },
    });
    expect(await restarted.call('policy.status')).toMatchObject({ ok: true, value: { adminPin: true } });
  });
});

describe('kiosk mode with a policy that cannot be used', () => {
  it('runs nothing: every method answers not_allowed with the message, except policy.status and app.info', async () => {
    const dir = await tempDir();
    const file = join(dir, 'policy.json');
    await writeFile(file, '{"policyVersion": 1, "kiosk": true, "kiosk_mode": 1}');
    const load = await loadDevicePolicy({ systemPath: file });
    if (load.state !== 'failed') throw new Error('expected a failed policy');
    const services = policyFailedServices(load, { shell: 'web', version: '0.0.0-test', log: memoryLogger() });
    const call = (method: MethodName, payload: unknown = {}) =>
      services.dispatcher.dispatch(methodChannel(method), payload, { hasRecentUserGesture: () => true });
    expect(await call('policy.status')).toEqual({ ok: true, value: { state: 'failed', file, message: load.message } });
    expect(load.message).toContain(file);
    expect(load.message).toContain('unknown key "kiosk_mode"');
    expect(await call('app.info')).toMatchObject({
      ok: true,
      value: { notices: [{ code: 'policy_failed', params: { file: load.file }, detail: load.message, message: load.message }] },
    });
    for (const [method, payload] of [
      ['settings.get', {}],
      ['agents.list', {}],
      ['demo.open', {}],
      ['agents.add', { address: 'a.example.com' }],
      ['media.arm', { kinds: ['camera'] }],
    ] as const) {
      expect(await call(method, payload), method).toEqual({ ok: false, error: { code: 'not_allowed', message: load.message } });
    }
    expect(services.media.allows(['camera'])).toBe(false);
  });
});
