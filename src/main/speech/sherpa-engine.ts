import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RecognizerModel } from '../../shared/speech/recognizer-protocol';
import type { LoadedRecognizer } from './recognizer-worker';

/**
 * sherpa-onnx-node (Apache-2.0, prebuilt N-API with its own onnxruntime) behind the recognizer
 * process's engine type. Loaded only in that process: a corrupt .onnx file makes onnxruntime throw a
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
  throw new Error(`${file} is not the encoder of a streaming transducer sherpa-onnx can run (${found}); AgentDesk runs streaming zipformer, conformer and LSTM transducers as sherpa-onnx exports them`);
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
  throw new Error(`this Whisper model has no language "${language}" (${file} knows ${shown}); name one of them in agentdesk-model.json, or none to let Whisper detect it`);
}

export async function loadSherpaRecognizer(model: RecognizerModel): Promise<LoadedRecognizer> {
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

/** Top-level fields read before giving up (a model has a dozen). */
const maxFields = 1000;
const maxEntryBytes = 64 * 1024;

/**
 * The `metadata_props` of an ONNX file (ModelProto field 14: key/value strings such as a zipformer
 * encoder's `T`), read without loading the model: the top-level protobuf fields are walked and the graph
 * (field 7, nearly all of the file) is skipped over. Throws on a file that is not protobuf as expected.
 */
export async function onnxMetadata(path: string): Promise<Map<string, string>> {
  const metadata = new Map<string, string>();
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const head = Buffer.alloc(24);
    let offset = 0;
    for (let fields = 0; offset < size; fields++) {
      if (fields >= maxFields) throw new Error('too many fields');
      const { bytesRead } = await file.read(head, 0, head.length, offset);
      const reader = { bytes: head.subarray(0, bytesRead), pos: 0 };
      const tag = varint(reader);
      const [field, wire] = [Math.floor(tag / 8), tag % 8];
      if (wire === 0) varint(reader);
      else if (wire === 1) reader.pos += 8;
      else if (wire === 5) reader.pos += 4;
      else if (wire === 2) {
        const length = varint(reader);
        if (field === 14) {
          if (length > maxEntryBytes) throw new Error('metadata entry too large');
          const entry = Buffer.alloc(length);
          await file.read(entry, 0, length, offset + reader.pos);
          const [key, value] = stringEntry(entry);
          metadata.set(key, value);
        }
        reader.pos += length;
      } else throw new Error(`unexpected protobuf wire type ${wire}`);
      offset += reader.pos;
    }
    // A field running past the end is not a model: random bytes would otherwise pass as "no metadata".
    if (offset !== size) throw new Error('the file ends inside a field');
    return metadata;
  } finally {
    await file.close();
  }
}

function varint(reader: { bytes: Uint8Array; pos: number }): number {
  let value = 0;
  for (let scale = 1; scale < 2 ** 56; scale *= 128) {
    const byte = reader.bytes[reader.pos++];
    if (byte === undefined) throw new Error('truncated varint');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
  }
  throw new Error('varint too long');
}

/** StringStringEntryProto: key (1), value (2). */
function stringEntry(bytes: Uint8Array): [string, string] {
  const reader = { bytes, pos: 0 };
  const parts = ['', ''];
  while (reader.pos < bytes.length) {
    const tag = varint(reader);
    if (tag % 8 !== 2) throw new Error('unexpected metadata entry');
    const length = varint(reader);
    const text = Buffer.from(bytes.subarray(reader.pos, reader.pos + length)).toString('utf8');
    reader.pos += length;
    const field = Math.floor(tag / 8);
    if (field === 1 || field === 2) parts[field - 1] = text;
  }
  return [parts[0]!, parts[1]!];
}
