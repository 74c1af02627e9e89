import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebShell, type WebShell } from '../../../src/main/webshell/server';
import { encodeWireFrame, maxPageFrameBytes } from '../../../src/shared/ipc/web-shell-protocol';
import { memoryLogger } from '../../support/logger';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const shells: WebShell[] = [];
afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
});

async function startShell(options: { launchCodeTtlMs?: number; sessionGraceMs?: number; maxConnections?: number; idleCloseMs?: number } = {}) {
  const root = await tempDir();
  const rendererDir = join(root, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>AgentDesk</title>');
  await writeFile(join(rendererDir, 'assets', 'app.js'), 'export {}');
  await writeFile(join(root, 'secret.txt'), 'outside the renderer');
  const services = await startTestServices(join(root, 'user-data'));
  const log = memoryLogger();
  const shell = await startWebShell({ rendererDir, services, log, ...options });
  shells.push(shell);
  return { shell, services, log, rendererDir };
}

/**
 * Opens a launch URL as the browser would: the answer's status, where it sends the page, any
 * cookie it sets, and the session secret the redirect's fragment carries (`/#session=…`).
 */
async function launch(url: string): Promise<{ status: number; location: unknown; setCookie: string[] | undefined; secret: string | undefined }> {
  const response = await get(url);
  const location = response.headers.location;
  const secret = typeof location === 'string' ? /^\/#session=(.+)$/.exec(location)?.[1] : undefined;
  return { status: response.status, location, setCookie: response.headers['set-cookie'] as string[] | undefined, secret };
}

/**
 * A browser as far as cookies on 127.0.0.1 go: they ignore the port, so every cookie any port set
 * is sent to every port (Path aside, which only narrows it to a path every port can serve).
 */
function portBlindBrowser() {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const visit = async (url: string) => {
    const response = await get(url, jar.size > 0 ? { Cookie: cookie() } : {});
    for (const line of (response.headers['set-cookie'] as string[] | undefined) ?? []) {
      const pair = line.split(';')[0] ?? '';
      jar.set(pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim());
    }
    return response;
  };
  return {
    get: visit,
    cookie,
    /** Opens a launch URL: the secret the redirect's fragment carries (the bridge keeps it in the tab's sessionStorage). */
    launch: async (url: string) => {
      const { headers } = await visit(url);
      return { secret: typeof headers.location === 'string' ? /^\/#session=(.+)$/.exec(headers.location)?.[1] : undefined };
    },
  };
}

/** What the page's bridge offers on the upgrade: the fixed protocol name and, with a session, its secret. */
const protocolsOf = (secret: string | undefined) => (secret === undefined ? ['agentdesk'] : ['agentdesk', `agentdesk.session.${secret}`]);

/** A page that opened the launch URL and connected with its session secret. */
async function launchedPage(shell: WebShell) {
  const { secret } = await launch(shell.newLaunchUrl());
  const page = connect(shell, { Origin: shell.origin }, protocolsOf(secret));
  await page.next((frame) => frame.t === 'ready');
  return Object.assign(page, { secret });
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A plain TCP connection to the shell, as a flooding program would open: it writes `first` once
 * connected and then `trickle` every 100 ms; `closed` resolves when the shell closes it.
 */
function rawConnection(shell: WebShell, first = '', trickle = '') {
  const socket = connectTcp(Number(new URL(shell.origin).port), '127.0.0.1');
  let closedYet = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const opened = new Promise<void>((resolve) =>
    socket.once('connect', () => {
      if (first) socket.write(first);
      if (trickle) timer = setInterval(() => socket.write(trickle), 100);
      resolve();
    }),
  );
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      closedYet = true;
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  // Reads (and drops) what comes, so that it sees the shell close it.
  socket.resume();
  return { socket, opened, closed, isClosed: () => closedYet };
}

/** Resolves what `promise` resolves, or fails saying `what` did not happen within `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens a socket (offering `protocols`) and collects frames; resolves the close code when it closes. */
function connect(shell: WebShell, headers: Record<string, string> = { Origin: shell.origin }, protocols: string[] = [], path = '/ipc') {
  const ws = new WebSocket(`${shell.origin.replace('http', 'ws')}${path}`, protocols, { headers });
  const frames: Record<string, unknown>[] = [];
  let closeReason = '';
  const closed = new Promise<number>((resolve) =>
    ws.on('close', (code, reason) => {
      closeReason = reason.toString();
      resolve(code);
    }),
  );
  const refused = new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  ws.on('error', () => undefined);
  ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const opened = new Promise<void>((resolve) => ws.on('open', () => resolve()));
  const next = async (predicate: (frame: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const found = frames.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no such frame; got ${JSON.stringify(frames)}`);
  };
  return { ws, frames, closed, refused, opened, next, reason: () => closeReason };
}

describe('the web shell', () => {
  it('listens on 127.0.0.1 only and serves the page with its security headers', async () => {
    const { shell } = await startShell();
    expect(shell.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await get(`${shell.origin}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>AgentDesk</title>');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(`${shell.origin}/assets/app.js`)).headers['content-type']).toContain('javascript');
  });

  it('serves nothing outside the built renderer', async () => {
    const { shell } = await startShell();
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/.hidden', '/nope.js', '/assets/%00']) {
      const response = await get(`${shell.origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('outside the renderer');
    }
  });

  it('refuses requests for another host name (DNS rebinding)', async () => {
    const { shell } = await startShell();
    expect((await get(`${shell.origin}/`, { Host: 'evil.example:80' })).status).toBe(421);
  });

  it('refuses sockets from another origin, without an origin, or for another host', async () => {
    const { shell } = await startShell();
    const attempts: Record<string, string>[] = [{ Origin: 'http://evil.example' }, {}, { Origin: shell.origin, Host: 'evil.example' }];
    for (const headers of attempts) {
      expect(await connect(shell, headers).refused).toBe(403);
    }
  });

  it('exchanges a launch code once, within its time, for a session secret in the redirect’s fragment, and sets no cookie', async () => {
    const { shell, log } = await startShell();
    expect(shell.launchUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/launch\?code=[A-Za-z0-9_-]{43}$/);
    const first = await launch(shell.launchUrl);
    expect(first.status).toBe(303);
    // A fragment never travels to any server: the page's bridge moves it into its tab's sessionStorage.
    expect(first.location).toMatch(/^\/#session=[A-Za-z0-9_-]{43}$/);
    expect(first.setCookie).toBeUndefined();
    // The secret is not the code: reading the URL later (history, a process list) gives nothing.
    expect(first.secret).not.toContain(new URL(shell.launchUrl).searchParams.get('code'));
    // A second page or process with the same code gets the page, but no session.
    const second = await launch(shell.launchUrl);
    expect(second).toMatchObject({ status: 303, location: '/', setCookie: undefined, secret: undefined });
    await shell.launched;
    for (const url of [`${shell.origin}/launch`, `${shell.origin}/launch?code=guess`, `${shell.origin}/launch?code=${'A'.repeat(43)}`]) {
      expect(await launch(url), url).toMatchObject({ location: '/', setCookie: undefined });
    }
    expect(log.lines.join('\n')).not.toContain(first.secret);
  });

  it('refuses a launch code after its time is up', async () => {
    const { shell } = await startShell({ launchCodeTtlMs: 0 });
    expect((await launch(shell.launchUrl)).secret).toBeUndefined();
    const fresh = await startShell({ launchCodeTtlMs: 60_000 });
    expect((await launch(fresh.shell.newLaunchUrl())).secret).toBeDefined();
  });

  it('gives a server on another port of 127.0.0.1 nothing usable, and a cookie it plants changes nothing', async () => {
    const { shell, services } = await startShell();
    const port = new URL(shell.origin).port;
    const browser = portBlindBrowser();
    const { secret } = await browser.launch(shell.launchUrl);
    await browser.get(`${shell.origin}/`);
    // Another local user's server, which the same browser visits (a link, a redirect from any site).
    const seen: { url?: string; headers: IncomingHttpHeaders }[] = [];
    const other = createServer((request, response) => {
      seen.push({ url: request.url, headers: request.headers });
      // Then it plants the cookie the shell used to set (Path=/ipc: the shell's socket path).
      response.writeHead(200, request.url === '/plant' ? { 'Set-Cookie': `agentdesk-session-${port}=planted; Path=/ipc` } : {});
      response.end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      for (const path of ['/', '/ipc', '/plant']) await browser.get(`${otherOrigin}${path}`);
      expect(seen).toHaveLength(3);
      for (const { url, headers } of seen) {
        expect(headers.cookie, url).toBeUndefined();
        expect(JSON.stringify(headers), url).not.toContain(secret);
      }
      // With all the browser would send (now the planted cookie too): a forged socket is refused, the page's reload gets in.
      expect(browser.cookie()).toBe(`agentdesk-session-${port}=planted`);
      expect(await connect(shell, { Origin: shell.origin, Cookie: browser.cookie() }, ['agentdesk']).refused).toBe(401);
      const page = connect(shell, { Origin: shell.origin, Cookie: browser.cookie() }, protocolsOf(secret));
      await page.next((frame) => frame.t === 'ready');
      page.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:app.info', payload: {} }));
      expect(await page.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true } });
      // A cookie opens nothing even when it carries the real secret: only the page's own upgrade offer counts.
      expect(await connect(shell, { Origin: shell.origin, Cookie: `agentdesk-session-${port}=${secret}` }, ['agentdesk']).refused).toBe(401);
      expect(services.opened).toEqual([]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('refuses, at the upgrade, every socket without the session secret, and answers the page with the fixed protocol name only', async () => {
    const { shell, services } = await startShell();
    const { secret } = await launch(shell.launchUrl);
    const attempts: [Record<string, string>, string[], string?][] = [
      // A local process forging Origin and Host, with no secret, a guessed one, or the secret offered the wrong way.
      [{ Origin: shell.origin }, []],
      [{ Origin: shell.origin }, ['agentdesk']],
      [{ Origin: shell.origin }, ['agentdesk', `agentdesk.session.${'A'.repeat(43)}`]],
      [{ Origin: shell.origin }, [`agentdesk.session.${secret}`]],
      [{ Origin: shell.origin }, ['agentdesk', `agentdesk.session.${secret?.slice(0, 42)}`]],
      [{ Origin: shell.origin }, ['agentdesk', `${secret}`]],
      [{ Origin: shell.origin, Authorization: `Bearer ${secret}` }, ['agentdesk']],
      [{ Origin: shell.origin }, ['agentdesk'], `/ipc?session=${secret}`],
    ];
    for (const [headers, protocols, path] of attempts)
      expect(await connect(shell, headers, protocols, path).refused, JSON.stringify([headers, protocols, path])).toBe(401);
    // Many at once: each is refused at once, none is left waiting.
    const many = Array.from({ length: 50 }, () => connect(shell, { Origin: shell.origin }, ['agentdesk']));
    expect(await Promise.all(many.map((attempt) => attempt.refused))).toEqual(many.map(() => 401));
    // Another origin with the right secret does not get in either; the real page does.
    expect(await connect(shell, { Origin: 'http://evil.example' }, protocolsOf(secret)).refused).toBe(403);
    const page = connect(shell, { Origin: shell.origin }, protocolsOf(secret));
    await page.next((frame) => frame.t === 'ready');
    expect(page.ws.protocol).toBe('agentdesk');
    page.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:agents.list', payload: {} }));
    expect(await page.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true } });
    expect(services.opened).toEqual([]);
  });

  it('keeps one page per session: a newer socket (a reload, a duplicated tab) replaces the older one', async () => {
    const { shell } = await startShell();
    const { secret } = await launch(shell.launchUrl);
    const older = connect(shell, { Origin: shell.origin }, protocolsOf(secret));
    await older.next((frame) => frame.t === 'ready');
    const newer = connect(shell, { Origin: shell.origin }, protocolsOf(secret));
    await newer.next((frame) => frame.t === 'ready');
    expect(await older.closed).toBe(4409);
    newer.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:app.info', payload: {} }));
    expect(await newer.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true } });
  });

  it('ends a session once no page has been connected to it for the grace time, and never while one is', async () => {
    const graceMs = 400;
    const { shell, log } = await startShell({ sessionGraceMs: graceMs });
    // Launched, but no page came.
    const unused = await launch(shell.newLaunchUrl());
    // A page that stays connected longer than the grace, then reloads (its socket closes, a new one comes at once).
    const page = await launchedPage(shell);
    await sleep(graceMs * 2);
    page.ws.close();
    await page.closed;
    const reloaded = connect(shell, { Origin: shell.origin }, protocolsOf(page.secret));
    await reloaded.next((frame) => frame.t === 'ready');
    expect(await connect(shell, { Origin: shell.origin }, protocolsOf(unused.secret)).refused).toBe(401);
    expect(log.lines.join('\n')).toContain('a session ended: no page was connected to it');
    // The page closes for good: after the grace its secret opens nothing.
    reloaded.ws.close();
    await reloaded.closed;
    await sleep(graceMs * 2);
    expect(await connect(shell, { Origin: shell.origin }, protocolsOf(page.secret)).refused).toBe(401);
  });

  it('gives the page that opened the launch URL the contract: calls, validation and events', async () => {
    const { shell } = await startShell();
    const page = await launchedPage(shell);

    page.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:agents.add', payload: { address: 'crm.example.com' } }));
    expect(await page.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true, value: { agent: { display: 'crm.example.com' } } } });
    expect(await page.next((frame) => frame.t === 'event')).toMatchObject({ channel: 'agentdesk:event:agents.changed' });

    page.ws.send(JSON.stringify({ t: 'call', id: 2, channel: 'agentdesk:agents.add', payload: { address: 7 } }));
    expect(await page.next((frame) => frame.id === 2)).toMatchObject({ result: { ok: false, error: { code: 'invalid_request' } } });

    page.ws.send(JSON.stringify({ t: 'call', id: 3, channel: 'agentdesk:shell.exec', payload: {} }));
    page.ws.send(JSON.stringify({ t: 'call', id: 4, channel: 'agentdesk:app.info', payload: {} }));
    expect(await page.next((frame) => frame.id === 4)).toMatchObject({ result: { ok: true, value: { shell: 'web' } } });
    expect(await page.next((frame) => frame.id === 3)).toMatchObject({ result: { ok: false, error: { code: 'unknown_channel' } } });
  });

  it('takes a gesture method only from a call whose frame reports the page’s user activation', async () => {
    const { shell, services } = await startShell();
    const page = await launchedPage(shell);
    const open = { channel: 'agentdesk:external.open', payload: { url: 'https://example.com/' } };
    page.ws.send(JSON.stringify({ t: 'call', id: 1, ...open }));
    page.ws.send(JSON.stringify({ t: 'call', id: 2, ...open, activation: false }));
    page.ws.send(JSON.stringify({ t: 'call', id: 3, ...open, activation: true }));
    for (const id of [1, 2]) expect(await page.next((frame) => frame.id === id)).toMatchObject({ result: { ok: false, error: { code: 'no_user_gesture' } } });
    expect(await page.next((frame) => frame.id === 3)).toMatchObject({ result: { ok: true, value: { opened: true } } });
    expect(services.opened).toEqual(['https://example.com/']);
    // The activation was for that call only.
    page.ws.send(JSON.stringify({ t: 'call', id: 4, ...open }));
    expect(await page.next((frame) => frame.id === 4)).toMatchObject({ result: { ok: false, error: { code: 'no_user_gesture' } } });
  });

  it('closes the socket on a malformed binary or text frame, saying why', async () => {
    const { shell, log } = await startShell();
    const binary = await launchedPage(shell);
    binary.ws.send(Buffer.from([1, 2, 3]));
    expect(await binary.closed).toBe(4400);
    expect(binary.reason()).toBe('bad frame: a binary frame of 3 bytes, shorter than its header');
    expect(log.lines.join('\n')).toContain('closed the page socket: a binary frame of 3 bytes, shorter than its header');
    const garbage = await launchedPage(shell);
    garbage.ws.send('{"t":');
    expect(await garbage.closed).toBe(4400);
    const hello = await launchedPage(shell);
    hello.ws.send(JSON.stringify({ t: 'hello', secret: 'x' }));
    expect(await hello.closed).toBe(4400);
  });

  it('takes a call carrying bytes as one binary frame: the bytes reach the dispatcher and the service as bytes', async () => {
    const { shell, services } = await startShell();
    const page = await launchedPage(shell);
    const rgba = new Uint8Array(64 * 48 * 4).fill(180);
    const frame = encodeWireFrame({ t: 'call', id: 1, channel: 'agentdesk:photo.stage', payload: { kind: 'frame', width: 64, height: 48, rgba } });
    expect(frame).toBeInstanceOf(Uint8Array);
    page.ws.send(frame);
    expect(await page.next((entry) => entry.id === 1)).toMatchObject({ result: { ok: true, value: { pixelWidth: 64, pixelHeight: 48 } } });
    expect(services.photos.size).toBe(1);
    // A text frame cannot carry bytes: a reference in JSON text is only an object, which the contract refuses.
    page.ws.send(JSON.stringify({ t: 'call', id: 2, channel: 'agentdesk:photo.stage', payload: { kind: 'file', bytes: { $bytes: 0 } } }));
    expect(await page.next((entry) => entry.id === 2)).toMatchObject({ result: { ok: false, error: { code: 'invalid_request', path: '/bytes' } } });
    // So can base64 no more.
    page.ws.send(JSON.stringify({ t: 'call', id: 3, channel: 'agentdesk:photo.stage', payload: { kind: 'frame', width: 1, height: 1, rgba: 'AAAAAA==' } }));
    expect(await page.next((entry) => entry.id === 3)).toMatchObject({ result: { ok: false, error: { code: 'invalid_request', path: '/rgba' } } });
  });

  it('checks every declared length of a binary frame before use, and a refused frame breaks nothing for the next page', async () => {
    const { shell } = await startShell();
    const valid = encodeWireFrame({
      t: 'call',
      id: 1,
      channel: 'agentdesk:photo.stage',
      payload: { kind: 'file', bytes: Uint8Array.of(1, 2, 3) },
    }) as Uint8Array;
    const lying = Uint8Array.from(valid);
    new DataView(lying.buffer).setUint32(4, 0xfffffff0);
    const cases: [Uint8Array, string][] = [
      [lying, `bad frame: a binary frame of ${valid.byteLength} bytes whose header declares ${valid.byteLength - 3 + 0xfffffff0}`],
      [valid.subarray(0, valid.byteLength - 1), `bad frame: a binary frame of ${valid.byteLength - 1} bytes whose header declares ${valid.byteLength}`],
      [encodeWireFrame({ t: 'hello', bytes: Uint8Array.of(1) }) as Uint8Array, 'bad frame: not a call of the web shell protocol'],
    ];
    for (const [data, reason] of cases) {
      const page = await launchedPage(shell);
      page.ws.send(data);
      expect(await page.closed).toBe(4400);
      expect(page.reason()).toBe(reason);
    }
    const next = await launchedPage(shell);
    next.ws.send(JSON.stringify({ t: 'call', id: 9, channel: 'agentdesk:app.info', payload: {} }));
    expect(await next.next((entry) => entry.id === 9)).toMatchObject({ result: { ok: true } });
  });

  it('refuses a frame over the size limit at the socket (ws maxPayload) before reading it', async () => {
    const { shell } = await startShell();
    const page = await launchedPage(shell);
    page.ws.send(new Uint8Array(maxPageFrameBytes + 1));
    expect(await page.closed).toBe(1009);
  });

  it(
    'closes connections that send no whole request, trickle one or do not read their answer within about a second, while the page loads and its calls work',
    { timeout: 20_000 },
    async () => {
      const { shell, rendererDir } = await startShell();
      // Larger than what the kernel buffers on loopback: a client that does not read keeps most of it unsent.
      const bigBytes = 32 * 1024 * 1024;
      await writeFile(join(rendererDir, 'assets', 'big.bin'), Buffer.alloc(bigBytes, 1));
      const page = await launchedPage(shell);
      const started = performance.now();
      const held = [
        ...Array.from({ length: 40 }, () => rawConnection(shell)),
        ...Array.from({ length: 10 }, () => rawConnection(shell, 'GET / HTTP/1.1\r\n', 'X-Slow: 1\r\n')),
        ...Array.from({ length: 10 }, () =>
          rawConnection(shell, `GET /upgrade-me HTTP/1.1\r\nHost: ${new URL(shell.origin).host}\r\nConnection: keep-alive\r\n`),
        ),
      ];
      const notReading = rawConnection(shell, `GET /assets/big.bin HTTP/1.1\r\nHost: ${new URL(shell.origin).host}\r\n\r\n`);
      notReading.socket.pause();
      await Promise.all([...held, notReading].map((connection) => connection.opened));
      // Meanwhile the page loads, its calls are answered, and a new page can launch.
      expect((await get(`${shell.origin}/`)).status).toBe(200);
      page.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:app.info', payload: {} }));
      expect(await page.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true } });
      await launchedPage(shell);
      await within(3000, Promise.all(held.map((connection) => connection.closed)), 'the held connections closed');
      const closedAfterMs = performance.now() - started;
      // The client that did not read: when it reads at last, the shell has given up on it long before the end of its answer.
      await sleep(3000);
      let received = 0;
      notReading.socket.on('data', (chunk: Buffer) => (received += chunk.length));
      notReading.socket.resume();
      await within(5000, notReading.closed, 'the connection that did not read closed');
      expect(received, `bytes the client that did not read got of ${bigBytes}`).toBeLessThan(bigBytes);
      // The page's own socket sat idle through all that, and still answers.
      page.ws.send(JSON.stringify({ t: 'call', id: 2, channel: 'agentdesk:app.info', payload: {} }));
      expect(await page.next((frame) => frame.id === 2), `held connections closed after ${Math.round(closedAfterMs)} ms`).toMatchObject({
        result: { ok: true },
      });
    },
  );

  it('keeps at most maxConnections connections besides the pages: one more closes the oldest, never a page', async () => {
    // A long idle bound, so that only the cap closes anything here.
    const { shell } = await startShell({ maxConnections: 8, idleCloseMs: 60_000 });
    const page = await launchedPage(shell);
    const first: ReturnType<typeof rawConnection>[] = [];
    for (let i = 0; i < 8; i++) {
      first.push(rawConnection(shell));
      await first[i]?.opened;
    }
    // The page still loads: its connection is the ninth, and the oldest goes.
    expect((await get(`${shell.origin}/`)).status).toBe(200);
    await within(3000, first[0]!.closed, 'the oldest connection closed');
    expect(first.map((connection) => connection.isClosed())).toEqual([true, false, false, false, false, false, false, false]);
    // Eight more: each closes the oldest left, the page's socket is never one of them.
    const second: ReturnType<typeof rawConnection>[] = [];
    for (let i = 0; i < 8; i++) {
      second.push(rawConnection(shell));
      await second[i]?.opened;
    }
    await within(3000, Promise.all(first.map((connection) => connection.closed)), 'the first eight closed');
    expect(second.map((connection) => connection.isClosed())).toEqual(second.map(() => false));
    page.ws.send(JSON.stringify({ t: 'call', id: 1, channel: 'agentdesk:app.info', payload: {} }));
    expect(await page.next((frame) => frame.id === 1)).toMatchObject({ result: { ok: true } });
    for (const connection of second) connection.socket.destroy();
  });
});
