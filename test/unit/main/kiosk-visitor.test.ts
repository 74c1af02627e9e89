import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { visitorAnswers } from '../../../src/main/app/kiosk';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { hashAdminPin } from '../../../src/main/policy/admin-pin';
import { loadDevicePolicy } from '../../../src/main/policy/device-policy-file';
import { EndpointApprovals } from '../../../src/main/talkie/endpoint-approvals';
import type { DevicePolicy } from '../../../src/shared/device-policy/device-policy';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Issue #27, what a curious visitor found on a kiosk: settings one visitor changes that the next one
 * gets, a file dialog, and a policy `policy check` calls valid that gives a broken first screen.
 */

const tempDir = useTempDirs();
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.close()));
});

async function withPolicy(dir: string, policy: DevicePolicy): Promise<TestServices> {
  const file = join(dir, 'policy.json');
  await writeFile(file, JSON.stringify(policy));
  const load = await loadDevicePolicy({ systemPath: file });
  if (load.state !== 'active') throw new Error(JSON.stringify(load));
  const services = await startTestServices(join(dir, 'user-data'), { devicePolicy: { file: load.file, policy: load.policy } });
  running.push({ close: () => services.dispose() });
  return services;
}

async function aguiServer(): Promise<AguiDemoServer & { inputs: unknown[] }> {
  const inputs: unknown[] = [];
  const server = await startAguiDemoServer({ timeScale: 0, onRunInput: (body) => void inputs.push(body) });
  running.push(server);
  return Object.assign(server, { inputs });
}

async function agentIds(services: TestServices): Promise<[string, ...string[]]> {
  const listed = await services.call('agents.list');
  if (!listed.ok || listed.value.agents.length === 0) throw new Error('agents.list failed');
  return listed.value.agents.map((agent) => agent.id) as [string, ...string[]];
}

