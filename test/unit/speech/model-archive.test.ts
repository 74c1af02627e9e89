import { execFileSync } from 'node:child_process';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpeechImportProgress } from '../../../src/shared/speech/ipc-schemas';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { unpackModelArchive, type UnpackProgress } from '../../../src/main/speech/model-archive';
import { speechHandlers } from '../../../src/main/speech/speech-handlers';
import { SpeechModels } from '../../../src/main/speech/speech-models';
import { SpeechService } from '../../../src/main/speech/speech-service';
import { Notices } from '../../../src/main/store/notices';
import { memoryLogger } from '../../support/logger';
import { fixtureRecognizerLauncher, transducerFolder } from '../../support/speech/model-folders';
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

function tar(cwd: string, archive: string, ...args: string[]): string {
  const compress = archive.endsWith('.bz2') ? ['-j'] : archive.endsWith('.gz') || archive.endsWith('.tgz') ? ['-z'] : [];
  execFileSync('tar', ['-c', ...compress, '-f', archive, ...args], { cwd });
  return archive;
}

async function importer(userDataDir: string) {
  const log = memoryLogger();
  const models = await SpeechModels.open({ userDataDir, log, notices: new Notices(), launcher: fixtureRecognizerLauncher() });
  const events = new EventBus(log);
  const progress: SpeechImportProgress[] = [];
  events.connect((channel, payload) => {
    if (channel.endsWith('speech.importProgress')) progress.push(payload as SpeechImportProgress);
  });
  const speech = new SpeechService({ findEngines: () => ({ available: false, missing: [], installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us', found: {} }), recognizer: () => models.recognizer(), imported: () => models.info() });
  return { models, progress, handlers: speechHandlers({ speech, models, events }) };
}

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
    expect((await handlers['speech.importModel']({ path: gz })).model).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26', languages: ['en'] });
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
    await expect(handlers['speech.importModel']({ path: tar(sources, join(sources, 'linked.tar.bz2'), 'linked') })).rejects.toMatchObject({ code: 'speech_model_symlink', message: expect.stringContaining('linked/README.md → /etc/passwd') });

    // `..` in a member name (GNU tar keeps it with -P), and an absolute name.
    const outside = await tempDir();
    await mkdir(join(outside, 'in'));
    await writeFile(join(outside, 'evil.txt'), 'x');
    await expect(handlers['speech.importModel']({ path: tar(join(outside, 'in'), join(sources, 'dotdot.tar'), '-P', '../evil.txt') })).rejects.toMatchObject({ code: 'speech_model_invalid', message: expect.stringContaining('outside its own folder ("../evil.txt")') });
    await expect(handlers['speech.importModel']({ path: tar(outside, join(sources, 'absolute.tar'), '-P', join(outside, 'evil.txt')) })).rejects.toMatchObject({ code: 'speech_model_invalid', message: expect.stringContaining('outside its own folder') });
    expect(await readdir(outside)).toEqual(['evil.txt', 'in']);

    // Not an archive at all, though named like one.
    await writeFile(join(sources, 'fake.tar.bz2'), 'this is not bzip2');
    await expect(handlers['speech.importModel']({ path: join(sources, 'fake.tar.bz2') })).rejects.toMatchObject({ code: 'speech_model_invalid', message: expect.stringContaining('could not be unpacked') });

    expect(models.info()?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
    expect((await readdir(join(userDataDir, 'speech-models'))).filter((name) => name.endsWith('.unpack'))).toEqual([]);
  });

  it('stops a decompression bomb at the limit, counted as it is written rather than from the headers', async () => {
    const sources = await tempDir();
    const folder = join(sources, 'bomb');
    await mkdir(folder);
    await writeFile(join(folder, 'encoder.onnx'), Buffer.alloc(8 * 1024 * 1024));
    await writeFile(join(folder, 'decoder.onnx'), Buffer.alloc(8 * 1024 * 1024));
    const archive = tar(sources, join(sources, 'bomb.tar.bz2'), 'bomb');
    const seen: UnpackProgress[] = [];
    // bzip2 turns 16 MiB of zeros into a few hundred bytes.
    await expect(unpackModelArchive(archive, join(sources, 'out'), { ...limits, maxTotalBytes: 10 * 1024 * 1024 }, (progress) => seen.push(progress))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('unpacks to more than 10485760 bytes'),
    });
    await expect(unpackModelArchive(archive, join(sources, 'out2'), { ...limits, maxFileBytes: 4 * 1024 * 1024 }, () => undefined)).rejects.toMatchObject({
      message: expect.stringContaining('larger than 4194304 bytes'),
    });
    await expect(unpackModelArchive(archive, join(sources, 'out3'), { ...limits, maxEntries: 2 }, () => undefined)).rejects.toMatchObject({
      message: expect.stringContaining('more than 2 entries'),
    });
  });
});
