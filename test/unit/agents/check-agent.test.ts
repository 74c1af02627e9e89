import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgent } from '../../../src/main/agents/check-agent';
import { startAguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { agentCheckSchema } from '../../../src/shared/ipc/contract';
import { json, manifestFor, startServer } from '../../support/http-server';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * `agents.check` against real servers on 127.0.0.1: the fixtures the identification tests use (a
 * Talkie manifest, the AgentCall card cases, the AgentMesh worked example) and the built-in demo's
 * plain AG-UI endpoint, plus servers that refuse, answer nothing or are not there.
 */
const dev = { allowLocalHttp: true };
const workedExample = JSON.parse(readFileSync(new URL('../../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const cardCases = (
  JSON.parse(readFileSync(new URL('../../fixtures/agentcall-cards/cases.json', import.meta.url), 'utf8')) as { cases: { name: string; card: unknown }[] }
).cases;
const cardCase = (name: string) => cardCases.find((entry) => entry.name === name)!.card;

/** A server with these documents at their well-known paths (404 elsewhere). */
function documentServer(documents: { manifest?: (origin: string) => unknown; card?: unknown }) {
  return startServer((request, response, server) => {
    if (request.url === '/.well-known/talkie.json' && documents.manifest) return json(response, 200, documents.manifest(server.origin));
    if (request.url === '/.well-known/agent-card.json' && documents.card !== undefined) return json(response, 200, documents.card);
    json(response, 404, { error: 'not found' });
  });
}

async function check(url: string, kind: 'auto' | 'agui' = 'auto', options: Parameters<typeof checkAgent>[2] = {}) {
  const answer = await checkAgent({ url, display: new URL(url).host, kind }, dev, options);
  // Every answer crosses IPC: it must fit the contract.
  expect(agentCheckSchema.parse(answer)).toEqual(answer);
  return answer;
}

describe('checkAgent: what an address is', () => {
  it('finds a Talkie server by its manifest, with the manifest’s name', async () => {
    const server = await documentServer({ manifest: (origin) => manifestFor(origin, { name: 'Example CRM' }) });
    expect(await check(server.url)).toEqual({ found: true, kind: 'talkie', display: server.url.slice(7, -1), name: 'Example CRM' });
    // Nothing but the two documents was read, and no token was sent.
    expect(server.requests.map((request) => request.path).sort()).toEqual(['/.well-known/agent-card.json', '/.well-known/talkie.json']);
    expect(server.requests.every((request) => request.authorization === undefined)).toBe(true);
  });

  it('finds an AgentCall agent by its card, with its name', async () => {
    const server = await documentServer({ card: cardCase('minimal valid websocket card') });
    expect(await check(server.url)).toMatchObject({ found: true, kind: 'agentcall', name: 'Workshop agent', webPages: 0 });
  });

  it('finds a plain A2A agent with its web pages (the AgentMesh worked example)', async () => {
    const server = await documentServer({ card: workedExample });
    expect(await check(server.url)).toMatchObject({ found: true, kind: 'a2a', name: 'Larkfield Payroll', webPages: 3 });
  });

  it('finds the built-in demo’s plain AG-UI endpoint with one GET, starting no run', async () => {
    const demo = await startAguiDemoServer({ timeScale: 0.02 });
    try {
      expect(await check(demo.url, 'agui')).toEqual({ found: true, kind: 'agui', display: new URL(demo.url).host });
    } finally {
      await demo.close();
    }
  });

  it('says that an AgentCall card AgentDesk cannot use is incompatible, with the card’s problem', async () => {
    const server = await documentServer({ card: cardCase('session resume true') });
    const answer = await check(server.url);
    expect(answer).toMatchObject({
      found: false,
      reason: 'incompatible',
      code: 'session_resume_unsupported',
      message: expect.stringMatching(/^AgentDesk cannot talk to this agent: /),
    });
  });

  it('says that a Talkie manifest with fatal problems is incompatible, with its first problem', async () => {
    const server = await documentServer({ manifest: (origin) => ({ ...manifestFor(origin), spec: 'talkie/9' }) });
    expect(await check(server.url)).toMatchObject({ found: false, reason: 'incompatible', code: expect.any(String), message: expect.any(String) });
  });

  it('says not_found when a server answers without a manifest or a card', async () => {
    const server = await documentServer({});
    expect(await check(server.url)).toEqual({
      found: false,
      reason: 'not_found',
      display: new URL(server.url).host,
      code: 'manifest_http_error',
      message: `No Talkie manifest and no AgentCall agent card was found at ${new URL(server.url).host}. Check the address.`,
    });
  });

  it('finds a server at an AG-UI address whatever its GET answers (AG-UI has no discovery document; Express answers 404), and says unreachable for a gateway’s 503', async () => {
    const statuses: Record<string, number> = { '/express': 404, '/gone': 410, '/post-only': 405, '/down': 503 };
    const server = await startServer((request, response) => json(response, statuses[request.url ?? ''] ?? 200, { error: 'no' }));
    for (const path of ['express', 'gone', 'post-only'])
      expect(await check(`${server.url}${path}`, 'agui')).toEqual({ found: true, kind: 'agui', display: new URL(server.url).host });
    expect(await check(`${server.url}down`, 'agui')).toMatchObject({ found: false, reason: 'unreachable', code: 'http_503' });
  });

  it('says unreachable, with the network code, when nothing listens there', async () => {
    const server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    expect(await check(url)).toMatchObject({ found: false, reason: 'unreachable', code: 'net_connect_failed' });
    expect(await check(url, 'agui')).toMatchObject({ found: false, reason: 'unreachable', code: 'net_connect_failed' });
  });

  it('says unreachable when the name does not resolve (reserved .test domain)', async () => {
    const answer = await checkAgent({ url: 'https://agentdesk-check.test/', display: 'agentdesk-check.test', kind: 'auto' }, { allowLocalHttp: false });
    expect(answer).toMatchObject({ found: false, reason: 'unreachable', code: 'net_dns_failed' });
  });

  it('says blocked for an address the network rules refuse (loopback without the development setting)', async () => {
    const server = await documentServer({ manifest: (origin) => manifestFor(origin) });
    const answer = await checkAgent({ url: server.url.replace('http:', 'https:'), display: 'x', kind: 'auto' }, { allowLocalHttp: false });
    expect(answer).toMatchObject({ found: false, reason: 'blocked', code: 'net_blocked_address' });
    expect(server.requests).toEqual([]);
  });

  it('stops at its deadline when the server never answers, and says how long it waited', async () => {
    const server = await startServer(() => undefined); // accepts, never answers
    const started = Date.now();
    const answer = await check(server.url, 'auto', { deadlineMs: 400 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer).toEqual({
      found: false,
      reason: 'unreachable',
      display: new URL(server.url).host,
      code: 'check_timeout',
      message: `${new URL(server.url).host} did not answer within 400 ms.`,
    });
    const agui = await check(server.url, 'agui', { deadlineMs: 1500 });
    expect(agui).toMatchObject({ reason: 'unreachable', code: 'check_timeout', message: expect.stringMatching(/did not answer within 1\.5 s\.$/) });
  });
});

describe('agents.check and agents.rename through the real dispatcher', () => {
  const tempDir = useTempDirs();
  const open = async (): Promise<{ services: TestServices; dir: string }> => {
    const dir = await tempDir();
    const services = await startTestServices(dir);
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    return { services, dir };
  };

  it('checks an address without adding it, and refuses what add would refuse before any request', async () => {
    const { services } = await open();
    try {
      const server = await documentServer({ manifest: (origin) => manifestFor(origin, { name: 'Example CRM' }) });
      expect(await services.call('agents.check', { address: server.url })).toEqual({
        ok: true,
        value: { found: true, kind: 'talkie', display: new URL(server.url).host, name: 'Example CRM' },
      });
      expect(await services.call('agents.list')).toEqual({ ok: true, value: { agents: [] } });
      const added = await services.call('agents.add', { address: server.url });
      expect(added.ok).toBe(true);
      const requests = server.requests.length;
      expect(await services.call('agents.check', { address: server.url })).toMatchObject({ ok: false, error: { code: 'already_exists', path: '/address' } });
      expect(await services.call('agents.check', { address: 'hello' })).toMatchObject({ ok: false, error: { code: 'invalid_address' } });
      expect(await services.call('agents.check', { address: 'unreachable.invalid' })).toMatchObject({ ok: false, error: { code: 'invalid_address' } });
      expect(server.requests).toHaveLength(requests);
      expect(await services.call('agents.check', { address: `${server.url}agui`, kind: 'agui' })).toMatchObject({
        ok: true,
        value: { found: true, kind: 'agui' },
      });
    } finally {
      await services.dispose();
    }
  });

  it('renames an agent: trimmed, one line, saved in agents.json (version 2), listed under that name', async () => {
    const { services, dir } = await open();
    try {
      const added = await services.call('agents.add', { address: 'crm.example.com' });
      if (!added.ok) throw new Error(added.error.message);
      const { id } = added.value.agent;
      const events: unknown[] = [];
      services.events.connect((channel, payload) => {
        if (channel === 'agentdesk:event:agents.changed') events.push(payload);
      });
      expect(await services.call('agents.rename', { id, name: '  Work\n CRM\u202e  ' })).toEqual({
        ok: true,
        value: { agent: { ...added.value.agent, label: 'Work CRM' } },
      });
      expect(events).toEqual([{ agents: [{ ...added.value.agent, label: 'Work CRM' }] }]);
      expect(JSON.parse(await readFile(join(dir, 'agents.json'), 'utf8'))).toEqual({ schemaVersion: 2, agents: [{ ...added.value.agent, label: 'Work CRM' }] });
      // The same address again says under which name it is listed.
      expect(await services.call('agents.add', { address: 'https://crm.example.com' })).toMatchObject({
        ok: false,
        error: { code: 'already_exists', message: 'crm.example.com is already in your list, as "Work CRM".' },
      });
    } finally {
      await services.dispose();
    }
  });

  it('refuses an empty or too long name, and an agent that is gone', async () => {
    const { services } = await open();
    try {
      const added = await services.call('agents.add', { address: 'crm.example.com' });
      if (!added.ok) throw new Error(added.error.message);
      const { id } = added.value.agent;
      expect(await services.call('agents.rename', { id, name: ' \n ' })).toEqual({
        ok: false,
        error: { code: 'invalid_request', message: 'Type a name for the agent.', path: '/name' },
      });
      expect(await services.call('agents.rename', { id, name: 'x'.repeat(101) })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request', message: 'A name can be at most 100 characters long.' },
      });
      expect(await services.call('agents.rename', { id, name: 'x'.repeat(1001) })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect(await services.call('agents.rename', { id: 'gone', name: 'Name' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await services.call('agents.list')).toEqual({ ok: true, value: { agents: [added.value.agent] } });
    } finally {
      await services.dispose();
    }
  });
});
