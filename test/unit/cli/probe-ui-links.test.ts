import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Io } from '../../../src/main/cli/output';
import { probe } from '../../../src/main/cli/probe';
import { uiLinksExtensionUri } from '../../../src/shared/agentmesh/ui-links';
import { cardCases } from '../agentcall/card-cases';
import { json, manifestFor, startServer } from '../../support/http-server';

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

/** A loopback server with an agent card at /.well-known/agent-card.json and, optionally, a Talkie manifest. */
function agentServer(card: (origin: string) => unknown, talkie?: (origin: string) => unknown) {
  return startServer((req, res) => {
    const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
    if (req.url === '/.well-known/agent-card.json') return json(res, 200, card(origin));
    if (req.url === '/.well-known/talkie.json' && talkie) return json(res, 200, talkie(origin));
    json(res, 404, { error: 'not found' });
  });
}

type Report = {
  ok: boolean;
  kind: string;
  problems: { code: string; path: string }[];
  uiLinks?: unknown[];
  uiLinksProblems?: { code: string; path: string; message: string }[];
  [key: string]: unknown;
};

async function probeJson(address: string, dev = true): Promise<{ code: number; report: Report }> {
  const io = capture();
  const code = await probe(address, { json: true, dev }, io);
  expect(io.lines).toHaveLength(1);
  return { code, report: JSON.parse(io.lines[0]!) as Report };
}

async function probeText(address: string): Promise<{ code: number; lines: string[] }> {
  const io = capture();
  const code = await probe(address, { json: false, dev: true }, io);
  return { code, lines: io.lines };
}