/** Sends a message to a plain AG-UI agent and waits for its run to end; the thread's outcome. */
async function runOnce(services: TestServices, agentId: string, text: string): Promise<string> {
  const sent = await services.call('agui.send', { agentId, messageId: `m-${text}`, text });
  if (!sent.ok) return `refused: ${sent.error.code}`;
  const end = Date.now() + 10_000;
  for (;;) {
    const view = await services.call('agui.open', { agentId });
    if (!view.ok) return `refused: ${view.error.code}`;
    const { thread } = view.value;
    if (thread.runState !== 'starting' && thread.runState !== 'running')
      return JSON.stringify({ runState: thread.runState, ...(thread.error?.code ? { error: thread.error.code } : {}) });
    if (Date.now() > end) throw new Error('the run did not end');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("an agent's connection settings on a kiosk (issue #27, finding 1)", () => {
  it('are refused to a visitor (tokens, forwardedProps, a pasted token, a sign-out) until the admin PIN is entered, and then saved', async () => {
    const dir = await tempDir();
    const server = await aguiServer();
    const services = await withPolicy(dir, {
      policyVersion: 1,
      kiosk: true,
      admin: { pinHash: await hashAdminPin('2468', { ln: 14 }) },
      agents: { list: [{ address: server.url, kind: 'agui', allowInsecureHttp: true }] },
    });
    const [agentId] = await agentIds(services);
    const behindPin = { ok: false, error: { code: 'not_allowed', message: "Settings are behind the administrator's PIN (device policy)." } };
    expect(await services.call('agui.setForwardedProps', { agentId, json: '{"iacCode":{"cwd":"/etc"}}' })).toEqual(behindPin);
    expect(await services.call('agui.useToken', { agentId, token: 'visitor-token-123456' })).toEqual(behindPin);
    expect(await services.call('agui.useToken', { agentId, token: '' })).toEqual(behindPin);
    expect(await services.call('agentcall.useToken', { agentId, token: 'visitor-token-123456' })).toEqual(behindPin);
    expect(await services.call('talkie.useToken', { agentId, token: 'visitor-token-123456' })).toEqual(behindPin);
    expect(await services.call('talkie.signOut', { agentId })).toEqual(behindPin);
    // Nothing was saved: the next visitor's run sends no forwardedProps.
    expect(await services.call('agui.open', { agentId })).toMatchObject({ ok: true, value: { forwardedProps: '{}', hasToken: false } });
    await runOnce(services, agentId, 'hello');
    expect(server.inputs.at(-1)).toMatchObject({ forwardedProps: {} });

    // The administrator, with the PIN: what they save is the kiosk's.
    expect(await services.call('policy.unlockAdmin', { pin: '2468' })).toMatchObject({ ok: true, value: { unlocked: true } });
    expect(await services.call('agui.setForwardedProps', { agentId, json: '{"iacCode":{"cwd":"/srv/workshop"}}' })).toMatchObject({
      ok: true,
      value: { forwardedProps: '{"iacCode":{"cwd":"/srv/workshop"}}' },
    });
    expect(await services.call('kiosk.reset')).toMatchObject({ ok: true });
    // The reset closed the unlock again.
    expect(await services.call('agui.setForwardedProps', { agentId, json: '{}' })).toEqual(behindPin);
    await runOnce(services, agentId, 'again');
    expect(server.inputs.at(-1)).toMatchObject({ forwardedProps: { iacCode: { cwd: '/srv/workshop' } } });
  });

  it("are refused outright on a kiosk whose policy has no admin PIN, and stay the user's outside kiosk mode", async () => {
    const server = await aguiServer();
    const list = [{ address: server.url, kind: 'agui' as const, allowInsecureHttp: true }];
    const kiosk = await withPolicy(await tempDir(), { policyVersion: 1, kiosk: true, agents: { list } });
    const [agentId] = await agentIds(kiosk);
    expect(await kiosk.call('agui.setForwardedProps', { agentId, json: '{"iacCode":{"cwd":"/etc"}}' })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining('has no admin PIN') },
    });
    expect(await kiosk.call('agui.useToken', { agentId, token: 'visitor-token-123456' })).toMatchObject({ ok: false, error: { code: 'not_allowed' } });

    const desk = await withPolicy(await tempDir(), { policyVersion: 1, agents: { list } });
    const [deskAgent] = await agentIds(desk);
    expect(await desk.call('agui.setForwardedProps', { agentId: deskAgent, json: '{"a":1}' })).toMatchObject({
      ok: true,
      value: { forwardedProps: '{"a":1}' },
    });
    expect(await desk.call('agui.useToken', { agentId: deskAgent, token: 'my-token-1234567890' })).toMatchObject({ ok: true, value: { hasToken: true } });
  });

  it('takes forwardedProps the policy sets for every run, and nobody changes them, the administrator neither', async () => {
    const server = await aguiServer();
    const services = await withPolicy(await tempDir(), {
      policyVersion: 1,
      agents: { list: [{ address: server.url, kind: 'agui', allowInsecureHttp: true, forwardedProps: '{"iacCode":{"cwd":"/srv/workshop"}}' }] },
    });
    const [agentId] = await agentIds(services);
    expect(await services.call('agui.open', { agentId })).toMatchObject({ ok: true, value: { forwardedProps: '{"iacCode":{"cwd":"/srv/workshop"}}' } });
    expect(await services.call('agui.setForwardedProps', { agentId, json: '{"iacCode":{"cwd":"/etc"}}' })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: "This agent's forwardedProps are set by the administrator's device policy." },
    });
    await runOnce(services, agentId, 'hello');
    expect(server.inputs.at(-1)).toMatchObject({ forwardedProps: { iacCode: { cwd: '/srv/workshop' } } });
  });

  it('the reset puts back what a visitor answered per agent: a voice consent and accepted endpoints, as the kiosk started', async () => {
    const dir = await tempDir();
    const userData = join(dir, 'user-data');
    const consent = { serverId: 'workshop', issuer: 'https://workshop.example.com', signalingHosts: ['voice.example.com'] };
    const services = await withPolicy(dir, { policyVersion: 1, kiosk: true });
    expect(await services.call('settings.update', { patch: { voiceConsent: consent } })).toMatchObject({ ok: true, value: { voice: { consents: [consent] } } });
    expect(await services.call('kiosk.reset')).toMatchObject({ ok: true });
    expect(await services.call('settings.get')).toMatchObject({ ok: true, value: { voice: { consents: [] } } });
    expect(JSON.parse(await readFile(join(userData, 'settings.json'), 'utf8'))).toMatchObject({ voice: { consents: [] } });

    // Accepted endpoints, on the store the Talkie service uses: what was accepted before the kiosk started stays.
    const approvals = await EndpointApprovals.open(userData, { push: () => undefined });
    const before = { serverId: 'parts', issuer: 'https://parts.example.com' };
    await approvals.accept(before, ['https://api.parts.example.com/chat']);
    const answers = visitorAnswers({ voiceConsents: () => [], restoreVoiceConsents: async () => undefined }, approvals);
    await approvals.accept({ serverId: 'workshop', issuer: 'https://workshop.example.com' }, ['https://elsewhere.example.net/chat']);
    await approvals.accept(before, ['https://api.parts.example.com/chat', 'https://other.example.net/x']);
    await answers.restore();
    expect(approvals.covers({ serverId: 'workshop', issuer: 'https://workshop.example.com' }, ['https://elsewhere.example.net/chat'])).toBe(false);
    expect(approvals.covers(before, ['https://api.parts.example.com/chat'])).toBe(true);
    expect(approvals.covers(before, ['https://other.example.net/x'])).toBe(false);
    const reopened = await EndpointApprovals.open(userData, { push: () => undefined });
    expect(reopened.covers({ serverId: 'workshop', issuer: 'https://workshop.example.com' }, ['https://elsewhere.example.net/chat'])).toBe(false);
  });
});

