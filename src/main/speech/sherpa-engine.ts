import type { RecognizerModel } from '../../shared/speech/recognizer-protocol';
import type { LoadedRecognizer } from './recognizer-worker';

/**
 * sherpa-onnx-node (Apache-2.0, prebuilt N-API with its own onnxruntime) behind the recognizer
 * process's engine type. Loaded only in that process: a corrupt .onnx file makes onnxruntime throw a
 * C++ exception that nothing catches, and the process aborts (SIGABRT) — main then reports it.
 */

const sampleRate = 16_000;
/** A streaming transducer emits its last words only after some trailing audio. */
const tailPaddingSeconds = 0.6;
const numThreads = 2;

export async function loadSherpaRecognizer(model: RecognizerModel): Promise<LoadedRecognizer> {
  const sherpa = (await import('sherpa-onnx-node')).default;
  const featConfig = { sampleRate, featureDim: 80 };
  if (model.kind === 'transducer') {
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
        stream.acceptWaveform({ samples: new Float32Array(Math.round(sampleRate * tailPaddingSeconds)), sampleRate });
        stream.inputFinished();
        while (recognizer.isReady(stream)) recognizer.decode(stream);
        return recognizer.getResult(stream).text;
      },
    };
  }
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
      const stream = recognizer.createStream();
      stream.acceptWaveform({ samples, sampleRate });
      recognizer.decode(stream);
      return recognizer.getResult(stream).text;
    },
  };
}
