import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateTimings, type ConversationActivity, type UpdateSettings } from '../../../src/shared/updates/update-rules';
import { UpdateController, type UpdateEngine } from '../../../src/main/updates/update-controller';
import { channelFileName, parseChannelFile, verifiesWith } from '../../../src/main/updates/update-feed';
import { startServer, type TestServer } from '../../support/http-server';
import { memoryLogger } from '../../support/logger';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The update decisions (issue #28) under Node against a feed on 127.0.0.1: what is refused (an
 * unsigned or wrongly signed feed, a downgrade, a file on another host, a redirect away, a downloaded
 * file that is not the signed one, an updater that read something else), when the feed is read and
 * when an update is installed (only at the policy's moment, never during a conversation). The engine
 * here does what electron-updater's generic provider does (read the channel file, download the file
 * it names); the real one is src/main/electron/updater.ts, which only Electron can load.
 */
const tempDir = useTempDirs();
const current = '1.0.0';
const system = { platform: 'linux' as const, arch: 'x64', installer: 'AppImage' as const };

function keys(): { publicKey: string; privateKey: KeyObject } {
  const pair = generateKeyPairSync('ed25519');
  return { publicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey: pair.privateKey };
}

const sha512 = (bytes: Uint8Array) => createHash('sha512').update(bytes).digest('base64');

/** electron-builder's channel file for one release. */
function channelFile(version: string, file: { url: string; bytes: Uint8Array; size?: number }): string {
  return [
    `version: ${version}`,
    'files:',
    `  - url: ${file.url}`,
    `    sha512: ${sha512(file.bytes)}`,
    `    size: ${file.size ?? file.bytes.length}`,
    '    blockMapSize: 1234',
    `path: ${file.url}`,
    `sha512: ${sha512(file.bytes)}`,
    "releaseDate: '2026-12-05T10:00:00.000Z'",
    'releaseNotes: |-',
    '  Fixes: the kiosk',
    '  comes back faster.',
    '',
  ].join('\n');
}

interface Feed {
  server: TestServer;
  /** The policy's feed folder. */
  url: string;
  files: Map<string, Uint8Array | { redirect: string }>;
  /** Publishes a release: its channel file (signed with `signer`, unless null) and its installer. */
  publish(version: string, options?: { signer?: KeyObject | null; installer?: Uint8Array; served?: Uint8Array; fileUrl?: string; size?: number }): Uint8Array;
}

async function startFeed(defaultSigner: KeyObject): Promise<Feed> {
  const files = new Map<string, Uint8Array | { redirect: string }>();
  const server = await startServer((request, response) => {
    const body = files.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (body === undefined) return void response.writeHead(404).end();
    if ('redirect' in body) return void response.writeHead(302, { location: body.redirect }).end();
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(Buffer.from(body));
  });
  const feed: Feed = {
    server,
    url: `${server.origin}/feed/`,
    files,
    publish(version, options = {}) {
      const installer = options.installer ?? new TextEncoder().encode(`AgentDesk ${version} AppImage ${'x'.repeat(2000)}`);
      const name = `AgentDesk-${version}.AppImage`;
      const text = new TextEncoder().encode(
        channelFile(version, { url: options.fileUrl ?? name, bytes: installer, ...(options.size === undefined ? {} : { size: options.size }) }),
      );
      const channel = `/feed/${channelFileName('latest', 'linux', 'x64')}`;
      files.set(channel, text);
      const signer = options.signer === undefined ? defaultSigner : options.signer;
      if (signer) files.set(`${channel}.sig`, new TextEncoder().encode(`${sign(null, text, signer).toString('base64')}\n`));
      else files.delete(`${channel}.sig`);
      files.set(`/feed/${name}`, options.served ?? installer);
      return installer;
    },
  };
  return feed;
}

/** What electron-updater does for AgentDesk: read the channel file, download the file it names; installs recorded. */
function nodeEngine(folder: string, overrides: Partial<UpdateEngine> = {}) {
  const calls: string[] = [];
  let found: { url: string; files: { url: string; sha512: string }[] } | undefined;
  const engine: UpdateEngine = {
    async check(feed) {
      calls.push('check');
      const base = feed.url.endsWith('/') ? feed.url : `${feed.url}/`;
      const response = await fetch(new URL(channelFileName(feed.channel, 'linux', 'x64'), base));
      if (!response.ok) return undefined;
      const info = parseChannelFile(await response.text());
      found = { url: base, files: info.files };
      return info;
    },
    async download() {
      calls.push('download');
      const file = found!.files.find((candidate) => candidate.url.endsWith('.AppImage'))!;
      const response = await fetch(new URL(file.url, found!.url));
      const path = join(folder, 'pending.AppImage');
      await writeFile(path, new Uint8Array(await response.arrayBuffer()));
      return path;
    },
    installNow: () => void calls.push('installNow'),
    installOnQuit: (enabled) => void calls.push(`installOnQuit(${enabled})`),
    ...overrides,
  };
  return { engine, calls };
}

