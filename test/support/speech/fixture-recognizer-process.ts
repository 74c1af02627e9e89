import { readFileSync } from 'node:fs';
import { parentLink, runRecognizerWorker } from '../../../src/main/speech/recognizer-worker';

/**
 * A recognizer process for tests: the real process loop and protocol (recognizer-worker.ts) with a
 * fixture engine instead of sherpa-onnx, since no real model ships here. A "model" is an encoder file
 * that starts with `FIXTURE-MODEL `; the rest of its first line is the transcript it answers for any
 * utterance with sound in it ('' for silence). Any other encoder aborts the process, as sherpa-onnx does
 * on a corrupt model.
 */
const link = parentLink();
if (!link) process.exit(2);
runRecognizerWorker(link, (model) => {
  const text = readFileSync(model.encoder, 'utf8');
  if (!text.startsWith('FIXTURE-MODEL ')) {
    process.stderr.write("terminate called after throwing an instance of 'Ort::Exception'\n  what():  fixture: not a fixture model\n");
    process.abort();
  }
  const transcript = text.slice('FIXTURE-MODEL '.length).split('\n')[0]!;
  return { transcribe: (samples) => (samples.some((sample) => Math.abs(sample) > 0.01) ? transcript : '') };
});
