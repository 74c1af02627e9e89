import sharp from 'sharp';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, logoPng } from '../../../src/main/demo/png';
import { canonicalJson, paramsHash, threadTitle } from '../../../src/main/demo/demo-store';
import { speechInstallCommand, type SpeechEngines } from '../../../src/main/speech/speech-engines';
import { api, runInput, stream, useDemoServers } from './demo-helpers';

const start = useDemoServers();

describe('demo server: discovery', () => {
  it('serves the manifest on 127.0.0.1 with the issuer, endpoints with voice (Talkie 1 §10), capabilities and cache header', async () => {
    const server = await start();
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.manifestUrl).toBe(`${server.baseUrl}/.well-known/talkie.json`);
    const response = await fetch(server.manifestUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('max-age=3600');
    const manifest = (await response.json()) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      spec: 'talkie/1',
      issuer: server.baseUrl,
      serverId: 'demo.agentdesk.local',
      name: 'AgentDesk demo',
      locale: 'en',
      brand: { logo: '/talkie/logo.png', accent: '#0b7a75' },
      auth: { token: { hint: 'Printed by `agentdesk demo`' } },
      capabilities: {
        voice: { transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts: ['127.0.0.1'] },
        actions: { voiceConfirm: true },
        cards: { blocks: ['heading', 'text', 'fields', 'list', 'link', 'file', 'badge'] },
      },
      limits: { maxMessageChars: 4000 },
      testMode: true,
    });
    expect(typeof manifest.description).toBe('string');
    // No Authorization Server was given, so the manifest names none (start-demo.ts gives one).
    expect(manifest.auth).not.toHaveProperty('oauth');
    expect(manifest.endpoints).toEqual({
      status: '/api/talkie/status',
      run: '/api/talkie/run',
      cancelRun: '/api/talkie/runs/{runId}/cancel',
      threads: '/api/talkie/threads',
      thread: '/api/talkie/threads/{threadId}',
      action: '/api/talkie/actions/{actionId}',
      decision: '/api/talkie/actions/{actionId}/decision',
      voiceSessions: '/api/talkie/voice/sessions',
      voiceTool: '/api/talkie/voice/sessions/{voiceSessionId}/tools/{name}',
      voiceTranscript: '/api/talkie/voice/sessions/{voiceSessionId}/transcript',
      voiceUsage: '/api/talkie/voice/sessions/{voiceSessionId}/usage',
    });
  });

  it('reports testMode false when asked, and then answers talkie-test messages like any other text', async () => {
    const server = await start({ testMode: false });
    const manifest = (await (await fetch(server.manifestUrl)).json()) as { testMode: boolean };
    expect(manifest.testMode).toBe(false);
    const run = await stream(server, runInput('talkie-test:error'));
    expect(run.events.at(-1)?.type).toBe('RUN_FINISHED');
  });

  it('names the Authorization Server it is given in auth.oauth', async () => {
    const server = await start({ oauthIssuer: 'http://127.0.0.1:1234' });
    const manifest = (await (await fetch(server.manifestUrl)).json()) as { auth: unknown };
    expect(manifest.auth).toEqual({
      oauth: { issuer: 'http://127.0.0.1:1234', scopes: ['talkie', 'offline_access'] },
      token: { hint: 'Printed by `agentdesk demo`' },
    });
  });

  it('serves a valid 64×64 PNG logo without a token, or the bytes it was given', async () => {
    const server = await start();
    const response = await fetch(`${server.baseUrl}/talkie/logo.png`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 64, height: 64 });
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([0x0b, 0x7a, 0x75]); // the teal corner
    const centre = (32 * info.width + 32) * info.channels;
    expect([data[centre], data[centre + 1], data[centre + 2]]).toEqual([255, 255, 255]);

    const custom = await start({ logo: new Uint8Array([1, 2, 3]) });
    expect(Buffer.from(await (await fetch(`${custom.baseUrl}/talkie/logo.png`)).arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
  });

  it('assembles PNG chunks with correct CRCs and image data', () => {
    expect(crc32(Buffer.from('IEND'))).toBe(0xae426082);
    const png = logoPng(4);
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString('ascii')).toBe('IDAT');
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toHaveLength(4 * (1 + 4 * 3));
  });
});

