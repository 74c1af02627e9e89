import { basename } from 'node:path';
import type { EngineModel } from '../../shared/speech/engine-protocol';
import { onnxMetadata } from './onnx-metadata';
import type { LoadedModel } from './engine-worker';

/**
 * sherpa-onnx-node (Apache-2.0, prebuilt N-API with its own onnxruntime) behind the speech engine
 * process's ModelLoader: a recognizer (streaming transducer, Whisper) or a Piper voice (OfflineTts with
 * its espeak-ng-data). Loaded only in that process: a corrupt .onnx file makes onnxruntime throw a
 * C++ exception that nothing catches, and the process aborts (SIGABRT) — main then reports it.
 */

const sampleRate = 16_000;
/** sherpa-onnx's fbank frames: one every 10 ms. */
const framesPerSecond = 100;
/**
 * A streaming transducer decodes a chunk only once its whole window (the encoder's `T` feature frames)
 * has arrived, so the last words of an utterance need that much trailing audio, else up to T frames of
 * the end are never decoded. Silence is appended: T frames plus 0.2 s, at least the 0.6 s sherpa-onnx's
 * examples use (0.65 s for icefall's chunk-16 models, T = 45; 1.61 s for chunk-64, T = 141).
 */
const minTailSeconds = 0.6;
const tailMarginFrames = 20;
const numThreads = 2;
/** Whisper hears nothing in less than 0.1 s (see transcribe). */
const whisperMinSamples = sampleRate / 10;

export function tailPaddingSeconds(encoderT: number | undefined): number {
  if (encoderT === undefined || !Number.isInteger(encoderT) || encoderT <= 0 || encoderT > 1_000) return minTailSeconds;
  return Math.max(minTailSeconds, (encoderT + tailMarginFrames) / framesPerSecond);
}

/** The encoder `model_type`s sherpa-onnx runs with an icefall-style decoder (sherpa-onnx/csrc/online-transducer-model.cc). */
const streamingModelTypes = new Set(['conformer', 'ebranchformer', 'lstm', 'zipformer', 'zipformer2']);

/**
 * With an icefall-style decoder (its metadata has context_size; NeMo's streaming transducers, which
 * sherpa-onnx tells apart by their decoder, have none), sherpa-onnx 1.13.8 crashes with SIGSEGV after
 * "No model_type in the metadata!" on an encoder without one of these model_types: refused here in words.
 */
function refuseUnknownEncoder(file: string, modelType: string | undefined): void {
  if (modelType !== undefined && streamingModelTypes.has(modelType)) return;
  const found = modelType === undefined ? 'its metadata has no model_type' : `its model_type is "${modelType.slice(0, 40)}"`;
  throw new Error(
    `${file} is not the encoder of a streaming transducer sherpa-onnx can run (${found}); AgentDesk runs streaming zipformer, conformer and LSTM transducers as sherpa-onnx exports them`,
  );
}

/**
 * A multilingual Whisper asked for a language it does not know (its encoder's all_language_codes) loads,
 * then ends the recognizer process at every utterance ("Invalid language", exit code 255): refused at
 * load instead, so an import says why. An English-only Whisper ignores the language.
 */
function refuseUnknownLanguage(file: string, language: string, metadata: Map<string, string> | undefined): void {
  if (language === '' || metadata?.get('is_multilingual') !== '1') return;
  const known = (metadata.get('all_language_codes') ?? '').split(',').filter((code) => code !== '');
  if (known.length === 0 || known.includes(language)) return;
  const shown = known.length > 12 ? `${known.slice(0, 12).join(', ')} and ${known.length - 12} more` : known.join(', ');
  throw new Error(
    `this Whisper model has no language "${language}" (${file} knows ${shown}); name one of them in agentdesk-model.json, or none to let Whisper detect it`,
  );
}

/**
 * sherpa-onnx ends the process (exit code 255, "… does not exist in the metadata") on a VITS model
 * without these, and runs a non-Piper VITS model with another front end than espeak-ng: refused in words.
 */
