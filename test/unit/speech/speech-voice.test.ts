import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeEngineLauncher, type SpeechEngineClient, type SpeechEngineLauncher } from '../../../src/main/speech/engine-client';
import { speechServices } from '../../support/speech/speech-services';
import { parseWav } from '../../../src/main/speech/pcm';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { speechHandlers } from '../../../src/main/speech/speech-handlers';
import { findModel, maxVoiceDataBytes, maxVoiceDataFiles, SpeechModels, speechModelFileName } from '../../../src/main/speech/speech-models';
import { SpeechService } from '../../../src/main/speech/speech-service';
import { Notices } from '../../../src/main/store/notices';
import { memoryLogger } from '../../support/logger';
import { speechUnavailableReason } from '../../support/speech';
import { fixtureEngineLauncher, fixtureVoiceFolder, piperVoiceFolder, transducerFolder } from '../../support/speech/model-folders';
import { useTempDirs } from '../../support/temp-dir';

/**
 * An imported Piper voice (#17, the optional better voice): the folder check (its .onnx, tokens.txt and
 * the espeak-ng-data tree), the import into its own slot beside the recognizer, speaking through the
 * speech engine process, the language rule (the voice for its languages, espeak-ng for the others and
 * whenever the voice fails), and the real sherpa-onnx on the synthetic Piper voice of
 * test/fixtures/speech with Debian's espeak-ng-data.
 */
const tempDir = useTempDirs();
const noEspeak = speechUnavailableReason(['espeak-ng']);
if (noEspeak) console.log(`imported voice: the tests that speak are skipped: ${noEspeak}`);

const services = (userDataDir: string, launcher?: SpeechEngineLauncher) => speechServices(userDataDir, launcher ? { launcher } : {});

const wavOf = (response: { wav: Uint8Array }) => parseWav(response.wav);

describe('a voice folder', () => {
  it('is a Piper voice: its model, tokens.txt and every file of espeak-ng-data (paths inside the folder), languages from the name', async () => {
    const folder = await fixtureVoiceFolder(await tempDir());
    const found = await findModel(folder);
    expect(found).toMatchObject({ kind: 'voice', name: 'vits-piper-en_US-fixture-medium', languages: ['en'] });
    expect(found.files.map(({ role, file }) => [role, file])).toEqual([
      ['model', 'en_US-fixture-medium.onnx'],
      ['tokens', 'tokens.txt'],
      ['data', 'espeak-ng-data/en_dict'],
      ['data', 'espeak-ng-data/lang/gmw/en'],
      ['data', 'espeak-ng-data/phontab'],
    ]);
  });

  it('refuses a voice without espeak-ng-data, one with a lexicon instead, data without phontab, two models and a link inside the data', async () => {
    const parent = await tempDir();
    const noData = await fixtureVoiceFolder(parent, 'no-data');
    await rm(join(noData, 'espeak-ng-data'), { recursive: true });
    await expect(findModel(noData)).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('its espeak-ng-data folder missing'),
    });
    await writeFile(join(noData, 'lexicon.txt'), 'hello h e l o\n');
    await expect(findModel(noData)).rejects.toMatchObject({
      message: expect.stringContaining('spells its words with a lexicon (lexicon.txt) instead of espeak-ng-data'),
    });

    const noPhontab = await fixtureVoiceFolder(parent, 'no-phontab');
    await rm(join(noPhontab, 'espeak-ng-data', 'phontab'));
    await expect(findModel(noPhontab)).rejects.toMatchObject({ message: expect.stringContaining("is not espeak-ng's data (it has no phontab)") });

    const two = await fixtureVoiceFolder(parent, 'two');
    await writeFile(join(two, 'en_US-other-high.onnx'), 'FIXTURE-VOICE 22050\n');
    await expect(findModel(two)).rejects.toMatchObject({
      message: expect.stringContaining('more than one voice model (en_US-fixture-medium.onnx, en_US-other-high.onnx)'),
    });
    // Its int8 twin is no second voice: the full model is taken.
    await rm(join(two, 'en_US-other-high.onnx'));
    await writeFile(join(two, 'en_US-fixture-medium.int8.onnx'), 'q');
    expect((await findModel(two)).files[0]).toMatchObject({ role: 'model', file: 'en_US-fixture-medium.onnx' });

    const linked = await fixtureVoiceFolder(parent, 'linked');
    await symlink('/etc/passwd', join(linked, 'espeak-ng-data', 'lang', 'gmw', 'cs'));
    await expect(findModel(linked)).rejects.toMatchObject({ code: 'speech_model_symlink', message: expect.stringContaining('espeak-ng-data/lang/gmw/cs') });
  });
});

