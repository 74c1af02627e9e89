import { appendFileSync } from 'node:fs';
import { readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeEngineLauncher, SpeechEngineClient, type SpeechEngineLauncher } from '../../../src/main/speech/engine-client';
import { speechServices } from '../../support/speech/speech-services';
import { findModel, languagesFromName, maxTokensBytes, speechModelFileName } from '../../../src/main/speech/speech-models';
import { SpeechService } from '../../../src/main/speech/speech-service';
import { memoryLogger } from '../../support/logger';
import { corruptTransducerFolder, fixtureEngineLauncher, transducerFolder } from '../../support/speech/model-folders';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Speech recognition with an imported model (#17): the model folder check, the import (copy, sha256,
 * progress, a test load in a fresh recognizer process), the recognizer process's failures (sherpa-onnx
 * itself on a corrupt model), and a fixture engine behind the same process and protocol for the happy path.
 */
const tempDir = useTempDirs();
/** 0.1 s of a 440 Hz tone at 16 kHz, as PCM16 bytes. */
const tone = (() => {
  const samples = new Int16Array(1600).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)));
  return new Uint8Array(samples.buffer);
})();

const services = (userDataDir: string, launcher?: SpeechEngineLauncher) =>
  speechServices(userDataDir, { withoutEspeak: true, ...(launcher ? { launcher } : {}) });

describe('a speech model folder', () => {
  it('names what is missing in a wrong folder, and refuses an empty file, two models and an oversized tokens file', async () => {
    const parent = await tempDir();
    await writeFile(join(parent, 'notes.txt'), 'not a model');
    await expect(findModel(parent)).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringMatching(/an encoder \.onnx file, a decoder \.onnx file, a tokens file \(tokens\.txt\) missing.*it has notes\.txt/),
    });
    await expect(findModel(join(parent, 'notes.txt'))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('is not a folder'),
    });
    await expect(findModel(join(parent, 'nowhere'))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('cannot be read'),
    });
    const two = await transducerFolder(parent, 'two', 'x', { 'encoder-epoch-30-avg-1.onnx': 'y' });
    await expect(findModel(two)).rejects.toMatchObject({ message: expect.stringContaining('more than one encoder file') });
    const empty = await transducerFolder(parent, 'empty', '');
    await expect(findModel(empty)).rejects.toMatchObject({ message: expect.stringContaining('encoder-epoch-99-avg-1.onnx is empty') });
    const big = await transducerFolder(parent, 'big', 'x');
    await truncate(join(big, 'tokens.txt'), maxTokensBytes + 1);
    await expect(findModel(big)).rejects.toMatchObject({ message: expect.stringContaining("tokens.txt is 16 MB; a model's tokens file may be at most 16 MB") });
  });

  it('tells a transducer (int8 preferred) from Whisper, with languages from the name or agentdesk-model.json', async () => {
    const parent = await tempDir();
    const transducer = await transducerFolder(parent, 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20', 'x', {
      'encoder-epoch-99-avg-1.int8.onnx': 'q',
      'joiner-epoch-99-avg-1.int8.onnx': 'q',
    });
    expect(await findModel(transducer)).toMatchObject({
      kind: 'transducer',
      languages: ['zh', 'en'],
      files: [
        { role: 'encoder', file: 'encoder-epoch-99-avg-1.int8.onnx' },
        { role: 'decoder', file: 'decoder-epoch-99-avg-1.onnx' },
        { role: 'joiner', file: 'joiner-epoch-99-avg-1.int8.onnx' },
        { role: 'tokens', file: 'tokens.txt' },
      ],
    });
    const whisper = join(parent, 'sherpa-onnx-whisper-tiny.en');
    await transducerFolder(parent, 'sherpa-onnx-whisper-tiny.en', 'x');
    for (const file of await readdir(whisper)) if (file.startsWith('joiner')) await rm(join(whisper, file));
    expect(await findModel(whisper)).toMatchObject({ kind: 'whisper', name: 'sherpa-onnx-whisper-tiny.en', languages: ['en'] });
    expect(languagesFromName('sherpa-onnx-whisper-small', 'whisper')).toEqual(['mul']);
    await writeFile(join(transducer, 'agentdesk-model.json'), JSON.stringify({ name: 'Czech commands', languages: ['cs'] }));
    expect(await findModel(transducer)).toMatchObject({ name: 'Czech commands', languages: ['cs'] });
    await writeFile(join(transducer, 'agentdesk-model.json'), JSON.stringify({ languages: ['Czech'] }));
    await expect(findModel(transducer)).rejects.toMatchObject({
      message: expect.stringContaining('agentdesk-model.json in the folder is not valid: languages.0'),
    });
  });
});

