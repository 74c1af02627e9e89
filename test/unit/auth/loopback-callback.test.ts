import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ignoredCallbackText, startLoopbackReceiver } from '../../../src/main/auth/loopback-callback';

function send(url: string, options: { method?: string; host?: string } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? target.host },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the loopback callback receiver (RFC 8252 §7.3)', () => {
  it('listens on 127.0.0.1 at a random port and takes exactly one GET of its path', async () => {
    const received: URLSearchParams[] = [];
    const receiver = await startLoopbackReceiver({ path: '/oauth/callback', onCallback: (params) => received.push(params) > 0 });
    try {
      expect(receiver.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
      const base = receiver.redirectUri.replace('/oauth/callback', '');

      // None of these count as the callback.
      expect((await send(`${base}/favicon.ico`)).status).toBe(404);
      expect((await send(`${base}/oauth/callback/x?code=1`)).status).toBe(404);
      expect((await send(`${receiver.redirectUri}?code=1`, { method: 'POST' })).status).toBe(405);
      expect((await send(`${receiver.redirectUri}?code=1`, { host: 'evil.example:80' })).status).toBe(400); // DNS rebinding
      expect((await send(`${receiver.redirectUri}?code=1`, { host: `localhost:${new URL(base).port}` })).status).toBe(400);
      expect(received).toHaveLength(0);

      const answer = await send(`${receiver.redirectUri}?code=abc&state=xyz`);
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('You can close this window and return to AgentDesk.');
      expect(answer.body).not.toMatch(/<script|<img|<link|https?:\/\//i);
      expect(answer.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(received.map((params) => Object.fromEntries(params))).toEqual([{ code: 'abc', state: 'xyz' }]);

      // Then it is closed: a second callback reaches nothing.
      await expect(send(`${receiver.redirectUri}?code=again&state=xyz`)).rejects.toThrow(/ECONNREFUSED/);
      expect(received).toHaveLength(1);
    } finally {
      receiver.close();
    }
  });

  it('answers and ignores a callback that is not the awaited one, and keeps listening for the right one', async () => {
    const seen: string[] = [];
    const receiver = await startLoopbackReceiver({
      path: '/oauth/callback',
      onCallback: (params) => {
        seen.push(params.get('state') ?? '');
        return params.get('state') === 'the-right-state';
      },
    });
    try {
      // Another local user saw the port open and answers first, once, twice.
      for (const state of ['guessed', 'guessed-again']) {
        const ignored = await send(`${receiver.redirectUri}?code=theirs&state=${state}`);
        expect(ignored.status).toBe(400);
        expect(ignored.body).toBe(ignoredCallbackText);
        expect(ignored.body).not.toContain('return to AgentDesk');
      }
      const answer = await send(`${receiver.redirectUri}?code=ours&state=the-right-state`);
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('You can close this window and return to AgentDesk.');
      expect(seen).toEqual(['guessed', 'guessed-again', 'the-right-state']);
      await expect(send(`${receiver.redirectUri}?code=late&state=the-right-state`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      receiver.close();
    }
  });

  it('close() stops listening before any callback, and can be called twice', async () => {
    const receiver = await startLoopbackReceiver({ path: '/oauth/callback', onCallback: () => true });
    receiver.close();
    receiver.close();
    await expect(send(receiver.redirectUri)).rejects.toThrow(/ECONNREFUSED/);
  });
});