interface Setup {
  feed: Feed;
  controller: UpdateController;
  calls: string[];
  timers: { ms: number; run: () => void; cancelled: boolean }[];
  activity: ConversationActivity;
  clock: { now: Date };
  /** Where the engine downloads to. */
  folder: string;
}

async function setup(
  options: {
    install?: UpdateSettings['install'];
    window?: UpdateSettings['window'];
    engine?: Partial<UpdateEngine>;
    publicKey?: string;
    url?: (feed: Feed) => string;
  } = {},
): Promise<Setup & { privateKey: KeyObject }> {
  const { publicKey, privateKey } = keys();
  const feed = await startFeed(privateKey);
  const folder = await tempDir();
  const { engine, calls } = nodeEngine(folder, options.engine);
  const timers: Setup['timers'] = [];
  const activity: ConversationActivity = { busy: false, lastActivityAt: undefined };
  const clock = { now: new Date(2026, 11, 5, 3, 0, 0) };
  const settings: UpdateSettings = {
    url: options.url?.(feed) ?? feed.url,
    publicKey: options.publicKey ?? publicKey,
    channel: 'latest',
    install: options.install ?? 'on-quit',
    ...(options.window ? { window: options.window } : {}),
  };
  const controller = new UpdateController({
    settings,
    currentVersion: current,
    system,
    engine,
    activity: () => activity,
    log: memoryLogger(),
    now: () => clock.now,
    setTimer: (run, ms) => {
      const timer = { ms, run, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
  });
  return { feed, controller, calls, timers, activity, clock, privateKey, folder };
}

describe('what the update check refuses', () => {
  it('takes a newer release from the signed feed, downloads it and checks it, then waits for its moment', async () => {
    const { feed, controller, calls } = await setup();
    feed.publish('1.1.0');
    expect(await controller.checkNow()).toMatchObject({ phase: 'ready', version: '1.1.0' });
    expect(calls).toEqual(['check', 'download', 'installOnQuit(true)']);
    // The feed was read by AgentDesk (channel file and signature) and by the updater, and the file once.
    expect(feed.server.requests.map((request) => request.path)).toEqual([
      '/feed/latest-linux.yml',
      '/feed/latest-linux.yml.sig',
      '/feed/latest-linux.yml',
      '/feed/AgentDesk-1.1.0.AppImage',
    ]);
  });

  it('refuses an unsigned feed (no .sig), before the updater reads anything', async () => {
    const { feed, controller, calls } = await setup();
    feed.publish('1.1.0', { signer: null });
    expect(await controller.checkNow()).toMatchObject({
      phase: 'refused',
      refusal: 'unsigned',
      problem: expect.stringContaining('has no signature beside it (latest-linux.yml.sig)'),
    });
    expect(calls).toEqual([]);
  });

  it('refuses a feed signed with another key than the policy names', async () => {
    const { feed, controller, calls } = await setup();
    feed.publish('1.1.0', { signer: keys().privateKey });
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'bad_signature' });
    expect(calls).toEqual([]);
  });

  it('refuses a channel file changed after it was signed', async () => {
    const { feed, controller } = await setup();
    feed.publish('1.1.0');
    const channel = '/feed/latest-linux.yml';
    feed.files.set(
      channel,
      new TextEncoder().encode(new TextDecoder().decode(feed.files.get(channel) as Uint8Array).replace('version: 1.1.0', 'version: 1.2.0')),
    );
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'bad_signature' });
  });

  it('refuses a downgrade, and takes the same version as up to date', async () => {
    const { feed, controller, calls } = await setup();
    feed.publish('0.9.0');
    expect(await controller.checkNow()).toMatchObject({
      phase: 'refused',
      refusal: 'downgrade',
      problem: 'the feed offers 0.9.0, older than the running 1.0.0: a downgrade is never installed',
    });
    feed.publish('1.0.0');
    expect(await controller.checkNow()).toMatchObject({ phase: 'idle' });
    // A pre-release of the running version is older too.
    feed.publish('1.0.0-beta.3');
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'downgrade' });
    expect(calls).toEqual([]);
  });

  it("refuses a signed feed that names a file on another host than the policy's", async () => {
    const { feed, controller, calls } = await setup();
    // The same machine under another name is another host: the policy names 127.0.0.1.
    feed.publish('1.1.0', { fileUrl: `http://localhost:${new URL(feed.url).port}/feed/AgentDesk-1.1.0.AppImage` });
    expect(await controller.checkNow()).toMatchObject({
      phase: 'refused',
      refusal: 'other_host',
      problem: expect.stringContaining(`the feed names http://localhost:${new URL(feed.url).port}, another host than the policy's ${feed.server.origin}`),
    });
    expect(calls).toEqual([]);
  });

  it('refuses a feed that redirects elsewhere (no redirect is followed), and says so when it cannot be read', async () => {
    const { feed, controller } = await setup();
    feed.publish('1.1.0');
    const other = await startServer((_request, response) => void response.writeHead(200).end('version: 9.9.9'));
    feed.files.set('/feed/latest-linux.yml', { redirect: `${other.origin}/latest-linux.yml` });
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'other_host' });
    expect(other.requests).toEqual([]);
    feed.files.delete('/feed/latest-linux.yml');
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'unreachable', problem: expect.stringContaining('answered 404') });
  });

  it('refuses a downloaded file that is not the signed one (other bytes, or another size), and never lets it install', async () => {
    const { feed, controller, calls } = await setup();
    // The same size, one byte changed: only the SHA-512 tells.
    const installer = new TextEncoder().encode(`AgentDesk 1.1.0 ${'x'.repeat(100)}`);
    const swapped = Uint8Array.from(installer);
    swapped[50]! ^= 1;
    feed.publish('1.1.0', { installer, served: swapped });
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'mismatched', problem: expect.stringContaining('its SHA-512 differs') });
    expect(calls).toEqual(['check', 'download']);
    const sized = await setup();
    sized.feed.publish('1.1.0', { size: 5 });
    expect(await sized.controller.checkNow()).toMatchObject({
      phase: 'refused',
      refusal: 'mismatched',
      problem: expect.stringContaining('the signed feed says 5'),
    });
    expect(await sized.controller.moment('quit')).toBe(false);
  });

  it('refuses when the updater read another release than the signed feed offers', async () => {
    const { feed, controller, calls } = await setup({ engine: { check: async () => ({ version: '6.6.6', files: [{ url: 'evil.AppImage', sha512: 'x' }] }) } });
    feed.publish('1.1.0');
    expect(await controller.checkNow()).toMatchObject({ phase: 'refused', refusal: 'updater_disagrees' });
    expect(calls).toEqual([]);
  });

  it('refuses at the install moment a file changed in the cache since it was checked', async () => {
    const { feed, controller, calls, folder } = await setup({ install: 'idle-reset' });
    feed.publish('1.1.0');
    expect(await controller.checkNow()).toMatchObject({ phase: 'ready' });
    const cached = await readFile(join(folder, 'pending.AppImage'));
    cached[10]! ^= 1;
    await writeFile(join(folder, 'pending.AppImage'), cached);
    expect(await controller.moment('idle-reset')).toBe(false);
    expect(controller.state()).toMatchObject({ phase: 'refused', refusal: 'mismatched' });
    expect(calls).not.toContain('installNow');
  });
});