describe('demo server: auth and errors', () => {
  it('answers 401 with the Talkie 1 §3 body without a token or with a wrong one', async () => {
    const server = await start();
    for (const token of [null, 'wrong-token']) {
      const response = await api(server, 'GET', '/api/talkie/status', { token });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String), retryable: false } });
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const run = await stream(server, runInput('hello'), { token: 'wrong-token' });
    expect(run.status).toBe(401);
    expect(run.error).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await api(server, 'GET', '/api/talkie/threads', { token: null })).status).toBe(401);
    expect((await api(server, 'GET', '/api/files/demo.txt', { token: null })).status).toBe(401);
  });

  it('accepts every configured token and, through verifyToken, users who each see only their own threads', async () => {
    const server = await start({
      tokens: ['first', 'second'],
      verifyToken: async (token) => (token === 'oauth-token' ? { id: 'u1', name: 'Jana', email: 'jana@example.com' } : undefined),
    });
    expect(server.token).toBe('first');
    expect((await api(server, 'GET', '/api/talkie/status', { token: 'second' })).status).toBe(200);
    const status = await api(server, 'GET', '/api/talkie/status', { token: 'oauth-token' });
    expect(status.json.user).toEqual({ id: 'u1', name: 'Jana', email: 'jana@example.com' });
    expect((await api(server, 'GET', '/api/talkie/status', { token: 'nope' })).status).toBe(401);

    await stream(server, runInput('hello', { threadId: 't_jana' }), { token: 'oauth-token' });
    expect(((await api(server, 'GET', '/api/talkie/threads', { token: 'oauth-token' })).json.threads as unknown[]).length).toBe(1);
    expect((await api(server, 'GET', '/api/talkie/threads')).json.threads).toEqual([]);
    expect((await api(server, 'GET', '/api/talkie/threads/t_jana')).status).toBe(404);
  });

  it('answers 500 internal (retryable) when verifyToken throws, and logs it without the token', async () => {
    const lines: string[] = [];
    const log = { info: () => undefined, warn: () => undefined, error: (area: string, message: string) => void lines.push(`${area} ${message}`) };
    const server = await start({
      log,
      verifyToken: async () => {
        throw new Error('authorization server down');
      },
    });
    const response = await api(server, 'GET', '/api/talkie/status', { token: 'secret-oauth-token' });
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: { code: 'internal', message: expect.any(String), retryable: true } });
    expect(lines.length).toBe(1);
    expect(lines.join('\n')).not.toContain('secret-oauth-token');
    expect((await api(server, 'GET', '/api/talkie/status')).status).toBe(200);
  });

  it('generates a random token by default', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    expect(a.token.length).toBeGreaterThanOrEqual(20);
    expect(a.token).not.toBe(b.token);
  });

  it('answers unknown paths with 404 and wrong methods with 405, both in the Talkie 1 §3 format', async () => {
    const server = await start();
    const missing = await api(server, 'GET', '/api/talkie/nothing');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { code: 'not_found', retryable: false } });
    const wrong = await api(server, 'GET', '/api/talkie/run');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(wrong.json).toMatchObject({ error: { code: 'invalid_request' } });
    expect((await api(server, 'POST', '/.well-known/talkie.json')).status).toBe(405);
    expect((await api(server, 'PUT', '/api/talkie/threads/x')).headers.get('allow')).toBe('GET, DELETE');
  });

  it('reports status with the demo user, voice while its speech engines run, and the runs and voice minutes of today', async () => {
    const speech: SpeechEngines = { available: true, missing: [], installCommand: speechInstallCommand, found: {} };
    const server = await start({ voice: { speechEngines: () => speech } });
    const before = await api(server, 'GET', '/api/talkie/status');
    expect(before.status).toBe(200);
    expect(before.json).toEqual({
      user: { id: 'demo', name: 'Demo user', email: 'demo@agentdesk.invalid' },
      chat: true,
      voice: true,
      usage: [
        { label: 'Messages today', used: 0, limit: 200, unit: 'messages' },
        { label: 'Voice today', used: 0, limit: 30, unit: 'minutes' },
      ],
    });
    await stream(server, runInput('hello'));
    await stream(server, runInput('talkie-test:error'));
    const after = await api(server, 'GET', '/api/talkie/status');
    expect((after.json.usage as { used: number }[])[0]?.used).toBe(2);
  });

  it('serves the demo file only with the bearer token', async () => {
    const server = await start();
    const response = await fetch(`${server.baseUrl}/api/files/demo.txt`, { headers: { Authorization: `Bearer ${server.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toContain('AgentDesk demo');
    const refused = await fetch(`${server.baseUrl}/api/files/demo.txt`);
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('AgentDesk demo');
  });

  it('close() ends open streams with a terminal event and stops listening', async () => {
    const server = await start({ timeScale: 1 });
    const run = stream(server, runInput('talkie-test:slow'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.close();
    const result = await run;
    expect(result.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'upstream_unavailable', metadata: { retryable: true } });
    await expect(fetch(server.manifestUrl)).rejects.toThrow();
  });
});

describe('demo store helpers', () => {
  it('hashes params canonically: key order does not matter, values do', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,{"x":1,"y":2}]},"b":1}');
    expect(paramsHash({ a: 1, b: 2 })).toBe(paramsHash({ b: 2, a: 1 }));
    expect(paramsHash({ a: 1, b: 2 })).not.toBe(paramsHash({ a: 1, b: 3 }));
    expect(paramsHash({})).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('titles threads with the first message on one line, at most 60 characters', () => {
    expect(threadTitle('  Hello\n  there ')).toBe('Hello there');
    const long = threadTitle('x'.repeat(100));
    expect([...long]).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
  });
});
