import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import { chattrUnavailable, useFaultyFolders } from '../../support/faulty-folders';
import { followAguiRuns, runToEnd } from '../../support/agui-runs';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Saved data through the real services and dispatcher: a save that fails is answered with
 * `save_failed` (or, for a save nobody waits for, an `app.notice`), the old file stays as it was,
 * and a newer AgentDesk's file is never changed. A folder that refuses writes even to root is
 * `chattr +i` (see test/support/faulty-folders.ts).
 */
const tempDir = useTempDirs();
const faulty = useFaultyFolders();
const apps: TestServices[] = [];
const closers: AguiDemoServer[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.dispose()));
  await Promise.all(closers.splice(0).map((server) => server.close()));
});

async function services(dir: string, aguiUrl = 'http://127.0.0.1:9/agui'): Promise<TestServices> {
  const app = await startTestServices(dir, { demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', aguiUrl }) } });
  apps.push(app);
  return app;
}

function noticesOf(app: TestServices): string[] {
  const seen: string[] = [];
  app.events.connect((channel, payload) => {
    if (channel === 'agentdesk:event:app.notice') seen.push((payload as { message: string }).message);
  });
  return seen;
}

const noChattr = chattrUnavailable();
if (noChattr !== undefined) console.warn(`saved-data-faults.test: the tests that need chattr +i are skipped: ${noChattr}`);

describe('saved data faults (real services)', () => {
  it.skipIf(noChattr !== undefined)(
    'a settings change the folder refuses answers save_failed naming the file and why; the old file and the settings in force stay',
    async () => {
      const dir = await tempDir();
      const app = await services(dir);
      expect(await app.call('settings.update', { patch: { language: 'cs' } })).toMatchObject({ ok: true });
      const before = await readFile(join(dir, 'settings.json'), 'utf8');
      const events = noticesOf(app);
      faulty.immutable(dir);
      const refused = await app.call('settings.update', { patch: { language: 'en' } });
      expect(refused).toEqual({
        ok: false,
        error: {
          code: 'save_failed',
          message: `settings.json could not be saved in ${dir}: the operation is not permitted (EPERM). The saved copy is unchanged.`,
        },
      });
      expect(await app.call('settings.get')).toMatchObject({ ok: true, value: { language: 'cs' } });
      expect(await readFile(join(dir, 'settings.json'), 'utf8')).toBe(before);
      expect(await app.call('agents.add', { address: 'https://agents.example.com' })).toMatchObject({
        ok: false,
        error: { code: 'save_failed', message: expect.stringContaining('agents.json could not be saved') },
      });
      expect(await app.call('agents.list')).toEqual({ ok: true, value: { agents: [] } });
      // The failing call told the user; no extra notice.
      expect(events).toEqual([]);
    },
  );

  it.skipIf(noChattr !== undefined)('an AG-UI conversation that cannot be saved goes on in memory and the user gets one app.notice saying so', async () => {
    const dir = await tempDir();
    const demo = await startAguiDemoServer({ timeScale: 0 });
    closers.push(demo);
    const app = await services(dir, demo.url);
    const events = noticesOf(app);
    const runs = followAguiRuns(app);
    expect(await app.call('agui.open', { agentId: builtInAguiDemoId })).toMatchObject({ ok: true });
    await mkdir(join(dir, 'agui-threads'), { recursive: true });
    faulty.immutable(join(dir, 'agui-threads'));
    await runToEnd(runs, builtInAguiDemoId, app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'u1', text: 'What would change?' }));
    const expected = `The conversation is kept until AgentDesk closes, but not on disk: agui-threads/${builtInAguiDemoId}.json could not be saved in ${join(dir, 'agui-threads')}: the operation is not permitted (EPERM). The saved copy is unchanged.`;
    expect(events).toEqual([expected]);
    expect(await app.call('app.info')).toMatchObject({
      ok: true,
      value: { notices: [{ code: 'conversation_not_saved', detail: expected.slice(expected.indexOf('agui-threads/')), message: expected }] },
    });
    expect(await readdir(join(dir, 'agui-threads'))).toEqual([]);
    const reopened = await app.call('agui.open', { agentId: builtInAguiDemoId });
    expect(reopened.ok && reopened.value.thread.items.map((item) => item.kind)).toContain('user');
  });

  it('a damaged AG-UI thread file is moved aside when the agent is opened, and the user is told (it was only logged)', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agui-threads'));
    await writeFile(join(dir, 'agui-threads', `${builtInAguiDemoId}.json`), '{ "version": 1, "threadId": ');
    const app = await services(dir);
    const events = noticesOf(app);
    expect(await app.call('agui.open', { agentId: builtInAguiDemoId })).toMatchObject({ ok: true, value: { thread: { items: [] } } });
    expect(events).toEqual([
      expect.stringMatching(
        new RegExp(
          `^agui-threads/${builtInAguiDemoId}\\.json could not be read \\(it is not valid JSON\\)\\. It was moved to .*\\.corrupt-.* and defaults are in use\\.$`,
        ),
      ),
    ]);
    const files = await readdir(join(dir, 'agui-threads'));
    expect(files).toEqual([expect.stringMatching(/\.json\.corrupt-/)]);
    expect(await readFile(join(dir, 'agui-threads', files[0]!), 'utf8')).toBe('{ "version": 1, "threadId": ');
  });

  it('a newer AgentDesk’s agents.json is listed as far as this version can, never changed, and saying so', async () => {
    const dir = await tempDir();
    const newer = JSON.stringify({
      schemaVersion: 3,
      agents: [{ id: 'a1', url: 'https://agents.example.com/', display: 'agents.example.com', addedAt: '2026-01-01T00:00:00.000Z' }],
    });
    await writeFile(join(dir, 'agents.json'), newer);
    const app = await services(dir);
    const notice = 'agents.json was written by a newer AgentDesk (version 3); this version reads it as version 2, and will not change it.';
    expect(await app.call('app.info')).toMatchObject({
      ok: true,
      value: { notices: [{ code: 'file_newer_read', params: { file: 'agents.json', version: '3', current: '2' }, message: notice }] },
    });
    expect(await app.call('agents.list')).toMatchObject({ ok: true, value: { agents: [{ id: 'a1', url: 'https://agents.example.com/' }] } });
    expect(await app.call('agents.add', { address: 'https://other.example.com' })).toEqual({ ok: false, error: { code: 'save_failed', message: notice } });
    expect(await app.call('agents.remove', { id: 'a1' })).toEqual({ ok: false, error: { code: 'save_failed', message: notice } });
    expect(await readFile(join(dir, 'agents.json'), 'utf8')).toBe(newer);
    expect((await readdir(dir)).filter((name) => name.startsWith('agents.json'))).toEqual(['agents.json']);
  });

  it('a newer AgentDesk’s settings.json it cannot read: defaults in memory, the file untouched', async () => {
    const dir = await tempDir();
    const newer = JSON.stringify({ schemaVersion: 5, look: { theme: 'dark' } });
    await writeFile(join(dir, 'settings.json'), newer);
    const app = await services(dir);
    expect(await app.call('settings.get')).toMatchObject({ ok: true, value: { schemaVersion: 4, appearance: { theme: 'system' } } });
    expect(await app.call('settings.update', { patch: { language: 'cs' } })).toMatchObject({
      ok: false,
      error: { code: 'save_failed', message: expect.stringContaining('cannot read it and uses the defaults') },
    });
    expect(await readFile(join(dir, 'settings.json'), 'utf8')).toBe(newer);
  });
});

describe('saved data faults at start-up', () => {
  it.skipIf(noChattr !== undefined)('an app whose folder cannot be created still starts, says so, and every save answers why it failed', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'AgentDesk');
    faulty.immutable(parent);
    const app = await services(dir);
    expect(await app.call('app.info')).toMatchObject({
      ok: true,
      value: {
        notices: [
          {
            code: 'folder_unavailable',
            params: { folder: dir },
            detail: 'the operation is not permitted (EPERM)',
            message: `AgentDesk cannot create its folder ${dir} (the operation is not permitted (EPERM)): defaults are in use and nothing can be saved this session.`,
          },
        ],
      },
    });
    expect(await app.call('settings.get')).toMatchObject({ ok: true, value: { language: 'system' } });
    expect(await app.call('settings.update', { patch: { language: 'cs' } })).toMatchObject({
      ok: false,
      error: { code: 'save_failed', message: expect.stringContaining('settings.json could not be saved') },
    });
    expect(await readdir(parent)).toEqual([]);
  });
});
