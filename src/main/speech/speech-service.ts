import { basename } from 'node:path';
import { ServiceError } from '../../shared/base/errors';
import {
  maxSynthesisChars,
  maxSynthesisSamples,
  maxTranscriptChars,
  primaryLanguage,
  recognitionModelsUrl,
  recognitionSampleRate,
  type SpeechModelInfo,
  type SpeechStatus,
} from '../../shared/speech/ipc-schemas';
import { SpeechEngineError } from './bounded-process';
import { createEspeakTts, type TextToSpeech } from './espeak-tts';
import { createPocketsphinxStt, pocketsphinxModelIn } from './pocketsphinx-stt';
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
 *   imported, Debian's pocketsphinx with its general US English model, where it is installed (looked for
 *   at each call, like espeak-ng): a basic English recognizer, and the status says so (`basic`). With
 *   neither, `transcribe` answers `speech_unavailable` with what to import and where models are
 *   published, and the page keeps the keyboard.
 * - `AGENTDESK_SPEECH_RECOGNIZER=pocketsphinx` (tests and the demo, never a user's setting) recognises with
 *   Debian's pocketsphinx and the demo's small English grammar instead, so listening can be tested end to
 *   end on a machine without a model; `=none` offers no basic recognizer (a computer without pocketsphinx).
 */
export interface Recognizer {
  readonly engine: 'sherpa-onnx' | 'pocketsphinx';
  readonly model?: { name: string; languages: string[] };
  /** pocketsphinx's general English model standing in for an imported one: basic, English only. */
  readonly basic?: true;
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
  /** Whether pocketsphinx's basic English recognizer stands in while no model is imported (default: yes). */
  basic?: boolean;
  /** The basic recognizer on pocketsphinx-en-us's model folder (default: the real pocketsphinx; tests give a fake). */
  basicStt?: (modelDir: string, binary: string) => SpeechToText;
}

/** The refusal without any recognizer: what to import, where it is published, and the keyboard meanwhile. */
export const noRecognizerMessage = `No speech model is imported: import a sherpa-onnx speech recognition model (published at ${recognitionModelsUrl}) in Settings → Speech, or type instead.`;
const basicModel = { name: 'pocketsphinx-en-us (basic English)', languages: ['en'] };

export class SpeechService {
  private readonly findEngines: () => SpeechEngines;
  private readonly tts: TextToSpeech;
  private readonly recognizer: () => Recognizer | undefined;
  private readonly imported: () => SpeechModelInfo | undefined;
  private readonly folderChooser: boolean;
  private readonly voice: () => Voice | undefined;
  private readonly importedVoice: () => SpeechModelInfo | undefined;
  private readonly log: Logger | undefined;
  private readonly basicOffered: boolean;
  private readonly basicStt: (modelDir: string, binary: string) => SpeechToText;
  /** The basic recognizer, made on first use (its temporary folder goes with `dispose`). */
  private basic: { key: string; recognizer: Recognizer } | undefined;

  constructor(options: SpeechServiceOptions = {}) {
    this.basicOffered = options.basic ?? true;
    this.basicStt = options.basicStt ?? basicPocketsphinx;
    this.voice = options.voice ?? (() => undefined);
    this.importedVoice = options.importedVoice ?? (() => undefined);
    this.log = options.log;
    this.findEngines = options.findEngines ?? (() => findSpeechEngines());
    this.tts = options.tts ?? createEspeakTts();
    this.recognizer = options.recognizer ?? (() => undefined);
    this.imported = options.imported ?? (() => undefined);
    this.folderChooser = options.folderChooser ?? false;
  }

  /**
   * The recognizer in use: the given one (an imported model, or the test recognizer), else the basic
   * English one where pocketsphinx 0.8 and pocketsphinx-en-us are installed (pocketsphinx 5's command
   * takes other arguments: not used).
   */
  private recognizerNow(engines: SpeechEngines): Recognizer | undefined {
    const given = this.recognizer();
    if (given || !this.basicOffered) return given;
    const { recognizer: binary, model } = engines.found;
    if (binary === undefined || model === undefined || !basename(binary).startsWith('pocketsphinx_continuous')) return undefined;
    const key = `${binary}\n${model}`;
    if (this.basic?.key !== key) {
      this.basic?.recognizer.stt.close();
      this.basic = { key, recognizer: { engine: 'pocketsphinx', model: basicModel, basic: true, stt: this.basicStt(model, binary) } };
    }
    return this.basic.recognizer;
  }

  /** Removes what the basic recognizer holds (a temporary folder). */
  dispose(): void {
    this.basic?.recognizer.stt.close();
    this.basic = undefined;
  }

  status(): SpeechStatus {
    const engines = this.findEngines();
    const recognizer = this.recognizerNow(engines);
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
            ...(recognizer.basic ? { basic: true } : {}),
            ...(refusal !== undefined ? { reason: sentence(refusal).slice(0, 500) } : {}),
            ...extra,
          }
        : { available: false, engine: 'none', reason: noRecognizerMessage, ...extra },
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
    const recognizer = this.recognizerNow(this.findEngines());
    if (!recognizer) throw new ServiceError('speech_unavailable', noRecognizerMessage);
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

/** pocketsphinx 0.8 on pocketsphinx-en-us's folder with its general n-gram model: free English speech. */
function basicPocketsphinx(modelDir: string, binary: string): SpeechToText {
  const files = pocketsphinxModelIn(modelDir);
  return createPocketsphinxStt({ binary, hmm: files.hmm, dict: files.dict, languageModel: files.lm });
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
    return error.reason === 'missing'
      ? new ServiceError('speech_unavailable', message)
      : new ServiceError('speech_unavailable', message, undefined, error.reason === 'timeout');
  }
  return new ServiceError('internal', `${what}.`);
}

/** The test/demo recognizer named by AGENTDESK_SPEECH_RECOGNIZER, if any (see SpeechService); `none` names none. */
export function recognizerFromEnvironment(env: NodeJS.ProcessEnv = process.env): Recognizer | undefined {
  const name = env.AGENTDESK_SPEECH_RECOGNIZER;
  if (name === undefined || name === '' || name === 'none') return undefined;
  if (name !== 'pocketsphinx')
    throw new Error(`AGENTDESK_SPEECH_RECOGNIZER=${name}: the only test recognizer is pocketsphinx (or none, for no recognizer at all).`);
  return { engine: 'pocketsphinx', model: { name: "pocketsphinx (the demo's English commands)", languages: ['en'] }, stt: createPocketsphinxStt() };
}

/** Whether AGENTDESK_SPEECH_RECOGNIZER leaves the basic recognizer on (`none` turns it off, for tests of a computer without one). */
export function basicRecognizerFromEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AGENTDESK_SPEECH_RECOGNIZER !== 'none';
}
