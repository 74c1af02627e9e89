import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedRequest, type NetPolicy } from '../../../src/main/net/guarded-fetch';
import { useTempDirs } from '../../support/temp-dir';
import { closedPort, fakeDns, netError, useServers } from './servers';

const servers = useServers();
const tempDir = useTempDirs();
const get = (url: string, policy: NetPolicy, timeouts?: { connectMs?: number; firstByteMs?: number; idleMs?: number }) =>
  guardedRequest({ url, maxBytes: 1024, ...(timeouts ? { timeouts } : {}) }, policy);
const ok =
  (status = 200) =>
  (_request: unknown, res: ServerResponse) =>
    void res.writeHead(status).end('ok');

describe('scheme rules', () => {
  it('refuses http:// without the development setting, before any connection', async () => {
    const server = await servers.http(ok());
    const error = await netError(get(`${server.origin}/`, { allowLocalHttp: false }));
    expect(error.code).toBe('insecure_scheme');
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(server.requests).toHaveLength(0);
  });

  it('allows http:// to 127.0.0.1 under the development setting', async () => {
    const server = await servers.http(ok());
    const response = await get(`${server.origin}/`, { allowLocalHttp: true });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
  });

  it('refuses http:// to a public name even under the development setting, without resolving it', async () => {
    const dns = fakeDns({ 'crm.example.com': ['127.0.0.1'] });
    const error = await netError(get('http://crm.example.com/', { allowLocalHttp: true, lookup: dns.lookup }));
    expect(error.code).toBe('insecure_scheme');
    expect(error.message).toContain('crm.example.com');
    expect(dns.calls).toHaveLength(0);
  });

  it('refuses http:// to a local-looking name that resolves to a public address', async () => {
    const dns = fakeDns({ 'agent.localhost': ['93.184.215.14'] });
    const error = await netError(get('http://agent.localhost/', { allowLocalHttp: true, lookup: dns.lookup }));
    expect(error.code).toBe('insecure_scheme');
    expect(error.message).toContain('93.184.215.14');
  });

  it.each([['not a url'], ['ftp://127.0.0.1/file'], ['file:///etc/passwd'], ['https://alice:s3cret@crm.example.com/']])(
    'refuses %s as invalid_url',
    async (url) => {
      const dns = fakeDns({ 'crm.example.com': ['93.184.215.14'] });
      const error = await netError(get(url, { allowLocalHttp: true, lookup: dns.lookup }));
      expect(error.code).toBe('invalid_url');
      expect(error.message).not.toContain('s3cret');
      expect(dns.calls).toHaveLength(0);
    },
  );
});

