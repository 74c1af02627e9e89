import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bzip2Program, unpackModelArchive, type UnpackProgress } from '../../../src/main/speech/model-archive';
import { speechModelFileName } from '../../../src/main/speech/speech-models';
import { transducerFolder } from '../../support/speech/model-folders';
import { speechServices } from '../../support/speech/speech-services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * A speech model imported from the archive sherpa-onnx publishes it as (#17: "choose a folder or
 * archive"). The archives are made by the system's own tar (GNU tar, bzip2, gzip), as a model's
 * publisher would; the hostile ones (a link, `..`, an absolute path, a bomb) are built the same way.
 */
const tempDir = useTempDirs();
/** 0.1 s of a 440 Hz tone at 16 kHz, as PCM16 bytes. */
const tone = new Uint8Array(new Int16Array(1600).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000))).buffer);
const limits = { maxEntries: 1000, maxFileBytes: 2 * 1024 ** 3, maxTotalBytes: 4 * 1024 ** 3 };
const bombFixture = fileURLToPath(new URL('../../fixtures/speech/bomb-512mib-zeros.tar.bz2', import.meta.url));

function tar(cwd: string, archive: string, ...args: string[]): string {
  const compress = archive.endsWith('.bz2') ? ['-j'] : archive.endsWith('.gz') || archive.endsWith('.tgz') ? ['-z'] : [];
  execFileSync('tar', ['-c', ...compress, '-f', archive, ...args], { cwd });
  return archive;
}

const importer = (userDataDir: string) => speechServices(userDataDir, { withoutEspeak: true });

