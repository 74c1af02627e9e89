import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('the app services behind the contract', () => {
  it('adds, lists and removes agents, keeping them across a restart', async () => {
    const dir = await tempDir();
    const first = await startTestServices(dir);
    const events: unknown[] = [];
    first.events.connect((channel, payload) => events.push({ channel, payload }));

    const added = await first.call('agents.add', { address: 'crm.example.com' });
    expect(added).toMatchObject({ ok: true, value: { agent: { url: 'https://crm.example.com/', display: 'crm.example.com' } } });
    expect(events).toEqual([{ channel: 'agentdesk:event:agents.changed', payload: { agents: [expect.objectContaining({ display: 'crm.example.com' })] } }]);
    expect(await first.call('agents.add', { address: 'https://CRM.example.com' })).toMatchObject({ ok: false, error: { code: 'already_exists' } });

    const second = await startTestServices(dir);
    const listed = await second.call('agents.list');
    expect(listed).toMatchObject({ ok: true, value: { agents: [{ display: 'crm.example.com' }] } });
    const id = listed.ok ? listed.value.agents[0]!.id : '';
    expect(await second.call('agents.remove', { id })).toEqual({ ok: true, value: { agents: [] } });
    expect(await second.call('agents.remove', { id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('puts a removed agent back in its place with the same id (undo)', async () => {
    const dir = await tempDir();
    const services = await startTestServices(dir);
    for (const address of ['a.example.com', 'b.example.com', 'c.example.com']) await services.call('agents.add', { address });
    const listed = await services.call('agents.list');
    const before = listed.ok ? listed.value.agents : [];
    const middle = before[1]!;
    await services.call('agents.remove', { id: middle.id });
    expect(await services.call('agents.restore', { agent: middle, index: 1 })).toEqual({ ok: true, value: { agents: before } });
    expect(await services.call('agents.restore', { agent: middle, index: 1 })).toMatchObject({ ok: false, error: { code: 'already_exists' } });
    expect(await (await startTestServices(dir)).call('agents.list')).toEqual({ ok: true, value: { agents: before } });
  });

  it('allows an http:// agent only after the development setting is turned on', async () => {
    const services = await startTestServices(await tempDir());
    expect(await services.call('agents.add', { address: 'http://127.0.0.1:9000' })).toMatchObject({ ok: false, error: { code: 'insecure_scheme' } });
    expect(await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } })).toMatchObject({
      ok: true,
      value: { developer: { allowLocalHttp: true, allowPastedTokens: false } },
    });
    expect(await services.call('agents.add', { address: 'http://127.0.0.1:9000' })).toMatchObject({ ok: true });
  });

  it('keeps settings across a restart and announces each change', async () => {
    const dir = await tempDir();
    const first = await startTestServices(dir);
    const events: string[] = [];
    first.events.connect((channel) => events.push(channel));
    await first.call('settings.update', { patch: { appearance: { theme: 'dark' }, language: 'cs' } });
    expect(events).toEqual(['agentdesk:event:settings.changed']);
    const second = await startTestServices(dir);
    expect(await second.call('settings.get')).toMatchObject({ ok: true, value: { language: 'cs', appearance: { theme: 'dark', textSize: 'normal' } } });
  });

  it('loads a settings file written before the sign-in setting existed, without moving it aside', async () => {
    const dir = await tempDir();
    const old = { schemaVersion: 1, language: 'cs', appearance: { theme: 'dark', textSize: 'large' }, developer: { allowLocalHttp: true, allowPastedTokens: false } };
    await writeFile(join(dir, 'settings.json'), JSON.stringify(old));
    const services = await startTestServices(dir);
    // Read as the current version (1 → 2 → 3 → 4 converts nothing here: the file has no voice consents).
    expect(await services.call('settings.get')).toEqual({ ok: true, value: { ...old, schemaVersion: 4 } });
    expect(await services.call('app.info')).toMatchObject({ ok: true, value: { notices: [] } });
    expect(await services.call('settings.update', { patch: { signIn: { redirect: 'private-use' } } })).toMatchObject({ ok: true, value: { language: 'cs', signIn: { redirect: 'private-use' } } });
  });

  it('starts with defaults and a notice when the settings file is corrupt', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'settings.json'), '{ not json');
    const services = await startTestServices(dir);
    expect(await services.call('settings.get')).toMatchObject({ ok: true, value: { appearance: { theme: 'system' } } });
    const info = await services.call('app.info');
    expect(info).toMatchObject({ ok: true, value: { notices: [{ code: 'file_moved_aside', params: { file: 'settings.json' }, message: expect.stringContaining('settings.json could not be read') }] } });
  });

  it('opens only https: links, only right after a user gesture', async () => {
    const services = await startTestServices(await tempDir());
    expect(await services.call('external.open', { url: 'https://example.com/docs' })).toEqual({ ok: true, value: { opened: true } });
    for (const url of ['javascript:alert(1)', 'http://example.com', 'file:///etc/passwd', 'data:text/html,x', 'not a url', 'https://u:p@example.com']) {
      expect(await services.call('external.open', { url }), url).toMatchObject({ ok: false, error: { code: 'unsafe_url' } });
    }
    expect(await services.call('external.open', { url: 'https://example.com/other' }, false)).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    expect(services.opened).toEqual(['https://example.com/docs']);
  });

  it('grants camera or microphone only while armed', async () => {
    const services = await startTestServices(await tempDir());
    expect(services.media.allows(['camera'])).toBe(false);
    expect(await services.call('media.arm', { kinds: ['camera'] })).toEqual({ ok: true, value: { armed: ['camera'] } });
    expect(services.media.allows(['camera'])).toBe(true);
    expect(services.media.allows(['camera', 'microphone'])).toBe(false);
    await services.call('media.disarm', { kinds: ['camera'] });
    expect(services.media.allows(['camera'])).toBe(false);
  });
});
