import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoSpeechEngines, findSpeechEngines, speechInstallCommand, speechUnavailableMessage } from '../../../src/main/speech/speech-engines';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

/** A folder with these (empty, executable unless said) programs in it. */
async function binFolder(names: string[], mode = 0o755): Promise<string> {
  const dir = await tempDir();
  for (const name of names) {
    await writeFile(join(dir, name), '#!/bin/sh\n');
    await chmod(join(dir, name), mode);
  }
  return dir;
}

describe.skipIf(process.platform === 'win32')('the demo speech engines (espeak-ng, pocketsphinx)', () => {
  it('finds espeak-ng and Debian 12’s pocketsphinx_continuous with its US English model', async () => {
    const bin = await binFolder(['espeak-ng', 'pocketsphinx_continuous']);
    const model = await tempDir();
    const engines = findSpeechEngines({ path: ['/nonexistent', bin].join(delimiter), modelDirs: ['/nonexistent/en-us', model] });
    expect(engines).toEqual({
      available: true,
      missing: [],
      installCommand: speechInstallCommand,
      found: { tts: join(bin, 'espeak-ng'), recognizer: join(bin, 'pocketsphinx_continuous'), model },
    });
  });

  it('counts pocketsphinx 5 (`pocketsphinx`, its model built in) too', async () => {
    const bin = await binFolder(['espeak-ng', 'pocketsphinx']);
    expect(findSpeechEngines({ path: bin, modelDirs: [] })).toMatchObject({ available: true, missing: [] });
  });

  it('says what is missing, and how to install it', async () => {
    const empty = await tempDir();
    const none = findSpeechEngines({ path: empty, modelDirs: [] });
    expect(none).toEqual({
      available: false,
      missing: ['espeak-ng', 'pocketsphinx', 'pocketsphinx-en-us'],
      installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us',
      found: {},
    });
    expect(speechUnavailableMessage(none)).toBe(
      "The demo's voice needs espeak-ng, pocketsphinx, pocketsphinx-en-us on this computer. Install with: sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us",
    );
    const noModel = findSpeechEngines({ path: await binFolder(['espeak-ng', 'pocketsphinx_continuous']), modelDirs: [join(empty, 'en-us')] });
    expect(noModel).toMatchObject({ available: false, missing: ['pocketsphinx-en-us'] });
    expect(findSpeechEngines({ path: await binFolder(['pocketsphinx']), modelDirs: [] })).toMatchObject({ available: false, missing: ['espeak-ng'] });
  });

  it('does not count a program that is not executable, or a folder of that name', async () => {
    const bin = await binFolder(['espeak-ng'], 0o644);
    await mkdir(join(bin, 'pocketsphinx'));
    expect(findSpeechEngines({ path: bin, modelDirs: [] })).toMatchObject({ available: false, missing: ['espeak-ng', 'pocketsphinx', 'pocketsphinx-en-us'] });
  });

  it("looks at this computer's PATH once while the engines are there (whatever this computer has)", () => {
    const first = demoSpeechEngines();
    expect(first.available).toBe(first.missing.length === 0);
    expect(demoSpeechEngines()).toBe(first);
  });
});
