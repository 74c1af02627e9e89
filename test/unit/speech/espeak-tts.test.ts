import { describe, expect, it } from 'vitest';
import { runBounded, SpeechEngineError } from '../../../src/main/speech/bounded-process';
import { createEspeakTts, espeakVoice } from '../../../src/main/speech/espeak-tts';
import { parseWav, rms, wavBytes } from '../../../src/main/speech/pcm';
import { speechUnavailableReason } from '../../support/speech';

/** The demo provider's voice (#16): espeak-ng as a bounded child process, and the WAV it writes. */
const unavailable = speechUnavailableReason(['espeak-ng']);
if (unavailable) console.log(`espeak-ng tests skipped: ${unavailable}`);

const seconds = (pcm: { sampleRate: number; samples: Int16Array }): number => pcm.samples.length / pcm.sampleRate;

describe('speech engine processes (no engine needed)', () => {
  it('a missing binary, a timeout and too much output are SpeechEngineErrors that say which', async () => {
    await expect(createEspeakTts({ binary: 'espeak-ng-not-installed-here' }).synthesize('hello')).rejects.toMatchObject({
      reason: 'missing',
      message: expect.stringContaining('not installed'),
    });
    await expect(runBounded(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { timeoutMs: 200, maxOutputBytes: 1000 })).rejects.toMatchObject({
      reason: 'timeout',
    });
    await expect(
      runBounded(process.execPath, ['-e', 'process.stdout.write("x".repeat(100000))'], { timeoutMs: 10_000, maxOutputBytes: 1000 }),
    ).rejects.toMatchObject({ reason: 'too_large' });
    const failed = runBounded(process.execPath, ['-e', 'console.error("bad voice"); process.exit(3)'], { timeoutMs: 10_000, maxOutputBytes: 1000 });
    await expect(failed).rejects.toBeInstanceOf(SpeechEngineError);
    await expect(failed).rejects.toMatchObject({ reason: 'failed', message: expect.stringContaining('bad voice') });
    expect(
      (
        await runBounded(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'piped', timeoutMs: 10_000, maxOutputBytes: 1000 })
      ).toString(),
    ).toBe('piped');
  });

  it('reads a WAV whose data size is the streaming placeholder (espeak-ng --stdout), and mixes stereo down', () => {
    const wav = wavBytes({ sampleRate: 22_050, samples: Int16Array.from([1, -2, 3, 1000]) });
    wav.writeUInt32LE(0x7ffff000, 40);
    expect(parseWav(wav)).toEqual({ sampleRate: 22_050, samples: Int16Array.from([1, -2, 3, 1000]) });
    const stereo = Buffer.from(wav);
    stereo.writeUInt16LE(2, 22);
    expect(parseWav(stereo).samples).toEqual(Int16Array.from([0, 502])); // (1 − 2) / 2 rounds to 0
    expect(() => parseWav(Buffer.from('RIFF0000WAVEjunk'))).toThrow(/no data chunk/);
    expect(espeakVoice('cs-CZ')).toBe('cs');
    expect(espeakVoice('en')).toBe('en-us');
    expect(espeakVoice(undefined)).toBe('en-us');
  });
});

describe.skipIf(unavailable !== undefined)('espeak-ng', { timeout: 30_000 }, () => {
  it('speaks English and Czech as 22050 Hz mono; text that looks like an option is only text', async () => {
    const tts = createEspeakTts();
    const english = await tts.synthesize('I can search contacts or send the offer.');
    const czech = await tts.synthesize('Ano, potvrzuji.', 'cs');
    const dashes = await tts.synthesize('--help -v xx');
    console.log(
      `espeak-ng: English ${seconds(english).toFixed(2)} s RMS ${rms(english.samples).toFixed(3)}; Czech ${seconds(czech).toFixed(2)} s; "--help -v xx" ${seconds(dashes).toFixed(2)} s`,
    );
    for (const pcm of [english, czech, dashes]) expect(pcm.sampleRate).toBe(22_050);
    expect(seconds(english)).toBeGreaterThan(1.5);
    expect(seconds(english)).toBeLessThan(6);
    expect(rms(english.samples)).toBeGreaterThan(0.03);
    expect(seconds(czech)).toBeGreaterThan(0.7);
    expect(seconds(dashes)).toBeGreaterThan(0.5);
  });
});