describe('when an update is installed', () => {
  it('on-quit: only as AgentDesk quits (the updater installs it then), never at a tick or a reset', async () => {
    const { feed, controller, calls } = await setup({ install: 'on-quit' });
    feed.publish('1.1.0');
    await controller.checkNow();
    expect(await controller.moment('tick')).toBe(false);
    expect(await controller.moment('idle-reset')).toBe(false);
    expect(await controller.moment('quit')).toBe(true);
    expect(calls).toEqual(['check', 'download', 'installOnQuit(true)']);
  });

  it('idle-reset: right after a kiosk reset, not if a conversation started again, never at another moment', async () => {
    const { feed, controller, calls, activity } = await setup({ install: 'idle-reset' });
    feed.publish('1.1.0');
    await controller.checkNow();
    expect(calls).toEqual(['check', 'download']);
    expect(await controller.moment('tick')).toBe(false);
    activity.busy = true;
    expect(await controller.moment('idle-reset')).toBe(false);
    expect(controller.state()).toMatchObject({ phase: 'ready', waiting: 'a conversation started again during the reset' });
    activity.busy = false;
    expect(await controller.moment('idle-reset')).toBe(true);
    expect(calls).toEqual(['check', 'download', 'installNow']);
    expect(controller.state()).toMatchObject({ phase: 'installing', version: '1.1.0' });
  });

  it('maintenance-window: inside the window, once the conversations have been quiet 10 minutes, checked every minute', async () => {
    const { feed, controller, calls, activity, clock, timers } = await setup({ install: 'maintenance-window', window: { start: 23 * 60, end: 5 * 60 } });
    feed.publish('1.1.0');
    clock.now = new Date(2026, 11, 5, 14, 0, 0);
    await controller.checkNow();
    const tick = timers.find((timer) => timer.ms === updateTimings.tickMs && !timer.cancelled)!;
    expect(tick).toBeDefined();
    expect(await controller.moment('tick')).toBe(false);
    expect(controller.state().waiting).toBe('outside the maintenance window');
    clock.now = new Date(2026, 11, 6, 2, 0, 0);
    activity.busy = true;
    expect(await controller.moment('tick')).toBe(false);
    expect(controller.state().waiting).toBe('a conversation is going on');
    activity.busy = false;
    activity.lastActivityAt = clock.now.getTime() - 5 * 60_000;
    expect(await controller.moment('tick')).toBe(false);
    expect(controller.state().waiting).toBe('a conversation was active in the last 10 minutes');
    activity.lastActivityAt = clock.now.getTime() - 11 * 60_000;
    expect(await controller.moment('idle-reset')).toBe(false);
    expect(calls).not.toContain('installNow');
    tick.run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toContain('installNow');
  });
});

