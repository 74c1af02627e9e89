import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TransportError, type TransportClose } from '../../../src/main/agentcall/connection';
import { connectAgentCall } from '../../../src/main/agentcall/websocket-transport';
import { maxFrameBytes } from '../../../src/shared/agentcall/protocol';
import { memoryLogger } from '../../support/logger';
import { startScriptedAgent } from '../../support/agentcall/scripted-agent';

const dev = { allowLocalHttp: true };

function closed(connection: { onClose(listener: (close: TransportClose) => void): () => void }): Promise<TransportClose> {
  return new Promise((resolve) => connection.onClose(resolve));
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected the connection to fail');
}

describe('AgentCall WebSocket transport', () => {
  it('sends JSON text frames and delivers the agent’s text frames', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const frames: string[] = [];
    connection.onFrame((frame) => frames.push(frame));
    connection.send({ type: 'session.start', sessionId: 's-1', clientCapabilities: { physicalObservations: { modalities: ['nfc'] } } });
    expect(await agent.waitForFrames(1)).toEqual([
      { type: 'session.start', sessionId: 's-1', clientCapabilities: { physicalObservations: { modalities: ['nfc'] } } },
    ]);
    socket.send(JSON.stringify({ sequence: 1, event: { type: 'session.established', resumed: false } }));
    await expect.poll(() => frames).toEqual(['{"sequence":1,"event":{"type":"session.established","resumed":false}}']);
    const done = closed(connection);
    connection.close();
    expect((await done).code).toBe(1000);
    expect(connection.isOpen).toBe(false);
  });

  it('puts a bearer token only in the upgrade’s Authorization header, never in the URL', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, bearerToken: 'secret-token-123', log: memoryLogger() });
    expect(agent.upgrades).toEqual([{ path: '/agui', authorization: 'Bearer secret-token-123' }]);
    connection.close();
  });

  it('refuses ws:// without the development setting, and a name resolving to loopback', async () => {
    const agent = await startScriptedAgent();
    expect((await failure(connectAgentCall({ url: agent.url, policy: { allowLocalHttp: false }, log: memoryLogger() }))).code).toBe('insecure_scheme');
    const lookup = () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]);
    const blocked = await failure(
      connectAgentCall({ url: `wss://agent.example.com:${agent.port}/agui`, policy: { allowLocalHttp: false, lookup }, log: memoryLogger() }),
    );
    expect(blocked.code).toBe('blocked_address');
    expect(agent.upgrades).toEqual([]);
  });

  it('explains a refused upgrade: 401 asks to sign in, 403 is not allowed, a redirect is not followed', async () => {
    for (const [status, code] of [
      [401, 'sign_in_required'],
      [403, 'not_allowed'],
      [302, 'connect_failed'],
      [500, 'server_error'],
    ] as const) {
      const agent = await startScriptedAgent({ refuseWith: status });
      const error = await failure(connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() }));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.code).toBe(code);
      expect(error.message).toContain(String(status));
    }
  });

  it('closes on a frame larger than 128 KiB before parsing it (1009) and says why', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const frames: string[] = [];
    connection.onFrame((frame) => frames.push(frame));
    const done = closed(connection);
    socket.send('x'.repeat(maxFrameBytes + 1));
    const close = await done;
    expect(close.code).toBe(1009);
    expect(close.error?.code).toBe('frame_too_large');
    expect(frames).toEqual([]);
  });

  it('accepts a frame of exactly 128 KiB', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const frames: string[] = [];
    connection.onFrame((frame) => frames.push(frame));
    socket.send('y'.repeat(maxFrameBytes));
    await expect.poll(() => frames.length).toBe(1);
    expect(frames[0]).toHaveLength(maxFrameBytes);
    connection.close();
  });

  it('closes on a binary frame (1003) and delivers nothing', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const frames: string[] = [];
    connection.onFrame((frame) => frames.push(frame));
    const done = closed(connection);
    socket.send(Buffer.from('{"sequence":1}'), { binary: true });
    const close = await done;
    expect(close.code).toBe(1003);
    expect(close.error?.code).toBe('binary_frame');
    expect(frames).toEqual([]);
  });

  it('reports the agent’s close code and reason', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const done = closed(connection);
    socket.close(4000, 'maintenance');
    expect(await done).toEqual({ code: 4000, reason: 'maintenance' });
  });

  it('reports a dropped connection as 1006', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    const socket = await agent.nextSocket();
    const done = closed(connection);
    socket.terminate();
    expect((await done).code).toBe(1006);
  });

  it('gives up on an agent that answers no pings', async () => {
    const agent = await startScriptedAgent({ ignorePings: true });
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger(), pingIntervalMs: 50 });
    const close = await closed(connection);
    expect(close.error?.code).toBe('not_responding');
  });

  it('refuses to send a message larger than 128 KiB', async () => {
    const agent = await startScriptedAgent();
    const connection = await connectAgentCall({ url: agent.url, policy: dev, log: memoryLogger() });
    expect(() => connection.send({ type: 'user.turn', turn: 1, text: 'z'.repeat(maxFrameBytes) })).toThrow(/larger than 128 KiB/);
    connection.close();
  });

  it('gives up on an upgrade that never gets an answer', async () => {
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as AddressInfo;
    try {
      const error = await failure(connectAgentCall({ url: `ws://127.0.0.1:${port}/agui`, policy: dev, log: memoryLogger(), handshakeTimeoutMs: 100 }));
      expect(error.code).toBe('connect_timeout');
    } finally {
      silent.close();
    }
  });

  it('fails clearly when nothing listens', async () => {
    const agent = await startScriptedAgent();
    const url = agent.url;
    await agent.close();
    const error = await failure(connectAgentCall({ url, policy: dev, log: memoryLogger() }));
    expect(error.code).toBe('connect_failed');
    expect(error.message).toContain('127.0.0.1');
  });
});
