import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SpeechImportProgress } from '../../../src/shared/speech/ipc-schemas';
import { nodeEngineLauncher, SpeechEngineClient } from '../../../src/main/speech/engine-client';
import { bytesFromInt16, concatSamples, resample, silence } from '../../../src/main/speech/pcm';
import { onnxMetadata } from '../../../src/main/speech/onnx-metadata';
import { tailPaddingSeconds } from '../../../src/main/speech/sherpa-engine';
import { findModel, SpeechModels, speechModelFileName } from '../../../src/main/speech/speech-models';
import { SpeechService } from '../../../src/main/speech/speech-service';
import { Notices } from '../../../src/main/store/notices';
import { memoryLogger } from '../../support/logger';
import { espeak, speechUnavailableReason } from '../../support/speech';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The real sherpa-onnx-node (1.13.8) on real, if synthetic, models (test/fixtures/speech/make-synthetic-model.py):
 * a streaming zipformer2 transducer that answers "sound" when a frame's loudest log-mel bin shows energy
 * and nothing for silence, and a multilingual Whisper that does the same in the prompt's language. No
 * trained model can be downloaded here; these prove that the recognizer process's config (transducer and
 * Whisper file fields, language, task, tokens, feature config, greedy search) is what
 * sherpa-onnx reads, and that audio flows from speech.transcribe through the process into the model.
 */
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const folder = join(repo, 'test/fixtures/speech/sherpa-onnx-streaming-zipformer2-synthetic-en');
/** The same model with a chunk of 128 feature frames (T = 141, as a chunk-64 export): longer than 0.6 s. */
const longChunkFolder = join(repo, 'test/fixtures/speech/sherpa-onnx-streaming-zipformer2-synthetic-chunk-64-en');
const files = ['encoder-synthetic.onnx', 'decoder-synthetic.onnx', 'joiner-synthetic.onnx', 'tokens.txt'];
/** A multilingual (en, cs) synthetic Whisper: " sound" when the prompt's language is English, " zvuk" for Czech. */
const whisperFolder = join(repo, 'test/fixtures/speech/sherpa-onnx-whisper-synthetic');
const whisperFiles = ['synthetic-encoder.onnx', 'synthetic-decoder.onnx', 'synthetic-tokens.txt'];
const tempDir = useTempDirs();

const noEspeak = speechUnavailableReason(['espeak-ng']);
if (noEspeak) console.log(`synthetic sherpa-onnx model: the speech part is skipped: ${noEspeak}`);

/** `text` spoken by espeak-ng as 16 kHz PCM16 bytes, with 300 ms of silence either side (as the VAD hands it over). */
async function spoken(text: string): Promise<Buffer> {
  const pcm = await espeak(text);
  return bytesFromInt16(concatSamples([silence(16_000, 300), resample(pcm.samples, pcm.sampleRate, 16_000), silence(16_000, 300)]));
}

/** A second of low hiss (amplitude 0.001 of full scale, about -60 dBFS), deterministic. */
function hiss(): Buffer {
  let seed = 1;
  const samples = new Int16Array(16_000).map(() => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.round((seed / 2 ** 31 - 0.5) * 2 * 33);
  });
  return bytesFromInt16(samples);
}

/** Half a second of a 6 kHz tone: above 4 kHz, so only features taken at 16 kHz see it (an 8 kHz feature config would filter it out). */
function whistle(): Buffer {
  return bytesFromInt16(new Int16Array(8000).map((_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * 6000 * i) / 16_000))));
}

async function openModels(userDataDir: string) {
  const models = await SpeechModels.open({ userDataDir, log: memoryLogger(), notices: new Notices(), launcher: nodeEngineLauncher() });
  const speech = new SpeechService({ recognizer: () => models.recognizer(), imported: () => models.info() });
  return { models, speech };
}

