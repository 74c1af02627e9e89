import { z } from 'zod';
import { ipcBytes } from '../base/binary';

/**
 * Speech for client-owned voice (#17, AgentCall `voice.owner: "client"`): main synthesises and
 * recognises, the renderer owns the microphone, voice activity detection and playback.
 *
 * - Synthesis: a Piper voice the user imported (sherpa-onnx, in main's speech process) for the languages
 *   it speaks, Debian's espeak-ng as a child process (GPL kept at the process boundary) for the others;
 *   the WAV crosses to the renderer, which plays it through Web Audio so Chromium's echo cancellation hears it.
 * - Recognition: an engine behind main's `SpeechToText` interface, on 16 kHz mono PCM16 utterances the
 *   renderer cut with its VAD or push to talk: the imported model, else (where Debian's pocketsphinx is
 *   installed) a basic English recognizer. Without either `speech.transcribe` answers
 *   `speech_unavailable`, and the page keeps the keyboard.
 */

/** Where sherpa-onnx publishes its speech recognition models (a release of its GitHub repository). */
export const recognitionModelsUrl = 'https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models';

/** Longest text spoken in one call (an AgentCall `speech.segment` is usually a sentence or two). */
export const maxSynthesisChars = 2000;
/** The WAV espeak-ng writes for the longest text stays well under this (about 80 s at 22.05 kHz). */
export const maxSynthesisWavBytes = 4 * 1024 * 1024;
/** The most 16-bit mono samples one synthesised WAV holds (its 44-byte header aside): the one speech limit. */
export const maxSynthesisSamples = Math.floor((maxSynthesisWavBytes - 44) / 2);

/** A language tag's primary subtag, lower case: `en-US` → en, `cs_CZ` → cs. The one rule for matching languages. */
export function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}
/** What recognition takes: 16 kHz mono, 16-bit little-endian samples. */
export const recognitionSampleRate = 16_000;
/** Longest utterance recognised in one call: 30 s. */
export const maxUtteranceSeconds = 30;
export const maxUtteranceBytes = recognitionSampleRate * 2 * maxUtteranceSeconds;
export const maxTranscriptChars = 2000;

const locale = z.string().regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/, 'a BCP 47 language tag such as en or cs-CZ');

/** What an imported model is for: recognising speech (a transducer or Whisper) or speaking (a Piper voice). */
export const speechPurposeSchema = z.enum(['recognition', 'voice']);
export type SpeechPurpose = z.infer<typeof speechPurposeSchema>;

/**
 * An imported model (Settings → Speech). `languages`: BCP 47 tags; `mul` is a multilingual model.
 * `kind` `voice` is a Piper voice (text to speech); the others recognise speech.
 */
export const speechModelInfoSchema = z.strictObject({
  name: z.string().max(200),
  languages: z.array(z.string().max(35)).max(100),
  kind: z.enum(['transducer', 'whisper', 'voice']),
  importedAt: z.string().max(40),
});
export type SpeechModelInfo = z.infer<typeof speechModelInfoSchema>;

/**
 * Import progress: an archive unpacked (its own bytes read), the files copied into the user-data folder
 * (sha256 taken on the way), then the model loaded once to verify it.
 */
export const speechImportProgressSchema = z.strictObject({
  phase: z.enum(['unpacking', 'copying', 'verifying']),
  bytesDone: z.number().int().nonnegative(),
  bytesTotal: z.number().int().nonnegative(),
  file: z.string().max(255).optional(),
});
export type SpeechImportProgress = z.infer<typeof speechImportProgressSchema>;

