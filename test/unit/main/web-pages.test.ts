import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { webPagesSchema } from '../../../src/shared/agentmesh/ipc-schemas';
import { builtInAgentCallDemoId, builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { json, startServer } from '../../support/http-server';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const workedExample = JSON.parse(await readFile(new URL('../../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Services with the development setting on and one agent at `address`; answers its id. */
async function withAgent(address: string): Promise<{ services: TestServices; agentId: string }> {
  const services = await startTestServices(await tempDir());
  await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
  const added = await services.call('agents.add', { address });
  if (!added.ok) throw new Error(added.error.message);
  return { services, agentId: added.value.agent.id };
}

const cardRequests = (server: { requests: { path: string }[] }) => server.requests.filter((request) => request.path === '/.well-known/agent-card.json').length;

describe('agents.webPages through the real dispatcher', () => {
  it('answers the worked example card (AgentMesh UI links 0.1 §11) with its three pages, the operator one not shown by default, and reuses the answer', async () => {
    const server = await startServer((request, response) => {
      if (request.url === '/.well-known/agent-card.json') json(response, 200, workedExample);
      else json(response, 404, {});
    });
    const { services, agentId } = await withAgent(server.url);

    const result = await services.call('agents.webPages', { agentId });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.cardUrl).toBe(`${server.origin}/.well-known/agent-card.json`);
    expect(result.value.problems).toEqual([]);
    expect(result.value.links.map((link) => [link.label, link.audience, link.access, link.kind, link.shownByDefault])).toEqual([
      ['Operations dashboard', 'operator', 'authenticated', 'dashboard', false],
      ['Payroll reports', 'client', 'authenticated', 'reports', true],
      ['Service status', 'public', 'open', 'status', true],
    ]);
    expect(result.value.links.map((link) => link.url)).toEqual([
      'https://agent.larkfield.example/ops',
      'https://agent.larkfield.example/reports',
      'https://status.larkfield.example/',
    ]);
    // Served from 127.0.0.1, every page is on another site than the card (computed, never declared).
    expect(result.value.links.every((link) => link.crossOrigin)).toBe(true);
    expect(result.value.links[1]).toMatchObject({ skill: 'run-payroll', notes: [] });

    // Nothing the card lists was fetched: only the card itself.
    expect(server.requests.map((request) => request.path)).toEqual(['/.well-known/agent-card.json']);
    expect(await services.call('agents.webPages', { agentId })).toEqual(result);
    expect(cardRequests(server)).toBe(1);
  });

  it('answers no pages and no card address when the agent has no card, and network_error when it cannot be reached', async () => {
    const server = await startServer((_request, response) => json(response, 404, { error: 'not here' }));
    const { services, agentId } = await withAgent(server.url);
    expect(await services.call('agents.webPages', { agentId })).toEqual({ ok: true, value: { links: [], problems: [] } });

    const gone = await startServer((_request, response) => json(response, 200, workedExample));
    const added = await services.call('agents.add', { address: gone.url });
    if (!added.ok) throw new Error(added.error.message);
    await gone.close();
    const failed = await services.call('agents.webPages', { agentId: added.value.agent.id });
    expect(failed).toMatchObject({ ok: false, error: { code: 'network_error', retryable: true } });

    expect(await services.call('agents.webPages', { agentId: 'no-such-agent' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('reads the card under the development setting: turned off, a local http agent is not read', async () => {
    const server = await startServer((_request, response) => json(response, 200, workedExample));
    const { services, agentId } = await withAgent(server.url);
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: false } } });
    expect(await services.call('agents.webPages', { agentId })).toMatchObject({ ok: false, error: { code: 'network_error' } });
    expect(server.requests).toEqual([]);
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true } } });
    expect(await services.call('agents.webPages', { agentId })).toMatchObject({ ok: true, value: { links: [{}, {}, {}] } });
  });

  it('keeps a hostile card within the schema: a URL that grows when normalised is skipped, long messages are cut', async () => {
    const longHost = Array.from({ length: 30 }, () => 'a'.repeat(60)).join('.');
    const uis = [
      { url: `https://grows.example/${'é'.repeat(1500)}`, label: 'Grows' },
      { url: `https://user:pw@${longHost}.example/`, label: 'Credentials' },
      ...Array.from({ length: 150 }, (_, index) => ({ url: `javascript:alert(${index})`, label: `Bad ${index}` })),
      ...Array.from({ length: 150 }, (_, index) => ({ url: `https://ok.example/${index}`, label: `Page ${index}`, audience: 'public' })),
    ];
    const card = { ...workedExample, capabilities: { extensions: [{ uri: 'https://dev.agentmesh.ai/extensions/ui-links/v1', params: { uis } }] } };
    const server = await startServer((_request, response) => json(response, 200, card));
    const { services, agentId } = await withAgent(server.url);

    const result = await services.call('agents.webPages', { agentId });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(webPagesSchema.safeParse(result.value).success).toBe(true);
    expect(result.value.links.some((link) => link.label === 'Grows')).toBe(false);
    expect(result.value.problems.length).toBeLessThanOrEqual(101);
    expect(result.value.problems.find((problem) => problem.code === 'ui_link_url_credentials')?.message.length).toBeLessThanOrEqual(500);
    // parseUiLinks reads the first 100 entries: the two hostile ones and 98 javascript: ones.
    expect(result.value.links).toEqual([]);
    const codes = result.value.problems.map((problem) => problem.code);
    expect(codes[0]).toBe('ui_link_url_too_long');
    // The skipped URL, the parser's 100 problems and its "more not listed" would be 102: cut to 100 and one "more not listed".
    expect(codes).toHaveLength(101);
    expect(codes.filter((code) => code === 'ui_link_url_not_https')).toHaveLength(97);
    expect(codes.at(-1)).toBe('ui_links_problems_truncated');
  });

  it('reads the built-in demo’s AgentCall card on 127.0.0.1 without the development setting; the Talkie demo has none', async () => {
    const services = await startTestServices(await tempDir());
    try {
      const demo = await services.call('agents.webPages', { agentId: builtInAgentCallDemoId });
      expect(demo.ok).toBe(true);
      if (!demo.ok) return;
      expect(demo.value.cardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      // Its one page is the protocol's public documentation, on another site than the loopback card.
      expect(demo.value.links).toEqual([
        expect.objectContaining({ url: 'https://agentcall.smartycode.com/', audience: 'public', kind: 'docs', crossOrigin: true, shownByDefault: true }),
      ]);
      expect(demo.value.problems).toEqual([]);
      expect(await services.call('agents.webPages', { agentId: builtInDemoAgentId })).toEqual({ ok: true, value: { links: [], problems: [] } });
    } finally {
      await services.dispose();
    }
  });
});