describe('what a voice folder may hold (limits and names)', () => {
  it('stops at 3000 files and folders in espeak-ng-data (empty folders count), at 8 levels deep, at 512 MB, and refuses a name Windows reads otherwise', async () => {
    const parent = await tempDir();
    const many = await fixtureVoiceFolder(parent, 'many');
    await Promise.all(Array.from({ length: maxVoiceDataFiles }, (_, i) => mkdir(join(many, 'espeak-ng-data', `empty-${i}`))));
    await expect(findModel(many)).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining(`more than ${maxVoiceDataFiles} files and folders`),
    });

    const deep = await fixtureVoiceFolder(parent, 'deep');
    await mkdir(join(deep, 'espeak-ng-data', ...'abcdefgh'.split('')), { recursive: true });
    await expect(findModel(deep)).rejects.toMatchObject({ message: expect.stringContaining('nested more than 8 folders deep') });

    const big = await fixtureVoiceFolder(parent, 'big');
    // Sparse: 513 MB that take no disk.
    await writeFile(join(big, 'espeak-ng-data', 'huge_dict'), '');
    await truncate(join(big, 'espeak-ng-data', 'huge_dict'), maxVoiceDataBytes + 1024 ** 2);
    await expect(findModel(big)).rejects.toMatchObject({ message: expect.stringContaining('espeak-ng-data holds more than 512 MB') });

    const named = await fixtureVoiceFolder(parent, 'named');
    await writeFile(join(named, 'espeak-ng-data', 'lang', 'notes:old'), 'x');
    await expect(findModel(named)).rejects.toMatchObject({
      message: expect.stringContaining('espeak-ng-data/lang/notes:old has a name AgentDesk cannot keep on every system'),
    });
  });
});