const workedExample = JSON.parse(readFileSync(new URL('../../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const agentCallCard = (name: string) => structuredClone(cardCases.find((entry) => entry.name === name)!.card) as { capabilities: { extensions: unknown[] } };

/** The AgentCall fixture card with a UI links declaration of `uis` added. */
function agentCallWithUis(uis: unknown[]) {
  const card = agentCallCard('minimal valid websocket card');
  card.capabilities.extensions.push({ uri: uiLinksExtensionUri, required: false, params: { uis } });
  return card;
}

describe('agentdesk probe and AgentMesh UI links', () => {
  it("lists the AgentMesh UI links 0.1 §11 worked example's pages for a plain A2A card, flagged against the loopback origin the card came from", async () => {
    const server = await agentServer(() => workedExample);
    const { code, report } = await probeJson(server.url);
    // A plain A2A card: the app shows it as a page with these web pages.
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, kind: 'a2a', cardUrl: `${server.origin}/.well-known/agent-card.json` });
    expect(report.uiLinks).toEqual([
      {
        url: 'https://agent.larkfield.example/ops',
        label: 'Operations dashboard',
        audience: 'operator',
        access: 'authenticated',
        kind: 'dashboard',
        crossOrigin: true,
        shownByDefault: false,
        notes: [],
      },
      {
        url: 'https://agent.larkfield.example/reports',
        label: 'Payroll reports',
        audience: 'client',
        access: 'authenticated',
        kind: 'reports',
        crossOrigin: true,
        shownByDefault: true,
        notes: [],
      },
      {
        url: 'https://status.larkfield.example/',
        label: 'Service status',
        audience: 'public',
        access: 'open',
        kind: 'status',
        crossOrigin: true,
        shownByDefault: true,
        notes: [],
      },
    ]);
    expect(report.uiLinksProblems).toEqual([]);
  });

  it('prints a "web pages:" section after the verdict, with audience, access, kind, hidden and other-site marks', async () => {
    const server = await agentServer(() => workedExample);
    const { code, lines } = await probeText(server.url);
    expect(code).toBe(0);
    expect(lines).toEqual([
      'usable: A2A agent "Larkfield Payroll" 1.0.0 without AgentCall: the app shows its card, skills and web pages; no conversation',
      'web pages:',
      '  https://agent.larkfield.example/ops "Operations dashboard", operator, authenticated, "dashboard" (not shown by default) (other site)',
      '  https://agent.larkfield.example/reports "Payroll reports", client, authenticated, "reports" (other site)',
      '  https://status.larkfield.example/ "Service status", public, open, "status" (other site)',
      `read: Talkie manifest ${server.origin}/.well-known/talkie.json`,
      `read: agent card ${server.origin}/.well-known/agent-card.json`,
    ]);
  });

  it('reports usable entries and the skipped ones of a usable AgentCall card; UI links never change the verdict', async () => {
    const server = await agentServer(() =>
      agentCallWithUis([
        { url: 'javascript:alert(1)', label: 'Run me', audience: 'public' },
        { url: 'data:text/html,<h1>hi</h1>', label: 'Data', audience: 'public' },
        { url: 'https://agent.example/reports', label: 'Reports', skill: 'nowhere', kind: 'kanban' },
        { url: 'https://agent.example/ops', label: 'Ops', audience: 'operator' },
      ]),
    );
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, kind: 'agentcall', problems: [], agentcall: { uiLinksDeclared: true } });
    expect(report.uiLinks).toEqual([
      {
        url: 'https://agent.example/reports',
        label: 'Reports',
        audience: 'unstated',
        access: null,
        kind: 'kanban',
        crossOrigin: true,
        shownByDefault: true,
        notes: ['Audience not stated (not the same as public).', expect.stringContaining('"nowhere"')],
      },
      { url: 'https://agent.example/ops', label: 'Ops', audience: 'operator', access: null, kind: null, crossOrigin: true, shownByDefault: false, notes: [] },
    ]);
    const uis = '/capabilities/extensions/1/params/uis';
    expect(report.uiLinksProblems!.map(({ code: problem, path }) => ({ code: problem, path }))).toEqual([
      { code: 'ui_link_url_not_https', path: `${uis}/0/url` },
      { code: 'ui_link_url_not_https', path: `${uis}/1/url` },
      { code: 'ui_link_audience_unstated', path: `${uis}/2/audience` },
      { code: 'ui_link_skill_dangling', path: `${uis}/2/skill` },
    ]);

    const text = await probeText(server.url);
    expect(text.code).toBe(0);
    expect(text.lines[0]).toMatch(/^usable: AgentCall agent /);
    expect(text.lines.slice(1)).toEqual([
      'web pages:',
      '  https://agent.example/reports "Reports", audience not stated, "kanban" (other site)',
      '  https://agent.example/ops "Ops", operator (not shown by default) (other site)',
      `  ui_link_url_not_https at ${uis}/0/url: The url uses javascript:, not https:; the entry is skipped.`,
      `  ui_link_url_not_https at ${uis}/1/url: The url uses data:, not https:; the entry is skipped.`,
      `  ui_link_audience_unstated at ${uis}/2/audience: Audience not stated (not the same as public).`,
      `  ui_link_skill_dangling at ${uis}/2/skill: The page names the skill "nowhere", which is not among the skills the card declares.`,
      `read: Talkie manifest ${server.origin}/.well-known/talkie.json`,
      `read: agent card ${server.origin}/.well-known/agent-card.json`,
    ]);
  });

  it("under --dev, an http:// page on the card's own loopback origin (as the built-in demo declares) is still skipped: the spec allows only https", async () => {
    const server = await agentServer((origin) =>
      agentCallWithUis([{ url: `${origin}/ui/status`, label: 'Demo agent status', audience: 'public', access: 'open', kind: 'status' }]),
    );
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report.uiLinks).toEqual([]);
    expect(report.uiLinksProblems).toEqual([
      {
        code: 'ui_link_url_not_https',
        path: '/capabilities/extensions/1/params/uis/0/url',
        message: expect.stringContaining('also under the development setting'),
      },
    ]);
    const text = await probeText(server.url);
    expect(text.lines.slice(1, 3)).toEqual(['web pages:', '  (none usable)']);
  });

  it('reports the declaration problems of a broken extension, and required: true as a note only', async () => {
    const card = agentCallCard('minimal valid websocket card');
    card.capabilities.extensions.push({ uri: uiLinksExtensionUri, required: true, params: { uis: [] } });
    const server = await agentServer(() => card);
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report.uiLinks).toEqual([]);
    expect(report.uiLinksProblems!.map((problem) => problem.code)).toEqual(['ui_links_marked_required', 'ui_links_uis_empty']);
  });

  it('bounds the report of a hostile card: 10,000 entries with a 1 MB label among them', async () => {
    const megabyte = 'A'.repeat(1024 * 1024);
    // The card itself must stay under the 256 KiB discovery limit to be read at all: 10,000 short entries and one long label do not.
    const small = Array.from({ length: 10_000 }, (_, index) => ({ url: `https://a.example/${index}`, label: 'P', audience: 'public' }));
    const server = await agentServer(() => agentCallWithUis(small));
    const { report } = await probeJson(server.url);
    // Over 256 KiB: discovery refuses the card before anything is parsed.
    expect(report.problems.map((problem) => problem.code)).toContain('card_too_large');
    expect(report.uiLinks).toBeUndefined();

    const capped = await agentServer(() =>
      agentCallWithUis([...Array.from({ length: 2_000 }, (_, index) => ({ url: `https://a.example/${index}`, label: 'P', audience: 'public' }))]),
    );
    const many = await probeJson(capped.url);
    expect(many.report.uiLinks).toHaveLength(100);
    expect(many.report.uiLinksProblems).toEqual([
      { code: 'ui_links_entries_truncated', path: '/capabilities/extensions/1/params/uis', message: expect.stringContaining('1900 ignored') },
    ]);

    const long = await agentServer(() => agentCallWithUis([{ url: 'https://a.example/', label: megabyte.slice(0, 200_000), audience: 'public' }]));
    const label = await probeJson(long.url);
    expect(label.report.uiLinks).toEqual([expect.objectContaining({ label: `${'A'.repeat(119)}…`, notes: [expect.stringContaining('shortened')] })]);
  });

  it('omits uiLinks for a card that declares none (absence states nothing), and reports them beside a usable Talkie server', async () => {
    const silent = await agentServer(() => agentCallCard('minimal valid websocket card'));
    const { report } = await probeJson(silent.url);
    expect(report.ok).toBe(true);
    expect(report).not.toHaveProperty('uiLinks');
    expect(report).not.toHaveProperty('uiLinksProblems');
    expect((await probeText(silent.url)).lines.filter((line) => !line.startsWith('read: '))).toHaveLength(1);

    const both = await agentServer(
      () => agentCallWithUis([{ url: 'https://agent.example/status', label: 'Status', audience: 'public' }]),
      (origin) => manifestFor(origin),
    );
    const beside = await probeJson(both.url);
    expect(beside.report).toMatchObject({
      ok: true,
      kind: 'talkie',
      uiLinks: [{ url: 'https://agent.example/status', label: 'Status', crossOrigin: true }],
      uiLinksProblems: [],
    });
  });
});