describe('DNS and address rules', () => {
  it('refuses a public name that resolves to 127.0.0.1 without the development setting', async () => {
    const dns = fakeDns({ 'crm.example.com': ['127.0.0.1'] });
    const error = await netError(get('https://crm.example.com/', { allowLocalHttp: false, lookup: dns.lookup }));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('crm.example.com');
    expect(error.message).toContain('resolves to 127.0.0.1');
    expect(error.message).toContain('loopback');
    expect(dns.calls).toEqual(['crm.example.com']);
  });

  it('refuses a public name that resolves to a private address even under the development setting', async () => {
    const dns = fakeDns({ 'crm.example.com': ['192.168.1.10'] });
    const error = await netError(get('https://crm.example.com/', { allowLocalHttp: true, lookup: dns.lookup }));
    expect(error.code).toBe('blocked_address');
  });

  it('checks every address a name resolves to, not only the first', async () => {
    const dns = fakeDns({ 'crm.example.com': ['93.184.215.14', '127.0.0.1'] });
    const error = await netError(get('https://crm.example.com/', { allowLocalHttp: false, lookup: dns.lookup }));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('127.0.0.1');
  });

  it('refuses private and loopback IP literals without the development setting', async () => {
    for (const url of ['https://10.1.2.3/', 'https://127.0.0.1/', 'https://[::1]/', 'https://[fd00::1]/', 'https://[::ffff:127.0.0.1]/']) {
      expect((await netError(get(url, { allowLocalHttp: false }))).code, url).toBe('blocked_address');
    }
  });

  it('always refuses metadata, unspecified and multicast addresses, even when allowed by name', async () => {
    const dns = fakeDns({ 'metadata.google.internal': ['169.254.169.254'], 'zero.localhost': ['0.0.0.0'] });
    const policy: NetPolicy = {
      allowLocalHttp: true,
      allowedPrivateHosts: ['metadata.google.internal', '169.254.169.254', 'zero.localhost'],
      lookup: dns.lookup,
    };
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://[fd00:ec2::254]/',
      'https://[::ffff:169.254.169.254]/',
      'http://zero.localhost/',
      'https://0.0.0.0/',
      'https://[::]/',
      'https://224.0.0.1/',
    ]) {
      const error = await netError(get(url, policy));
      expect(error.code, url).toBe('blocked_address');
      expect(error.message, url).toMatch(/never allowed/);
    }
  });

  it('fails with dns_failed when the name does not resolve or has no addresses', async () => {
    const dns = fakeDns({ 'empty.example.com': [] });
    const missing = await netError(get('https://missing.example.com/', { allowLocalHttp: false, lookup: dns.lookup }));
    expect(missing.code).toBe('dns_failed');
    expect(missing.message).toContain('missing.example.com');
    expect((await netError(get('https://empty.example.com/', { allowLocalHttp: false, lookup: dns.lookup }))).code).toBe('dns_failed');
  });

  it('connects to the address it checked: a second, different DNS answer cannot move the connection', async () => {
    const server = await servers.http(ok());
    // First answer: the test server. Any later answer: 127.0.0.2, where nothing listens.
    const dns = fakeDns({ 'agent.localhost': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const response = await get(`http://agent.localhost:${server.port}/pinned`, { allowLocalHttp: true, lookup: dns.lookup });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(dns.calls).toEqual(['agent.localhost']);
    expect(server.requests[0]?.headers.host).toBe(`agent.localhost:${server.port}`);
  });

  it('falls back between checked addresses of one answer (dual stack), never to an unchecked one', async () => {
    const server = await servers.http(ok());
    const dns = fakeDns({ 'agent.localhost': ['::1', '127.0.0.2', '127.0.0.1'] });
    const response = await get(`http://agent.localhost:${server.port}/`, { allowLocalHttp: true, lookup: dns.lookup });
    expect(response.status).toBe(200);
    expect(dns.calls).toEqual(['agent.localhost']);
  });

  it('lets allowedPrivateHosts reach a private address over https, to the checked address, with the name as TLS server name', async () => {
    // agent.invalid never resolves in real DNS, so only the pinned, checked address can lead to the server.
    // A bare TCP server: it records the ClientHello (SNI is in clear) and hangs up, so TLS fails after connecting.
    const server = await servers.raw((socket) => socket.destroy());
    const url = `https://agent.invalid:${server.port}/`;

    const blocked = await netError(get(url, { allowLocalHttp: false, lookup: fakeDns({ 'agent.invalid': ['127.0.0.1'] }).lookup }));
    expect(blocked.code).toBe('blocked_address');
    expect(server.connections).toBe(0);

    // First answer: the test server. Any later answer: 127.0.0.2, where nothing listens.
    const dns = fakeDns({ 'agent.invalid': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const allowed = await netError(get(url, { allowLocalHttp: false, allowedPrivateHosts: ['agent.invalid'], lookup: dns.lookup }));
    expect(allowed.code).toBe('tls_failed');
    expect(allowed.message).toContain('agent.invalid');
    expect(server.connections).toBe(1);
    expect(server.firstData[0]?.includes('agent.invalid')).toBe(true);
    expect(dns.calls).toEqual(['agent.invalid']);
  });

  it('fails with connect_failed when nothing listens', async () => {
    const port = await closedPort();
    const error = await netError(get(`http://127.0.0.1:${port}/`, { allowLocalHttp: true }));
    expect(error.code).toBe('connect_failed');
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('fails with connect_timeout when DNS never answers', async () => {
    const error = await netError(get('https://slow.example.com/', { allowLocalHttp: false, lookup: () => new Promise(() => undefined) }, { connectMs: 100 }));
    expect(error.code).toBe('connect_timeout');
    expect(error.message).toContain('slow.example.com');
  });

  it('fails with connect_timeout when the TLS handshake never completes', async () => {
    const server = await servers.raw(() => undefined); // accepts, reads the ClientHello, never answers
    const dns = fakeDns({ 'agent.invalid': ['127.0.0.1'] });
    const error = await netError(
      get(`https://agent.invalid:${server.port}/`, { allowLocalHttp: false, allowedPrivateHosts: ['agent.invalid'], lookup: dns.lookup }, { connectMs: 200 }),
    );
    expect(error.code).toBe('connect_timeout');
    expect(server.connections).toBe(1);
  });
});

describe('TLS', () => {
  let hasOpenssl = true;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    hasOpenssl = false;
  }
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  it.skipIf(!hasOpenssl)('refuses a certificate the system does not trust', async () => {
    const dir = await tempDir();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=agent.invalid',
        '-addext',
        'subjectAltName=DNS:agent.invalid',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    let requests = 0;
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      requests++;
      res.end('secret');
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const { port } = server.address() as AddressInfo;
    const dns = fakeDns({ 'agent.invalid': ['127.0.0.1'] });
    const error = await netError(get(`https://agent.invalid:${port}/`, { allowLocalHttp: true, allowedPrivateHosts: ['agent.invalid'], lookup: dns.lookup }));
    expect(error.code).toBe('tls_failed');
    expect(error.message).toContain('not trusted');
    expect(requests).toBe(0);
  });
});
