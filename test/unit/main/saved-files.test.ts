import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { aguiServersFileFormat } from '../../../src/main/agui/agui-service';
import { aguiDemoSecretFileFormat, startAguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { demoStateFileFormat, demoStateSchema, emptyDemoState, restoreDemoState, snapshotDemoState } from '../../../src/main/demo/demo-persistence';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { agentsFileFormat, AgentRegistry } from '../../../src/main/store/agent-registry';
import { hashAdminPin } from '../../../src/main/policy/admin-pin';
import { AdminPinGate, adminPinLockoutFileFormat, adminPinLockoutFileName } from '../../../src/main/policy/admin-pin-gate';
import { SpeechModels, speechModelFileFormat, speechModelFileName } from '../../../src/main/speech/speech-models';
import { Notices } from '../../../src/main/store/notices';
import { JsonFileStore } from '../../../src/main/store/json-file-store';
import { persistRecentLog, readRecentLog, recentLogFileFormat, recentLogFileName } from '../../../src/main/store/recent-log-file';
import { LogRing } from '../../../src/main/platform/log-ring';
import { SettingsService } from '../../../src/main/store/settings-service';
import { approvalsFileFormat, EndpointApprovals } from '../../../src/main/talkie/endpoint-approvals';
import { shownThread } from '../../../src/shared/agui/run-model';
import { aguiThreadFileFormat, restoreThread } from '../../../src/shared/agui/thread-persistence';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import type { Notice } from '../../../src/shared/ipc/notices';
import { settingsFileFormat } from '../../../src/shared/settings/settings';
import { oldestReadableVersion, readSavedDocument, type SavedFileFormat } from '../../../src/shared/storage/saved-file-format';
import { memoryLogger } from '../../support/logger';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Every file main saves, loaded from a copy of the file as the code of each version wrote it
 * (test/fixtures/saved/, written by write-fixtures.ts): it loads through the real service with
 * nothing lost and no notice, and the service's next save writes the current version, keeping it all.
 */
const fixtures = join(import.meta.dirname, '../../fixtures/saved');
const tempDir = useTempDirs();
const json = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;

const formats: [fixture: string, SavedFileFormat][] = [
  ['settings', settingsFileFormat],
  ['agents', agentsFileFormat],
  ['talkie-servers', approvalsFileFormat],
  ['agui-servers', aguiServersFileFormat],
  ['agui-thread', aguiThreadFileFormat],
  ['demo-agent', demoStateFileFormat],
  ['demo-agent.agui-key', aguiDemoSecretFileFormat],
  ['admin-pin-lockout', adminPinLockoutFileFormat],
  ['recent-log', recentLogFileFormat],
  ['speech-model', speechModelFileFormat],
];

/** `<name>.v<N>.json`, or `<name>.v<N>` for a version that was not JSON. */
async function fixtureOf(name: string, version: number): Promise<string> {
  const files = await readdir(fixtures);
  const file = files.find((entry) => entry === `${name}.v${version}.json` || entry === `${name}.v${version}`);
  if (!file) throw new Error(`no fixture ${name}.v${version}(.json) in test/fixtures/saved`);
  return join(fixtures, file);
}

describe('saved files: versions and fixtures', () => {
  it.each(formats)('%s: a fixture of every version this app reads is kept, and its migrations reach the current version', async (name, format) => {
    for (let version = oldestReadableVersion(format); version <= format.current; version++) await fixtureOf(name, version);
    expect(oldestReadableVersion(format)).toBeLessThanOrEqual(1);
  });

  /**
   * What a settings.json of `version` reads as today: before version 4 a voice consent named the
   * serverId alone, not the server's origin, so it is dropped (the user is asked again at the next call).
   */
  const settingsToday = (saved: Record<string, unknown>, version: number): Record<string, unknown> => {
    const today = { ...saved, schemaVersion: settingsFileFormat.current };
    if (version >= 4 || saved.voice === undefined) return today;
    return { ...today, voice: { ...(saved.voice as Record<string, unknown>), consents: [] } };
  };

  it.each([1, 2, 3, 4])(
    'settings.json v%i loads with nothing lost (but the consents before v4) and is written back in the current version',
    async (version) => {
      const dir = await tempDir();
      const fixture = await fixtureOf('settings', version);
      await copyFile(fixture, join(dir, 'settings.json'));
      const notices: Notice[] = [];
      const settings = await SettingsService.open(dir, new EventBus(memoryLogger()), notices);
      expect(notices).toEqual([]);
      const today = settingsToday(await json(fixture), version);
      expect(settings.get()).toEqual(today);
      // Version 2's fixture keeps the call shortcut.
      if (version >= 2) expect(settings.get().voice?.shortcut).toBe('CommandOrControl+Alt+T');
      // Version 3's keeps barge-in; before it, none is saved (Automatic).
      expect(settings.get().voice?.bargeIn).toBe(version >= 3 ? 'on' : undefined);
      // Version 4's keeps the voice consent, bound to the server's origin; an older one (serverId alone) is not kept.
      const consented = version >= 4 ? [{ serverId: 'talkie.example.com', issuer: 'https://talkie.example.com', signalingHosts: ['api.openai.com'] }] : [];
      if (version >= 2) expect(settings.get().voice?.consents).toEqual(consented);
      await settings.update({ appearance: { theme: 'light' } });
      expect(await json(join(dir, 'settings.json'))).toEqual({ ...today, appearance: { theme: 'light', textSize: 'large' } });
    },
  );

  it.each([1, 2])('agents.json v%i loads with nothing lost and is written back in the current version', async (version) => {
    const dir = await tempDir();
    const fixture = await fixtureOf('agents', version);
    await copyFile(fixture, join(dir, 'agents.json'));
    const notices: Notice[] = [];
    const agents = await AgentRegistry.open(dir, new EventBus(memoryLogger()), notices);
    expect(notices).toEqual([]);
    const saved = (await json(fixture)).agents as { id: string; label?: string }[];
    expect(agents.list()).toEqual(saved);
    // Version 2's fixture keeps the name the user gave an agent.
    if (version >= 2) expect(saved.map((agent) => agent.label)).toContain('Work CRM');
    const added = await agents.add('https://third.example.com', { allowLocalHttp: false });
    expect(await json(join(dir, 'agents.json'))).toEqual({ schemaVersion: agentsFileFormat.current, agents: [...saved, added] });
    const renamed = await agents.rename(saved[0]!.id, 'Renamed');
    expect(await json(join(dir, 'agents.json'))).toEqual({ schemaVersion: agentsFileFormat.current, agents: [renamed, ...saved.slice(1), added] });
  });

  it('admin-pin-lockout.json v1 loads with nothing lost (the lock holds) and is written back in the current version', async () => {
    const dir = await tempDir();
    const fixture = await fixtureOf('admin-pin-lockout', 1);
    await copyFile(fixture, join(dir, adminPinLockoutFileName));
    const notices: Notice[] = [];
    const clock = { now: Date.parse('2026-12-02T10:00:10Z') };
    const pins = await AdminPinGate.open({
      file: join(dir, adminPinLockoutFileName),
      pinHash: await hashAdminPin('2468', { ln: 14 }),
      notices,
      now: () => clock.now,
    });
    expect(notices).toEqual([]);
    expect(pins.retryAfterSeconds()).toBe(20);
    clock.now += 20_000;
    expect(await pins.unlock('0000')).toMatchObject({ reason: 'wrong', retryAfterSeconds: 60 });
    expect(await json(join(dir, adminPinLockoutFileName))).toEqual({
      schemaVersion: adminPinLockoutFileFormat.current,
      failures: 6,
      lockedUntil: '2026-12-02T10:01:30.000Z',
    });
  });

  it('recent-log.json v1 reads with nothing lost (agentdesk diagnostics) and the next save writes the current version', async () => {
    const dir = await tempDir();
    const fixture = await fixtureOf('recent-log', 1);
    await copyFile(fixture, join(dir, recentLogFileName));
    const saved = await json(fixture);
    expect(await readRecentLog(dir)).toEqual({ file: join(dir, recentLogFileName), log: saved });
    const ring = new LogRing();
    const persisted = await persistRecentLog(ring, dir, { delayMs: 0 });
    ring.push('warn', 'store', 'a later entry');
    await persisted.flush();
    expect(await json(join(dir, recentLogFileName))).toMatchObject({
      schemaVersion: recentLogFileFormat.current,
      entries: [{ level: 'warn', area: 'store', message: 'a later entry' }],
    });
  });

  it.each([1, 2])(
    'speech-model.json v%i loads with nothing lost (the model, its languages; v2 the voice too) and is written back in the current version',
    async (version) => {
      const dir = await tempDir();
      const fixture = await fixtureOf('speech-model', version);
      await copyFile(fixture, join(dir, speechModelFileName));
      const notices = new Notices();
      const models = await SpeechModels.open({ userDataDir: dir, log: memoryLogger(), notices });
      expect(notices.list()).toEqual([]);
      const saved = (await json(fixture)).model as { name: string; kind: string; languages: string[]; importedAt: string };
      expect(models.info()).toEqual({ name: saved.name, kind: saved.kind, languages: saved.languages, importedAt: saved.importedAt });
      const voice = (await json(fixture)).voice as { name: string; kind: string; languages: string[]; importedAt: string } | undefined;
      expect(voice === undefined).toBe(version === 1);
      expect(models.info('voice')).toEqual(voice && { name: voice.name, kind: voice.kind, languages: voice.languages, importedAt: voice.importedAt });
      await models.removeModel();
      expect(await json(join(dir, speechModelFileName))).toEqual({
        schemaVersion: speechModelFileFormat.current,
        ...(voice ? { voice: (await json(fixture)).voice } : {}),
      });
      models.dispose();
    },
  );

  it.each([1, 2])(
    'talkie-servers.json v%i loads (v1 without its approvals, which named no origin) and is written back in the current version',
    async (version) => {
      const dir = await tempDir();
      const fixture = await fixtureOf('talkie-servers', version);
      await copyFile(fixture, join(dir, 'talkie-servers.json'));
      const notices: Notice[] = [];
      const approvals = await EndpointApprovals.open(dir, notices);
      expect(notices).toEqual([]);
      const server = { serverId: 'talkie.example.com', issuer: 'https://talkie.example.com' };
      const endpoints = ['https://api.example.com/talkie/runs', 'https://files.example.com/talkie/files'];
      // Version 1 keyed an approval by serverId alone: it is dropped, and the user accepts the addresses again.
      const kept = version >= 2 ? ((await json(fixture)).servers as unknown[]) : [];
      expect(approvals.covers(server, endpoints)).toBe(version >= 2);
      expect(approvals.covers({ ...server, issuer: 'http://127.0.0.1:8080' }, endpoints)).toBe(false);
      await approvals.accept({ serverId: 'other.example.com', issuer: 'https://other.example.com' }, ['https://other.example.net/runs']);
      expect(await json(join(dir, 'talkie-servers.json'))).toEqual({
        schemaVersion: approvalsFileFormat.current,
        servers: [...kept, { serverId: 'other.example.com', issuer: 'https://other.example.com', acceptedEndpoints: ['https://other.example.net/runs'] }],
      });
    },
  );

  it.each([1, 2, 3])(
    'agui-servers.json v1 and agui-threads/<id>.json v%i load with nothing lost (the open interrupt too) and are written back in the current version',
    async (version) => {
      const dir = await tempDir();
      const serversFixture = await fixtureOf('agui-servers', 1);
      const threadFixture = await fixtureOf('agui-thread', version);
      await copyFile(serversFixture, join(dir, 'agui-servers.json'));
      await mkdir(join(dir, 'agui-threads'));
      const threadPath = join(dir, 'agui-threads', `${builtInAguiDemoId}.json`);
      await copyFile(threadFixture, threadPath);
      const app = await startTestServices(dir, {
        demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', aguiUrl: 'http://127.0.0.1:9/agui' }) },
      });
      try {
        expect(app.notices.list()).toEqual([]);
        const opened = await app.call('agui.open', { agentId: builtInAguiDemoId });
        // What the file becomes through its migrations (1 → 2 → 3 convert nothing but the version).
        const migrated = readSavedDocument(await readFile(threadFixture, 'utf8'), aguiThreadFileFormat);
        expect(migrated).toMatchObject({ kind: 'current', fromVersion: version });
        const restored = restoreThread(migrated.kind === 'current' ? migrated.document : undefined);
        expect(restored.ok).toBe(true);
        // The renderer gets it all but the encrypted values (version 3's fixture has the demo's encrypted reasoning).
        expect(opened).toMatchObject({
          ok: true,
          value: { forwardedProps: '{"locale":"cs","fixture":true}', thread: restored.ok ? shownThread(restored.view) : undefined },
        });
        if (version >= 3)
          expect(restored.ok && restored.view.encryptedValues).toEqual([
            expect.objectContaining({ subtype: 'message', value: expect.stringContaining('demo-encrypted:') }),
          ]);
        expect(JSON.stringify(opened)).not.toContain('demo-encrypted:');
        expect(opened.ok && opened.value.thread.interrupts.filter((entry) => entry.status === 'open')).toHaveLength(1);
        expect(await app.call('agui.setForwardedProps', { agentId: builtInAguiDemoId, json: '{"locale":"en"}' })).toMatchObject({ ok: true });
        expect(await json(join(dir, 'agui-servers.json'))).toEqual({
          schemaVersion: aguiServersFileFormat.current,
          servers: { [builtInAguiDemoId]: { forwardedProps: '{"locale":"en"}' } },
        });
        expect(await app.call('agui.newThread', { agentId: builtInAguiDemoId })).toMatchObject({ ok: true });
        expect((await json(threadPath)).version).toBe(aguiThreadFileFormat.current);
      } finally {
        await app.dispose();
      }
    },
  );

  /** What a demo-agent.json of `version` reads as today: version 1 had no voice (no channels, no voice seconds). */
  const demoStateToday = (saved: Record<string, unknown>, version: number): Record<string, unknown> => {
    if (version >= 2) return saved;
    const users = saved.users as { usage: Record<string, unknown>; threads: Record<string, unknown>[] }[];
    return {
      ...saved,
      schemaVersion: demoStateFileFormat.current,
      users: users.map((user) => ({
        ...user,
        usage: { ...user.usage, voiceSeconds: 0 },
        threads: user.threads.map((thread) => ({ ...thread, channel: 'chat' })),
      })),
    };
  };

  it.each([1, 2])('demo-agent.json v%i loads with nothing lost and is written back in the current version', async (version) => {
    const dir = await tempDir();
    const fixture = await fixtureOf('demo-agent', version);
    const path = join(dir, 'demo-agent.json');
    await copyFile(fixture, path);
    const store = new JsonFileStore(path, demoStateSchema, emptyDemoState, demoStateFileFormat);
    const loaded = await store.load();
    expect(loaded.notice).toBeUndefined();
    const saved = demoStateToday(await json(fixture), version);
    expect(loaded.value).toEqual(saved);
    if (version >= 2) expect(JSON.stringify(saved)).toContain('"channel":"voice"'); // the fixture has a voice thread
    // The demo starts a new day's usage when the day has changed: restore it on the fixture's own day.
    vi.useFakeTimers({ toFake: ['Date'] });
    const fixtureDay = demoStateSchema.parse(saved).users[0]?.usage.day ?? '';
    vi.setSystemTime(new Date(`${fixtureDay}T12:00:00Z`));
    onTestFinished(() => void vi.useRealTimers());
    // What the demo restores from it and saves again is the same state (only the time of saving changes).
    const again = snapshotDemoState(restoreDemoState(loaded.value));
    expect({ ...again, savedAt: saved.savedAt }).toEqual(saved);
    await store.save(again);
    expect({ ...(await json(path)), savedAt: saved.savedAt }).toEqual({ ...saved, schemaVersion: demoStateFileFormat.current });
  });

  it.each([0, 1])('the AG-UI demo key file v%i keeps its key, and a version-0 file (bare hex) is rewritten as version 1', async (version) => {
    const dir = await tempDir();
    const fixture = await fixtureOf('demo-agent.agui-key', version);
    const path = join(dir, 'demo-agent.json.agui-key');
    await copyFile(fixture, path);
    const text = await readFile(fixture, 'utf8');
    const key = version === 0 ? text.trim() : ((await json(fixture)).key as string);
    const server = await startAguiDemoServer({ secretPath: path, log: memoryLogger() });
    await server.close();
    expect(await json(path)).toEqual({ schemaVersion: aguiDemoSecretFileFormat.current, key });
    if (version === aguiDemoSecretFileFormat.current) expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('a damaged AG-UI demo key file is moved aside with a notice, never silently replaced', async () => {
    const dir = await tempDir();
    const path = join(dir, 'demo-agent.json.agui-key');
    await writeFile(path, 'not a key');
    const notices: Notice[] = [];
    const server = await startAguiDemoServer({ secretPath: path, log: memoryLogger(), notices });
    await server.close();
    expect(notices.map((notice) => notice.message)).toEqual([
      expect.stringMatching(/^demo-agent\.json\.agui-key could not be read \(it is not valid JSON\)\. It was moved to .*\.corrupt-/),
    ]);
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(
      await readFile(
        join(
          dir,
          files.find((file) => file.includes('.corrupt-'))!,
        ),
        'utf8',
      ),
    ).toBe('not a key');
    expect(await json(path)).toMatchObject({ schemaVersion: 1, key: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});
