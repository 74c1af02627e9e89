import { ServiceError } from '../../shared/ipc/errors';
import { maxTranscriptChars, recognitionSampleRate, type SpeechStatus } from '../../shared/speech/ipc-schemas';
import { SpeechEngineError } from './bounded-process';
import { createEspeakTts, type TextToSpeech } from './espeak-tts';
import { createPocketsphinxStt, type SpeechToText } from './pocketsphinx-stt';
import { int16FromBytes, wavBytes } from './pcm';
import { findSpeechEngines, type SpeechEngines } from './speech-engines';

/**
 * Client-owned voice's engines in main (#17): speech to text and text to speech behind one service,
 * whatever engine does the work. `speech.*` in the contract are its methods.
 *
 * - Synthesis is espeak-ng (Debian) as a child process, looked for on PATH at each status.
 * - Recognition is an engine the user gives AgentDesk: a speech model imported in Settings → Speech
 *   (sherpa-onnx, in a child process: a corrupt model aborts the process that loads it). Until one is
 *   imported, `transcribe` answers `speech_unavailable` and the page offers the keyboard.
 * - `AGENTDESK_SPEECH_RECOGNIZER=pocketsphinx` (tests and the demo, never a user's setting) recognises with
 *   Debian's pocketsphinx and the demo's small English grammar instead, so listening can be tested end to
 *   end on a machine without a model.
 */
export interface Recognizer {
  readonly engine: 'sherpa-onnx' | 'pocketsphinx';
  readonly model?: { name: string; languages: string[] };
  readonly stt: SpeechToText;
}

export interface SpeechServiceOptions {
  /** Which engines this computer has (default: looked for on PATH now). */
  findEngines?: () => SpeechEngines;
  tts?: TextToSpeech;
  /** The recognizer in use, if any (re-read at every call: a model imported later is used at once). */
  recognizer?: () => Recognizer | undefined;
}

const noModel = 'No speech model is imported: import one in Settings → Speech, or type instead.';

export class SpeechService {
  private readonly findEngines: () => SpeechEngines;
  private readonly tts: TextToSpeech;
  private readonly recognizer: () => Recognizer | undefined;

  constructor(options: SpeechServiceOptions = {}) {
    this.findEngines = options.findEngines ?? (() => findSpeechEngines());
    this.tts = options.tts ?? createEspeakTts();
    this.recognizer = options.recognizer ?? (() => undefined);
  }

  status(): SpeechStatus {
    const engines = this.findEngines();
    const recognizer = this.recognizer();
    return {
      synthesis: {
        available: engines.found.tts !== undefined,
        engine: 'espeak-ng',
        ...(engines.found.tts === undefined ? { missing: 'sudo apt-get install espeak-ng' } : {}),
      },
      recognition: recognizer
        ? { available: true, engine: recognizer.engine, ...(recognizer.model ? { model: recognizer.model } : {}) }
        : { available: false, engine: 'none', reason: noModel },
    };
  }

  async synthesize(text: string, locale?: string): Promise<Uint8Array<ArrayBuffer>> {
    try {
      const pcm = await this.tts.synthesize(text, locale);
      return new Uint8Array(wavBytes(pcm));
    } catch (error) {
      throw speechError(error, 'Speech could not be synthesised');
    }
  }

  async transcribe(pcm: Uint8Array, sampleRate: number): Promise<string> {
    if (sampleRate !== recognitionSampleRate) throw new ServiceError('invalid_request', `Utterances are ${recognitionSampleRate} Hz mono.`, '/sampleRate');
    if (pcm.byteLength % 2 !== 0) throw new ServiceError('invalid_request', 'An utterance is whole 16-bit samples (an even number of bytes).', '/pcm');
    const recognizer = this.recognizer();
    if (!recognizer) throw new ServiceError('speech_unavailable', noModel);
    try {
      const text = await recognizer.stt.transcribe({ sampleRate, samples: int16FromBytes(pcm) });
      return text.replace(/\s+/g, ' ').trim().slice(0, maxTranscriptChars);
    } catch (error) {
      throw speechError(error, 'Speech could not be recognised');
    }
  }
}

function speechError(error: unknown, what: string): ServiceError {
  if (error instanceof SpeechEngineError) {
    return error.reason === 'missing'
      ? new ServiceError('speech_unavailable', `${what}: ${error.message}.`)
      : new ServiceError('speech_unavailable', `${what}: ${error.message}.`, undefined, error.reason === 'timeout');
  }
  return new ServiceError('internal', `${what}.`);
}

/** The test/demo recognizer named by AGENTDESK_SPEECH_RECOGNIZER, if any (see SpeechService). */
export function recognizerFromEnvironment(env: NodeJS.ProcessEnv = process.env): Recognizer | undefined {
  const name = env.AGENTDESK_SPEECH_RECOGNIZER;
  if (name === undefined || name === '') return undefined;
  if (name !== 'pocketsphinx') throw new Error(`AGENTDESK_SPEECH_RECOGNIZER=${name}: the only test recognizer is pocketsphinx.`);
  return { engine: 'pocketsphinx', model: { name: "pocketsphinx (the demo's English commands)", languages: ['en'] }, stt: createPocketsphinxStt() };
}
