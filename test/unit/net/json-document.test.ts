import { describe, expect, it } from 'vitest';
import { fetchJsonDocument } from '../../../src/main/net/json-document';
import { startServer } from '../../support/http-server';

const policy = { allowLocalHttp: true };
/** A loopback server answering every request with these bytes and this Content-Type. */
const serve = (body: Uint8Array | string, contentType?: string, status = 200) =>
  startServer((_req, res) => void res.writeHead(status, contentType ? { 'Content-Type': contentType } : {}).end(body));
const badUtf8 = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('"}')]);

describe('fetchJsonDocument', () => {
  it('answers the parsed document, its final URL and headers, after asking for JSON', async () => {
    const server = await startServer(
      (req, res) =>
        void res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=5', 'X-Accept': req.headers.accept ?? '' }).end('{"name":"x"}'),
    );
    expect(await fetchJsonDocument({ url: server.url, maxBytes: 1024 }, policy)).toMatchObject({
      ok: true,
      json: { name: 'x' },
      url: server.url,
      headers: { 'cache-control': 'max-age=5', 'x-accept': 'application/json' },
    });
  });

  it('names a non-200 answer, a body that is not JSON and a network failure (too large)', async () => {
    expect(await fetchJsonDocument({ url: (await serve('{}', 'application/json', 404)).url, maxBytes: 1024 }, policy)).toEqual({
      ok: false,
      reason: 'http_status',
      status: 404,
    });
    expect(await fetchJsonDocument({ url: (await serve('{"name":', 'application/json')).url, maxBytes: 1024 }, policy)).toEqual({
      ok: false,
      reason: 'not_json',
    });
    expect(await fetchJsonDocument({ url: (await serve(`"${'x'.repeat(2048)}"`, 'application/json')).url, maxBytes: 1024 }, policy)).toMatchObject({
      ok: false,
      reason: 'net',
      error: { code: 'too_large' },
    });
  });

  it('strict: refuses a body not labelled JSON and one that is not valid UTF-8', async () => {
    expect(await fetchJsonDocument({ url: (await serve('{}', 'text/html; charset=utf-8')).url, maxBytes: 1024, strict: true }, policy)).toEqual({
      ok: false,
      reason: 'media_type',
      mediaType: 'text/html',
    });
    expect(await fetchJsonDocument({ url: (await serve('{}')).url, maxBytes: 1024, strict: true }, policy)).toEqual({
      ok: false,
      reason: 'media_type',
      mediaType: '',
    });
    expect(await fetchJsonDocument({ url: (await serve('{}', 'application/agent-card+json')).url, maxBytes: 1024, strict: true }, policy)).toMatchObject({
      ok: true,
      json: {},
    });
    expect(await fetchJsonDocument({ url: (await serve(badUtf8, 'application/json')).url, maxBytes: 1024, strict: true }, policy)).toEqual({
      ok: false,
      reason: 'not_json',
    });
  });

  it('not strict: takes any label and decodes bad UTF-8 bytes as U+FFFD', async () => {
    expect(await fetchJsonDocument({ url: (await serve('{"a":1}', 'text/plain')).url, maxBytes: 1024 }, policy)).toMatchObject({ ok: true, json: { a: 1 } });
    expect(await fetchJsonDocument({ url: (await serve(badUtf8, 'application/json')).url, maxBytes: 1024 }, policy)).toMatchObject({
      ok: true,
      json: { name: '\uFFFD' },
    });
  });
});
