import { describe, expect, it } from 'vitest';
import type { Io } from '../../../src/main/cli/output';
import { probe } from '../../../src/main/cli/probe';
import { cardCases, codesOf } from '../agentcall/card-cases';
import { json, manifestFor, startServer } from '../../support/http-server';

/** The lines the human output ends with: which documents were read. */
const readLines = (origin: string) => [`read: Talkie manifest ${origin}/.well-known/talkie.json`, `read: agent card ${origin}/.well-known/agent-card.json`];

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

const fixture = (name: string) => structuredClone(cardCases.find((entry) => entry.name === name)!.card);

/** A loopback server with an agent card at /.well-known/agent-card.json and, optionally, a Talkie manifest. */
function agentServer(card: unknown, talkie?: (origin: string) => unknown) {
  return startServer((req, res) => {
    const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
    if (req.url === '/.well-known/agent-card.json') return json(res, 200, card);
    if (req.url === '/.well-known/talkie.json' && talkie) return json(res, 200, talkie(origin));
    json(res, 404, { error: 'not found' });
  });
}

async function probeJson(address: string) {
  const io = capture();
  const code = await probe(address, { json: true, dev: true }, io);
  expect(io.lines).toHaveLength(1);
  return { code, report: JSON.parse(io.lines[0]!) as { ok: boolean; kind: string; problems: { code: string; path: string }[]; [key: string]: unknown } };
}

describe('agentdesk probe over the agent card fixture table (--dev --json)', () => {
  it.each(cardCases.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
    const expected = entry.expectDev ?? entry.expect;
    const server = await agentServer(entry.card);
    const { code, report } = await probeJson(server.url);
    // The probe's verdict is the app's: a valid plain A2A card is accepted too (a page, no conversation).
    expect({ ok: report.ok, kind: report.kind, codes: codesOf(report.problems) }).toEqual(expected);
    expect(code).toBe(report.ok ? 0 : 1);
    expect(report.cardUrl).toBe(`${server.origin}/.well-known/agent-card.json`);
    expect(report.agentcall !== undefined).toBe(report.ok && report.kind === 'agentcall');
    expect(report.a2a !== undefined).toBe(report.ok && report.kind === 'a2a');
  });
});

