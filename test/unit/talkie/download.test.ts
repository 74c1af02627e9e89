import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTalkieDemoServer, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { safeFileName } from '../../../src/main/talkie/download';
import { json, manifestFor, startServer } from '../../support/http-server';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { tmpfsUnavailable, useFaultyFolders } from '../../support/faulty-folders';

const tempDir = useTempDirs();
const faulty = useFaultyFolders();
if (tmpfsUnavailable() !== undefined) console.warn(`download.test: the full-disk test is skipped: ${tmpfsUnavailable() ?? ''}`);
const demos: TalkieDemoServer[] = [];
afterEach(async () => {
  await Promise.all(demos.splice(0).map((demo) => demo.close()));
});

async function app(folder: string, choose: (name: string) => string | undefined = (name) => join(folder, name)) {
  const progress: unknown[] = [];
  const services = await startTestServices(await tempDir(), {
    demo: {
      start: async () => {
        const demo = await startTalkieDemoServer({ timeScale: 0.02 });
        demos.push(demo);
        return { baseUrl: demo.baseUrl, token: demo.token };
      },
    },
    chooseDownloadPath: async (name) => choose(name),
  });
  services.events.connect((channel, payload) => channel.endsWith('talkie.downloadProgress') && progress.push(payload));
  await services.call('demo.open');
  const view = await services.call('talkie.connect', { agentId: 'builtin-demo' });
  return { services, progress, issuer: view.ok ? view.value.issuer : '' };
}

describe("downloading a card's file (Talkie 1 §6)", () => {
  it('downloads a same-origin file with the token, reports progress, and saves it whole', async () => {
    const folder = await tempDir();
    const { services, progress, issuer } = await app(folder);
    const result = await services.call('talkie.download', {
      agentId: 'builtin-demo',
      downloadId: 'd1',
      url: '/api/files/demo.txt',
      name: '../../etc/demo.txt',
    });
    expect(result).toMatchObject({ ok: true, value: { saved: true, path: join(folder, 'demo.txt') } });
    const bytes = result.ok ? (result.value.bytes ?? 0) : 0;
    expect(bytes).toBeGreaterThan(0);
    expect((await readFile(join(folder, 'demo.txt'))).byteLength).toBe(bytes);
    expect(await readdir(folder)).toEqual(['demo.txt']);
    expect(progress.at(-1)).toMatchObject({ agentId: 'builtin-demo', downloadId: 'd1', received: bytes });
    expect(issuer).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it('saves nothing when the user cancels the save dialog, and never downloads other origins or without a click', async () => {
    const folder = await tempDir();
    const { services } = await app(folder, () => undefined);
    expect(await services.call('talkie.download', { agentId: 'builtin-demo', downloadId: 'd2', url: '/api/files/demo.txt', name: 'demo.txt' })).toEqual({
      ok: true,
      value: { saved: false },
    });
    expect(
      await services.call('talkie.download', { agentId: 'builtin-demo', downloadId: 'd3', url: 'https://elsewhere.example/f.pdf', name: 'f.pdf' }),
    ).toMatchObject({ ok: false, error: { code: 'unsafe_url' } });
    expect(
      await services.call('talkie.download', { agentId: 'builtin-demo', downloadId: 'd4', url: '/api/files/demo.txt', name: 'demo.txt' }, false),
    ).toMatchObject({ ok: false, error: { code: 'no_user_gesture' } });
    expect(await readdir(folder)).toEqual([]);
  });

  it('leaves no partial file when the download fails mid-way', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`));
      res.writeHead(200, { 'Content-Type': 'application/pdf' });
      res.write(Buffer.alloc(300 * 1024, 1), () => res.destroy());
    });
    const folder = await tempDir();
    const services = await startTestServices(await tempDir(), { chooseDownloadPath: async (name) => join(folder, name) });
    await services.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
    const added = await services.call('agents.add', { address: server.url });
    const agentId = added.ok ? added.value.agent.id : '';
    await services.call('talkie.useToken', { agentId, token: 't' });
    expect(await services.call('talkie.download', { agentId, downloadId: 'd5', url: '/files/big.pdf', name: 'big.pdf' })).toMatchObject({ ok: false });
    expect(await readdir(folder)).toEqual([]);
  });

  it.skipIf(tmpfsUnavailable() !== undefined)(
    'a download onto a full disk (a real 16 KiB tmpfs) answers save_failed saying so, and leaves nothing behind',
    async () => {
      const server = await startServer((req, res) => {
        if (req.url === '/.well-known/talkie.json') return json(res, 200, manifestFor(`http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`));
        res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': String(300 * 1024) });
        res.end(Buffer.alloc(300 * 1024, 1));
      });
      const folder = await faulty.tinyDisk(16);
      const services = await startTestServices(await tempDir(), { chooseDownloadPath: async (name) => join(folder, name) });
      await services.call('settings.update', { patch: { developer: { allowLocalHttp: true, allowPastedTokens: true } } });
      const added = await services.call('agents.add', { address: server.url });
      const agentId = added.ok ? added.value.agent.id : '';
      await services.call('talkie.useToken', { agentId, token: 't' });
      expect(await services.call('talkie.download', { agentId, downloadId: 'd6', url: '/files/big.pdf', name: 'big.pdf' })).toEqual({
        ok: false,
        error: { code: 'save_failed', message: `big.pdf could not be saved in ${folder}: the disk is full (ENOSPC). Nothing was left behind.` },
      });
      expect(await readdir(folder)).toEqual([]);
      await services.dispose();
    },
  );
});

describe('safeFileName', () => {
  it.each([
    ['Nabídka N-2026-014.pdf', 'Nabídka N-2026-014.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Windows\\system32\\evil.dll', 'evil.dll'],
    ['.bashrc', 'bashrc'],
    ['a\u0000b\nc.txt', 'a_b_c.txt'],
    ['', 'download'],
    ['...', 'download'],
    // Bidi controls make "invoice\u202Efdp.exe" look like "invoiceexe.pdf": they are removed, the real order shows.
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['a\u061Cb\u200Ec\u200Fd\u202Ae\u202Bf\u202Cg\u202Dh.txt', 'abcdefgh.txt'],
    ['\u2066x\u2067y\u2068z\u2069.txt', 'xyz.txt'],
    ['\u202E.bashrc', 'bashrc'],
    ['\u202E\u2066', 'download'],
    // C1 controls and DEL, like C0, become "_".
    ['a\u0080b\u009Fc\u007Fd.txt', 'a_b_c_d.txt'],
    ['a\u0085b\u2028c\u2029d.txt', 'a_b_c_d.txt'],
  ])('%j → %j', (name, expected) => {
    expect(safeFileName(name)).toBe(expected);
  });
});
