import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AgentCallCard } from '../../../src/shared/agentcall/card';
import { webrtcDescriptor } from '../../../src/shared/agentcall/webrtc-profile';
import { postAgentCallOffer, SignallingError, type AgentCallOffer } from '../../../src/main/agentcall/webrtc-signalling';
import { startServer, type TestServer } from '../../support/http-server';

/**
 * The agentcall-webrtc-0.1 SDP POST against real HTTP servers on 127.0.0.1: each rule of the profile
 * (headers, bearer only when required, no redirect, answer ≤ 128 KiB, application/sdp, the profile in
 * the answer) and the network checks it shares with the WebSocket transport.
 */

const offer =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=sendrecv\r\na=rtpmap:111 opus/48000/2\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n';
const answerSdp = offer.replace('o=- 1 1', 'o=- 2 2');
const token = 'tok_0123456789abcdef';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function agent(reply: (response: ServerResponse, seen: Seen) => void): Promise<{ server: TestServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await startServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      reply(response, entry);
    });
  });
  return { server, seen };
}

const sdpReply =
  (body = answerSdp, type = 'application/sdp') =>
  (response: ServerResponse) => {
    response.writeHead(201, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    response.end(body);
  };

function cardFor(url: string, bearerRequired = false): AgentCallCard {
  return {
    name: 'Voice agent',
    description: '',
    version: '1',
    extensionUri: 'canonical',
    aguiUrl: url,
    voiceOwner: 'agent',
    accepted: [],
    agentRequests: [],
    bearerRequired,
    skills: [],
    uiLinksDeclared: false,
    transport: 'webrtc',
    webrtc: { ...webrtcDescriptor, supportsExplicitTurns: false },
  };
}

const dev = { allowLocalHttp: true };

async function refusal(request: AgentCallOffer): Promise<SignallingError> {
  const error = await postAgentCallOffer(request).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof SignallingError)) throw new Error(`expected a SignallingError, got ${String(error)}`);
  return error;
}