function refuseNonPiperVoice(file: string, metadata: Map<string, string> | undefined): void {
  if (!metadata) return; // not ONNX: sherpa-onnx names the problem
  const missing = ['sample_rate', 'n_speakers', 'language', 'comment'].filter((key) => !metadata.has(key));
  if (missing.length > 0) throw new Error(`${file} is not a Piper voice sherpa-onnx can run (its metadata has no ${missing.join(', ')})`);
  const comment = metadata.get('comment') ?? '';
  if (!comment.includes('piper') && !comment.includes('coqui')) {
    throw new Error(
      `${file} is a VITS voice of another kind ("${comment.slice(0, 40)}"); AgentDesk speaks with Piper voices (vits-piper-… in sherpa-onnx's releases)`,
    );
  }
}

async function loadSherpaVoice(model: Extract<EngineModel, { kind: 'voice' }>): Promise<LoadedModel> {
  refuseNonPiperVoice(basename(model.model), await onnxMetadata(model.model).catch(() => undefined));
  const sherpa = (await import('sherpa-onnx-node')).default;
  const tts = new sherpa.OfflineTts({
    model: { vits: { model: model.model, tokens: model.tokens, dataDir: model.dataDir }, numThreads, provider: 'cpu', debug: 0 },
    maxNumSentences: 1,
  });
  return {
    synthesize(text) {
      const audio = tts.generate({ text, sid: 0, speed: 1 });
      return { sampleRate: audio.sampleRate, samples: audio.samples };
    },
  };
}

/** Loads an imported model in this process: a recognizer, or a Piper voice. */
export async function loadSherpaModel(model: EngineModel): Promise<LoadedModel> {
  if (model.kind === 'voice') return loadSherpaVoice(model);
  const sherpa = (await import('sherpa-onnx-node')).default;
  const featConfig = { sampleRate, featureDim: 80 };
  if (model.kind === 'transducer') {
    // A file that is not ONNX is left to sherpa-onnx, which names the problem (and aborts).
    const metadata = await onnxMetadata(model.encoder).catch(() => undefined);
    const decoderMetadata = await onnxMetadata(model.decoder).catch(() => undefined);
    if (metadata && decoderMetadata?.has('context_size')) refuseUnknownEncoder(basename(model.encoder), metadata.get('model_type'));
    const tailSeconds = tailPaddingSeconds(Number(metadata?.get('T')) || undefined);
    const recognizer = new sherpa.OnlineRecognizer({
      featConfig,
      modelConfig: {
        transducer: { encoder: model.encoder, decoder: model.decoder, joiner: model.joiner },
        tokens: model.tokens,
        numThreads,
        provider: 'cpu',
        debug: 0,
      },
      decodingMethod: 'greedy_search',
    });
    return {
      transcribe(samples) {
        const stream = recognizer.createStream();
        stream.acceptWaveform({ samples, sampleRate });
        stream.acceptWaveform({ samples: new Float32Array(Math.round(sampleRate * tailSeconds)), sampleRate });
        stream.inputFinished();
        while (recognizer.isReady(stream)) recognizer.decode(stream);
        return recognizer.getResult(stream).text;
      },
    };
  }
  refuseUnknownLanguage(basename(model.encoder), model.language, await onnxMetadata(model.encoder).catch(() => undefined));
  const recognizer = new sherpa.OfflineRecognizer({
    featConfig,
    modelConfig: {
      whisper: { encoder: model.encoder, decoder: model.decoder, language: model.language, task: 'transcribe' },
      tokens: model.tokens,
      numThreads,
      provider: 'cpu',
      debug: 0,
    },
  });
  return {
    transcribe(samples) {
      // sherpa-onnx's Whisper crashes the process (SIGSEGV) on an utterance without one feature frame
      // (under 80 samples), and its decoder allows 6 tokens a second, none under 0.17 s: '' at once.
      if (samples.length < whisperMinSamples) return '';
      const stream = recognizer.createStream();
      stream.acceptWaveform({ samples, sampleRate });
      recognizer.decode(stream);
      return recognizer.getResult(stream).text;
    },
  };
}
