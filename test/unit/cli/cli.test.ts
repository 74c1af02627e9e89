import { afterEach, describe, expect, it } from 'vitest';
import { conformance } from '../../../src/main/cli/conformance';
import type { Io } from '../../../src/main/cli/output';
import { probe } from '../../../src/main/cli/probe';
import { startTalkieDemoServer, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { json, manifestFor, startServer } from '../../support/http-server';

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

const demos: TalkieDemoServer[] = [];
afterEach(async () => {
  await Promise.all(demos.splice(0).map((demo) => demo.close()));
});
async function demo() {
  // 0.2 keeps the test-mode action's expiry (600 s scaled) above Talkie 1 §11's 60 s and the slow run at ~1 s.
  // The probe reads the manifest only, so the Authorization Server it names need not run here.
  const server = await startTalkieDemoServer({ timeScale: 0.2, oauthIssuer: 'http://127.0.0.1:9/oauth' });
  demos.push(server);
  return server;
}

/** A test-mode server that answers every message with the same wrong text and accepts any decision. */
async function brokenServer() {
  return startServer((req, res) => {
    const origin = `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`;
    if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(origin));
    if (req.url === '/run') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const event of [
        { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
        { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'I do not follow test mode.' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm' },
        { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
      ])
        res.write(`data: ${JSON.stringify(event)}\n\n`);
      return void res.end();
    }
    if (req.url?.startsWith('/runs/')) return json(res, 200, { ok: false });
    json(res, 200, { thread: { id: 't' }, messages: [], actions: [] });
  });
}

describe('agentdesk probe', () => {
  it('prints one JSON object with ok, kind and problems, and exits 0 for a usable server', async () => {
    const server = await demo();
    const io = capture();
    expect(await probe(server.baseUrl, { json: true, dev: true }, io)).toBe(0);
    const report = JSON.parse(io.lines[0]!) as Record<string, unknown>;
    expect(report).toMatchObject({ ok: true, kind: 'talkie', problems: [], talkie: { serverId: 'demo.agentdesk.local', testMode: true } });
    expect(io.lines).toHaveLength(1);
  });

  it('exits 1 for a server that breaks the protocol, naming each problem with a code and a path', async () => {
    const server = await startServer((req, res) =>
      json(res, 200, manifestFor('https://someone-else.example', { spec: 'talkie/1', brand: { accent: 'teal' } })),
    );
    const io = capture();
    expect(await probe(server.url, { json: true, dev: true }, io)).toBe(1);
    expect(JSON.parse(io.lines[0]!)).toMatchObject({
      ok: false,
      kind: 'talkie',
      problems: expect.arrayContaining([{ code: 'issuer_mismatch', path: '/issuer', message: expect.any(String) }]),
    });
  });

  it('exits 2 for a usage or network problem', async () => {
    const io = capture();
    expect(await probe('http://127.0.0.1:9', { json: true, dev: false }, io)).toBe(2);
    expect(JSON.parse(io.lines[0]!)).toMatchObject({ ok: false, problems: [{ code: 'invalid_address', message: expect.stringContaining('--dev') }] });
    expect(await probe('http://127.0.0.1:9', { json: false, dev: true }, capture())).toBe(2);
  });
});

describe('agentdesk conformance', () => {
  it('passes against the built-in demo agent, one line per check', async () => {
    const server = await demo();
    const io = capture();
    const code = await conformance(server.baseUrl, { dev: true, token: server.token, json: false, waitExpiry: false }, io);
    expect(io.lines.filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(code).toBe(0);
    const passed = io.lines.filter((line) => line.startsWith('PASS'));
    // The nine chat checks of Talkie 1 §11, then §10: the demo offers voice (its own provider on loopback, --dev).
    expect(passed.filter((line) => !/^PASS (voice|client:)/.test(line))).toHaveLength(9);
    for (const check of [
      'voice session',
      'voice SDP exchange',
      'voice secret used twice',
      'voice tool',
      'voice tool callId reused → 409',
      'voice transcript',
      'voice usage',
      'client: http signalling refused without --dev',
      'client: unlisted signalling host refused',
    ]) {
      expect(
        passed.some((line) => line.startsWith(`PASS ${check}:`)),
        check,
      ).toBe(true);
    }
    expect(io.lines).toContain('SKIP action expired: waits for a real expiry (≥ 60 s); run with --wait-expiry');
  }, 60_000);

  it('fails against a broken server with a clear reason per check', async () => {
    const server = await brokenServer();
    const io = capture();
    expect(await conformance(server.url, { dev: true, token: 't', json: true, waitExpiry: false, recoveryTimeoutMs: 1000 }, io)).toBe(1);
    const report = JSON.parse(io.lines[0]!) as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
    const detail = (name: string) => report.checks.find((check) => check.name === name)?.detail;
    expect(report.ok).toBe(false);
    expect(detail('echo')).toContain('the echoed text differs');
    expect(detail('card')).toBe('no TOOL_CALL_START');
    expect(detail('action pending')).toBe('expected one talkie.action, got 0');
    expect(detail('retryable error')).toBe('the run ended finished, not with RUN_ERROR');
    expect(detail('slow run cancelled')).toBe('cancelRun did not answer {"ok": true}');
  });

  it('refuses to run against a server that is not in test mode', async () => {
    const server = await startServer((req, res) =>
      json(res, 200, manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`, { testMode: false })),
    );
    const io = capture();
    expect(await conformance(server.url, { dev: true, json: false, waitExpiry: false }, io)).toBe(1);
    expect(io.lines[0]).toMatch(/^FAIL test mode: .*testMode/);
  });
});