describe('an imported voice (fixture engine in the speech engine process)', { timeout: 60_000 }, () => {
  it(
    'speaks its language through speech.synthesize, leaves other languages and its failures to espeak-ng, and keeps its own slot',
    { skip: noEspeak !== undefined },
    async () => {
      const userDataDir = await tempDir();
      const sources = await tempDir();
      const { handlers, models, progress, speech, log } = await services(userDataDir);
      expect(speech.status().synthesis).toMatchObject({ available: true, engine: 'espeak-ng' });

      const recognizer = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-cs-2024', 'FIXTURE-MODEL ano\n');
      await handlers['speech.importModel']({ path: recognizer });
      // The fixture voice speaks at 16 kHz, espeak-ng at 22.05 kHz: the WAV says who spoke.
      const voiceFolder = await fixtureVoiceFolder(sources, 'vits-piper-en_US-fixture-medium', 16_000);
      progress.length = 0;
      const imported = await handlers['speech.importModel']({ path: voiceFolder, purpose: 'voice' });
      expect(imported.model).toMatchObject({ name: 'vits-piper-en_US-fixture-medium', kind: 'voice', languages: ['en'] });
      const total = progress.at(-1)!.bytesTotal;
      expect(progress.at(-1)).toEqual({ phase: 'verifying', bytesDone: total, bytesTotal: total });
      // Progress names the model files at their end; the data files (hundreds, in a real voice) count in the bytes.
      expect(progress.filter((p) => p.file !== undefined).map((p) => p.file)).toEqual(['en_US-fixture-medium.onnx', 'tokens.txt']);
      expect(
        await readdir(
          join(
            userDataDir,
            'speech-models',
            (JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8')) as { voice: { id: string } }).voice.id,
            'espeak-ng-data',
            'lang',
            'gmw',
          ),
        ),
      ).toEqual(['en']);

      expect(speech.status().synthesis).toMatchObject({
        available: true,
        engine: 'sherpa-onnx',
        voice: { name: 'vits-piper-en_US-fixture-medium', languages: ['en'] },
        imported: { kind: 'voice' },
      });
      const english = wavOf(await handlers['speech.synthesize']({ text: 'Hello there', locale: 'en-GB' }));
      expect(english.sampleRate).toBe(16_000);
      expect(english.samples.length).toBe(Math.round((16_000 * 'Hello there'.length) / 100));
      // No locale is English, as espeak-ng's default.
      expect(wavOf(await handlers['speech.synthesize']({ text: 'Hi' })).sampleRate).toBe(16_000);
      // Czech is not the voice's language: espeak-ng speaks it.
      expect(wavOf(await handlers['speech.synthesize']({ text: 'Dobrý den', locale: 'cs' })).sampleRate).toBe(22_050);
      // The voice fails: espeak-ng speaks instead, and the log says so.
      expect(wavOf(await handlers['speech.synthesize']({ text: 'FAIL now', locale: 'en' })).sampleRate).toBe(22_050);
      expect(log.lines.some((line) => line.includes('the imported voice could not speak') && line.includes('fixture: the voice failed'))).toBe(true);

      // The recognizer and the voice are two slots: each survives a restart, each goes alone.
      expect(models.info('recognition')?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
      const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8'));
      expect(saved).toMatchObject({ schemaVersion: 2, model: { kind: 'transducer' }, voice: { kind: 'voice' } });
      models.dispose();
      const again = await services(userDataDir);
      expect(again.models.info('voice')?.name).toBe('vits-piper-en_US-fixture-medium');
      // The voice's process is started at once, before anything is said (the first answer does not wait for it).
      await expect.poll(() => (again.models.voice()!.tts as SpeechEngineClient).pid).toBeGreaterThan(0);
      expect(again.models.info('recognition')?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
      // After a restart the voice's files (hundreds, for a real espeak-ng-data) are hashed again before it loads.
      expect(wavOf(await again.handlers['speech.synthesize']({ text: 'Again', locale: 'en' })).sampleRate).toBe(16_000);
      await again.handlers['speech.removeModel']({ purpose: 'voice' });
      expect(again.speech.status().synthesis).toMatchObject({ engine: 'espeak-ng' });
      expect(again.speech.status().synthesis.imported).toBeUndefined();
      expect(again.models.info('recognition')?.name).toBe('sherpa-onnx-streaming-zipformer-cs-2024');
      expect(wavOf(await again.handlers['speech.synthesize']({ text: 'Hello', locale: 'en' })).sampleRate).toBe(22_050);
      await expect.poll(async () => (await readdir(join(userDataDir, 'speech-models'))).length).toBe(1);
      again.models.dispose();
    },
  );

  it(
    'imports a voice from the .tar.bz2 sherpa-onnx publishes it as: the espeak-ng-data tree moved into place, nothing left unpacked',
    { skip: noEspeak !== undefined },
    async () => {
      const userDataDir = await tempDir();
      const sources = await tempDir();
      const { handlers, models, progress } = await services(userDataDir);
      await fixtureVoiceFolder(sources, 'vits-piper-en_US-fixture-medium', 16_000);
      const archive = join(sources, 'vits-piper-en_US-fixture-medium.tar.bz2');
      execFileSync('tar', ['-cjf', archive, 'vits-piper-en_US-fixture-medium'], { cwd: sources });
      const imported = await handlers['speech.importModel']({ path: archive, purpose: 'voice' });
      expect(imported.model).toMatchObject({ name: 'vits-piper-en_US-fixture-medium', kind: 'voice', languages: ['en'] });
      expect(progress[0]).toMatchObject({ phase: 'unpacking' });
      expect(wavOf(await handlers['speech.synthesize']({ text: 'From the archive', locale: 'en' })).sampleRate).toBe(16_000);
      const [voiceDir, ...others] = await readdir(join(userDataDir, 'speech-models'));
      expect(others).toEqual([]);
      expect((await readdir(join(userDataDir, 'speech-models', voiceDir!, 'espeak-ng-data'))).sort()).toEqual(['en_dict', 'lang', 'phontab']);
      models.dispose();
    },
  );

  it('one change at a time in main: a second import and a removal wait for the import under way; a voice of no known language and a text of spaces are refused', async () => {
    const userDataDir = await tempDir();
    const sources = await tempDir();
    const { handlers, models } = await services(userDataDir);
    await handlers['speech.importModel']({ path: await fixtureVoiceFolder(sources), purpose: 'voice' });
    const importing = handlers['speech.importModel']({
      path: await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL yes\n'),
    });
    await expect(handlers['speech.removeModel']({ purpose: 'voice' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('being imported'),
    });
    await expect(
      handlers['speech.importModel']({ path: await fixtureVoiceFolder(sources, 'vits-piper-en_GB-other-low'), purpose: 'voice' }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('already being imported') });
    await importing;
    // Both slots kept: nothing the refused calls did reached the file.
    const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8'));
    expect([saved.model?.name, saved.voice?.name]).toEqual(['sherpa-onnx-streaming-zipformer-en-2023', 'vits-piper-en_US-fixture-medium']);

    await expect(handlers['speech.importModel']({ path: await fixtureVoiceFolder(sources, 'my-favourite-voice'), purpose: 'voice' })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('AgentDesk cannot tell which language this voice speaks'),
    });
    expect(models.info('voice')?.name).toBe('vits-piper-en_US-fixture-medium');
    await expect(handlers['speech.synthesize']({ text: ' \n\t ' })).rejects.toMatchObject({ code: 'invalid_request' });
    models.dispose();
  });

  it("a speech-model.json that names a file outside the model's folder is damaged: moved aside with a notice, and no model folder is swept", async () => {
    const userDataDir = await tempDir();
    const { handlers, models } = await services(userDataDir);
    await handlers['speech.importModel']({ path: await fixtureVoiceFolder(await tempDir()), purpose: 'voice' });
    models.dispose();
    const file = join(userDataDir, speechModelFileName);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { voice: { id: string; files: { file: string }[] } };
    for (const outside of ['../../../etc/passwd', '/etc/passwd', 'espeak-ng-data\\..\\..\\x', 'espeak-ng-data/./phontab']) {
      saved.voice.files[2]!.file = outside;
      await writeFile(file, JSON.stringify(saved));
      const log = memoryLogger();
      const notices = new Notices();
      const again = await SpeechModels.open({ userDataDir, log, notices, launcher: fixtureEngineLauncher() });
      expect(again.info('voice')).toBeUndefined();
      expect(notices.list()).toEqual([expect.objectContaining({ message: expect.stringContaining(speechModelFileName) })]);
      // The voice's folder is still there: a damaged record is no reason to delete what it named.
      expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([saved.voice.id]);
      again.dispose();
    }
  });

  it("main's chooser (Electron) is asked for a voice's folder or archive when no path is typed, and a cancelled chooser imports nothing", async () => {
    const userDataDir = await tempDir();
    const folder = await fixtureVoiceFolder(await tempDir());
    const log = memoryLogger();
    const models = await SpeechModels.open({ userDataDir, log, notices: new Notices(), launcher: fixtureEngineLauncher() });
    const asked: [string, string][] = [];
    const handlers = speechHandlers({
      speech: new SpeechService({ voice: () => models.voice(), log }),
      models,
      events: new EventBus(log),
      chooseFolder: async (what, purpose) => {
        asked.push([what, purpose]);
        return asked.length === 1 ? undefined : folder;
      },
    });
    expect(await handlers['speech.importModel']({ choose: 'archive', purpose: 'voice' })).toEqual({});
    expect(models.info('voice')).toBeUndefined();
    expect(await handlers['speech.importModel']({ purpose: 'voice' })).toMatchObject({ model: { kind: 'voice' } });
    expect(asked).toEqual([
      ['archive', 'voice'],
      ['folder', 'voice'],
    ]);
    models.dispose();
  });

  it('refuses a model of the other purpose with where it goes, and keeps what was in use', async () => {
    const userDataDir = await tempDir();
    const sources = await tempDir();
    const { handlers, models } = await services(userDataDir);
    const voiceFolder = await fixtureVoiceFolder(sources);
    const recognizer = await transducerFolder(sources, 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL yes\n');
    await expect(handlers['speech.importModel']({ path: voiceFolder })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: 'This folder holds a voice (text to speech), not a speech recognition model: import it under Speech synthesis.',
    });
    await handlers['speech.importModel']({ path: voiceFolder, purpose: 'voice' });
    await expect(handlers['speech.importModel']({ path: recognizer, purpose: 'voice' })).rejects.toMatchObject({
      message: 'This folder holds a speech recognition model, not a voice: import it under Speech recognition.',
    });
    expect(models.info('voice')?.name).toBe('vits-piper-en_US-fixture-medium');
    expect(models.info('recognition')).toBeUndefined();
    // Nothing of the refused imports stays on disk: the voice's folder alone.
    expect(await readdir(join(userDataDir, 'speech-models'))).toHaveLength(1);
    models.dispose();
  });

  it.each([
    ['changed', 'en', 'name Changed\n', 'espeak-ng-data/lang/gmw/en changed since it was imported'],
    ['added', 'en-extra', 'name Extra\n', 'espeak-ng-data/lang/gmw/en-extra was added to its folder since it was imported'],
  ])(
    'a voice with a file %s in its espeak-ng-data since the import is refused at its next start, and espeak-ng speaks meanwhile',
    { skip: noEspeak !== undefined },
    async (_how, file, content, reason) => {
      const userDataDir = await tempDir();
      const { handlers, models } = await services(userDataDir);
      await handlers['speech.importModel']({ path: await fixtureVoiceFolder(await tempDir(), 'vits-piper-en_US-fixture-medium', 16_000), purpose: 'voice' });
      const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8')) as { voice: { id: string } };
      models.dispose();
      // Behind AgentDesk's back (sherpa-onnx reads the whole folder, so an added file counts too).
      await writeFile(join(userDataDir, 'speech-models', saved.voice.id, 'espeak-ng-data', 'lang', 'gmw', file), content);
      const again = await services(userDataDir);
      for (let i = 0; i < 3; i++) expect(wavOf(await again.handlers['speech.synthesize']({ text: 'Hello', locale: 'en' })).sampleRate).toBe(22_050);
      expect(again.speech.status().synthesis).toMatchObject({ engine: 'espeak-ng', imported: { kind: 'voice' }, reason: expect.stringContaining(reason) });
      again.models.dispose();
    },
  );
});

describe('the real sherpa-onnx speaks a Piper voice (synthetic model, Debian espeak-ng-data)', { timeout: 120_000 }, () => {
  it('imports it from a folder, phonemises through espeak-ng-data, and speaks 0.1 s per phoneme', { skip: noEspeak !== undefined }, async () => {
    const userDataDir = await tempDir();
    const { handlers, models, speech } = await services(userDataDir, nodeEngineLauncher());
    const folder = await piperVoiceFolder(await tempDir());
    const imported = await handlers['speech.importModel']({ path: folder, purpose: 'voice' });
    // The language comes from the voice's own metadata (voice=en-us).
    expect(imported.model).toMatchObject({ kind: 'voice', languages: ['en'] });
    expect(speech.status().synthesis).toMatchObject({ engine: 'sherpa-onnx' });
    const short = wavOf(await handlers['speech.synthesize']({ text: 'Hi.', locale: 'en' }));
    const long = wavOf(await handlers['speech.synthesize']({ text: 'Hello there, this is a longer sentence.', locale: 'en' }));
    expect(short.sampleRate).toBe(22_050);
    // The synthetic voice: 2250 samples of tone per phoneme id, so espeak-ng's phonemes really reached it.
    expect(short.samples.length % 2250).toBe(0);
    expect(long.samples.length % 2250).toBe(0);
    expect(long.samples.length).toBeGreaterThan(3 * short.samples.length);
    expect(Math.max(...long.samples.subarray(0, 2250))).toBeGreaterThan(0.25 * 32767);
    models.dispose();
  });

  it("refuses a corrupt voice with the engine's words, and a VITS model that is not Piper in words", { skip: noEspeak !== undefined }, async () => {
    const userDataDir = await tempDir();
    const { handlers, models } = await services(userDataDir, nodeEngineLauncher());
    const corrupt = await piperVoiceFolder(await tempDir(), 'vits-piper-en_US-corrupt-low', Buffer.alloc(4096, 7));
    await expect(handlers['speech.importModel']({ path: corrupt, purpose: 'voice' })).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringMatching(/^The speech model could not be loaded: .*(Protobuf parsing failed|Load model).*\. The model in use before stays\.$/),
    });
    // The synthetic voice with its comment metadata cut out: sherpa-onnx would end the process; AgentDesk says why first.
    const original = await readFile(join(await piperVoiceFolder(await tempDir(), 'source'), 'en_US-synthetic-low.onnx'));
    const withoutComment = Buffer.from(original.toString('latin1').replace('comment', 'remarks'), 'latin1');
    const other = await piperVoiceFolder(await tempDir(), 'vits-piper-en_US-other-low', withoutComment);
    await expect(handlers['speech.importModel']({ path: other, purpose: 'voice' })).rejects.toMatchObject({
      message: expect.stringContaining('en_US-synthetic-low.onnx is not a Piper voice sherpa-onnx can run (its metadata has no comment)'),
    });
    expect(models.info('voice')).toBeUndefined();
    expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([]);
    models.dispose();
  });
});