describe('the agentcall-webrtc-0.1 SDP POST', () => {
  it('POSTs the offer as application/sdp with AgentCall-Session-ID and Accept, and returns the answer', async () => {
    const { server, seen } = await agent(sdpReply());
    const answer = await postAgentCallOffer({ card: cardFor(`${server.origin}/agui`), sessionId: 'proof-1', offer, policy: dev });
    expect(answer).toBe(answerSdp);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/agui');
    expect(request!.headers['content-type']).toBe('application/sdp');
    expect(request!.headers.accept).toBe('application/sdp');
    expect(request!.headers['agentcall-session-id']).toBe('proof-1');
    expect(request!.body).toBe(offer);
    expect(request!.headers.authorization).toBeUndefined();
  });

  it('sends the bearer in the Authorization header only when the card requires one, never in the URL', async () => {
    const { server, seen } = await agent(sdpReply());
    await postAgentCallOffer({ card: cardFor(`${server.origin}/agui`, false), sessionId: 's-1', offer, policy: dev, bearerToken: token });
    await postAgentCallOffer({ card: cardFor(`${server.origin}/agui`, true), sessionId: 's-2', offer, policy: dev, bearerToken: token });
    expect(seen.map((request) => request.headers.authorization)).toEqual([undefined, `Bearer ${token}`]);
    expect(seen.every((request) => !request.path.includes(token))).toBe(true);
  });

  it('refuses to call a card that requires a bearer when there is none, before any request', async () => {
    const { server, seen } = await agent(sdpReply());
    const error = await refusal({ card: cardFor(`${server.origin}/agui`, true), sessionId: 's-1', offer, policy: dev });
    expect(error.code).toBe('sign_in_required');
    expect(seen).toHaveLength(0);
  });

  it('maps 401 and 403 to sign-in and not allowed, and a 5xx to a retryable server error', async () => {
    for (const [status, code, retryable] of [
      [401, 'sign_in_required', false],
      [403, 'not_allowed', false],
      [503, 'server_error', true],
    ] as const) {
      const { server } = await agent((response) => {
        response.writeHead(status, { 'Content-Type': 'application/json' });
        response.end('{}');
      });
      const error = await refusal({ card: cardFor(`${server.origin}/agui`, true), sessionId: 's-1', offer, policy: dev, bearerToken: token });
      expect([error.code, error.retryable]).toEqual([code, retryable]);
      expect(error.message).not.toContain(token);
    }
  });

  it('follows no redirect, same-origin or cross-origin: the target never sees the offer or the bearer', async () => {
    const elsewhere = await agent(sdpReply());
    for (const status of [301, 302, 307, 308]) {
      for (const location of ['/agui/moved', `${elsewhere.server.origin}/agui`]) {
        const { server, seen } = await agent((response, request) => {
          if (request.path === '/agui/moved') return sdpReply()(response);
          response.writeHead(status, { Location: location, 'Content-Length': 0 });
          response.end();
        });
        const error = await refusal({ card: cardFor(`${server.origin}/agui`, true), sessionId: 's-1', offer, policy: dev, bearerToken: token });
        expect(error.code).toBe('redirected');
        expect(seen.map((request) => request.path)).toEqual(['/agui']);
      }
    }
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('accepts an answer of exactly 128 KiB and refuses one byte more, while reading it', async () => {
    const pad = (bytes: number) => {
      const head = `${answerSdp}a=x-pad:`;
      return `${head}${'x'.repeat(bytes - Buffer.byteLength(head) - 2)}\r\n`;
    };
    const exact = pad(128 * 1024);
    expect(Buffer.byteLength(exact)).toBe(128 * 1024);
    const fits = await agent(sdpReply(exact));
    expect(await postAgentCallOffer({ card: cardFor(`${fits.server.origin}/agui`), sessionId: 's-1', offer, policy: dev })).toBe(exact);
    const over = await agent(sdpReply(pad(128 * 1024 + 1)));
    expect((await refusal({ card: cardFor(`${over.server.origin}/agui`), sessionId: 's-1', offer, policy: dev })).code).toBe('answer_too_large');
    // Without a Content-Length the count happens while streaming.
    const streamed = await agent((response) => {
      response.writeHead(200, { 'Content-Type': 'application/sdp' });
      response.write(answerSdp);
      for (let i = 0; i < 9; i += 1) response.write(`a=x-pad:${'y'.repeat(16 * 1024)}\r\n`);
      response.end();
    });
    expect((await refusal({ card: cardFor(`${streamed.server.origin}/agui`), sessionId: 's-1', offer, policy: dev })).code).toBe('answer_too_large');
  });

  it('refuses an answer that is not application/sdp, not SDP, or not the profile', async () => {
    const html = await agent(sdpReply(answerSdp, 'text/html'));
    expect((await refusal({ card: cardFor(`${html.server.origin}/agui`), sessionId: 's-1', offer, policy: dev })).code).toBe('not_sdp');
    const junk = await agent(sdpReply('hello'));
    expect((await refusal({ card: cardFor(`${junk.server.origin}/agui`), sessionId: 's-1', offer, policy: dev })).code).toBe('not_sdp');
    const noChannel = await agent(sdpReply(answerSdp.split('m=application')[0]));
    const error = await refusal({ card: cardFor(`${noChannel.server.origin}/agui`), sessionId: 's-1', offer, policy: dev });
    expect(error.code).toBe('answer_invalid');
    expect(error.message).toContain('data channel');
  });

  it('applies the network policy of the WebSocket transport before connecting: http and loopback need the development setting', async () => {
    const { server, seen } = await agent(sdpReply());
    const insecure = await refusal({ card: cardFor(`${server.origin}/agui`), sessionId: 's-1', offer, policy: { allowLocalHttp: false } });
    expect(insecure.code).toBe('insecure_scheme');
    const port = new URL(server.origin).port;
    const loopback = await refusal({ card: cardFor(`https://127.0.0.1:${port}/agui`), sessionId: 's-1', offer, policy: { allowLocalHttp: false } });
    expect(loopback.code).toBe('network');
    expect(loopback.message).toMatch(/127\.0\.0\.1/);
    const metadata = await refusal({
      card: cardFor('https://agent.example/agui'),
      sessionId: 's-1',
      offer,
      policy: { allowLocalHttp: true, lookup: async () => [{ address: '169.254.169.254', family: 4 }] },
    });
    expect(metadata.code).toBe('network');
    expect(seen).toHaveLength(0);
  });

  it('gives up on an agent that never answers, within the first-byte timeout', async () => {
    const { server, seen } = await agent(() => undefined);
    const error = await refusal({ card: cardFor(`${server.origin}/agui`), sessionId: 's-1', offer, policy: dev, timeouts: { firstByteMs: 200 } });
    expect([error.code, error.retryable]).toEqual(['network', true]);
    expect(seen).toHaveLength(1);
  });

  it('refuses a WebSocket card and an offer that is not SDP, before any request', async () => {
    const { server, seen } = await agent(sdpReply());
    const ws = {
      ...cardFor(`${server.origin}/agui`),
      transport: 'websocket',
      wsUrl: `ws://127.0.0.1:${new URL(server.origin).port}/agui`,
    } as unknown as AgentCallCard;
    expect((await refusal({ card: ws, sessionId: 's-1', offer, policy: dev })).code).toBe('not_webrtc');
    expect((await refusal({ card: cardFor(`${server.origin}/agui`), sessionId: 's-1', offer: 'hello', policy: dev })).code).toBe('offer_invalid');
    expect(seen).toHaveLength(0);
  });
});
