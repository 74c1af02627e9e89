import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverAgentCard } from '../../../src/main/agentcall/discovery';
import { accessToken, AuthError } from '../../../src/main/auth/oauth-client';
import { createTokenStore } from '../../../src/main/auth/token-store';
import type { Io } from '../../../src/main/cli/output';
import { probe } from '../../../src/main/cli/probe';
import { defaultBodyDeadlineMs, guardedFetch, guardedRequest, type NetPolicy } from '../../../src/main/net/guarded-fetch';
import { memorySecretStore } from '../../../src/main/secrets/secret-store';
import { discoverTalkie } from '../../../src/main/talkie/discovery';
import { json, manifestFor, startServer, trickle } from '../../support/http-server';
import { netError } from './servers';

/**
 * Issue #13 item 6: a server that trickles its answer one byte every 200 ms never trips the idle timeout
 * (60 s), so only the body deadline ends the wait. The tests set it to 1 s; a 100-byte body needs 20 s.
 */
const dev: NetPolicy = { allowLocalHttp: true };
const short = { bodyMs: 1000 };
const slowBody = JSON.stringify({ padding: 'x'.repeat(90) });

describe('the body deadline of the guarded network layer', () => {
  it('ends a body read whole that trickles in, with body_deadline and what arrived', async () => {
    const server = await startServer((_req, res) => trickle(res, slowBody));
    const response = await guardedRequest({ url: server.url, maxBytes: 64 * 1024, timeouts: short }, dev);
    expect(response.status).toBe(200);
    const error = await netError(response.json());
    expect(error.code).toBe('body_deadline');
    expect(error.message).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+ sent its answer too slowly: \\d+ bytes? in 1 s\\.$`));
  });

  it('does not apply to a streamed body (SSE, downloads): only the idle timeout does', async () => {
    const body = 'abcdefghij';
    const server = await startServer((_req, res) => trickle(res, body, { everyMs: 150, contentType: 'text/event-stream' }));
    // Ten bytes 150 ms apart take at least 1.35 s, longer than this 300 ms deadline.
    const response = await guardedRequest({ url: server.url, maxBytes: 64 * 1024, timeouts: { bodyMs: 300 } }, dev);
    let received = '';
    for await (const chunk of response.stream()) received += new TextDecoder().decode(chunk);
    expect(received).toBe(body);
  });

  it('bounds trickled response headers (a download) with the first-byte timeout', async () => {
    const sockets = new Set<Socket>();
    const raw = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nX-Padding: ${'p'.repeat(200)}\r\n\r\n`);
      let sent = 0;
      const timer = setInterval(() => (sent < head.length && !socket.destroyed ? socket.write(head.subarray(sent, ++sent)) : clearInterval(timer)), 100);
      socket.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      const error = await netError(guardedRequest({ url: `http://127.0.0.1:${port}/file`, maxBytes: 1024, timeouts: { firstByteMs: 1000 } }, dev));
      expect(error.code).toBe('first_byte_timeout');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('defaults to 20 s for documents and grows with the cap for large answers', () => {
    expect(defaultBodyDeadlineMs(64 * 1024)).toBe(20_000);
    expect(defaultBodyDeadlineMs(1024 * 1024)).toBe(20_000);
    expect(defaultBodyDeadlineMs(4 * 1024 * 1024)).toBe(64_000);
  });

  it('is checked like the other timeouts', async () => {
    await expect(guardedRequest({ url: 'http://127.0.0.1:9/', maxBytes: 1, timeouts: { bodyMs: 0 } }, dev)).rejects.toThrow(/timeouts\.bodyMs/);
  });
});

describe('discovery and sign-in end on a trickled answer', () => {
  it('the Talkie manifest: net_body_deadline', async () => {
    const server = await startServer((_req, res) => trickle(res, JSON.stringify(manifestFor('http://127.0.0.1:1'))));
    const result = await discoverTalkie(server.url, dev, { timeouts: short });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      expect.objectContaining({ code: 'net_body_deadline', message: expect.stringContaining('sent its answer too slowly') }),
    ]);
  });

  it('the A2A / AgentCall card: net_body_deadline', async () => {
    const server = await startServer((_req, res) => trickle(res, JSON.stringify({ name: 'Slow', url: 'http://127.0.0.1:1/', version: '1' })));
    const result = await discoverAgentCard(server.url, { allowLocalHttp: true, timeouts: short });
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'net_body_deadline', message: expect.stringContaining('sent its answer too slowly') }] });
  });

  it('the OAuth token endpoint: the refresh fails with the reason, the sign-in is kept', async () => {
    const server = await startServer((req, res, self) => {
      if (req.url === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer: self.origin,
          authorization_endpoint: `${self.origin}/authorize`,
          token_endpoint: `${self.origin}/token`,
          code_challenge_methods_supported: ['S256'],
        });
      }
      req.resume();
      trickle(res, JSON.stringify({ access_token: 'new-access', token_type: 'bearer', expires_in: 3600 }));
    });
    const tokens = createTokenStore(memorySecretStore());
    await tokens.save('slow', {
      accessToken: 'old-access',
      refreshToken: 'refresh-1',
      issuer: server.origin,
      clientId: 'https://client.example/client.json',
      expiresAt: 1,
    });
    const deps = { fetch: guardedFetch(dev, { timeouts: short }), tokens, allowLocalHttp: true };
    const error = await accessToken('slow', deps, { forceRefresh: true }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: 'token_request_failed', message: expect.stringContaining('sent its answer too slowly') });
    expect(server.requests.map((request) => request.path)).toContain('/token');
    expect((await tokens.load('slow'))?.refreshToken).toBe('refresh-1');
  });
});

describe('agentdesk probe on a trickling server', () => {
  const lines: string[] = [];
  const io: Io = { out: (line) => void lines.push(line), err: (line) => void lines.push(line) };
  afterEach(() => void lines.splice(0));

  it('ends with exit 2 and says the server answered too slowly', async () => {
    const server = await startServer((_req, res) => trickle(res, slowBody));
    expect(await probe(server.url, { json: false, dev: true, timeouts: short }, io)).toBe(2);
    expect(lines.join('\n')).toMatch(/net_body_deadline: 127\.0\.0\.1:\d+ sent its answer too slowly: \d+ bytes? in 1 s\./);
  });
});
