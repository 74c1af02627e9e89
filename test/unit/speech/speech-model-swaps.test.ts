import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as fsPromises from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { modelManifestName } from '../../../src/main/speech/speech-models';
import { transducerFolder } from '../../support/speech/model-folders';
import { speechServices } from '../../support/speech/speech-services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * A file of the model folder (or the archive) swapped for something else between the import's check
 * (lstat) and its read: a FIFO would block a plain open or readFile until something writes to it, and
 * the import with it (every later import or removal then answered "already being imported" until a
 * restart). The swap happens at the exact moment: lstat is wrapped here so that each check of an armed
 * path sees the real file and right after it a FIFO is there instead (everything else is the real file
 * system).
 */
const { armed, fifos } = vi.hoisted(() => ({ armed: new Map<string, { content: Buffer; fifo: boolean }>(), fifos: new Set<string>() }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  const { execFileSync } = await import('node:child_process');
  const lstat = (async (path: string, ...rest: []) => {
    const swap = armed.get(String(path));
    if (swap?.fifo) {
      await actual.rm(path);
      await actual.writeFile(path, swap.content);
    }
    const info = await actual.lstat(path, ...rest);
    if (swap) {
      await actual.rm(path);
      execFileSync('mkfifo', [path]);
      swap.fifo = true;
      fifos.add(path);
    }
    return info;
  }) as typeof actual.lstat;
  return { ...actual, lstat, default: { ...actual, lstat } };
});

const tempDir = useTempDirs();
/** `path` is a FIFO whenever the import has just checked it. */
function fifoAfterCheck(path: string): void {
  armed.set(path, { content: readFileSync(path), fifo: false });
}
afterEach(() => {
  // A reader still blocked on a FIFO (the unfixed code) is let go: a writer opens and closes it.
  armed.clear();
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting (ENXIO): nothing to let go.
    }
  }
  fifos.clear();
});

/** The import's answer, or a failure saying it had none within 10 s (a hung import never answers). */
function answer<T>(promise: T | Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the import had not answered after 10 s')), 10_000).unref()),
  ]);
}

describe('a model file swapped for a FIFO or made huge after the folder check', { timeout: 60_000 }, () => {
  it('agentdesk-model.json swapped for a FIFO: a clear refusal at once, and the next import works', async () => {
    const sources = await tempDir();
    const { models } = await speechServices(await tempDir(), { withoutEspeak: true });
    const folder = await transducerFolder(sources, 'fifo-manifest-en', 'FIXTURE-MODEL hello\n', { [modelManifestName]: '{"languages":["en"]}' });
    fifoAfterCheck(join(folder, modelManifestName));
    await expect(answer(models.importModel(folder, () => undefined))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: `${modelManifestName} in the folder cannot be read (it is not a regular file: a pipe, a device or a socket).`,
    });
    const fine = await transducerFolder(sources, 'fine-en', 'FIXTURE-MODEL hello\n', { [modelManifestName]: '{"name":"Fine","languages":["en"]}' });
    expect(await answer(models.importModel(fine, () => undefined))).toMatchObject({ name: 'Fine', languages: ['en'] });
    await answer(models.removeModel());
    expect(models.info()).toBeUndefined();
    models.dispose();
  });

  it('a 1.9 GB sparse agentdesk-model.json is refused by its size, without reading it', async () => {
    const folder = await transducerFolder(await tempDir(), 'huge-manifest-en', 'FIXTURE-MODEL hello\n');
    await writeFile(join(folder, modelManifestName), '{}');
    await truncate(join(folder, modelManifestName), Math.round(1.9 * 1024 ** 3));
    const { models } = await speechServices(await tempDir(), { withoutEspeak: true });
    await expect(answer(models.importModel(folder, () => undefined))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: `${modelManifestName} in the folder cannot be read (it is 1.9 GB; it may be at most 64 KB).`,
    });
    models.dispose();
  });

  it('tokens.txt swapped for a FIFO before its copy: refused at once, nothing left behind, and the next import works', async () => {
    const userDataDir = await tempDir();
    const sources = await tempDir();
    const { models } = await speechServices(userDataDir, { withoutEspeak: true });
    const folder = await transducerFolder(sources, 'fifo-tokens-en', 'FIXTURE-MODEL hello\n');
    fifoAfterCheck(join(folder, 'tokens.txt'));
    await expect(answer(models.importModel(folder, () => undefined))).rejects.toMatchObject({
      code: 'speech_model_changed',
      message: expect.stringMatching(/^tokens\.txt changed while it was being imported \(it is not a regular file: a pipe, a device or a socket\)/),
    });
    expect(await readdir(join(userDataDir, 'speech-models'))).toEqual([]);
    const fine = await transducerFolder(sources, 'fine-en', 'FIXTURE-MODEL hello\n');
    expect(await answer(models.importModel(fine, () => undefined))).toMatchObject({ name: 'fine-en' });
    models.dispose();
  });

  it('an archive swapped for a FIFO after its check: refused at once, and the next import works', async () => {
    const sources = await tempDir();
    const folder = await transducerFolder(sources, 'model', 'FIXTURE-MODEL hello\n');
    const archive = join(sources, 'sherpa-onnx-streaming-zipformer-en-2023.tar');
    execFileSync('tar', ['-c', '-f', archive, '.'], { cwd: folder });
    const { models } = await speechServices(await tempDir(), { withoutEspeak: true });
    fifoAfterCheck(archive);
    await expect(answer(models.importModel(archive, () => undefined))).rejects.toMatchObject({
      code: 'speech_model_invalid',
      message: expect.stringContaining('is not a regular file: a pipe, a device or a socket'),
    });
    execFileSync('tar', ['-c', '-f', join(sources, 'again-en.tar'), '.'], { cwd: folder });
    expect(await answer(models.importModel(join(sources, 'again-en.tar'), () => undefined))).toMatchObject({ name: 'again-en' });
    models.dispose();
  });

  it("an imported file replaced by a FIFO in AgentDesk's own folder: the next start refuses it at once, without waiting on it", async () => {
    const userDataDir = await tempDir();
    const folder = await transducerFolder(await tempDir(), 'sherpa-onnx-streaming-zipformer-en-2023', 'FIXTURE-MODEL hello\n');
    const first = await speechServices(userDataDir, { withoutEspeak: true });
    await first.models.importModel(folder, () => undefined);
    first.models.dispose();
    const [id] = await readdir(join(userDataDir, 'speech-models'));
    const tokens = join(userDataDir, 'speech-models', id!, 'tokens.txt');
    await rm(tokens);
    execFileSync('mkfifo', [tokens]);
    fifos.add(tokens);
    const again = await speechServices(userDataDir, { withoutEspeak: true });
    await expect(answer(again.handlers['speech.transcribe']({ pcm: new Uint8Array(3200), sampleRate: 16_000 }))).rejects.toMatchObject({
      code: 'speech_unavailable',
      message: expect.stringContaining('its file tokens.txt cannot be read (it is not a regular file: a pipe, a device or a socket); import the model again'),
    });
    again.models.dispose();
  });
});
