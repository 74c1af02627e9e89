import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maxAgents } from '../../../src/shared/ipc/contract';
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

  it('agents.restore puts back only an agent removed in this session, as it was, through the checks agents.add makes', async () => {
    const services = await startTestServices(await tempDir());
    const added = await services.call('agents.add', { address: 'crm.example.com' });
    const agent = added.ok ? added.value.agent : undefined;
    const made = { id: randomUUID(), url: 'https://made-up.example.com/', display: 'made-up.example.com', addedAt: new Date().toISOString() };
    // Entries the list never had: an address add refuses, an id add never makes, an agent nobody removed.
    expect(await services.call('agents.restore', { agent: { ...made, url: 'file:///etc/passwd', display: '/etc/passwd' }, index: 0 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_address', message: 'Only https:// addresses are supported, not file://.' },
    });
    for (const entry of [{ ...made, id: '__proto__' }, made]) {
      expect(await services.call('agents.restore', { agent: entry, index: 0 })).toMatchObject({
        ok: false,
        error: { code: 'not_found', message: 'There is no removed agent to put back: add it again.' },
      });
    }
    // A removed agent comes back as main removed it: a name or address the page made up is not taken.
    await services.call('agents.remove', { id: agent!.id });
    expect(await services.call('agents.restore', { agent: { ...agent!, url: 'https://other.example.com/' }, index: 0 })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await services.call('agents.restore', { agent: { ...agent!, name: '<img src=x onerror=alert(1)>', label: 'Mine' }, index: 0 })).toEqual({
      ok: true,
      value: { agents: [agent] },
    });
    expect(await services.call('agents.list')).toEqual({ ok: true, value: { agents: [agent] } });

    // The address rules in force now: an http:// agent removed while they allowed it comes back only while they do.
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const local = await services.call('agents.add', { address: 'http://127.0.0.1:9000' });
    const localAgent = local.ok ? local.value.agent : undefined;
    await services.call('agents.remove', { id: localAgent!.id });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: false } } });
    expect(await services.call('agents.restore', { agent: localAgent, index: 1 })).toMatchObject({ ok: false, error: { code: 'insecure_scheme' } });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    expect(await services.call('agents.restore', { agent: localAgent, index: 1 })).toEqual({ ok: true, value: { agents: [agent, localAgent] } });
  });

  it('says the list is full at its 500th agent, in add, check and restore, in words; one removed makes room', async () => {
    const dir = await tempDir();
    const full = Array.from({ length: maxAgents }, (_, i) => ({
      id: randomUUID(),
      url: `https://agent-${i}.example.com/`,
      display: `agent-${i}.example.com`,
      addedAt: '2026-01-01T00:00:00.000Z',
    }));
    await writeFile(join(dir, 'agents.json'), JSON.stringify({ schemaVersion: 2, agents: full }));
    const services = await startTestServices(dir);
    const refusal = {
      code: 'limit_reached',
      message: `Your list has ${maxAgents} agents, the most AgentDesk keeps: remove one you no longer use, then add this one.`,
    };
    expect(await services.call('agents.add', { address: 'one-more.example.com' })).toEqual({ ok: false, error: refusal });
    expect(await services.call('agents.check', { address: 'one-more.example.com' })).toEqual({ ok: false, error: refusal });
    await services.call('agents.remove', { id: full[0]!.id });
    expect(await services.call('agents.add', { address: 'one-more.example.com' })).toMatchObject({ ok: true });
    // The removed one cannot come back while the list is full again.
    expect(await services.call('agents.restore', { agent: full[0], index: 0 })).toEqual({ ok: false, error: refusal });
    expect(await services.call('agents.list')).toMatchObject({ ok: true, value: { agents: { length: maxAgents } } });
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
    const old = {
      schemaVersion: 1,
      language: 'cs',
      appearance: { theme: 'dark', textSize: 'large' },
      developer: { allowLocalHttp: true, allowPastedTokens: false },
    };
    await writeFile(join(dir, 'settings.json'), JSON.stringify(old));
    const services = await startTestServices(dir);
    // Read as the current version (1 → 2 → 3 → 4 converts nothing here: the file has no voice consents).
    expect(await services.call('settings.get')).toEqual({ ok: true, value: { ...old, schemaVersion: 4 } });
    expect(await services.call('app.info')).toMatchObject({ ok: true, value: { notices: [] } });
    expect(await services.call('settings.update', { patch: { signIn: { redirect: 'private-use' } } })).toMatchObject({
      ok: true,
      value: { language: 'cs', signIn: { redirect: 'private-use' } },
    });
  });

  it('starts with defaults and a notice when the settings file is corrupt', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'settings.json'), '{ not json');
    const services = await startTestServices(dir);
    expect(await services.call('settings.get')).toMatchObject({ ok: true, value: { appearance: { theme: 'system' } } });
    const info = await services.call('app.info');
    expect(info).toMatchObject({
      ok: true,
      value: {
        notices: [{ code: 'file_moved_aside', params: { file: 'settings.json' }, message: expect.stringContaining('settings.json could not be read') }],
      },
    });
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
