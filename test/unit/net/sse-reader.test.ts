import { describe, expect, it } from 'vitest';
import type { GuardedResponse } from '../../../src/main/net/guarded-fetch';
import { readSse } from '../../../src/main/net/sse-reader';

/** A response whose body is these chunks (strings are UTF-8 encoded). */
function body(...chunks: (string | Uint8Array)[]): GuardedResponse & { cancelled: boolean } {
  const response = {
    status: 200,
    headers: {},
    url: 'https://agent.example/run',
    cancelled: false,
    bytes: () => Promise.reject(new Error('not used')),
    text: () => Promise.reject(new Error('not used')),
    json: () => Promise.reject(new Error('not used')),
    async *stream() {
      for (const chunk of chunks) yield typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    },
    cancel() {
      response.cancelled = true;
    },
  };
  return response;
}

async function read(response: GuardedResponse, maxEventBytes: number) {
  const events: string[] = [];
  const end = await readSse(response, (event) => void events.push(event.data), { maxEventBytes });
  return { end, events };
}

describe('readSse', () => {
  it('hands on events across any chunking, CRLF split between chunks included', async () => {
    const { end, events } = await read(body('data: a\r', '\n\r\ndata: é', 'x\n', '\n'), 1024);
    expect(end).toEqual({ kind: 'ended' });
    expect(events).toEqual(['a', 'éx']);
  });

  it('ends with too_large for an event larger than the cap, and cancels the response', async () => {
    const response = body('data: small\n\n', `data: ${'x'.repeat(300)}`, 'y'.repeat(300));
    const { end, events } = await read(response, 256);
    expect(end).toEqual({ kind: 'too_large', maxEventBytes: 256 });
    expect(events).toEqual(['small']);
    expect(response.cancelled).toBe(true);
  });

  // Found by `npm run fuzz` (net.sseReader): the cap counted every byte since the last event, so a
  // stream kept alive by heartbeat comments ended as "too large" once the heartbeats added up.
  it('never counts heartbeats (comments) and blank lines towards an event', async () => {
    const shrunk = ': keep-alive 0123456789\n: keep-alive 0123456789\n: ping\n: ping\n';
    expect((await read(body(shrunk), 1)).end).toEqual({ kind: 'ended' });
    const heartbeats = Array.from({ length: 200 }, () => ': ping\n\n');
    const { end, events } = await read(body(...heartbeats, 'data: after an hour\n\n'), 64);
    expect(end).toEqual({ kind: 'ended' });
    expect(events).toEqual(['after an hour']);
  });

  // Found by `npm run fuzz` (net.sseReader): the slice that held the event the caller stopped at
  // also started a line past the cap, and the read ended as too_large instead of stopped.
  it('ends as stopped when the caller stops, whatever follows in the same slice', async () => {
    const response = body('data: \n\ndata', ':  \nevent: message\nDATA: caps\n\r\n');
    const events: string[] = [];
    const end = await readSse(response, (event) => (events.push(event.data), 'stop'), { maxEventBytes: 1 });
    expect(end).toEqual({ kind: 'stopped' });
    expect(events).toEqual(['']);
    expect(response.cancelled).toBe(true);
  });
});
