import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/shared/base/errors';
import { bytesFromInt16, parseWav, resample, rms } from '../../../src/main/speech/pcm';
import { basicRecognizerFromEnvironment, recognizerFromEnvironment, SpeechService } from '../../../src/main/speech/speech-service';
import type { SpeechToText } from '../../../src/main/speech/speech-to-text';
import type { SpeechEngines } from '../../../src/main/speech/speech-engines';
import { espeak, speechUnavailableReason } from '../../support/speech';

/** `speech.*` in main (#17): espeak-ng synthesis, and recognition only with a recognizer. */
const noEspeak = speechUnavailableReason(['espeak-ng']);
const noSphinx = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (noEspeak) console.log(`speech synthesis tests skipped: ${noEspeak}`);
if (noSphinx && !noEspeak) console.log(`speech recognition test skipped: ${noSphinx}`);

const engines =
  (tts: boolean, recognizer?: { recognizer: string; model?: string }): (() => SpeechEngines) =>
  () => ({
    available: tts && recognizer !== undefined,
    missing: tts ? [] : ['espeak-ng'],
    installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us',
    found: { ...(tts ? { tts: '/usr/bin/espeak-ng' } : {}), ...recognizer },
  });
/** Debian 12's pocketsphinx 0.8 with pocketsphinx-en-us, as findSpeechEngines reports them. */
const debianSphinx = { recognizer: '/usr/bin/pocketsphinx_continuous', model: '/usr/share/pocketsphinx/model/en-us' };
const noRecognizer =
  'No speech model is imported: import a sherpa-onnx speech recognition model (published at https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models) in Settings → Speech, or type instead.';