describe('photos from files on a kiosk (issue #27, finding 2)', () => {
  const jpegLike = { kind: 'file', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) };

  it('are refused in kiosk mode by default, and policy.status says there is no file chooser', async () => {
    const services = await withPolicy(await tempDir(), { policyVersion: 1, kiosk: true });
    expect(await services.call('photo.stage', jpegLike)).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: expect.stringContaining('does not allow photos from files') },
    });
    expect(await services.call('policy.status')).toMatchObject({ ok: true, value: { filePicker: false } });
    const flag = await startTestServices(await tempDir(), { kiosk: true });
    running.push({ close: () => flag.dispose() });
    expect(await flag.call('photo.stage', jpegLike)).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
  });

  it('pass where the policy allows them (camera.filePicker), and outside kiosk mode', async () => {
    for (const policy of [{ policyVersion: 1, kiosk: true, camera: { filePicker: true } }, { policyVersion: 1 }] as DevicePolicy[]) {
      const services = await withPolicy(await tempDir(), policy);
      // Past the policy: the pipeline itself refuses these bytes (not an image).
      expect(await services.call('photo.stage', jpegLike)).toMatchObject({ ok: false, error: { code: 'invalid_image' } });
      expect(await services.call('policy.status')).toMatchObject({ ok: true, value: { filePicker: true } });
    }
    const desk = await withPolicy(await tempDir(), { policyVersion: 1, camera: { filePicker: false } });
    expect(await desk.call('photo.stage', jpegLike)).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
  });
});

describe('a LAN agent without TLS, on purpose (issue #27, finding 5)', () => {
  it('opens an http:// agent with allowInsecureHttp on a kiosk whose development setting is forced off, and that agent alone', async () => {
    const server = await aguiServer();
    const other = await aguiServer();
    const services = await withPolicy(await tempDir(), {
      policyVersion: 1,
      kiosk: true,
      developmentSetting: 'user',
      agents: {
        list: [
          { address: server.url, kind: 'agui', allowInsecureHttp: true },
          { address: `${other.baseUrl}/agui?second`, kind: 'agui' },
        ],
      },
    });
    const [insecure, plain] = await agentIds(services);
    expect(await services.call('settings.get')).toMatchObject({ ok: true, value: { developer: { allowLocalHttp: false } } });
    expect(JSON.parse(await runOnce(services, insecure, 'hello'))).toEqual({ runState: 'finished' });
    expect(server.inputs).toHaveLength(1);
    // The other http:// agent still needs the development setting.
    expect(JSON.parse(await runOnce(services, plain!, 'hello'))).toMatchObject({ runState: 'error', error: 'insecure_scheme' });
    expect(other.inputs).toHaveLength(0);
    const forced = await withPolicy(await tempDir(), {
      policyVersion: 1,
      kiosk: true,
      agents: { list: [{ address: server.url, kind: 'agui', allowInsecureHttp: true }] },
    });
    const [forcedAgent] = await agentIds(forced);
    expect(JSON.parse(await runOnce(forced, forcedAgent, 'hello'))).toEqual({ runState: 'finished' });
  });
});
