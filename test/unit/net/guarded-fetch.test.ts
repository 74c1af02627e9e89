import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { guardedFetch, NetError, type NetPolicy } from '../../../src/main/net/guarded-fetch';
import { netError, useServers } from './servers';

const servers = useServers();
const dev: NetPolicy = { allowLocalHttp: true };

describe('guardedFetch', () => {
  it('works as fetch: status, headers, url and json', async () => {
    const server = await servers.http(
      (_request, res) => void res.writeHead(200, { 'Content-Type': 'application/json', 'X-Trace': 'abc' }).end('{"hello":"world"}'),
    );
    const response = await guardedFetch(dev)(`${server.origin}/data`);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('X-Trace')).toBe('abc');
    expect(response.url).toBe(`${server.origin}/data`);
    expect(await response.json()).toEqual({ hello: 'world' });
  });

  it('sends the method, headers and a form body like fetch', async () => {
    const server = await servers.http((_request, res) => void res.writeHead(204).end());
    const response = await guardedFetch(dev)(new URL(`${server.origin}/token`), {
      method: 'POST',
      headers: { Accept: 'application/json', Authorization: 'DPoP abc' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'xyz' }),
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    const seen = server.requests[0];
    expect(seen?.method).toBe('POST');
    expect(seen?.body).toBe('grant_type=authorization_code&code=xyz');
    expect(seen?.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(seen?.headers.authorization).toBe('DPoP abc');
    expect(seen?.headers['accept-encoding']).toBe('identity');
  });

  it('applies the policy', async () => {
    const server = await servers.http((_request, res) => void res.end('ok'));
    const error = await netError(guardedFetch({ allowLocalHttp: false })(`${server.origin}/`));
    expect(error.code).toBe('insecure_scheme');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a cross-origin redirect and never contacts its target', async () => {
    const target = await servers.http((_request, res) => void res.end('{}'));
    const server = await servers.http((_request, res) => void res.writeHead(302, { Location: `${target.origin}/` }).end());
    const error = await netError(guardedFetch(dev)(`${server.origin}/.well-known/oauth-authorization-server`));
    expect(error).toBeInstanceOf(NetError);
    expect(error.code).toBe('cross_origin_redirect');
    expect(target.requests).toHaveLength(0);
  });

  it("returns the redirect itself for redirect: 'manual', and follows same-origin ones by default", async () => {
    const server = await servers.http((request, res) => {
      if (request.url === '/old') res.writeHead(302, { Location: '/new' }).end();
      else res.end('new');
    });
    const manual = await guardedFetch(dev)(`${server.origin}/old`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/new');
    expect(server.requests.map((request) => request.url)).toEqual(['/old']);

    const followed = await guardedFetch(dev)(`${server.origin}/old`);
    expect(await followed.text()).toBe('new');
    expect(followed.url).toBe(`${server.origin}/new`);
    expect(followed.redirected).toBe(true);
  });

  it('caps the body at maxBytes', async () => {
    const server = await servers.http((_request, res) => void res.end('x'.repeat(2048)));
    expect((await netError(guardedFetch(dev, { maxBytes: 1024 })(`${server.origin}/`))).code).toBe('too_large');
    expect((await (await guardedFetch(dev, { maxBytes: 2048 })(`${server.origin}/`)).text()).length).toBe(2048);
  });

  it("serves as oauth4webapi's customFetch", async () => {
    const server = await servers.http((request, res) => {
      if (request.url !== '/.well-known/oauth-authorization-server') return void res.writeHead(404).end();
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ issuer: server.origin, authorization_endpoint: `${server.origin}/authorize`, token_endpoint: `${server.origin}/token` }));
    });
    const issuer = new URL(server.origin);
    const response = await oauth.discoveryRequest(issuer, {
      algorithm: 'oauth2',
      [oauth.customFetch]: guardedFetch(dev, { maxBytes: 64 * 1024 }),
      [oauth.allowInsecureRequests]: true,
    });
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    expect(metadata.token_endpoint).toBe(`${server.origin}/token`);
  });
});
