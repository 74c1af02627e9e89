import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../../src/shared/talkie/manifest';
import type { RunUpdate } from '../../../src/shared/talkie/conversation';
import { discoverTalkie } from '../../../src/main/talkie/discovery';
import { TalkieClient } from '../../../src/main/talkie/talkie-client';
import { json, manifestFor, startServer } from '../../support/http-server';

const dev = { allowLocalHttp: true };

async function clientFor(origin: string, token = 'tok_secret', streamIdleMs?: number) {
  const result = validateManifest(manifestFor(origin), `${origin}/.well-known/talkie.json`);
  if (!result.ok) throw new Error('bad fixture');
  return new TalkieClient(result.manifest, dev, { get: async () => token, refresh: async () => undefined }, streamIdleMs);
}

const request = { threadId: 't1', runId: 'r1', messages: [{ id: 'm1', role: 'user' as const, content: 'hi' }] };

describe('hostile Talkie servers: each gets a clear error and nothing leaks', () => {
  it('a manifest redirected to another origin is refused, and the other origin is never asked', async () => {
    const elsewhere = await startServer((_req, res) => json(res, 200, manifestFor('http://127.0.0.1:1')));
    const server = await startServer((_req, res) => {
      res.writeHead(302, { Location: `${elsewhere.origin}/.well-known/talkie.json` });
      res.end();
    });
    const result = await discoverTalkie(server.url, dev);
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'net_cross_origin_redirect' }] });
    expect(elsewhere.requests).toEqual([]);
  });

  it('a 65 kB manifest is refused before it is parsed', async () => {
    const server = await startServer((_req, res) => json(res, 200, { ...manifestFor('http://x'), padding: 'x'.repeat(65 * 1024) }));
    expect(await discoverTalkie(server.url, dev)).toMatchObject({ ok: false, problems: [{ code: 'manifest_too_large' }] });
  });

  it('a public name resolving to 127.0.0.1 is refused without the development setting', async () => {
    const server = await startServer((_req, res) => json(res, 200, manifestFor('https://agent.example.com')));
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const result = await discoverTalkie('https://agent.example.com/', { allowLocalHttp: false, lookup });
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'net_blocked_address', message: expect.stringContaining('agent.example.com') }] });
    expect(server.requests).toEqual([]);
  });

  it('an endless SSE event (no boundary) ends the run with event_too_large instead of growing memory', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: ');
      const chunk = 'x'.repeat(64 * 1024);
      const timer = setInterval(() => {
        if (!res.write(chunk)) return;
      }, 1);
      res.on('close', () => clearInterval(timer));
    });
    const outcome = await (await clientFor(server.origin)).run(request, () => undefined);
    expect(outcome).toMatchObject({ kind: 'error', code: 'event_too_large' });
  });

  it('one 5 MiB event is refused', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\n`);
      res.end(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'y'.repeat(5 * 1024 * 1024) })}\n\n`);
    });
    const updates: RunUpdate[] = [];
    const outcome = await (await clientFor(server.origin)).run(request, (update) => updates.push(update));
    expect(outcome).toMatchObject({ kind: 'error', code: 'event_too_large' });
    expect(updates.map((u) => u.type)).toEqual(['run.started']);
  });

  it('a stream that goes silent is an interrupted run (idle timeout), not a hang', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\n`);
    });
    const outcome = await (await clientFor(server.origin, 'tok', 300)).run(request, () => undefined);
    expect(outcome).toMatchObject({ kind: 'interrupted', message: expect.stringMatching(/./) });
  });

  it('ignores pings, unknown events and unknown CUSTOM names; parses \\r\\n framing', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(': ping\n\n');
      res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\r\n\r\n`);
      res.write(`data: ${JSON.stringify({ type: 'FUTURE_EVENT', x: 1 })}\n\n`);
      res.write(`data: ${JSON.stringify({ type: 'CUSTOM', name: 'vendor.x', value: 1 })}\n\n`);
      res.write(`data: ${JSON.stringify({ type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c', content: 'raw' })}\n\n`);
      res.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' })}\n\n`);
    });
    const updates: RunUpdate[] = [];
    expect(await (await clientFor(server.origin)).run(request, (update) => updates.push(update))).toEqual({ kind: 'finished' });
    expect(updates.map((u) => u.type)).toEqual(['run.started', 'run.finished']);
  });

  it('never sends the token after a redirect, even to the same origin', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/run') {
        res.writeHead(307, { Location: '/elsewhere' });
        return void res.end();
      }
      json(res, 200, {});
    });
    const outcome = await (await clientFor(server.origin)).run(request, () => undefined);
    expect(outcome.kind).toBe('not_sent');
    expect(server.requests.filter((r) => r.authorization)).toEqual([{ method: 'POST', path: '/run', authorization: 'Bearer tok_secret' }]);
    expect(server.requests.some((r) => r.path === '/elsewhere')).toBe(false);
  });

  it("shows the server's Talkie 1 §3 error message and whether to retry", async () => {
    const server = await startServer((_req, res) =>
      json(res, 429, { error: { code: 'quota_exceeded', message: 'Denní kvóta je vyčerpána.', retryable: false } }),
    );
    const outcome = await (await clientFor(server.origin)).run(request, () => undefined);
    expect(outcome).toEqual({ kind: 'not_sent', code: 'quota_exceeded', message: 'Denní kvóta je vyčerpána.', retryable: false });
  });

  it('refreshes once on 401, then asks to sign in again', async () => {
    const server = await startServer((req, res) => {
      if (req.headers.authorization === 'Bearer fresh') return json(res, 200, { threads: [] });
      json(res, 401, { error: { code: 'unauthorized', message: 'expired', retryable: false } });
    });
    const result = validateManifest(manifestFor(server.origin), `${server.origin}/.well-known/talkie.json`);
    if (!result.ok) throw new Error('fixture');
    let refreshes = 0;
    const good = new TalkieClient(result.manifest, dev, { get: async () => 'stale', refresh: async () => (refreshes++, 'fresh') });
    expect(await good.threads()).toEqual({ threads: [] });
    const bad = new TalkieClient(result.manifest, dev, { get: async () => 'stale', refresh: async () => (refreshes++, undefined) });
    await expect(bad.threads()).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
    expect(refreshes).toBe(2);
  });
});