describe('synthetic models (zipformer2 transducers, Whisper) in the real sherpa-onnx', { timeout: 60_000 }, () => {
  it.skipIf(noEspeak)('imported from a .tar.bz2 as sherpa-onnx publishes its models (one folder inside), is heard by the real sherpa-onnx', async () => {
    const sources = await tempDir();
    const archive = join(sources, 'sherpa-onnx-streaming-zipformer2-synthetic-en.tar.bz2');
    execFileSync('tar', ['-cjf', archive, '-C', dirname(folder), basename(folder)]);
    const { models, speech } = await openModels(await tempDir());
    const phases: string[] = [];
    const info = await models.importModel(archive, (p) => void (phases.at(-1) === p.phase || phases.push(p.phase)));
    expect(phases).toEqual(['unpacking', 'copying', 'verifying']);
    expect(info).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer2-synthetic-en', kind: 'transducer', languages: ['en'] });
    expect(await speech.transcribe(await spoken('yes'), 16_000)).toBe('sound');
    expect(await speech.transcribe(bytesFromInt16(silence(16_000, 500)), 16_000)).toBe('');
    models.dispose();
  });

  it('is found as a streaming transducer in English, by the same check as a folder the user chooses', async () => {
    expect(await findModel(folder)).toMatchObject({
      kind: 'transducer',
      name: 'sherpa-onnx-streaming-zipformer2-synthetic-en',
      languages: ['en'],
      files: files.map((file, i) => ({ role: ['encoder', 'decoder', 'joiner', 'tokens'][i], file })),
    });
  });

  it.skipIf(noEspeak)(
    'is imported (copies with sha256), loads in the recognizer process, hears espeak-ng speech as "sound" and silence as nothing, and loads again after a restart',
    async () => {
      const userDataDir = await tempDir();
      const { models, speech } = await openModels(userDataDir);
      const progress: SpeechImportProgress[] = [];
      // The import's test load runs engine-process.ts: sherpa-onnx-node, not the fixture engine.
      const info = await models.importModel(folder, (p) => progress.push(p));
      expect(info).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer2-synthetic-en', kind: 'transducer', languages: ['en'] });
      expect(progress.at(-1)).toMatchObject({ phase: 'verifying' });

      const saved = JSON.parse(await readFile(join(userDataDir, speechModelFileName), 'utf8')) as { model: { id: string; files: unknown[] } };
      const expected = await Promise.all(
        files.map(async (file, i) => {
          const bytes = await readFile(join(folder, file));
          return { role: ['encoder', 'decoder', 'joiner', 'tokens'][i], file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
        }),
      );
      expect(saved.model.files).toEqual(expected);
      expect((await readdir(join(userDataDir, 'speech-models', saved.model.id))).sort()).toEqual([...files].sort());

      const yes = await spoken('yes');
      expect(await speech.transcribe(yes, 16_000)).toBe('sound');
      expect(await speech.transcribe(bytesFromInt16(silence(16_000, 1000)), 16_000)).toBe('');
      expect(await speech.transcribe(hiss(), 16_000)).toBe('');
      expect(await speech.transcribe(await spoken('send the offer'), 16_000)).toBe('sound');
      expect(await speech.transcribe(whistle(), 16_000)).toBe('sound');
      expect(speech.status().recognition).toMatchObject({
        available: true,
        engine: 'sherpa-onnx',
        model: { name: 'sherpa-onnx-streaming-zipformer2-synthetic-en', languages: ['en'] },
      });
      models.dispose();

      // A later start: the copied files are hashed again, then a new recognizer process loads them.
      const again = await openModels(userDataDir);
      expect(again.models.info()).toMatchObject({ name: 'sherpa-onnx-streaming-zipformer2-synthetic-en', kind: 'transducer' });
      expect(await again.speech.transcribe(yes, 16_000)).toBe('sound');
      expect(await again.speech.transcribe(bytesFromInt16(silence(16_000, 500)), 16_000)).toBe('');
      again.models.dispose();
    },
  );

  it("decodes the end of an utterance also with a model whose chunk is longer than 0.6 s (the tail follows the encoder's T)", async () => {
    // 1.3 s of silence, then 150 ms of a 500 Hz tone that ends the utterance.
    const utterance = bytesFromInt16(
      concatSamples([silence(16_000, 1300), new Int16Array(2400).map((_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * 500 * i) / 16_000)))]),
    );
    for (const model of [folder, longChunkFolder]) {
      const client = new SpeechEngineClient({
        log: memoryLogger(),
        model: {
          kind: 'transducer',
          encoder: join(model, files[0]!),
          decoder: join(model, files[1]!),
          joiner: join(model, files[2]!),
          tokens: join(model, files[3]!),
        },
      });
      const speech = new SpeechService({ recognizer: () => ({ engine: 'sherpa-onnx', stt: client }) });
      expect({ model, text: await speech.transcribe(utterance, 16_000) }).toEqual({ model, text: 'sound' });
      client.close();
    }
  });

  it("reads an encoder's metadata without loading it, and pads by its T", async () => {
    const short = await onnxMetadata(join(folder, files[0]!));
    expect(Object.fromEntries([...short].filter(([key]) => ['model_type', 'T', 'decode_chunk_len', 'encoder_dims'].includes(key)))).toEqual({
      model_type: 'zipformer2',
      T: '45',
      decode_chunk_len: '32',
      encoder_dims: '8',
    });
    expect((await onnxMetadata(join(longChunkFolder, files[0]!))).get('T')).toBe('141');
    expect((await onnxMetadata(join(folder, files[1]!))).get('context_size')).toBe('2');
    expect([tailPaddingSeconds(39), tailPaddingSeconds(45), tailPaddingSeconds(141), tailPaddingSeconds(undefined), tailPaddingSeconds(-1)]).toEqual([
      0.6, 0.65, 1.61, 0.6, 0.6,
    ]);
    const notOnnx = join(await tempDir(), 'encoder.onnx');
    await writeFile(notOnnx, Buffer.from([0x0f, 0xff, 0xff, 0xff]));
    await expect(onnxMetadata(notOnnx)).rejects.toThrow();
  });

  it('refuses an encoder that is not a streaming one in words (sherpa-onnx itself would crash with SIGSEGV)', async () => {
    // The synthetic encoder with its model_type key renamed (same length: the protobuf stays valid), as an
    // old export has none; and with a model_type sherpa-onnx does not know.
    for (const [from, to, found] of [
      ['model_type', 'model_kind', 'its metadata has no model_type'],
      ['zipformer2', 'zipformerX', 'its model_type is "zipformerX"'],
    ] as const) {
      const copy = join(await tempDir(), 'sherpa-onnx-streaming-zipformer-old-export-en');
      await mkdir(copy);
      for (const file of files.slice(1)) await copyFile(join(folder, file), join(copy, file));
      const encoder = await readFile(join(folder, files[0]!));
      const at = encoder.lastIndexOf(from); // in the metadata, after the graph
      expect(at).toBeGreaterThan(0);
      await writeFile(join(copy, files[0]!), Buffer.concat([encoder.subarray(0, at), Buffer.from(to), encoder.subarray(at + from.length)]));
      const { models } = await openModels(await tempDir());
      await expect(models.importModel(copy, () => undefined)).rejects.toMatchObject({
        code: 'speech_model_invalid',
        message: `The speech model could not be loaded: encoder-synthetic.onnx is not the encoder of a streaming transducer sherpa-onnx can run (${found}); AgentDesk runs streaming zipformer, conformer and LSTM transducers as sherpa-onnx exports them. The model in use before stays.`,
      });
      models.dispose();
    }
  });

  it.skipIf(noEspeak)(
    "a synthetic Whisper is imported and transcribes in the language the model folder names (the recognizer's language reaches sherpa-onnx)",
    async () => {
      const { models, speech } = await openModels(await tempDir());
      // No language in the name: multilingual ("mul"), so sherpa-onnx detects one (English here).
      expect(await models.importModel(whisperFolder, () => undefined)).toMatchObject({
        name: 'sherpa-onnx-whisper-synthetic',
        kind: 'whisper',
        languages: ['mul'],
      });
      const yes = await spoken('yes');
      expect(await speech.transcribe(yes, 16_000)).toBe('sound');
      expect(await speech.transcribe(bytesFromInt16(silence(16_000, 1000)), 16_000)).toBe('');
      expect(await speech.transcribe(hiss(), 16_000)).toBe('');
      // One sample (the least speech.transcribe takes): nothing heard; sherpa-onnx itself crashed on it (SIGSEGV).
      expect(await speech.transcribe(new Uint8Array(2), 16_000)).toBe('');
      expect(await speech.transcribe(yes, 16_000)).toBe('sound');
      // The same files with agentdesk-model.json naming Czech: the recognizer asks for cs, and the model answers in Czech.
      const czech = join(await tempDir(), 'whisper-cs');
      await mkdir(czech);
      for (const file of whisperFiles) await copyFile(join(whisperFolder, file), join(czech, file));
      await writeFile(join(czech, 'agentdesk-model.json'), JSON.stringify({ name: 'Synthetic Czech Whisper', languages: ['cs'] }));
      expect(await models.importModel(czech, () => undefined)).toMatchObject({ name: 'Synthetic Czech Whisper', kind: 'whisper', languages: ['cs'] });
      expect(await speech.transcribe(yes, 16_000)).toBe('zvuk');
      expect(await speech.transcribe(bytesFromInt16(silence(16_000, 1000)), 16_000)).toBe('');
      // A region subtag is fine (Whisper is asked for cs); a language the model does not know is refused at
      // import, where sherpa-onnx would load it and then end the recognizer process at every utterance.
      await writeFile(join(czech, 'agentdesk-model.json'), JSON.stringify({ name: 'Czech (Czechia)', languages: ['cs-CZ'] }));
      expect(await models.importModel(czech, () => undefined)).toMatchObject({ name: 'Czech (Czechia)', languages: ['cs-CZ'] });
      expect(await speech.transcribe(yes, 16_000)).toBe('zvuk');
      await writeFile(join(czech, 'agentdesk-model.json'), JSON.stringify({ name: 'German', languages: ['de'] }));
      await expect(models.importModel(czech, () => undefined)).rejects.toMatchObject({
        code: 'speech_model_invalid',
        message:
          'The speech model could not be loaded: this Whisper model has no language "de" (synthetic-encoder.onnx knows en, cs); name one of them in agentdesk-model.json, or none to let Whisper detect it. The model in use before stays.',
      });
      expect(await speech.transcribe(yes, 16_000)).toBe('zvuk');
      models.dispose();
    },
  );
});