describe('sherpa-onnx in the recognizer process', { timeout: 60_000 }, () => {
  it('a corrupt model aborts only the recognizer process: a clear speech_unavailable, main alive, at most 3 starts', async () => {
    const folder = await corruptTransducerFolder(await tempDir());
    const log = memoryLogger();
    const client = new SpeechEngineClient({
      log,
      model: {
        kind: 'transducer',
        encoder: join(folder, 'encoder-epoch-99-avg-1.onnx'),
        decoder: join(folder, 'decoder-epoch-99-avg-1.onnx'),
        joiner: join(folder, 'joiner-epoch-99-avg-1.onnx'),
        tokens: join(folder, 'tokens.txt'),
      },
    });
    const speech = new SpeechService({ recognizer: () => ({ engine: 'sherpa-onnx', stt: client, refusal: () => client.refusal }) });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(speech.transcribe(tone, 16_000)).rejects.toMatchObject({
        code: 'speech_unavailable',
        message: expect.stringMatching(
          /^Speech could not be recognised: the speech model could not be loaded: Load model from .*\.onnx failed: ?Protobuf parsing failed\.$/,
        ),
      });
      expect(client.starts).toBe(attempt);
    }
    // The fourth call is refused without a fourth process; the status says why.
    await expect(speech.transcribe(tone, 16_000)).rejects.toMatchObject({
      code: 'speech_unavailable',
      message: expect.stringContaining('Protobuf parsing failed'),
    });
    expect(client.starts).toBe(3);
    expect(speech.status().recognition).toMatchObject({
      available: false,
      engine: 'sherpa-onnx',
      reason: expect.stringContaining('The speech model could not be loaded'),
    });
    expect(log.lines.some((line) => line.includes('SIGABRT'))).toBe(true);
    client.close();
  });

  it('a corrupt Whisper model and a missing file are clear errors too', async () => {
    const folder = await corruptTransducerFolder(await tempDir(), 'sherpa-onnx-whisper-tiny');
    const whisper = new SpeechEngineClient({
      log: memoryLogger(),
      maxFailures: 1,
      model: {
        kind: 'whisper',
        encoder: join(folder, 'encoder-epoch-99-avg-1.onnx'),
        decoder: join(folder, 'decoder-epoch-99-avg-1.onnx'),
        tokens: join(folder, 'tokens.txt'),
        language: '',
      },
    });
    await expect(whisper.load()).rejects.toMatchObject({
      message: expect.stringMatching(/^the speech model could not be loaded: Load model from .*\.onnx failed: ?Protobuf parsing failed\.$/),
    });
    expect(whisper.refusal).toContain('Protobuf parsing failed');
    whisper.close();
    // sherpa-onnx refuses a missing file without aborting: its own words from stderr.
    const missing = new SpeechEngineClient({
      log: memoryLogger(),
      model: { kind: 'whisper', encoder: join(folder, 'gone.onnx'), decoder: join(folder, 'gone.onnx'), tokens: join(folder, 'gone.txt'), language: '' },
    });
    await expect(missing.load()).rejects.toMatchObject({ message: expect.stringMatching(/^the speech model could not be loaded: Please check your config!/) });
    missing.close();
  });

  it("importing a corrupt model fails with the engine's words and leaves nothing behind", async () => {
    const userDataDir = await tempDir();
    const folder = await corruptTransducerFolder(await tempDir());
    // The real launcher: sherpa-onnx's own recognizer process, from source.
    const { handlers, models } = await services(userDataDir, nodeEngineLauncher());
    await expect(handlers['speech.importModel']({ path: folder })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringMatching(
        /^The speech model could not be loaded: Load model from .* failed: ?Protobuf parsing failed\. The model in use before stays\.$/,
      ),
    });
    expect(models.info()).toBeUndefined();
    expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([]);
    models.dispose();
  });
});