describe('agentdesk probe and agent cards', () => {
  it('reports the AgentCall card in JSON and in one human line', async () => {
    const card = fixture('bearer required, A2A 1.0 shape');
    const server = await agentServer(card);
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report).toEqual({
      ok: true,
      kind: 'agentcall',
      problems: [],
      cardUrl: `${server.origin}/.well-known/agent-card.json`,
      agentcall: {
        name: 'Workshop agent',
        version: '1.0.0',
        extension: 'canonical',
        transport: 'websocket',
        url: 'https://agent.example/agui',
        wsUrl: 'wss://agent.example/agui',
        voiceOwner: 'client',
        accepted: ['nfc', 'photo'],
        agentRequests: ['nfc', 'photo'],
        bearerRequired: true,
        uiLinksDeclared: false,
      },
    });
    const io = capture();
    expect(await probe(server.url, { json: false, dev: true }, io)).toBe(0);
    expect(io.lines).toEqual([
      'usable: AgentCall agent "Workshop agent" 1.0.0 over websocket at wss://agent.example/agui, accepts nfc and photo, may request nfc and photo, voice by the client, bearer token required',
      ...readLines(server.origin),
    ]);
  });

  it('prints each problem with its code and path for a rejected card', async () => {
    const server = await agentServer(fixture('photo on http.sse'));
    const io = capture();
    expect(await probe(server.url, { json: false, dev: true }, io)).toBe(1);
    expect(io.lines[0]).toBe('not usable AgentCall agent:');
    expect(io.lines).toContain(
      '  agui_transport_unsupported at /capabilities/extensions/0/params/agui/transport: The transport "http.sse" is not supported; AgentCall 0.1 uses "websocket" or "webrtc".',
    );
  });

  it('reads only the agent card when the address ends in agent-card.json, only the manifest when it is talkie.json', async () => {
    const server = await agentServer(fixture('legacy identifier only'), (origin) => manifestFor(origin));
    const card = await probeJson(`${server.origin}/.well-known/agent-card.json`);
    expect(card.report).toMatchObject({ ok: true, kind: 'agentcall', agentcall: { extension: 'legacy' } });
    expect(server.requests.map((request) => request.path)).toEqual(['/.well-known/agent-card.json']);
    server.requests.length = 0;
    const talkie = await probeJson(`${server.origin}/.well-known/talkie.json`);
    expect(talkie.report).toMatchObject({ ok: true, kind: 'talkie' });
    expect(talkie.report.agentcall).toBeUndefined();
    expect(server.requests.map((request) => request.path)).toEqual(['/.well-known/talkie.json']);
  });

  it('reads both documents for a bare origin: a usable Talkie server is reported with its AgentCall card beside it', async () => {
    const server = await agentServer(fixture('valid webrtc card'), (origin) => manifestFor(origin));
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report).toMatchObject({
      ok: true,
      kind: 'talkie',
      talkie: { serverId: 'hostile.test' },
      agentcall: { transport: 'webrtc', voiceOwner: 'agent', wsUrl: null },
    });
    expect(server.requests.map((request) => request.path).sort()).toEqual(['/.well-known/agent-card.json', '/.well-known/talkie.json']);
    const io = capture();
    await probe(server.url, { json: false, dev: true }, io);
    expect(io.lines).toHaveLength(4);
    expect(io.lines[1]).toMatch(/^usable: AgentCall agent "Workshop agent" 1\.0\.0 over webrtc at https:\/\/agent\.example\/agui\/webrtc, /);
    expect(io.lines.slice(2)).toEqual(readLines(server.origin));
  });

  it('prefers a usable AgentCall card over a broken Talkie manifest at the same origin', async () => {
    const server = await agentServer(fixture('minimal valid websocket card'), () => manifestFor('https://someone-else.example'));
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, kind: 'agentcall' });
  });

  it('reports a plain A2A agent as what it is, usable as a page (exit 0), with its name', async () => {
    const server = await agentServer(fixture('plain A2A card without the extension'));
    const io = capture();
    expect(await probe(server.url, { json: false, dev: true }, io)).toBe(0);
    expect(io.lines).toEqual([
      'usable: A2A agent "Workshop agent" 1.0.0 without AgentCall: the app shows its card, skills and web pages; no conversation',
      ...readLines(server.origin),
    ]);
  });

  it("shows a plain A2A card's provider, documentation and icon as untrusted links", async () => {
    const server = await agentServer(fixture('plain A2A card with provider, documentation and icon'));
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(0);
    expect(report).toMatchObject({
      ok: true,
      kind: 'a2a',
      problems: [],
      a2a: {
        name: 'Larkfield Payroll',
        provider: { organization: 'Larkfield Payroll Ltd', url: 'https://larkfield.example/' },
        documentationUrl: 'https://docs.larkfield.example/agent',
        iconUrl: 'https://agent.larkfield.example/icon.png',
      },
    });
    const io = capture();
    expect(await probe(server.url, { json: false, dev: true }, io)).toBe(0);
    expect(io.lines).toEqual([
      'usable: A2A agent "Larkfield Payroll" 1.0.0 without AgentCall: the app shows its card, skills and web pages; no conversation',
      'from the card (untrusted links, not fetched):',
      '  provider: Larkfield Payroll Ltd, https://larkfield.example/ (other site)',
      '  documentation: https://docs.larkfield.example/agent (other site)',
      '  icon: https://agent.larkfield.example/icon.png (other site)',
      ...readLines(server.origin),
    ]);
  });

  it("lists the links it left out of a plain A2A card as warnings, and a card's text reaches the terminal without control characters", async () => {
    const card = fixture('plain A2A card with unusable provider, documentation and icon') as Record<string, unknown>;
    const server = await agentServer({ ...card, name: 'Larkfield\u001b[2J\u202e Payroll' });
    const io = capture();
    expect(await probe(server.url, { json: false, dev: true }, io)).toBe(0);
    expect(io.lines.slice(0, 4)).toEqual([
      'usable: A2A agent "Larkfield[2J Payroll" 1.0.0 without AgentCall: the app shows its card, skills and web pages; no conversation',
      '  provider_invalid at /provider: The provider is not an object with an organization name; it is not shown.',
      '  card_link_not_https at /documentationUrl: The documentationUrl uses "javascript:", not https:; it is not shown.',
      '  card_link_credentials at /iconUrl: The iconUrl carries a user name or password; it is not shown.',
    ]);
    expect(io.lines.slice(4)).toEqual(readLines(server.origin));
  });

  it('names the one document it read when the address names it', async () => {
    const server = await agentServer(fixture('minimal valid websocket card'), (origin) => manifestFor(origin));
    const card = capture();
    await probe(`${server.origin}/.well-known/agent-card.json`, { json: false, dev: true }, card);
    expect(card.lines.at(-1)).toBe(`read: agent card ${server.origin}/.well-known/agent-card.json`);
    expect(card.lines.filter((line) => line.startsWith('read: '))).toHaveLength(1);
    const manifest = capture();
    await probe(`${server.origin}/.well-known/talkie.json`, { json: false, dev: true }, manifest);
    expect(manifest.lines.filter((line) => line.startsWith('read: '))).toEqual([`read: Talkie manifest ${server.origin}/.well-known/talkie.json`]);
  });

  it('reports both missing documents when the server has neither', async () => {
    const server = await startServer((_req, res) => json(res, 404, {}));
    const { code, report } = await probeJson(server.url);
    expect(code).toBe(1);
    expect(report).toMatchObject({ ok: false, kind: 'unknown' });
    expect(codesOf(report.problems)).toEqual(['card_http_error', 'manifest_http_error']);
  });
});
