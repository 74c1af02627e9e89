import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeEngineLauncher, type SpeechEngineLauncher } from '../../../src/main/speech/engine-client';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The fixture speech engine process (fixture-engine-process.ts) through the real Node launcher. */
export function fixtureEngineLauncher(): SpeechEngineLauncher {
  return nodeEngineLauncher({ path: join(repo, 'test/support/speech/fixture-engine-process.ts'), execArgv: ['--import', 'tsx'], cwd: repo });
}

/** A streaming-transducer folder as sherpa-onnx names them; `encoder` is the encoder file's content. */
export async function transducerFolder(parent: string, name: string, encoder: string | Buffer, extra: Record<string, string | Buffer> = {}): Promise<string> {
  const folder = join(parent, name);
  await mkdir(folder, { recursive: true });
  const files: Record<string, string | Buffer> = {
    'encoder-epoch-99-avg-1.onnx': encoder,
    'decoder-epoch-99-avg-1.onnx': randomBytes(2048),
    'joiner-epoch-99-avg-1.onnx': randomBytes(2048),
    'tokens.txt': '<blk> 0\n<sos/eos> 1\n▁THE 2\n',
    ...extra,
  };
  for (const [file, content] of Object.entries(files)) await writeFile(join(folder, file), content);
  return folder;
}

/** A corrupt model: random bytes under the right names (sherpa-onnx aborts loading it). */
export function corruptTransducerFolder(parent: string, name = 'sherpa-onnx-streaming-zipformer-en-2023-06-26'): Promise<string> {
  return transducerFolder(parent, name, randomBytes(4096));
}

/** The espeak-ng-data folder of the espeak-ng installed here (`espeak-ng --version` says "Data at: …"). */
export function systemEspeakData(): string {
  const said = execFileSync('espeak-ng', ['--version'], { encoding: 'utf8' });
  const data = /Data at:\s*(\S+)/.exec(said)?.[1];
  if (!data) throw new Error(`espeak-ng --version does not say where its data is: ${said}`);
  return data;
}

/**
 * A Piper voice folder as sherpa-onnx's vits-piper-… archives hold it: the synthetic voice of
 * test/fixtures/speech (make-synthetic-model.py: 0.1 s of tone per phoneme id, run by the real
 * sherpa-onnx) with a copy of this computer's espeak-ng-data. `model` replaces the .onnx's content.
 */
export async function piperVoiceFolder(parent: string, name = 'vits-piper-en_US-synthetic-low', model?: string | Buffer): Promise<string> {
  const folder = join(parent, name);
  const fixture = join(repo, 'test/fixtures/speech/vits-piper-en_US-synthetic-low');
  await mkdir(folder, { recursive: true });
  if (model === undefined) await cp(join(fixture, 'en_US-synthetic-low.onnx'), join(folder, 'en_US-synthetic-low.onnx'));
  else await writeFile(join(folder, 'en_US-synthetic-low.onnx'), model);
  await cp(join(fixture, 'tokens.txt'), join(folder, 'tokens.txt'));
  await cp(systemEspeakData(), join(folder, 'espeak-ng-data'), { recursive: true });
  return folder;
}

/**
 * A voice for the fixture engine process (fixture-engine-process.ts): a model file `FIXTURE-VOICE
 * <rate>`, tokens.txt, and a small espeak-ng-data tree (a phontab and a nested file; never read).
 */
export async function fixtureVoiceFolder(parent: string, name = 'vits-piper-en_US-fixture-medium', sampleRate = 22050): Promise<string> {
  const folder = join(parent, name);
  await mkdir(join(folder, 'espeak-ng-data', 'lang', 'gmw'), { recursive: true });
  await writeFile(join(folder, 'en_US-fixture-medium.onnx'), `FIXTURE-VOICE ${sampleRate}\n`);
  await writeFile(join(folder, 'tokens.txt'), '_ 0\n^ 1\n$ 2\n  3\n');
  await writeFile(join(folder, 'espeak-ng-data', 'phontab'), randomBytes(512));
  await writeFile(join(folder, 'espeak-ng-data', 'en_dict'), randomBytes(1024));
  await writeFile(join(folder, 'espeak-ng-data', 'lang', 'gmw', 'en'), 'name English\n');
  return folder;
}