describe('an imported model (fixture engine in the recognizer process)', { timeout: 60_000 }, () => {
  it('imports with progress, transcribes through speech.transcribe at once, survives a corrupt import, and is removed', async () => {
    const userDataDir = await tempDir();
    const sources = await tempDir();
    const { handlers, models, progress, speech } = await services(userDataDir);
    await expect(handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).rejects.toMatchObject({
      code: 'speech_unavailable',
      message: expect.stringContaining('No speech model is imported'),
    });

    const good = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano potvrzuji\n');
    const imported = await handlers['speech.importModel']({ path: good });
    expect(imported.model).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer-cs-2024', kind: 'transducer', languages: ['cs'] });
    const total = progress[0]!.bytesTotal;
    expect(progress[0]).toEqual({ phase: 'copying', bytesDone: 0, bytesTotal: total });
    expect(progress.at(-1)).toEqual({ phase: 'verifying', bytesDone: total, bytesTotal: total });
    expect(progress.filter((p) => p.file !== undefined).map((p) => p.file)).toEqual([
      'encoder-epoch-99-avg-1.onnx',
      'decoder-epoch-99-avg-1.onnx',
      'joiner-epoch-99-avg-1.onnx',
      'tokens.txt',
    ]);
    expect(progress.every((p, i) => i === 0 || p.bytesDone >= progress[i - 1]!.bytesDone)).toBe(true);

    expect(await handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).toEqual({ text: 'ano potvrzuji' });
    expect(await handlers['speech.transcribe']({ pcm: new Uint8Array(3200), sampleRate: 16_000 })).toEqual({ text: '' });
    expect(speech.status().recognition).toMatchObject({
      available: true,
      engine: 'sherpa-onnx',
      model: { name: 'sherpa-onnx-streaming-zipformer-cs-2024', languages: ['cs'] },
    });
    const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8'));
    expect(saved.model.files).toHaveLength(4);
    expect(saved.model.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);

    // A corrupt model (the fixture aborts, as sherpa-onnx does) is refused; the previous one keeps answering.
    const bad = await corruptTransducerFolder(sources, 'broken-en');
    await expect(handlers['speech.importModel']({ path: bad })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('fixture: not a fixture model. The model in use before stays.'),
    });
    // A wrong folder likewise.
    await expect(handlers['speech.importModel']({ path: sources })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('missing'),
    });
    expect(models.info()?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
    expect(await handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).toEqual({ text: 'ano potvrzuji' });

    // A second good model replaces the first at once; the first one's files go.
    const second = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL yes send it\n');
    await handlers['speech.importModel']({ path: second });
    expect(await handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).toEqual({ text: 'yes send it' });
    await expect.poll(async () => (await readdir(join(userDataDir, 'speech-models'))).length).toBe(1);

    await handlers['speech.removeModel']({});
    expect(models.info()).toBeUndefined();
    await expect(handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).rejects.toMatchObject({ code: 'speech_unavailable' });
    await expect.poll(async () => (await readdir(join(userDataDir, 'speech-models'))).length).toBe(0);
    models.dispose();
  });

  it('queues a bounded number of utterances: one being recognised, two waiting, the rest refused as busy (retryable)', async () => {
    const folder = await transducerFolder(await tempDir(), 'fixture-en', 'FIXTURE-MODEL hi\n');
    const client = new SpeechEngineClient({
      log: memoryLogger(),
      launcher: fixtureEngineLauncher(),
      maxQueued: 2,
      model: {
        kind: 'transducer',
        encoder: join(folder, 'encoder-epoch-99-avg-1.onnx'),
        decoder: join(folder, 'decoder-epoch-99-avg-1.onnx'),
        joiner: join(folder, 'joiner-epoch-99-avg-1.onnx'),
        tokens: join(folder, 'tokens.txt'),
      },
    });
    const speech = new SpeechService({ recognizer: () => ({ engine: 'sherpa-onnx', stt: client }) });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => speech.transcribe(tone, 16_000)));
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as { code: string }).code))).toEqual([
      'hi',
      'hi',
      'hi',
      'speech_unavailable',
      'speech_unavailable',
      'speech_unavailable',
    ]);
    expect(outcomes[5]).toMatchObject({
      reason: { retryable: true, message: expect.stringContaining('the speech recognizer is busy (2 utterances waiting)') },
    });
    expect(client.starts).toBe(1);
    // Closing settles what is in flight at once (an import replacing the model closes the old one).
    const inFlight = client.transcribe({ sampleRate: 16_000, samples: new Int16Array(tone.buffer) });
    client.close();
    await expect(inFlight).rejects.toMatchObject({ message: 'the speech recognizer was stopped' });
  });

  it('refuses at load a model whose file changed after the import (sha256), and loads it again unchanged after a restart', async () => {
    const userDataDir = await tempDir();
    const good = await transducerFolder(await tempDir(), 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL hello\n');
    const first = await services(userDataDir);
    await first.handlers['speech.importModel']({ path: good });
    first.models.dispose();

    // A restart: the model is loaded from speech-model.json, its files hashed again first.
    const again = await services(userDataDir);
    expect(again.models.info()?.name).toBe('sherpa-onnx-streaming-zipformer-en-2023');
    expect(await again.handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).toEqual({ text: 'hello' });
    again.models.dispose();

    const [id] = await readdir(join(userDataDir, 'speech-models'));
    await writeFile(join(userDataDir, 'speech-models', id!, 'joiner-epoch-99-avg-1.onnx'), 'changed');
    const changed = await services(userDataDir);
    await expect(changed.handlers['speech.transcribe']({ pcm: tone, sampleRate: 16_000 })).rejects.toMatchObject({
      code: 'speech_unavailable',
      message: expect.stringMatching(
        /the speech model could not be loaded: its file joiner-epoch-99-avg-1\.onnx changed since it was imported \(sha256 [0-9a-f]{12}…, expected [0-9a-f]{12}…\); import the model again\.$/,
      ),
    });
    changed.models.dispose();
  });
});

