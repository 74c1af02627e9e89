import { afterEach, describe, expect, it } from 'vitest';
import { agentCallSteps } from '../../../src/main/cli/agentcall-conformance';
import { webrtcSteps } from '../../../src/main/cli/agentcall-webrtc-conformance';
import { conformance } from '../../../src/main/cli/conformance';
import type { Io } from '../../../src/main/cli/output';
import { startAgentCallDemoServer, webrtcAgentCard, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { startFlawedWebrtcAgent, type WebrtcFlaws } from '../../support/agentcall/flawed-webrtc-agent';
import { startServer } from '../../support/http-server';

/**
 * `agentdesk conformance` against an agentcall-webrtc-0.1 card: the reference-proof sequence over the
 * agentcall.events data channel of a real call (node-datachannel on 127.0.0.1) to the demo's WebRTC
 * agent, and the profile rules failing for agents that break them.
 */

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

const servers: AgentCallDemoServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const lineFor = (lines: string[], name: string) => lines.find((line) => line.slice(5).startsWith(`${name}:`)) ?? `(no line for ${name})`;

describe('agentdesk conformance over agentcall-webrtc-0.1', () => {
  it('runs every reference-proof step on the data channel and checks the profile, against the demo', async () => {
    const server = await startAgentCallDemoServer();
    servers.push(server);
    const io = capture();
    const code = await conformance(server.webrtcCardUrl, { dev: true, json: false, waitExpiry: false }, io);
    // Every assertion below carries the whole report, so a failure says what the run printed.
    const all = io.lines.join('\n');
    const names = io.lines.slice(0, -1).map((line) => line.slice(5, line.indexOf(':', 5)));
    expect(names, all).toEqual(
      [
        agentCallSteps[0],
        webrtcSteps.offer,
        webrtcSteps.channel,
        ...agentCallSteps.slice(1),
        webrtcSteps.oneChannel,
        webrtcSteps.wrongProtocol,
        webrtcSteps.firstMessage,
        webrtcSteps.bearer,
      ].map((name) => name.slice(0, name.indexOf(':') === -1 ? undefined : name.indexOf(':'))),
    );
    expect(
      io.lines.filter((line) => !line.startsWith('PASS')),
      all,
    ).toEqual([`SKIP ${webrtcSteps.bearer}: the card requires no bearer token`, `${agentCallSteps.length + 5} passed, 0 failed, 1 skipped`]);
    expect(lineFor(io.lines, webrtcSteps.oneChannel), all).toMatch(/^PASS .*only the app’s agentcall\.events channel/);
    expect(code, all).toBe(0);
    expect(lineFor(io.lines, 'card discovered and valid'), all).toContain('webrtc');
    expect(
      io.lines.find((line) => line.includes('agentcall.events open')),
      all,
    ).toContain('agentcall.events / agentcall-agui-dc-0.1');
    // The demo closes a channel with another subprotocol as soon as it arrives: before or after the probe's first message.
    expect(
      io.lines.find((line) => line.includes('another subprotocol')),
      all,
    ).toMatch(/closed the channel|did not open|closed before the message could be sent/);
    expect(
      io.lines.find((line) => line.includes('must be session.start')),
      all,
    ).toMatch(/failure session_not_started|closed the channel/);
    expect(lineFor(io.lines, 'photo request answered'), all).toMatch(/a 64×48 JPEG \(\d+ bytes\) answered the request/);
  }, 90_000);

  it('sends the bearer the WebRTC card asks for, and prints one JSON object with --json', async () => {
    const token = 'conformance-token-0123456789';
    const server = await startAgentCallDemoServer({ token });
    servers.push(server);
    const io = capture();
    expect(await conformance(server.webrtcCardUrl, { dev: true, json: true, waitExpiry: false, token }, io)).toBe(0);
    const report = JSON.parse(io.lines[0]!) as { ok: boolean; checks: { name: string; ok: boolean; skipped?: boolean; warning?: boolean }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.filter((check) => !check.ok || check.warning)).toEqual([]);
    // The demo refuses the offer made without the bearer its card requires.
    expect(report.checks.find((check) => check.name === webrtcSteps.bearer)).toMatchObject({ ok: true, detail: 'refused with HTTP 401' });
    expect(report.checks.some((check) => check.skipped)).toBe(false);
  }, 90_000);

  it.each([
    ['redirects the offer', 'redirected'],
    ['answers with more than 128 KiB', 'answer_too_large'],
    ['answers with text/plain', 'not_sdp'],
  ])(
    'fails the offer step for an agent that %s, and runs nothing else',
    async (_what, code) => {
      const target = await startServer((_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/sdp' });
        response.end('v=0\r\n');
      });
      const agent = await startServer((request, response) => {
        const path = (request.url ?? '').split('?')[0];
        if (path === '/.well-known/agent-card.json') {
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end(
            JSON.stringify(webrtcAgentCard(`http://${request.headers.host}`, { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] }, false)),
          );
          return;
        }
        request.resume();
        if (code === 'redirected') {
          response.writeHead(307, { Location: `${target.origin}/agui/webrtc`, 'Content-Length': 0 });
          response.end();
        } else if (code === 'answer_too_large') {
          response.writeHead(201, { 'Content-Type': 'application/sdp' });
          response.end(`v=0\r\n${'a=x-pad:0123456789abcdef\r\n'.repeat(6_000)}`);
        } else {
          response.writeHead(201, { 'Content-Type': 'text/plain' });
          response.end('v=0\r\n');
        }
      });
      const io = capture();
      expect(await conformance(`${agent.origin}/.well-known/agent-card.json`, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 5_000 }, io)).toBe(1);
      expect(io.lines.find((line) => line.includes('SDP offer answered'))).toMatch(new RegExp(`^FAIL .*${code}`));
      expect(io.lines.filter((line) => line.startsWith('SKIP'))).toHaveLength(agentCallSteps.length - 1);
      expect(target.requests).toHaveLength(0);
      expect(agent.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    },
    60_000,
  );

  // Each profile rule broken by one flaw of an otherwise conforming agent (its channel relayed to the demo's
  // WebSocket): the check that holds the rule fails, naming what the agent did.
  it.each<[string, WebrtcFlaws, string, RegExp]>([
    [
      'answers with stereo Opus',
      { answer: (sdp) => sdp.replace('useinbandfec=1', 'useinbandfec=1;stereo=1') },
      webrtcSteps.offer,
      /^FAIL .*answer_invalid: .*Opus is stereo \(stereo=1 or sprop-stereo=1\); the profile's audio is mono/,
    ],
    [
      'answers with a recvonly track',
      { answer: (sdp) => sdp.replace('a=sendrecv', 'a=recvonly') },
      webrtcSteps.offer,
      /^FAIL .*answer_invalid: .*audio track is recvonly; the profile needs sendrecv/,
    ],
    [
      'opens a data channel of its own',
      { extraChannel: { label: 'agentcall.debug', protocol: 'x-debug' } },
      webrtcSteps.oneChannel,
      /^FAIL .*the agent opened 1 data channel of its own \("agentcall\.debug" \/ "x-debug"\); the profile has exactly one/,
    ],
    [
      'answers a first message other than session.start with a session',
      { lenientStart: true },
      webrtcSteps.firstMessage,
      /^FAIL .*answered a user\.turn sent before session\.start with session\.established/,
    ],
    ['repeats a sequence number on the channel', { repeatSequence: true }, 'sequences strictly increasing', /^FAIL sequences strictly increasing: .*2/],
    [
      'takes offers without the bearer its card requires',
      { bearerIgnored: true },
      webrtcSteps.bearer,
      /^FAIL .*answered an SDP offer that carried no Authorization header, though its card requires a bearer token/,
    ],
  ])(
    'fails for an agent that %s',
    async (_what, flaws, step, line) => {
      const server = await startAgentCallDemoServer();
      servers.push(server);
      const agent = await startFlawedWebrtcAgent(server.aguiUrl.replace(/^http/, 'ws'), flaws);
      try {
        const io = capture();
        const token = flaws.bearerIgnored ? 'conformance-token-0123456789' : undefined;
        expect(await conformance(agent.cardUrl, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 5_000, ...(token ? { token } : {}) }, io)).toBe(1);
        const all = io.lines.join('\n');
        expect(lineFor(io.lines, step), all).toMatch(line);
        // Only that rule fails (a refused answer leaves the sequence unrun: skipped, not failed).
        expect(
          io.lines.filter((entry) => entry.startsWith('FAIL')),
          all,
        ).toHaveLength(1);
        if (flaws.bearerIgnored) expect(agent.authorizations, all).toContain(undefined);
      } finally {
        agent.close();
      }
    },
    90_000,
  );
});