/** A stand-in for the basic recognizer: records what it was made on and what it heard. */
function fakeBasic(text: string) {
  const made: { modelDir: string; binary: string }[] = [];
  let closed = 0;
  const basicStt = (modelDir: string, binary: string): SpeechToText => {
    made.push({ modelDir, binary });
    return { transcribe: async () => text, close: () => void closed++ };
  };
  return { basicStt, made, closed: () => closed };
}

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
      recognition: { available: false, engine: 'none', reason: noRecognizer, folderChooser: false },
    });
    expect(new SpeechService({ findEngines: engines(false) }).status().synthesis).toEqual({
      available: false,
      engine: 'espeak-ng',
      missing: 'sudo apt-get install espeak-ng',
    });
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

  it('answers speech_unavailable when espeak-ng cannot run, and when no recognizer exists: what to import, where models are published, and to type meanwhile', async () => {
    const speech = new SpeechService({
      findEngines: engines(true),
      tts: (await import('../../../src/main/speech/espeak-tts')).createEspeakTts({ binary: '/nonexistent/espeak-ng' }),
    });
    const synthesis = await rejection(speech.synthesize('hello'));
    expect(synthesis.code).toBe('speech_unavailable');
    expect(synthesis.message).toContain('/nonexistent/espeak-ng is not installed');
    const recognition = await rejection(speech.transcribe(new Uint8Array(3200), 16_000));
    expect(recognition.code).toBe('speech_unavailable');
    expect(recognition.message).toBe(noRecognizer);
  });

  it('without an imported model, recognises with pocketsphinx’s basic English model where pocketsphinx 0.8 and pocketsphinx-en-us are installed, and says it is basic', async () => {
    const basic = fakeBasic('what is the weather tomorrow');
    const speech = new SpeechService({ findEngines: engines(true, debianSphinx), basicStt: basic.basicStt });
    expect(speech.status().recognition).toEqual({
      available: true,
      engine: 'pocketsphinx',
      model: { name: 'pocketsphinx-en-us (basic English)', languages: ['en'] },
      basic: true,
      folderChooser: false,
    });
    expect(await speech.transcribe(new Uint8Array(3200), 16_000)).toBe('what is the weather tomorrow');
    // Made once, on the model folder and the program that were found.
    expect(basic.made).toEqual([{ modelDir: debianSphinx.model, binary: debianSphinx.recognizer }]);
    speech.dispose();
    expect(basic.closed()).toBe(1);
  });

  it('an imported model (or the test recognizer) comes first; pocketsphinx 5, pocketsphinx without its model, or basic turned off give no basic recognizer', async () => {
    const basic = fakeBasic('basic words');
    const imported = new SpeechService({
      findEngines: engines(true, debianSphinx),
      basicStt: basic.basicStt,
      recognizer: () => ({
        engine: 'sherpa-onnx',
        model: { name: 'zipformer-cs', languages: ['cs'] },
        stt: { transcribe: async () => 'ano', close: () => undefined },
      }),
    });
    expect(imported.status().recognition).toMatchObject({ available: true, engine: 'sherpa-onnx', model: { name: 'zipformer-cs' } });
    expect(imported.status().recognition.basic).toBeUndefined();
    expect(await imported.transcribe(new Uint8Array(4), 16_000)).toBe('ano');
    for (const found of [{ recognizer: '/usr/bin/pocketsphinx' }, { recognizer: '/usr/bin/pocketsphinx_continuous' }]) {
      const speech = new SpeechService({ findEngines: engines(true, found), basicStt: basic.basicStt });
      expect(speech.status().recognition).toEqual({ available: false, engine: 'none', reason: noRecognizer, folderChooser: false });
      expect((await rejection(speech.transcribe(new Uint8Array(4), 16_000))).message).toBe(noRecognizer);
    }
    const off = new SpeechService({ findEngines: engines(true, debianSphinx), basicStt: basic.basicStt, basic: false });
    expect(off.status().recognition.engine).toBe('none');
    expect(basic.made).toEqual([]);
  });

  it('refuses an odd number of bytes or another rate before any engine runs', async () => {
    let ran = 0;
    const speech = new SpeechService({ recognizer: () => ({ engine: 'pocketsphinx', stt: { transcribe: async () => (ran++, 'x'), close: () => undefined } }) });
    expect((await rejection(speech.transcribe(new Uint8Array(3), 16_000))).code).toBe('invalid_request');
    expect((await rejection(speech.transcribe(new Uint8Array(4), 48_000))).code).toBe('invalid_request');
    expect(ran).toBe(0);
    expect(await speech.transcribe(new Uint8Array(4), 16_000)).toBe('x');
  });

  it('AGENTDESK_SPEECH_RECOGNIZER names pocketsphinx, none (not even the basic recognizer), or nothing', () => {
    expect(recognizerFromEnvironment({})).toBeUndefined();
    expect(recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' })?.engine).toBe('pocketsphinx');
    expect(recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'none' })).toBeUndefined();
    expect(() => recognizerFromEnvironment({ AGENTDESK_SPEECH_RECOGNIZER: 'whisper' })).toThrow('the only test recognizer is pocketsphinx');
    expect(
      [{}, { AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' }, { AGENTDESK_SPEECH_RECOGNIZER: 'none' }].map((env) => basicRecognizerFromEnvironment(env)),
    ).toEqual([true, true, false]);
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

describe.skipIf(noSphinx)('SpeechService on this computer’s pocketsphinx, no model imported', { timeout: 120_000 }, () => {
  it('finds the basic English recognizer, says it is basic, and hears an espeak-ng sentence at 16 kHz with it', async () => {
    const speech = new SpeechService();
    expect(speech.status().recognition).toMatchObject({ available: true, engine: 'pocketsphinx', basic: true, model: { languages: ['en'] } });
    const spoken = await espeak('what is the weather tomorrow');
    const pcm = bytesFromInt16(resample(spoken.samples, spoken.sampleRate, 16_000));
    expect(await speech.transcribe(new Uint8Array(pcm), 16_000)).toBe('what is the weather tomorrow');
    speech.dispose();
  });
});