export const speechStatusSchema = z.strictObject({
  synthesis: z.strictObject({
    /** Something can speak: the imported voice, or espeak-ng. */
    available: z.boolean(),
    /** What speaks the imported voice's languages: `sherpa-onnx` while an imported voice can run, else espeak-ng. */
    engine: z.enum(['espeak-ng', 'sherpa-onnx']),
    /** espeak-ng (the voice of every other language) is not installed: the install command to run. */
    missing: z.string().max(300).optional(),
    /** The imported voice in use. */
    voice: z.strictObject({ name: z.string().max(200), languages: z.array(z.string().max(35)).max(100) }).optional(),
    /** The voice imported in Settings → Speech, also while it cannot run (`reason` says why). */
    imported: speechModelInfoSchema.optional(),
    /** Why the imported voice cannot speak now, in words. */
    reason: z.string().max(500).optional(),
  }),
  recognition: z.strictObject({
    available: z.boolean(),
    engine: z.enum(['sherpa-onnx', 'pocketsphinx', 'none']),
    model: z.strictObject({ name: z.string().max(200), languages: z.array(z.string().max(35)).max(100) }).optional(),
    /** pocketsphinx's general US English model stands in while no model is imported: basic, English only. */
    basic: z.literal(true).optional(),
    /** Why it is not available, in words. */
    reason: z.string().max(500).optional(),
    /** The model imported in Settings → Speech, when there is one (also when it cannot run now: `reason` says why). */
    imported: speechModelInfoSchema.optional(),
    /** True where main opens a folder chooser for `speech.importModel` (Electron); the web shell takes a typed path. */
    folderChooser: z.boolean().optional(),
  }),
});
export type SpeechStatus = z.infer<typeof speechStatusSchema>;

export const speechMethods = {
  'speech.status': { request: z.strictObject({}), response: speechStatusSchema },
  /**
   * Speaks `text` (whitespace folded): in the imported voice when it speaks the locale's language (no
   * locale is English), else in the locale's espeak-ng voice (Czech for `cs`, US English otherwise). An
   * imported voice that fails hands that text to espeak-ng.
   */
  'speech.synthesize': {
    request: z.strictObject({ text: z.string().min(1).max(maxSynthesisChars), locale: locale.optional() }),
    response: z.strictObject({ wav: ipcBytes(maxSynthesisWavBytes) }),
  },
  /** The words in one utterance ('' when nothing was heard); `speech_unavailable` without a recognizer. */
  'speech.transcribe': {
    request: z.strictObject({
      pcm: ipcBytes(maxUtteranceBytes, { min: 2 }),
      sampleRate: z.literal(recognitionSampleRate),
      locale: locale.optional(),
    }),
    response: z.strictObject({ text: z.string().max(maxTranscriptChars) }),
  },
  /**
   * Imports a sherpa-onnx model: a folder or the archive sherpa-onnx publishes it as (`.tar.bz2`,
   * `.tar.gz`, `.tgz`, `.tar`, unpacked by main): `path`, or (without it) what the user picks in main's
   * chooser (Electron), a folder or, with `choose: 'archive'`, an archive file. `purpose` (default
   * `recognition`) says which slot it fills: a recognizer, or with `voice` a Piper voice (its .onnx,
   * tokens.txt and espeak-ng-data folder). Progress arrives as `speech.importProgress`. No `model` in the
   * answer: the chooser was cancelled. `speech_model_invalid` when the folder is wrong, holds the other
   * purpose's model, or the model does not load (the previous one stays in use). One import at a time.
   * Behind the device policy's admin PIN.
   */
  'speech.importModel': {
    request: z.strictObject({
      path: z.string().min(1).max(4096).optional(),
      choose: z.enum(['folder', 'archive']).optional(),
      purpose: speechPurposeSchema.optional(),
    }),
    response: z.strictObject({ model: speechModelInfoSchema.optional() }),
    gesture: 'A speech model is imported only when you click Import.',
  },
  /**
   * Deletes the imported model of `purpose` (default `recognition`): recognition is unavailable until
   * another is imported; without a voice, espeak-ng speaks. Behind the admin PIN.
   */
  'speech.removeModel': {
    request: z.strictObject({ purpose: speechPurposeSchema.optional() }),
    response: z.strictObject({}),
    gesture: 'The speech model is removed only when you click Remove.',
  },
} as const;

export const speechEvents = {
  'speech.importProgress': speechImportProgressSchema,
} as const;

/**
 * Which recognizer listens now, as the page names it: the imported model, the basic English one
 * (pocketsphinx, no model imported), the demo's English commands (pocketsphinx with its grammar, tests
 * and the demo), or none (nothing can recognise: the page says what to import and keeps the keyboard).
 */
export type RecognizerInUse = 'model' | 'basic' | 'commands' | 'none';

export function recognizerInUse(recognition: SpeechStatus['recognition']): RecognizerInUse {
  if (!recognition.available) return 'none';
  if (recognition.engine === 'sherpa-onnx') return 'model';
  if (recognition.engine === 'pocketsphinx') return recognition.basic ? 'basic' : 'commands';
  return 'none';
}
