import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createEspeakTts } from '../../src/main/speech/espeak-tts';
import { pocketsphinxModel } from '../../src/main/speech/pocketsphinx-stt';
import { resample, type Pcm } from '../../src/main/speech/pcm';

/**
 * The demo voice's real engines (Debian: espeak-ng, pocketsphinx + pocketsphinx-en-us; `npm test` installs
 * them as the `speech` system feature). Tests that need one that is missing say why and skip.
 */
const onPath = (name: string): boolean => (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, name)));

export function speechUnavailableReason(needs: readonly ('espeak-ng' | 'pocketsphinx')[]): string | undefined {
  const missing: string[] = [];
  if (needs.includes('espeak-ng') && !onPath('espeak-ng')) missing.push('espeak-ng');
  if (needs.includes('pocketsphinx')) {
    if (!onPath('pocketsphinx_continuous')) missing.push('pocketsphinx (pocketsphinx_continuous)');
    if (!existsSync(pocketsphinxModel.hmm) || !existsSync(pocketsphinxModel.dict)) missing.push('pocketsphinx-en-us (the model under /usr/share/pocketsphinx)');
  }
  return missing.length === 0
    ? undefined
    : `${missing.join(', ')} not installed (npm test installs the "speech" system packages when run as root: apt-get install -y espeak-ng sox pocketsphinx pocketsphinx-en-us)`;
}

/** espeak-ng speaking `text` (US English unless `locale` is cs), optionally with extra voice arguments. */
export function espeak(text: string, extraArgs: readonly string[] = [], locale?: string): Promise<Pcm> {
  return createEspeakTts({ extraArgs }).synthesize(text, locale);
}

/** The same at 48 kHz (what the WebRTC track carries). */
export async function espeak48k(text: string, extraArgs: readonly string[] = []): Promise<Int16Array> {
  const pcm = await espeak(text, extraArgs);
  return resample(pcm.samples, pcm.sampleRate, 48_000);
}
