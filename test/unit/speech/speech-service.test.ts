import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/shared/ipc/errors';
import { bytesFromInt16, parseWav, resample, rms } from '../../../src/main/speech/pcm';
import { recognizerFromEnvironment, SpeechService } from '../../../src/main/speech/speech-service';
import type { SpeechEngines } from '../../../src/main/speech/speech-engines';
import { espeak, speechUnavailableReason } from '../../support/speech';

/** `speech.*` in main (#17): espeak-ng synthesis, and recognition only with a recognizer. */
const noEspeak = speechUnavailableReason(['espeak-ng']);
const noSphinx = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (noEspeak) console.log(`speech synthesis tests skipped: ${noEspeak}`);
if (noSphinx && !noEspeak) console.log(`speech recognition test skipped: ${noSphinx}`);

const engines = (tts: boolean): (() => SpeechEngines) => () => ({
  available: tts,
  missing: tts ? [] : ['espeak-ng'],
  installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us',
  found: tts ? { tts: '/usr/bin/espeak-ng' } : {},
});

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('SpeechService', () => {
  it('says what it has: synthesis when espeak-ng is found, with the install command when not; no recognizer without a model', () => {
    expect(new SpeechService({ findEngines: engines(true) }).status()).toEqual({
      synthesis: { available: true, engine: 'espeak-ng' },
      recognition: { available: false, engine: 'none', reason: 'No speech model is imported: import one in Settings → Speech, or type instead.' },
    });
    expect(new SpeechService({ findEngines: engines(false) }).status().synthesis).toEqual({ available: false, engine: 'espeak-ng', missing: 'sudo apt-get install espeak-ng' });
  });

  it.skipIf(noEspeak)('synthesises a WAV that holds speech, in Czech for cs', async () => {
    const speech = new SpeechService();
    for (const locale of [undefined, 'cs-CZ']) {
      const pcm = parseWav(await speech.synthesize('Dobrý den, hello there.', locale));
      expect(pcm.sampleRate).toBe(22_050);
      expect(pcm.samples.length / pcm.sampleRate).toBeGreaterThan(0.5);
      expect(rms(pcm.samples)).toBeGreaterThan(0.02);
    }
  });

  it('answers speech_unavailable when espeak-ng cannot run, and when no recognizer exists', async () => {
    const speech = new SpeechService({ tts: (await import('../../../src/main/speech/espeak-tts')).createEspeakTts({ binary: '/nonexistent/espeak-ng' }) });
    const synthesis = await rejection(speech.synthesize('hello'));
    expect(synthesis.code).toBe('speech_unavailable');
    expect(synthesis.message).toContain('/nonexistent/espeak-ng is not installed');
    const recognition = await rejection(speech.transcribe(new Uint8Array(3200), 16_000));
    expect(recognition.code).toBe('speech_unavailable');
    expect(recognition.message).toContain('Settings → Speech');
  });

  it('refuses an odd number of bytes or another rate before any engine runs', async () => {
    let ran = 0;
    const speech = new SpeechService({ recognizer: () => ({ engine: 'pocketsphinx', stt: { transcribe: async () => (ran++, 'x'), close: () => undefined } }) });
    expect((await rejection(speech.transcribe(new Uint8Array(3), 16_000))).code).toBe('invalid_request');
    expect((await rejection(speech.transcribe(new Uint8Array(4), 48_000))).code).toBe('invalid_request');
    expect(ran).toBe(0);
    expect(await speech.transcribe(new Uint8Array(4), 16_000)).toBe('x');
  });

  it('AGENTDESK_SPEECH_RECOGNIZER names pocketsphinx or nothing', () => {
    expect(recognizerFromEnvironment({})).toBeUndefined();
    expect(recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' })?.engine).toBe('pocketsphinx');
    expect(() => recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'whisper' })).toThrow('the only test recognizer is pocketsphinx');
  });

  it.skipIf(noSphinx)('with the pocketsphinx test recognizer, hears an espeak-ng utterance at 16 kHz', async () => {
    const recognizer = recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' });
    const speech = new SpeechService({ recognizer: () => recognizer });
    const spoken = await espeak('search contacts');
    const pcm = bytesFromInt16(resample(spoken.samples, spoken.sampleRate, 16_000));
    expect(await speech.transcribe(new Uint8Array(pcm), 16_000)).toBe('search contacts');
    expect(speech.status().recognition).toMatchObject({ available: true, engine: 'pocketsphinx', model: { languages: ['en'] } });
    recognizer?.stt.close();
  });
});
