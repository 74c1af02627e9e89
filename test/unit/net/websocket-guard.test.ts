import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { pinnedLookup, resolveGuardedAddress } from '../../../src/main/net/websocket-guard';
import { fakeDns, netError } from './servers';

const wsServers: WebSocketServer[] = [];
afterEach(async () => {
  await Promise.all(
    wsServers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          for (const client of server.clients) client.terminate();
          server.close(() => resolve());
        }),
    ),
  );
});

describe('resolveGuardedAddress', () => {
  it('applies the https rules to wss:// and returns the checked address', async () => {
    const dns = fakeDns({ 'agent.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    expect(await resolveGuardedAddress(new URL('wss://agent.example.com/agui'), { allowLocalHttp: false, lookup: dns.lookup })).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(dns.calls).toEqual(['agent.example.com']);
  });

  it('refuses ws:// without the development setting, and to a public name with it', async () => {
    const dns = fakeDns({ 'agent.example.com': ['93.184.215.14'] });
    const plain = await netError(resolveGuardedAddress(new URL('ws://127.0.0.1:9000/'), { allowLocalHttp: false }));
    expect(plain.code).toBe('insecure_scheme');
    expect(plain.message).toContain('ws://');
    expect((await netError(resolveGuardedAddress(new URL('ws://agent.example.com/'), { allowLocalHttp: true, lookup: dns.lookup }))).code).toBe(
      'insecure_scheme',
    );
    expect(dns.calls).toHaveLength(0);
  });

  it('refuses a name that resolves to a local address unless that host is allowed, and metadata always', async () => {
    const dns = fakeDns({ 'agent.example.com': ['127.0.0.1'], 'meta.example.com': ['169.254.169.254'] });
    const url = new URL('wss://agent.example.com/agui');
    expect((await netError(resolveGuardedAddress(url, { allowLocalHttp: true, lookup: dns.lookup }))).code).toBe('blocked_address');
    expect(await resolveGuardedAddress(url, { allowLocalHttp: false, allowedPrivateHosts: ['agent.example.com'], lookup: dns.lookup })).toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    const meta = new URL('wss://meta.example.com/');
    expect((await netError(resolveGuardedAddress(meta, { allowLocalHttp: true, allowedPrivateHosts: ['meta.example.com'], lookup: dns.lookup }))).code).toBe(
      'blocked_address',
    );
  });

  it('refuses other schemes', async () => {
    expect((await netError(resolveGuardedAddress(new URL('ftp://agent.example.com/'), { allowLocalHttp: true }))).code).toBe('invalid_url');
  });

  it('lets ws connect to exactly the checked address through pinnedLookup', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    wsServers.push(server);
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (socket) => socket.send('hello'));
    const { port } = server.address() as AddressInfo;
    // Later answers point to 127.0.0.2, where nothing listens: only the checked address reaches the server.
    const dns = fakeDns({ 'agent.localhost': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const url = new URL(`ws://agent.localhost:${port}/agui`);
    const checked = await resolveGuardedAddress(url, { allowLocalHttp: true, lookup: dns.lookup });
    const client = new WebSocket(url, { lookup: pinnedLookup(url.hostname, checked), followRedirects: false });
    const message = await new Promise<string>((resolve, reject) => {
      client.once('message', (data: Buffer) => resolve(data.toString()));
      client.once('error', reject);
    });
    client.close();
    expect(message).toBe('hello');
    expect(dns.calls).toEqual(['agent.localhost']);
  });
});