describe('what an import copies is what was checked (real files)', { timeout: 60_000 }, () => {
  it('refuses a symbolic link in the model folder (tokens.txt → /etc/passwd), in findModel and in the import, leaving nothing behind', async () => {
    const userDataDir = await tempDir();
    const folder = await transducerFolder(await tempDir(), 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL hello\n');
    await rm(join(folder, 'tokens.txt'));
    await symlink('/etc/passwd', join(folder, 'tokens.txt'));
    const refusal = {
      code: 'speech_model_symlink',
      message: expect.stringContaining('The model folder has a symbolic link (tokens.txt); AgentDesk imports only real files'),
    };
    await expect(findModel(folder)).rejects.toMatchObject(refusal);
    const { handlers, models } = await services(userDataDir);
    await expect(handlers['speech.importModel']({ path: folder })).rejects.toMatchObject(refusal);
    expect(models.info()).toBeUndefined();
    expect(await readdir(join(userDataDir, 'speech-models')).catch(() => [])).toEqual([]);
    // A link to another file of the folder is refused too: only real files are imported.
    await rm(join(folder, 'tokens.txt'));
    await writeFile(join(folder, 'real-tokens.txt.bak'), '<blk> 0\n');
    await symlink(join(folder, 'real-tokens.txt.bak'), join(folder, 'tokens.txt'));
    await expect(findModel(folder)).rejects.toMatchObject({ code: 'speech_model_symlink' });
    models.dispose();
  });

  it('refuses a file that grows while it is copied (the read stops at the checked size), and one that changed before its copy began', async () => {
    const userDataDir = await tempDir();
    const sources = await tempDir();
    const { models } = await services(userDataDir);
    // 9 MiB: progress is reported every 4 MiB, so the file grows while its copy is halfway.
    const growing = await transducerFolder(sources, 'growing-en', Buffer.concat([Buffer.from('FIXTURE-MODEL hello\n'), Buffer.alloc(9 * 1024 * 1024, 0x20)]));
    const encoder = join(growing, 'encoder-epoch-99-avg-1.onnx');
    let grown = false;
    await expect(
      models.importModel(growing, (progress) => {
        // The report at 4 MiB, within the encoder's copy (its end is reported at 9 MiB and more).
        if (!grown && progress.file === 'encoder-epoch-99-avg-1.onnx' && progress.bytesDone < 9 * 1024 * 1024) {
          grown = true;
          appendFileSync(encoder, Buffer.alloc(1024 * 1024, 0x21));
        }
      }),
    ).rejects.toMatchObject({
      code: 'speech_model_changed',
      message: expect.stringMatching(
        /^encoder-epoch-99-avg-1\.onnx changed while it was being imported \(it was \d+ bytes when checked and is \d+ bytes now\)/,
      ),
    });
    expect(grown).toBe(true);
    expect(models.info()).toBeUndefined();
    expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([]);

    // The decoder is written to after the folder was checked, before its own copy starts.
    const later = await transducerFolder(sources, 'later-en', 'FIXTURE-MODEL hello\n');
    await expect(
      models.importModel(later, (progress) => {
        if (progress.file === 'encoder-epoch-99-avg-1.onnx') appendFileSync(join(later, 'decoder-epoch-99-avg-1.onnx'), 'more');
      }),
    ).rejects.toMatchObject({
      code: 'speech_model_changed',
      message: expect.stringContaining('decoder-epoch-99-avg-1.onnx changed while it was being imported'),
    });
    expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([]);

    // Unchanged, the same folder imports.
    const fine = await transducerFolder(sources, 'fine-en', 'FIXTURE-MODEL hello\n');
    expect(await models.importModel(fine, () => undefined)).toMatchObject({ name: 'fine-en' });
    models.dispose();
  });
});
