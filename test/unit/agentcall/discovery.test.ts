import { describe, expect, it } from 'vitest';
import { discoverAgentCard } from '../../../src/main/agentcall/discovery';
import { maxCardBytes } from '../../../src/shared/agentcall/card';
import { json, startServer } from '../../support/http-server';
import { fakeDns } from '../net/servers';
import { cardCases } from './card-cases';

const fixture = (name: string) => structuredClone(cardCases.find((entry) => entry.name === name)!.card) as Record<string, unknown>;
const validCard = fixture('minimal valid websocket card');

/** A loopback server answering the card at `path` and 404 elsewhere. */
const serveCard = (card: unknown, path = '/.well-known/agent-card.json') =>
  startServer((req, res) => (req.url === path ? json(res, 200, card) : json(res, 404, { error: 'not found' })));

describe('discoverAgentCard', () => {
  it('fetches /.well-known/agent-card.json from the origin and validates it', async () => {
    const server = await serveCard(validCard);
    const result = await discoverAgentCard(`${server.origin}/some/page`, { allowLocalHttp: true });
    expect(result).toMatchObject({
      ok: true,
      cardUrl: `${server.origin}/.well-known/agent-card.json`,
      validation: { ok: true, kind: 'agentcall', card: { name: 'Workshop agent', wsUrl: 'wss://agent.example/agui' } },
    });
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /.well-known/agent-card.json']);
  });

  it('fetches the address itself when its path ends in agent-card.json', async () => {
    const server = await serveCard(validCard, '/agents/one/agent-card.json');
    const result = await discoverAgentCard(`${server.origin}/agents/one/agent-card.json`, { allowLocalHttp: true });
    expect(result).toMatchObject({ ok: true, cardUrl: `${server.origin}/agents/one/agent-card.json`, validation: { ok: true } });
  });

  it('hands the development setting to validation (an http:// AG-UI URL)', async () => {
    const card = fixture('http agui url under the development setting');
    const server = await serveCard(card);
    const result = await discoverAgentCard(server.url, { allowLocalHttp: true });
    expect(result).toMatchObject({ ok: true, validation: { ok: true, card: { wsUrl: 'ws://127.0.0.1:8080/agui' } } });
  });

  it('returns a fetched but invalid card with its problems', async () => {
    const server = await serveCard(fixture('canonical and legacy declared together'));
    const result = await discoverAgentCard(server.url, { allowLocalHttp: true });
    expect(result).toMatchObject({ ok: true, validation: { ok: false, kind: 'agentcall', problems: [{ code: 'duplicate_extension' }] } });
  });

  it('refuses a card larger than 256 KiB, with or without Content-Length, before parsing', async () => {
    const big = JSON.stringify({ ...validCard, padding: 'x'.repeat(maxCardBytes) });
    const labelled = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(big)) });
      res.end(big);
    });
    const chunked = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      for (let offset = 0; offset < big.length; offset += 16 * 1024) res.write(big.slice(offset, offset + 16 * 1024));
      res.end();
    });
    for (const server of [labelled, chunked]) {
      const result = await discoverAgentCard(server.url, { allowLocalHttp: true });
      expect(result).toEqual({ ok: false, problems: [{ code: 'card_too_large', path: '', message: expect.stringContaining('256 KiB') }] });
    }
  });

  it('accepts a card of exactly 256 KiB', async () => {
    const base = JSON.stringify({ ...validCard, padding: '' });
    const exact = JSON.stringify({ ...validCard, padding: 'x'.repeat(maxCardBytes - Buffer.byteLength(base)) });
    expect(Buffer.byteLength(exact)).toBe(maxCardBytes);
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(exact);
    });
    expect(await discoverAgentCard(server.url, { allowLocalHttp: true })).toMatchObject({ ok: true, validation: { ok: true } });
  });

  it('names an HTTP error, a non-JSON media type and a body that is not JSON', async () => {
    const missing = await serveCard(validCard, '/elsewhere');
    expect(await discoverAgentCard(missing.url, { allowLocalHttp: true })).toMatchObject({
      ok: false,
      problems: [{ code: 'card_http_error', message: expect.stringContaining('404') }],
    });
    const html = await startServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>'));
    expect(await discoverAgentCard(html.url, { allowLocalHttp: true })).toMatchObject({
      ok: false,
      problems: [{ code: 'card_not_json', message: expect.stringContaining('text/html') }],
    });
    const broken = await startServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end('{"name":'));
    expect(await discoverAgentCard(broken.url, { allowLocalHttp: true })).toMatchObject({ ok: false, problems: [{ code: 'card_not_json' }] });
  });

  it('follows a same-origin redirect and refuses a cross-origin one (the network layer decides)', async () => {
    const other = await serveCard(validCard);
    const server = await startServer((req, res) => {
      if (req.url === '/.well-known/agent-card.json') return void res.writeHead(302, { Location: '/card/agent-card.json' }).end();
      if (req.url === '/card/agent-card.json') return json(res, 200, validCard);
      if (req.url === '/away/agent-card.json') return void res.writeHead(302, { Location: `${other.origin}/.well-known/agent-card.json` }).end();
      json(res, 404, {});
    });
    expect(await discoverAgentCard(server.url, { allowLocalHttp: true })).toMatchObject({ ok: true, validation: { ok: true } });
    const away = await discoverAgentCard(`${server.origin}/away/agent-card.json`, { allowLocalHttp: true });
    expect(away).toMatchObject({ ok: false, problems: [{ code: 'net_cross_origin_redirect' }] });
    expect(other.requests).toHaveLength(0);
  });

  it('refuses a name that resolves to loopback without the development setting, before connecting', async () => {
    const server = await serveCard(validCard);
    const dns = fakeDns({ 'agent.invalid': ['127.0.0.1'] });
    const port = new URL(server.origin).port;
    const result = await discoverAgentCard(`https://agent.invalid:${port}/`, { allowLocalHttp: false, policy: { allowLocalHttp: false, lookup: dns.lookup } });
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'net_blocked_address', message: expect.stringContaining('agent.invalid') }] });
    expect(dns.calls).toEqual(['agent.invalid']);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses http:// without the development setting and an address that is not a URL', async () => {
    const server = await serveCard(validCard);
    expect(await discoverAgentCard(server.url, { allowLocalHttp: false })).toMatchObject({ ok: false, problems: [{ code: 'net_insecure_scheme' }] });
    expect(server.requests).toHaveLength(0);
    expect(await discoverAgentCard('agent.example', { allowLocalHttp: false })).toMatchObject({ ok: false, problems: [{ code: 'invalid_address' }] });
  });
});
