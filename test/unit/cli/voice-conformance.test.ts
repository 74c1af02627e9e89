import type { ServerResponse } from 'node:http';
import * as ndc from 'node-datachannel';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { conformance } from '../../../src/main/cli/conformance';
import type { Io } from '../../../src/main/cli/output';
import { voiceCheckNames } from '../../../src/main/cli/voice-conformance';
import { json, manifestFor, startServer } from '../../support/http-server';
import { ndcAnswerer, startVoiceFixture, voiceSecret, type NdcAnswerer, type VoiceFixtureOptions } from '../../support/talkie-voice-fixture';

/**
 * `agentdesk conformance` on Talkie 1 §10 voice, against the loopback voice fixture with a real
 * node-datachannel answerer as the speech provider. The Talkie 1 §11 chat checks are left out (chatChecks:
 * false): this fixture speaks only Talkie 1 §10; cli.test.ts runs them against the demo agent.
 */
const answerers: NdcAnswerer[] = [];
afterEach(() => {
  for (const answerer of answerers.splice(0)) answerer.close();
});
afterAll(() => ndc.cleanup());

async function voiceServer(options: Pick<VoiceFixtureOptions, 'signalingHosts'> = {}) {
  const answerer = ndcAnswerer();
  answerers.push(answerer);
  return startVoiceFixture({ ...options, start: startServer, answer: (offer) => answerer.answer(offer) });
}

