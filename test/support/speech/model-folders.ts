import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeRecognizerLauncher, type RecognizerLauncher } from '../../../src/main/speech/recognizer-client';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The fixture recognizer process (fixture-recognizer-process.ts) through the real Node launcher. */
export function fixtureRecognizerLauncher(): RecognizerLauncher {
  return nodeRecognizerLauncher({ path: join(repo, 'test/support/speech/fixture-recognizer-process.ts'), execArgv: ['--import', 'tsx'], cwd: repo });
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
