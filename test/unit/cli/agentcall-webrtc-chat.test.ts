import { describe, expect, it, vi } from 'vitest';
import { chat } from '../../../src/main/cli/chat';
import { webrtcAgentCard, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { captureIo as capture, chatInput as input, demoPhotoExchange, objectPhoto, quietChat, useChatDemo } from '../../support/agentcall/chat-demo';
import { startServer } from '../../support/http-server';
import { useTempDirs } from '../../support/temp-dir';

/**
 * `agentdesk chat` with an agentcall-webrtc-0.1 card: a real call from a node-datachannel peer in the
 * test process to the demo's WebRTC agent on 127.0.0.1 (Opus track offered, no audio sent), the text
 * session on its agentcall.events channel; and a call that cannot be made, explained.
 */

const { demo } = useChatDemo();
const tempDir = useTempDirs();
const sent = (server: AgentCallDemoServer) =>
  server.webrtc.received.map((text) => JSON.parse(text) as Record<string, unknown>).filter((message) => message.type !== 'ack');

describe('agentdesk chat with an AgentCall WebRTC card', () => {
  it('chats with the demo on the call’s data channel: text, an agent-requested photo from a file, session.end on /quit', async () => {
    const server = await demo();
    const file = await objectPhoto(await tempDir());
    const io = capture();
    const code = await chat(
      server.webrtcCardUrl,
      { dev: true },
      io,
      input('hello', 'take a photo', `/photo ${file}`, '/scan', '/quit', 'never read'),
      quietChat,
    );
    const all = io.lines.join('\n');
    expect(code, all).toBe(0);
    const port = new URL(server.baseUrl).port;
    expect(io.lines, all).toEqual([
      `Connected to AgentDesk demo agent (voice) (AgentCall call over WebRTC, 127.0.0.1:${port}); this session can send photo. Type a message; /help lists commands; /quit leaves.`,
      '(Voice needs the AgentDesk app: here the call carries text on its agentcall.events channel; no microphone is sent and the agent’s speech is not played.)',
      '(NFC is turned off for this chat.)',
      ...demoPhotoExchange,
    ]);
    // What the agent received on the channel: session.start first (text only: no explicit audio turns), then the turns, then session.end.
    await vi.waitFor(() => expect(sent(server).at(-1)?.type).toBe('session.end'), { timeout: 5_000 });
    const messages = sent(server);
    expect(
      messages.map((message) => message.type),
      all,
    ).toEqual(['session.start', 'user.turn', 'user.turn', 'user.observation', 'session.end']);
    expect(messages[0]).toMatchObject({ clientCapabilities: { physicalObservations: { modalities: ['photo'] } } });
    expect(messages[0]).not.toHaveProperty('clientCapabilities.audioTurnControl');
    expect(server.webrtc.openCalls).toBe(0);
  }, 60_000);

  it('sends the bearer the card requires, and without --token says so before calling', async () => {
    const token = 'chat-token-0123456789abcdef';
    const server = await demo({ token });
    const without = capture();
    expect(await chat(server.webrtcCardUrl, { dev: true }, without, input('hello'), quietChat)).toBe(2);
    expect(without.lines).toEqual(['stderr: AgentDesk demo agent (voice) requires a bearer token: pass --token T (or set AGENTDESK_TOKEN).']);
    const io = capture();
    expect(await chat(server.webrtcCardUrl, { dev: true, token }, io, input('hello'), quietChat)).toBe(0);
    expect(io.lines[0]).toMatch(/^Connected to AgentDesk demo agent \(voice\) \(AgentCall call over WebRTC/);
    expect(io.lines.at(-1)).toMatch(/^agent: I'm the AgentDesk demo agent/);
  }, 60_000);

  it('explains a call the agent refuses (a redirected offer is never followed) and exits 1', async () => {
    const agent = await startServer((request, response) => {
      if ((request.url ?? '').startsWith('/.well-known/agent-card.json')) {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(webrtcAgentCard(`http://${request.headers.host}`, { accepted: ['photo'], agentRequests: [] }, false)));
        return;
      }
      request.resume();
      response.writeHead(307, { Location: 'http://127.0.0.1:9/elsewhere', 'Content-Length': 0 });
      response.end();
    });
    const io = capture();
    expect(await chat(`${agent.origin}/.well-known/agent-card.json`, { dev: true }, io, input('hello'), quietChat)).toBe(1);
    expect(io.lines).toEqual([
      expect.stringMatching(
        /^stderr: \[protocol_error\] The call to AgentDesk demo agent \(voice\) failed at the SDP offer: redirected: .*AgentDesk does not follow redirects/,
      ),
    ]);
  }, 30_000);
});
