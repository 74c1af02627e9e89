import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoAuthorizationServer } from '../../../src/main/demo/authorization-server';
import { startTalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';

/** The status a GET with this Host header gets from 127.0.0.1:port (a DNS-rebinding page sends its own name). */
function statusFor(port: string, path: string, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { Host: host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('demo servers refuse a foreign Host (DNS rebinding) with 421', () => {
  it('the Talkie demo server', async () => {
    const server = await startTalkieDemoServer({ timeScale: 0.02 });
    closers.push(() => server.close());
    const { port } = new URL(server.baseUrl);
    const manifest = '/.well-known/talkie.json';
    expect(await statusFor(port, manifest, `attacker.example:${port}`)).toBe(421);
    expect(await statusFor(port, manifest, `127.0.0.1:${Number(port) + 1}`)).toBe(421);
    expect(await statusFor(port, manifest, `127.0.0.1`)).toBe(421);
    expect(await statusFor(port, '/api/talkie/status', `attacker.example:${port}`)).toBe(421);
    expect(await statusFor(port, manifest, `127.0.0.1:${port}`)).toBe(200);
    expect(await statusFor(port, manifest, `localhost:${port}`)).toBe(200);
  });

  it('the demo authorization (sign-in) server', async () => {
    const as = await startDemoAuthorizationServer({ clientId: 'https://client.example/client.json' });
    closers.push(() => as.close());
    const { port } = new URL(as.issuer);
    const metadata = '/.well-known/oauth-authorization-server';
    expect(await statusFor(port, metadata, `attacker.example:${port}`)).toBe(421);
    expect(await statusFor(port, '/token', `attacker.example:${port}`)).toBe(421);
    expect(await statusFor(port, metadata, `127.0.0.1:${Number(port) + 1}`)).toBe(421);
    expect(await statusFor(port, metadata, `127.0.0.1:${port}`)).toBe(200);
  });
});
