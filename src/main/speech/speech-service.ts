import { ServiceError } from '../../shared/ipc/errors';
import { maxSynthesisChars, maxSynthesisSamples, maxTranscriptChars, primaryLanguage, recognitionSampleRate, type SpeechModelInfo, type SpeechStatus } from '../../shared/speech/ipc-schemas';
import { SpeechEngineError } from './bounded-process';
import { createEspeakTts, type TextToSpeech } from './espeak-tts';
import { createPocketsphinxStt } from './pocketsphinx-stt';
import type { SpeechToText } from './speech-to-text';
import { int16FromBytes, wavBytes, type Pcm } from './pcm';
import type { Logger } from '../platform/logger';
import { findSpeechEngines, type SpeechEngines } from './speech-engines';

/**
 * Client-owned voice's engines in main (#17): speech to text and text to speech behind one service,
 * whatever engine does the work. `speech.*` in the contract are its methods.
 *
 * - Synthesis is the Piper voice the user imported in Settings → Speech (sherpa-onnx, in a child process)
 *   for the languages it speaks, and espeak-ng (Debian) as a child process, looked for on PATH at each
 *   status, for every other language and whenever the imported voice fails.
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
  /** Why it cannot run now (its model failed to load several times in a row), if so. */
  readonly refusal?: () => string | undefined;
}

/** An imported voice (Piper, sherpa-onnx) and the languages it speaks. */
export interface Voice {
  readonly model: { name: string; languages: string[] };
  readonly tts: TextToSpeech;
  /** Why it cannot run now (its model failed to load several times in a row), if so. */
  readonly refusal?: () => string | undefined;
}

export interface SpeechServiceOptions {
  /** Which engines this computer has (default: looked for on PATH now). */
  findEngines?: () => SpeechEngines;
  tts?: TextToSpeech;
  /** The recognizer in use, if any (re-read at every call: a model imported later is used at once). */
  recognizer?: () => Recognizer | undefined;
  /** The model imported in Settings → Speech, shown in the status even while it cannot run. */
  imported?: () => SpeechModelInfo | undefined;
  /** The imported voice, if any (re-read at every call). */
  voice?: () => Voice | undefined;
  /** The imported voice as Settings shows it, also while it cannot run. */
  importedVoice?: () => SpeechModelInfo | undefined;
  /** Where a voice that failed (and espeak-ng spoke instead) is noted. */
  log?: Logger;
  /** Whether `speech.importModel` opens a folder chooser here (Electron). */
  folderChooser?: boolean;
}

const noModel = 'No speech model is imported: import one in Settings → Speech, or type instead.';

export class SpeechService {
  private readonly findEngines: () => SpeechEngines;
  private readonly tts: TextToSpeech;
  private readonly recognizer: () => Recognizer | undefined;
  private readonly imported: () => SpeechModelInfo | undefined;
  private readonly folderChooser: boolean;
  private readonly voice: () => Voice | undefined;
  private readonly importedVoice: () => SpeechModelInfo | undefined;
  private readonly log: Logger | undefined;

  constructor(options: SpeechServiceOptions = {}) {
    this.voice = options.voice ?? (() => undefined);
    this.importedVoice = options.importedVoice ?? (() => undefined);
    this.log = options.log;
    this.findEngines = options.findEngines ?? (() => findSpeechEngines());
    this.tts = options.tts ?? createEspeakTts();
    this.recognizer = options.recognizer ?? (() => undefined);
    this.imported = options.imported ?? (() => undefined);
    this.folderChooser = options.folderChooser ?? false;
  }

  status(): SpeechStatus {
    const engines = this.findEngines();
    const recognizer = this.recognizer();
    const refusal = recognizer?.refusal?.();
    const imported = this.imported();
    const extra = { ...(imported ? { imported } : {}), folderChooser: this.folderChooser };
    const voice = this.voice();
    const voiceRefusal = voice?.refusal?.();
    const importedVoice = this.importedVoice();
    const voiceRuns = voice !== undefined && voiceRefusal === undefined;
    return {
      synthesis: {
        available: voiceRuns || engines.found.tts !== undefined,
        engine: voiceRuns ? 'sherpa-onnx' : 'espeak-ng',
        ...(engines.found.tts === undefined ? { missing: 'sudo apt-get install espeak-ng' } : {}),
        ...(voiceRuns ? { voice: voice.model } : {}),
        ...(importedVoice ? { imported: importedVoice } : {}),
        ...(voiceRefusal !== undefined ? { reason: sentence(voiceRefusal).slice(0, 500) } : {}),
      },
      recognition: recognizer
        ? {
            available: refusal === undefined,
            engine: recognizer.engine,
            ...(recognizer.model ? { model: recognizer.model } : {}),
            ...(refusal !== undefined ? { reason: sentence(refusal).slice(0, 500) } : {}),
            ...extra,
          }
        : { available: false, engine: 'none', reason: noModel, ...extra },
    };
  }

  /**
   * Speech for `text` as a WAV: the imported voice when it speaks the locale's language (no locale is
   * English, as espeak-ng's default), else espeak-ng. A voice that fails or cannot run hands the text to
   * espeak-ng (said in the log), so a segment is spoken rather than lost.
   */
  async synthesize(text: string, locale?: string): Promise<Uint8Array<ArrayBuffer>> {
    // Folded once here, whichever engine speaks (as the contract says).
    const spoken = text.replace(/\s+/g, ' ').trim().slice(0, maxSynthesisChars);
    if (spoken === '') throw new ServiceError('invalid_request', 'There is nothing to say: the text is only spaces.', '/text');
    const voice = this.voice();
    const language = primaryLanguage(locale ?? 'en');
    if (voice && voice.refusal?.() === undefined && voice.model.languages.some((tag) => primaryLanguage(tag) === language)) {
      try {
        return new Uint8Array(wavBytes(boundedSpeech(await voice.tts.synthesize(spoken, locale))));
      } catch (error) {
        this.log?.warn('speech', `the imported voice could not speak (${error instanceof Error ? error.message : String(error)}); espeak-ng speaks instead`);
      }
    }
    try {
      const pcm = await this.tts.synthesize(spoken, locale);
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
    const refusal = recognizer.refusal?.();
    if (refusal !== undefined) throw new ServiceError('speech_unavailable', `Speech could not be recognised: ${sentence(refusal)}`);
    try {
      const text = await recognizer.stt.transcribe({ sampleRate, samples: int16FromBytes(pcm) });
      return text.replace(/\s+/g, ' ').trim().slice(0, maxTranscriptChars);
    } catch (error) {
      throw speechError(error, 'Speech could not be recognised');
    }
  }
}

/** A voice's answer fits a synthesised WAV (the process already bounds it; this is main's own check). */
function boundedSpeech(pcm: Pcm): Pcm {
  if (pcm.samples.length > maxSynthesisSamples) throw new SpeechEngineError('failed', 'the voice made more speech than one answer may hold');
  return pcm;
}

/** An engine's words as a sentence: capital first letter, one full stop. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/\.+$/, '');
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

function speechError(error: unknown, what: string): ServiceError {
  if (error instanceof SpeechEngineError) {
    const message = `${what}: ${error.message.trim().replace(/\.+$/, '')}.`;
    return error.reason === 'missing' ? new ServiceError('speech_unavailable', message) : new ServiceError('speech_unavailable', message, undefined, error.reason === 'timeout');
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
