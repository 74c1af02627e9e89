import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAgentCallCard } from '../../../src/main/agentcall/read-card';
import { a2aAgentView, identifyAgent } from '../../../src/main/agents/identify-agent';
import { a2aAgentViewSchema } from '../../../src/shared/ipc/contract';
import { json, startServer } from '../../support/http-server';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const dev = { allowLocalHttp: true };
/** The AgentMesh UI links 0.1 §11 worked example: a plain A2A card (no AgentCall extension) with three web pages. */
const workedExample = JSON.parse(readFileSync(new URL('../../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function cardServer(card: unknown) {
  return startServer((req, res) => {
    if (req.url === '/.well-known/agent-card.json') return json(res, 200, card);
    json(res, 404, { error: 'not found' });
  });
}

describe('identifyAgent: a plain A2A card', () => {
  it('with UI links only (no Talkie manifest, no AgentCall extension) is an a2a agent with its name, description and skills', async () => {
    const server = await cardServer(workedExample);
    const identified = await identifyAgent(server.url, dev);
    expect(identified).toMatchObject({
      protocol: 'a2a',
      cardUrl: `${server.origin}/.well-known/agent-card.json`,
      a2a: {
        name: 'Larkfield Payroll',
        description: expect.stringMatching(/^Fictional payroll agent/),
        version: '1.0.0',
        skills: [{ id: 'run-payroll', name: 'Run payroll', description: 'Runs a payroll for a client account.', tags: ['payroll'] }],
      },
    });
    if (identified.protocol !== 'a2a') throw new Error('not a2a');
    const view = a2aAgentView(identified);
    expect(a2aAgentViewSchema.parse(view)).toEqual(view);
    expect(view.skills).toEqual([{ name: 'Run payroll', description: 'Runs a payroll for a client account.', tags: ['payroll'] }]);
  });

  it("carries the card's provider, documentation and icon links to the page, within the contract", async () => {
    const card = {
      ...structuredClone(workedExample),
      provider: { organization: 'Larkfield Payroll Ltd', url: 'https://larkfield.example/' },
      documentationUrl: 'https://docs.larkfield.example/agent',
      iconUrl: 'javascript:alert(1)',
    };
    const server = await cardServer(card);
    const identified = await identifyAgent(server.url, dev);
    if (identified.protocol !== 'a2a') throw new Error('not a2a');
    const view = a2aAgentView(identified);
    expect(a2aAgentViewSchema.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      provider: { organization: 'Larkfield Payroll Ltd', url: 'https://larkfield.example/' },
      documentationUrl: 'https://docs.larkfield.example/agent',
    });
    expect(view.iconUrl).toBeUndefined();
    // Nothing but the card was fetched: the links are only shown.
    expect(server.requests.map((request) => request.path).sort()).toEqual(['/.well-known/agent-card.json', '/.well-known/talkie.json']);
  });

  it('bounds what it keeps of hostile skills (count, name, description, tags)', async () => {
    const card = structuredClone(workedExample) as { skills: unknown[] };
    card.skills = Array.from({ length: 40 }, (_, index) => ({
      id: `s${index}`,
      name: 'n'.repeat(500),
      description: 'd'.repeat(1000),
      tags: ['', ...Array.from({ length: 12 }, () => 't'.repeat(100))],
    }));
    const server = await cardServer(card);
    const identified = await identifyAgent(server.url, dev);
    if (identified.protocol !== 'a2a') throw new Error('not a2a');
    const view = a2aAgentView(identified);
    expect(a2aAgentViewSchema.safeParse(view).success).toBe(true);
    expect(view.skills).toHaveLength(32);
    expect(view.skills[0]!.tags).toHaveLength(10);
    expect(view.skills[0]!.tags.every((tag) => tag.length <= 50 && tag !== '')).toBe(true);
  });

  it('refuses an AgentCall session with a sentence that does not end in a dangling colon', async () => {
    const server = await cardServer(workedExample);
    const error = await readAgentCallCard(server.url, dev).then(
      () => undefined,
      (reason: unknown) => reason as Error,
    );
    expect(error).toMatchObject({ code: 'incompatible' });
    expect(error?.message).toBe('This is an A2A agent without the AgentCall extension; AgentDesk talks to A2A agents only through AgentCall.');
  });
});

describe('agents.identify through the real dispatcher', () => {
  const tempDir = useTempDirs();

  it('answers a2a with the page view, and the list then shows the card name (kept in agents.json)', async () => {
    const server = await cardServer(workedExample);
    const dir = await tempDir();
    const services = await startTestServices(dir);
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    const added = await services.call('agents.add', { address: server.url });
    if (!added.ok) throw new Error(added.error.message);
    const agentId = added.value.agent.id;
    expect(added.value.agent.name).toBeUndefined();

    const identified = await services.call('agents.identify', { agentId });
    expect(identified).toMatchObject({
      ok: true,
      value: { protocol: 'a2a', agent: { name: 'Larkfield Payroll', version: '1.0.0', cardUrl: `${server.origin}/.well-known/agent-card.json` } },
    });
    const listed = await services.call('agents.list');
    expect(listed.ok && listed.value.agents.find((agent) => agent.id === agentId)).toMatchObject({
      name: 'Larkfield Payroll',
      display: `127.0.0.1:${new URL(server.origin).port}`,
    });
    expect(await readFile(join(dir, 'agents.json'), 'utf8')).toContain('"name": "Larkfield Payroll"');
  });
});
