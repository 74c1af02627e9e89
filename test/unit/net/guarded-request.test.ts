import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardedRequest, type GuardedRequest, type NetPolicy } from '../../../src/main/net/guarded-fetch';
import { netError, nextTurn, useServers } from './servers';

const servers = useServers();
const dev: NetPolicy = { allowLocalHttp: true };
const send = (request: Omit<GuardedRequest, 'maxBytes'> & { maxBytes?: number }) => guardedRequest({ maxBytes: 64 * 1024, ...request }, dev);
const token = 'tok-SECRET-123';

describe('requests and responses', () => {
  it('sends the method, headers and body, and returns status, lower-case headers, url and body', async () => {
    const server = await servers.http((_request, res) => void res.writeHead(201, { 'X-Answer': '42', 'Content-Type': 'text/plain' }).end('created'));
    const response = await send({
      url: `${server.origin}/items?x=1#fragment`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Accept-Encoding': 'gzip', Host: 'evil.example' },
      body: '{"a":"é"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers['x-answer']).toBe('42');
    expect(response.url).toBe(`${server.origin}/items?x=1`);
    expect(await response.text()).toBe('created');
    const seen = server.requests[0];
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/items?x=1');
    expect(seen?.body).toBe('{"a":"é"}');
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['accept-encoding']).toBe('identity');
    expect(seen?.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('parses JSON, and fails with protocol_error on invalid JSON', async () => {
    const server = await servers.http((request, res) => void res.end(request.url === '/good' ? '{"ok":true}' : '{"ok":'));
    expect(await (await send({ url: `${server.origin}/good` })).json()).toEqual({ ok: true });
    const error = await netError((await send({ url: `${server.origin}/bad` })).json());
    expect(error.code).toBe('protocol_error');
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
  });

  it('refuses header values that would inject lines, without repeating them', async () => {
    const server = await servers.http((_request, res) => void res.end('ok'));
    const error = await netError(send({ url: `${server.origin}/`, headers: { 'X-Note': 'a\r\nInjected: yes' } }));
    expect(error.code).toBe('protocol_error');
    expect(error.message).not.toContain('Injected');
    expect(server.requests).toHaveLength(0);
  });

  it('keeps the query string out of NetError.url', async () => {
    const server = await servers.http(() => undefined);
    const error = await netError(send({ url: `${server.origin}/callback?code=secret-code`, timeouts: { firstByteMs: 50 } }));
    expect(error.url).toBe(`${server.origin}/callback`);
    expect(error.message).not.toContain('secret-code');
  });

  it('fails with protocol_error when the server does not speak HTTP', async () => {
    const server = await servers.raw((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    expect((await netError(send({ url: `http://127.0.0.1:${server.port}/` }))).code).toBe('protocol_error');
  });
});

describe('bearer tokens', () => {
  it('sends the bearer token to its origin', async () => {
    const server = await servers.http((_request, res) => void res.end('ok'));
    await (await send({ url: `${server.origin}/api`, bearer: { token, origin: server.origin } })).text();
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('does not send the bearer token to another origin', async () => {
    const server = await servers.http((_request, res) => void res.end('ok'));
    await (await send({ url: `${server.origin}/api`, bearer: { token, origin: `http://127.0.0.1:${server.port + 1}` } })).text();
    await (await send({ url: `${server.origin}/api`, bearer: { token, origin: `https://127.0.0.1:${server.port}` } })).text();
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('follows a same-origin redirect without the bearer token or any Authorization header', async () => {
    const server = await servers.http((request, res) => {
      if (request.url === '/old') res.writeHead(302, { Location: '/new' }).end();
      else res.end('moved here');
    });
    const response = await send({ url: `${server.origin}/old`, headers: { 'X-Kept': 'yes' }, bearer: { token, origin: server.origin } });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${server.origin}/new`);
    expect(await response.text()).toBe('moved here');
    expect(server.requests.map((request) => request.url)).toEqual(['/old', '/new']);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
    expect(server.requests[1]?.headers['x-kept']).toBe('yes');

    await (await send({ url: `${server.origin}/old`, headers: { Authorization: 'Basic c2VjcmV0' } })).text();
    expect(server.requests[2]?.headers.authorization).toBe('Basic c2VjcmV0');
    expect(server.requests[3]?.headers.authorization).toBeUndefined();
  });
});

describe('redirects', () => {
  it('refuses a cross-origin redirect and never contacts its target', async () => {
    const target = await servers.http((_request, res) => void res.end('should not be reached'));
    const server = await servers.http((_request, res) => void res.writeHead(301, { Location: `${target.origin}/steal` }).end());
    const error = await netError(send({ url: `${server.origin}/`, bearer: { token, origin: server.origin } }));
    expect(error.code).toBe('cross_origin_redirect');
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(error.message).not.toContain(token);
    expect(target.requests).toHaveLength(0);
  });

  it('treats a redirect from https to http on the same host as cross-origin', async () => {
    const server = await servers.http((_request, res) => void res.writeHead(302, { Location: `https://127.0.0.1:${server.port}/` }).end());
    expect((await netError(send({ url: `${server.origin}/` }))).code).toBe('cross_origin_redirect');
    expect(server.requests).toHaveLength(1);
  });

  it('turns a POST into a GET without body on 303, and keeps both on 307', async () => {
    const server = await servers.http((request, res) => {
      if (request.url === '/see-other') res.writeHead(303, { Location: '/result' }).end();
      else if (request.url === '/temporary') res.writeHead(307, { Location: '/result' }).end();
      else res.end(`${request.method} ${request.body}`);
    });
    const seeOther = await send({ url: `${server.origin}/see-other`, method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'form' });
    expect(await seeOther.text()).toBe('GET ');
    expect(server.requests[1]?.headers['content-type']).toBeUndefined();
    expect(server.requests[1]?.headers['content-length']).toBeUndefined();
    const temporary = await send({ url: `${server.origin}/temporary`, method: 'POST', body: 'form' });
    expect(await temporary.text()).toBe('POST form');
  });

  it('stops after five redirects with too_many_redirects', async () => {
    const server = await servers.http((request, res) => {
      const n = Number(request.url.slice(1));
      res.writeHead(302, { Location: `/${n + 1}` }).end();
    });
    const error = await netError(send({ url: `${server.origin}/0` }));
    expect(error.code).toBe('too_many_redirects');
    expect(server.requests.map((request) => request.url)).toEqual(['/0', '/1', '/2', '/3', '/4', '/5']);
  });

  it("with redirect: 'error' fails on any redirect, naming cross-origin ones", async () => {
    const server = await servers.http((request, res) => {
      if (request.url === '/same') res.writeHead(302, { Location: '/elsewhere' }).end();
      else res.writeHead(302, { Location: 'https://other.example/' }).end();
    });
    expect((await netError(send({ url: `${server.origin}/same`, redirect: 'error' }))).code).toBe('protocol_error');
    expect((await netError(send({ url: `${server.origin}/cross`, redirect: 'error' }))).code).toBe('cross_origin_redirect');
    expect(server.requests).toHaveLength(2);
  });

  it('returns a 3xx without Location as an ordinary response', async () => {
    const server = await servers.http((_request, res) => void res.writeHead(304).end());
    expect((await send({ url: `${server.origin}/` })).status).toBe(304);
  });
});

describe('size cap', () => {
  const cap = 64 * 1024;
  const big = Buffer.alloc(65 * 1024, 'a');

  it('fails with too_large when Content-Length is over the cap', async () => {
    const server = await servers.http((_request, res) => void res.writeHead(200, { 'Content-Length': big.length }).end(big));
    const response = await send({ url: `${server.origin}/`, maxBytes: cap });
    const error = await netError(response.bytes());
    expect(error.code).toBe('too_large');
    expect(error.message).toContain('64 KiB');
  });

  it('fails with too_large while reading a chunked body without a length', async () => {
    const server = await servers.http((_request, res) => {
      res.writeHead(200);
      for (let i = 0; i < 65; i++) res.write(big.subarray(0, 1024));
      res.end();
    });
    const response = await send({ url: `${server.origin}/`, maxBytes: cap });
    expect(response.headers['transfer-encoding']).toBe('chunked');
    expect((await netError(response.text())).code).toBe('too_large');
  });

  it('fails with too_large on a close-delimited body, and when the body never ends', async () => {
    const closing = await servers.raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n');
      socket.end(big);
    });
    expect((await netError((await send({ url: `http://127.0.0.1:${closing.port}/`, maxBytes: cap })).json())).code).toBe('too_large');

    const endless = await servers.raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n');
      const timer = setInterval(() => socket.write(big.subarray(0, 16 * 1024)), 1);
      socket.on('close', () => clearInterval(timer));
    });
    expect((await netError((await send({ url: `http://127.0.0.1:${endless.port}/`, maxBytes: cap })).bytes())).code).toBe('too_large');
  });

  it('reads no more than the declared Content-Length when the server sends more', async () => {
    const server = await servers.raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n');
      socket.end(Buffer.alloc(70 * 1024, 'b'));
    });
    const response = await send({ url: `http://127.0.0.1:${server.port}/`, maxBytes: cap });
    expect(await response.text()).toBe('b'.repeat(10));
  });

  it('accepts a body of exactly the cap', async () => {
    const server = await servers.http((_request, res) => void res.end(big.subarray(0, cap)));
    const bytes = await (await send({ url: `${server.origin}/`, maxBytes: cap })).bytes();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes.byteLength).toBe(cap);
  });
});

describe('timeouts', () => {
  it('fails with first_byte_timeout when the server never answers', async () => {
    const server = await servers.http(() => undefined);
    const error = await netError(send({ url: `${server.origin}/`, timeouts: { firstByteMs: 150 } }));
    expect(error.code).toBe('first_byte_timeout');
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with idle_timeout when the body stops flowing', async () => {
    const server = await servers.http((_request, res) => {
      res.writeHead(200);
      res.write('first part');
    });
    const response = await send({ url: `${server.origin}/`, timeouts: { idleMs: 150 } });
    expect(response.status).toBe(200);
    expect((await netError(response.text())).code).toBe('idle_timeout');
  });

  it('does not count a slow reader against the idle timeout', async () => {
    const server = await servers.http((_request, res) => void res.end('all of it'));
    const response = await send({ url: `${server.origin}/`, timeouts: { idleMs: 50 } });
    await nextTurn(150);
    expect(await response.text()).toBe('all of it');
  });
});

describe('streaming', () => {
  it('yields chunks as they come, before the body is complete', async () => {
    let sendRest: () => void = () => undefined;
    const server = await servers.http((_request, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
      sendRest = () => res.end('data: two\n\n');
    });
    const response = await send({ url: `${server.origin}/events`, maxBytes: 4 });
    const decoder = new TextDecoder();
    const received: string[] = [];
    for await (const chunk of response.stream()) {
      received.push(decoder.decode(chunk));
      if (received.length === 1) sendRest();
    }
    expect(received).toEqual(['data: one\n\n', 'data: two\n\n']);
  });

  it('fails with idle_timeout between chunks', async () => {
    const server = await servers.http((_request, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
    });
    const response = await send({ url: `${server.origin}/events`, timeouts: { idleMs: 150 } });
    const received: string[] = [];
    const error = await netError(
      (async () => {
        for await (const chunk of response.stream()) received.push(new TextDecoder().decode(chunk));
      })(),
    );
    expect(error.code).toBe('idle_timeout');
    expect(received).toEqual(['data: one\n\n']);
  });

  it('closes the connection when the reader stops early', async () => {
    let closed = false;
    const server = await servers.http((_request, res, req) => {
      req.socket.on('close', () => (closed = true));
      res.writeHead(200);
      res.write('one');
    });
    const response = await send({ url: `${server.origin}/events` });
    for await (const chunk of response.stream()) {
      expect(chunk.byteLength).toBeGreaterThan(0);
      break;
    }
    for (let i = 0; i < 50 && !closed; i++) await nextTurn();
    expect(closed).toBe(true);
  });
});

describe('aborting', () => {
  it('stops listening to the signal once the body is read or the request failed', async () => {
    const server = await servers.http((request, res) => void (request.url === '/slow' ? undefined : res.end('done')));
    const controller = new AbortController();
    const response = await send({ url: `${server.origin}/`, signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await response.text();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await netError(send({ url: `${server.origin}/slow`, signal: controller.signal, timeouts: { firstByteMs: 50 } }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('fails with aborted for an already aborted signal, without resolving', async () => {
    let lookups = 0;
    const policy: NetPolicy = { allowLocalHttp: true, lookup: async () => (lookups++, [{ address: '127.0.0.1', family: 4 }]) };
    const error = await netError(guardedRequest({ url: 'http://agent.localhost/', maxBytes: 10, signal: AbortSignal.abort() }, policy));
    expect(error.code).toBe('aborted');
    expect(lookups).toBe(0);
  });

  it('fails with aborted when the signal fires while waiting for the answer', async () => {
    const server = await servers.http(() => undefined);
    const controller = new AbortController();
    const pending = send({ url: `${server.origin}/`, signal: controller.signal });
    while (server.requests.length === 0) await nextTurn();
    controller.abort();
    expect((await netError(pending)).code).toBe('aborted');
  });

  it('fails with aborted when the signal fires or cancel() is called while reading the body', async () => {
    const server = await servers.http((_request, res) => {
      res.writeHead(200);
      res.write('start');
    });
    const controller = new AbortController();
    const viaSignal = await send({ url: `${server.origin}/`, signal: controller.signal });
    const reading = viaSignal.text();
    await nextTurn(20);
    controller.abort();
    expect((await netError(reading)).code).toBe('aborted');

    const viaCancel = await send({ url: `${server.origin}/` });
    const iterator = viaCancel.stream()[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    viaCancel.cancel();
    expect((await netError(iterator.next())).code).toBe('aborted');
  });
});