describe('when the feed is read', () => {
  it('a while after start, then every few hours; sooner after a failure; not while an update waits', async () => {
    const { feed, controller, timers } = await setup({ install: 'idle-reset' });
    controller.start();
    expect(timers.map((timer) => timer.ms)).toEqual([updateTimings.firstCheckMs]);
    feed.publish('1.0.0');
    timers[0]!.run();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(controller.state()).toMatchObject({ phase: 'idle', lastCheckAt: expect.any(String) });
    expect(timers.at(-1)).toMatchObject({ ms: updateTimings.everyMs, cancelled: false });
    const fails = await setup({ engine: { download: async () => Promise.reject(new Error('disk full')) } });
    fails.feed.publish('1.1.0');
    expect(await fails.controller.checkNow()).toMatchObject({ phase: 'failed', problem: 'disk full' });
    expect(fails.timers.at(-1)).toMatchObject({ ms: updateTimings.retryMs, cancelled: false });
    feed.publish('1.1.0');
    await controller.checkNow();
    expect(controller.state().phase).toBe('ready');
    expect(timers.filter((timer) => !timer.cancelled && timer.ms !== updateTimings.tickMs)).toEqual([]);
  });
});

describe("the feed's signature", () => {
  const openssl = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  const missing =
    openssl.status === 0 && /OpenSSL 3/.test(openssl.stdout) ? undefined : `OpenSSL 3 is not available (${openssl.error?.message ?? openssl.stdout.trim()})`;
  if (missing) console.log(`the admin guide's openssl commands were not run: ${missing}`);
  it.skipIf(missing !== undefined)("made with the admin guide's openssl commands, verifies with the key it prints", async () => {
    const dir = await tempDir();
    const run = (args: string[], input?: string) => {
      const result = spawnSync('sh', ['-c', args.join(' ')], { cwd: dir, encoding: 'utf8', ...(input === undefined ? {} : { input }) });
      expect(result.status, result.stderr).toBe(0);
      return result.stdout.trim();
    };
    run(['openssl genpkey -algorithm ed25519 -out feed-key.pem']);
    const publicKey = run(['openssl pkey -in feed-key.pem -pubout -outform DER | base64 | tr -d "\\n"']);
    const text = channelFile('1.1.0', { url: 'AgentDesk-1.1.0.AppImage', bytes: new Uint8Array([1]) });
    await writeFile(join(dir, 'latest-linux.yml'), text);
    run(['openssl pkeyutl -sign -inkey feed-key.pem -rawin -in latest-linux.yml | base64 | tr -d "\\n" > latest-linux.yml.sig']);
    const signature = await readFile(join(dir, 'latest-linux.yml.sig'));
    expect(publicKey).toMatch(/^MCowBQYDK2VwAyEA/);
    expect(verifiesWith(publicKey, new TextEncoder().encode(text), signature)).toBe(true);
    expect(verifiesWith(publicKey, new TextEncoder().encode(`${text} `), signature)).toBe(false);
  });
});