async function run(url: string, options: { json?: boolean; voice?: boolean } = {}) {
  const lines: string[] = [];
  const io: Io = { out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
  const code = await conformance(
    url,
    {
      dev: true,
      token: 'dev_token',
      json: options.json ?? false,
      waitExpiry: false,
      chatChecks: false,
      ...(options.voice === undefined ? {} : { voice: options.voice }),
    },
    io,
  );
  return { code, lines };
}

const line = (lines: string[], name: string) => lines.find((text) => text.slice(5).startsWith(`${name}: `));

describe('agentdesk conformance: Talkie 1 §10 voice', { timeout: 60_000 }, () => {
  it('passes every voice check against a server that offers voice, and the secret goes to the signalling host alone', async () => {
    const f = await voiceServer();
    const { code, lines } = await run(f.talkie.url);
    expect(lines.filter((text) => !text.startsWith('PASS'))).toEqual(['10 passed, 0 failed']);
    expect(lines.slice(1, -1).map((text, at) => text.startsWith(`PASS ${voiceCheckNames[at]!}: `))).toEqual(voiceCheckNames.map(() => true));
    expect(code).toBe(0);
    expect(line(lines, 'voice SDP exchange')).toContain('the first event was session.created');
    expect(line(lines, 'voice secret used twice')).toBe('PASS voice secret used twice: a second SDP POST with the same secret was refused (401)');
    expect(line(lines, 'voice tool')).toContain('search_records with a fresh callId');
    expect(line(lines, 'client: http signalling refused without --dev')).toContain('signaling_not_https');
    expect(line(lines, 'client: unlisted signalling host refused')).toContain('signaling_host_not_listed');

    // The offer is the app's: Opus 48 kHz sendrecv with in-band FEC and no stereo, and the oai-events channel.
    expect(f.signalingSeen.map((request) => `${request.method} ${request.path} ${request.headers['content-type']}`)).toEqual([
      'POST /v1/realtime/calls application/sdp',
      'POST /v1/realtime/calls application/sdp',
    ]);
    const offer = f.signalingSeen[0]!.body;
    expect(offer).toMatch(/^a=rtpmap:111 opus\/48000/m);
    expect(offer).toContain('a=fmtp:111 minptime=10;useinbandfec=1');
    expect(offer).toContain('a=sendrecv');
    expect(offer).toContain('m=application');
    expect(offer).not.toContain('stereo=1');
    expect(offer).not.toContain('a=candidate:'); // the provider learns the address from the checks (voice-peer.ts)

    // The secret: in no printed line, only as the bearer of the two SDP POSTs, nowhere on the Talkie server.
    expect(lines.join('\n')).not.toContain(voiceSecret);
    for (const request of f.signalingSeen) {
      expect(request.headers.authorization).toBe(`Bearer ${voiceSecret}`);
      expect(JSON.stringify({ ...request, headers: { ...request.headers, authorization: undefined } })).not.toContain(voiceSecret);
    }
    expect(JSON.stringify(f.talkieSeen)).not.toContain(voiceSecret);
    expect(f.talkieSeen.filter((request) => request.path.startsWith('/voice/')).map((request) => `${request.path} ${request.body}`)).toEqual([
      '/voice/sessions {}',
      `/voice/v_1/tools/search_records ${JSON.stringify({ callId: f.toolCalls[0], arguments: '{}' })}`,
      `/voice/v_1/tools/search_records ${JSON.stringify({ callId: f.toolCalls[0], arguments: '{}' })}`,
      expect.stringMatching(/^\/voice\/v_1\/transcript \{"role":"user","text":"Talkie conformance [0-9a-f]{8}","itemId":"item_conformance_[-0-9a-f]{36}"\}$/),
      '/voice/v_1/usage {"seconds":1,"final":false}',
      '/voice/v_1/usage {"seconds":1,"final":true}',
    ]);
    expect(f.toolCalls).toEqual([expect.stringMatching(/^call_conformance_[-0-9a-f]{36}$/)]);
  });

  it('fails a server that takes the same callId twice', async () => {
    const f = await voiceServer();
    f.rules.toolConflicts = false;
    const { code, lines } = await run(f.talkie.url);
    expect(lines.filter((text) => text.startsWith('FAIL'))).toEqual([
      'FAIL voice tool callId reused → 409: the same callId again answered with success, not 409 (§10.2: the server rejects a reused callId)',
    ]);
    expect(lines.at(-1)).toBe('9 passed, 1 failed');
    expect(code).toBe(1);
  });

  it('fails a signalling host that answers the SDP POST with a redirect, and the redirect target sees nothing', async () => {
    const f = await voiceServer();
    const target = await startServer((_request, response) => json(response, 201, {}));
    f.sdp.respond = (response: ServerResponse) => void (response.writeHead(307, { Location: `${target.origin}/steal` }), response.end());
    const { code, lines } = await run(f.talkie.url);
    expect(line(lines, 'voice SDP exchange')).toMatch(/^FAIL voice SDP exchange: .*redirect/);
    expect(line(lines, 'voice secret used twice')).toBe(
      'SKIP voice secret used twice: the first SDP exchange did not complete, so a second one would prove nothing',
    );
    expect(lines.filter((text) => text.startsWith('FAIL'))).toHaveLength(1);
    expect(code).toBe(1);
    expect(target.requests).toEqual([]);
    expect(f.signalingSeen).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(voiceSecret);
  });

  it('fails a session whose signalling host the manifest does not list, and sends the secret nowhere (--json)', async () => {
    const f = await voiceServer({ signalingHosts: () => ['api.openai.com'] });
    const { code, lines } = await run(f.talkie.url, { json: true });
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!) as { ok: boolean; checks: { name: string; ok: boolean; skipped?: boolean; detail: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.map((check) => check.name)).toEqual(['test mode', ...voiceCheckNames]);
    expect(report.checks[1]).toEqual({
      name: 'voice session',
      ok: false,
      detail: expect.stringContaining('AgentDesk refuses this voice session: signaling_host_not_listed at /signaling/url'),
    });
    expect(report.checks.slice(2).every((check) => check.skipped && check.detail === 'no voice session AgentDesk would use (see "voice session")')).toBe(true);
    expect(code).toBe(1);
    expect(f.signalingSeen).toEqual([]);
    expect(lines[0]).not.toContain(voiceSecret);
  });

  it('warns (and passes) when the signalling host takes the secret a second time; skips the tool checks without labels', async () => {
    const f = await voiceServer();
    f.rules.singleUseSecret = false;
    delete f.session.labels;
    const { code, lines } = await run(f.talkie.url);
    expect(line(lines, 'voice secret used twice')).toMatch(
      /^WARN voice secret used twice: 127\.0\.0\.1:\d+ accepted a second SDP POST with the same client secret .* short-lived, not single-use/,
    );
    expect(line(lines, 'voice tool')).toBe('SKIP voice tool: no tool to exercise: the voice session lists no tool labels');
    expect(line(lines, 'voice tool callId reused → 409')).toBe(
      'SKIP voice tool callId reused → 409: no tool to exercise: the voice session lists no tool labels',
    );
    expect(lines.at(-1)).toBe('7 passed, 0 failed, 2 skipped, 1 warning');
    expect(code).toBe(0);
    expect(f.signalingSeen).toHaveLength(2);
  });

  it('skips voice with the reason on a server without it, and with --no-voice', async () => {
    const plain = await startServer((request, response) => json(response, 200, manifestFor(`http://127.0.0.1:${(request.socket.localPort ?? 0).toString()}`)));
    expect(await run(plain.url)).toEqual({
      code: 0,
      lines: [
        'PASS test mode: Hostile test server (hostile.test) is in test mode',
        'SKIP voice: This server does not offer voice. Nothing to check.',
        '1 passed, 0 failed, 1 skipped',
      ],
    });

    const f = await voiceServer();
    expect((await run(f.talkie.url, { voice: false })).lines).toEqual([
      'PASS test mode: Hostile test server (hostile.test) is in test mode',
      'SKIP voice: --no-voice',
      '1 passed, 0 failed, 1 skipped',
    ]);
    expect(f.talkieSeen.filter((request) => request.path.startsWith('/voice/'))).toEqual([]);
    expect(f.signalingSeen).toEqual([]);
  });

  it('fails a manifest that declares voice without the voice endpoints', async () => {
    const voice = { transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts: ['api.openai.com'] };
    const server = await startServer((request, response) =>
      json(response, 200, manifestFor(`http://127.0.0.1:${(request.socket.localPort ?? 0).toString()}`, { capabilities: { voice } })),
    );
    const { code, lines } = await run(server.url);
    expect(lines.slice(1)).toEqual([
      'FAIL voice: This server offers voice but has no voiceSessions, voiceTool, voiceTranscript, voiceUsage endpoint.',
      '1 passed, 1 failed',
    ]);
    expect(code).toBe(1);
  });
});