describe('a speech model archive', () => {
  it('imports a .tar.bz2 as sherpa-onnx publishes it (one folder inside): unpacking with progress, then copying, then the test load; nothing unpacked is left behind', async () => {
    const sources = await tempDir();
    const folder = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano potvrzuji\n', { 'README.md': 'a model' });
    await mkdir(join(folder, 'test_wavs'));
    await writeFile(join(folder, 'test_wavs', '0.wav'), 'RIFF');
    const archive = tar(sources, join(sources, 'sherpa-onnx-streaming-zipformer-cs-2024.tar.bz2'), 'sherpa-onnx-streaming-zipformer-cs-2024');
    const userDataDir = await tempDir();
    const { handlers, progress } = await importer(userDataDir);

    const imported = await handlers['speech.importModel']({ path: archive });
    expect(imported.model).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer-cs-2024', kind: 'transducer', languages: ['cs'] });
    expect(await handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).toEqual({ text: 'ano potvrzuji' });
    const phases = [...new Set(progress.map((p) => p.phase))];
    expect(phases).toEqual(['unpacking', 'copying', 'verifying']);
    const unpacking = progress.filter((p) => p.phase === 'unpacking' && p.bytesTotal > 0);
    expect(unpacking.at(-1)).toEqual({ phase: 'unpacking', bytesDone: unpacking.at(-1)!.bytesTotal, bytesTotal: expect.any(Number) });
    // Only the imported model's own folder stays: the unpacked copy is gone.
    expect((await readdir(join(userDataDir, 'speech-models'))).filter((name) => name.endsWith('.unpack'))).toEqual([]);
    expect(await readdir(join(userDataDir, 'speech-models'))).toHaveLength(1);
  });

  it('takes .tar.gz and a plain .tar, and an archive with no folder of its own is named after the archive', async () => {
    const sources = await tempDir();
    const folder = await transducerFolder(sources, 'model', 'FIXTURE-MODEL hello\n');
    const gz = tar(folder, join(sources, 'sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.gz'), '.');
    const { handlers } = await importer(await tempDir());
    expect((await handlers['speech.importModel']({ path: gz })).model).toMatchObject({
      name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
      languages: ['en'],
    });
    const plain = tar(sources, join(sources, 'model.tar'), 'model');
    expect((await handlers['speech.importModel']({ path: plain })).model).toMatchObject({ name: 'model', kind: 'transducer' });
  });

  it('refuses an archive holding a link, a path outside itself or an absolute path, and leaves the model in use as it was', async () => {
    const sources = await tempDir();
    const userDataDir = await tempDir();
    const { handlers, models } = await importer(userDataDir);
    const good = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano\n');
    await handlers['speech.importModel']({ path: good });

    const linked = await transducerFolder(sources, 'linked', 'FIXTURE-MODEL x\n');
    await symlink('/etc/passwd', join(linked, 'README.md'));
    await expect(handlers['speech.importModel']({ path: tar(sources, join(sources, 'linked.tar.bz2'), 'linked') })).rejects.toMatchObject({
      code: 'speech_model_symlink',
      message: expect.stringContaining('linked/README.md → /etc/passwd'),
    });

    // `..` in a member name (GNU tar keeps it with -P), and an absolute name.
    const outside = await tempDir();
    await mkdir(join(outside, 'in'));
    await writeFile(join(outside, 'evil.txt'), 'x');
    await expect(handlers['speech.importModel']({ path: tar(join(outside, 'in'), join(sources, 'dotdot.tar'), '-P', '../evil.txt') })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('outside its own folder ("../evil.txt")'),
    });
    await expect(handlers['speech.importModel']({ path: tar(outside, join(sources, 'absolute.tar'), '-P', join(outside, 'evil.txt')) })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('outside its own folder'),
    });
    expect(await readdir(outside)).toEqual(['evil.txt', 'in']);

    // A .tar.bz2 cut short: bzip2's own words.
    const whole = await readFile(tar(sources, join(sources, 'whole.tar.bz2'), 'linked/tokens.txt', 'linked/decoder-epoch-99-avg-1.onnx'));
    await writeFile(join(sources, 'cut.tar.bz2'), whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(handlers['speech.importModel']({ path: join(sources, 'cut.tar.bz2') })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringMatching(/could not be unpacked: bzip2: .*(end of file|compressed file ends unexpectedly)/i),
    });

    // Not an archive at all, though named like one.
    await writeFile(join(sources, 'fake.tar.bz2'), 'this is not bzip2');
    await expect(handlers['speech.importModel']({ path: join(sources, 'fake.tar.bz2') })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('could not be unpacked'),
    });

    expect(models.info()?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
    expect((await readdir(join(userDataDir, 'speech-models'))).filter((name) => name.endsWith('.unpack'))).toEqual([]);
  });

  it('stops a decompression bomb at the limit, counted as it is written rather than from the headers, without decoding the rest', async () => {
    const sources = await tempDir();
    const folder = join(sources, 'bomb');
    await mkdir(folder);
    await writeFile(join(folder, 'encoder.onnx'), Buffer.alloc(8 * 1024 * 1024));
    await writeFile(join(folder, 'decoder.onnx'), Buffer.alloc(8 * 1024 * 1024));
    const archive = tar(sources, join(sources, 'bomb.tar.bz2'), 'bomb');
    const seen: UnpackProgress[] = [];
    // bzip2 turns 16 MiB of zeros into a few hundred bytes.
    await expect(
      unpackModelArchive(archive, join(sources, 'out'), { ...limits, maxTotalBytes: 10 * 1024 * 1024 }, (progress) => seen.push(progress)),
    ).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('unpacks to more than 10485760 bytes'),
    });
    // A real bomb (test/fixtures/speech): 512 MiB of zeros in 530 bytes. Decoding runs behind the writes
    // (bzip2 in its own process, behind a pipe), so stopping at 10 MiB leaves the rest undecoded and this
    // process's heap small; a pure-JavaScript decoder that ran ahead held gigabytes before the limit acted.
    const heapBefore = process.memoryUsage().heapUsed;
    let heapMost = heapBefore;
    const watch = setInterval(() => (heapMost = Math.max(heapMost, process.memoryUsage().heapUsed)), 5);
    try {
      await expect(
        unpackModelArchive(bombFixture, join(sources, 'out-big'), { ...limits, maxTotalBytes: 10 * 1024 * 1024 }, () => undefined),
      ).rejects.toMatchObject({
        code: 'speech_model_invalid',
        message: expect.stringContaining('unpacks to more than 10485760 bytes'),
      });
    } finally {
      clearInterval(watch);
    }
    expect(heapMost - heapBefore).toBeLessThan(64 * 1024 * 1024);
    // The unpacked part is gone with the refusal's caller (speech-models removes it); the decompressor is not left running.
    expect(execFileSync('sh', ['-c', 'pgrep -x bzip2 || true']).toString().trim()).toBe('');
    await expect(unpackModelArchive(archive, join(sources, 'out2'), { ...limits, maxFileBytes: 4 * 1024 * 1024 }, () => undefined)).rejects.toMatchObject({
      message: expect.stringContaining('larger than 4194304 bytes'),
    });
    await expect(unpackModelArchive(archive, join(sources, 'out3'), { ...limits, maxEntries: 2 }, () => undefined)).rejects.toMatchObject({
      message: expect.stringContaining('more than 2 entries'),
    });
  });

  it('without a bzip2 program (as on Windows) refuses a .tar.bz2 saying what to do, and still takes .tar.gz', async () => {
    const sources = await tempDir();
    await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-en-2023-06-26', 'FIXTURE-MODEL hello\n');
    const bz2 = tar(sources, join(sources, 'm.tar.bz2'), 'sherpa-onnx-streaming-zipformer-en-2023-06-26');
    const gz = tar(sources, join(sources, 'm.tar.gz'), 'sherpa-onnx-streaming-zipformer-en-2023-06-26');
    const { handlers } = await importer(await tempDir());
    const real = bzip2Program.command;
    bzip2Program.command = join(sources, 'no-such-bzip2');
    try {
      await expect(handlers['speech.importModel']({ path: bz2 })).rejects.toMatchObject({
        code: 'speech_model_invalid',
        message: expect.stringContaining('needs the bzip2 program, which this computer does not have: unpack the archive yourself'),
      });
      expect((await handlers['speech.importModel']({ path: gz })).model).toMatchObject({ languages: ['en'] });
    } finally {
      bzip2Program.command = real;
    }
  });

  it('at the next start, removes what an import cut short left behind (an unpacked archive, a model folder no record names), and keeps the model in use', async () => {
    const sources = await tempDir();
    const userDataDir = await tempDir();
    const first = await importer(userDataDir);
    await first.handlers['speech.importModel']({ path: await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano\n') });
    first.models.dispose();
    const dir = join(userDataDir, 'speech-models');
    const [kept] = await readdir(dir);
    // As a crash in the middle of an import leaves them; and a folder AgentDesk never names so.
    await mkdir(join(dir, '0123456789abcdef.unpack', 'model'), { recursive: true });
    await writeFile(join(dir, '0123456789abcdef.unpack', 'model', 'encoder.onnx'), 'half');
    await mkdir(join(dir, 'fedcba9876543210'));
    await mkdir(join(dir, 'notes'));
    const again = await importer(userDataDir);
    expect((await readdir(dir)).sort()).toEqual([kept, 'notes'].sort());
    expect(again.models.info()?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
    again.models.dispose();
  });

  it('moves what it unpacked into the model folder rather than copying it (one copy on disk), and still hashes every file', async () => {
    const sources = await tempDir();
    await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano\n');
    const archive = tar(sources, join(sources, 'm.tar.bz2'), 'sherpa-onnx-streaming-zipformer-cs-2024');
    const userDataDir = await tempDir();
    const { models } = await importer(userDataDir);
    const modelsDir = join(userDataDir, 'speech-models');
    let unpackedInode: number | undefined;
    await models.importModel(archive, (progress) => {
      if (progress.phase !== 'copying' || unpackedInode !== undefined) return;
      const unpack = readdirSync(modelsDir).find((name) => name.endsWith('.unpack'))!;
      unpackedInode = statSync(join(modelsDir, unpack, 'sherpa-onnx-streaming-zipformer-cs-2024', 'encoder-epoch-99-avg-1.onnx')).ino;
    });
    const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8')) as {
      model: { id: string; files: { file: string; sha256: string }[] };
    };
    const encoder = join(modelsDir, saved.model.id, 'encoder-epoch-99-avg-1.onnx');
    expect(statSync(encoder).ino).toBe(unpackedInode);
    expect(saved.model.files.find((file) => file.file === 'encoder-epoch-99-avg-1.onnx')?.sha256).toBe(
      createHash('sha256')
        .update(await readFile(encoder))
        .digest('hex'),
    );
    models.dispose();
  });
});
