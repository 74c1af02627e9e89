import { readFileSync } from 'node:fs';
import { parentLink, runEngineWorker } from '../../../src/main/speech/engine-worker';

/**
 * A speech engine process for tests: the real process loop and protocol (engine-worker.ts) with a
 * fixture engine instead of sherpa-onnx, since no real model ships here. A recognizer "model" is an
 * encoder file that starts with `FIXTURE-MODEL `; the rest of its first line is the transcript it
 * answers for any utterance with sound in it ('' for silence). A voice "model" starts with
 * `FIXTURE-VOICE <sample rate>`: it speaks 10 ms of a 440 Hz tone per character of text (a text
 * `FAIL…` fails, as an engine error would). Any other file aborts the process, as sherpa-onnx does on a
 * corrupt model.
 */
const link = parentLink();
if (!link) process.exit(2);
runEngineWorker(link, (model) => {
  if (model.kind === 'voice') {
    const head = readFileSync(model.model, 'utf8').split('\n')[0]!;
    const rate = /^FIXTURE-VOICE (\d+)$/.exec(head)?.[1];
    if (rate === undefined) {
      process.stderr.write("terminate called after throwing an instance of 'Ort::Exception'\n  what():  fixture: not a fixture voice\n");
      process.abort();
    }
    const sampleRate = Number(rate);
    return {
      synthesize: (text) => {
        if (text.startsWith('FAIL')) throw new Error('fixture: the voice failed');
        const samples = new Float32Array(Math.round((sampleRate * text.length) / 100));
        for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / sampleRate);
        return { sampleRate, samples };
      },
    };
  }
  const text = readFileSync(model.encoder, 'utf8');
  if (!text.startsWith('FIXTURE-MODEL ')) {
    process.stderr.write("terminate called after throwing an instance of 'Ort::Exception'\n  what():  fixture: not a fixture model\n");
    process.abort();
  }
  const transcript = text.slice('FIXTURE-MODEL '.length).split('\n')[0]!;
  return { transcribe: (samples) => (samples.some((sample) => Math.abs(sample) > 0.01) ? transcript : '') };
});
