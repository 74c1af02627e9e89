import { z } from 'zod';
import { ipcBytes } from '../ipc/binary';

/**
 * Speech for client-owned voice (#17, AgentCall `voice.owner: "client"`): main synthesises and
 * recognises, the renderer owns the microphone, voice activity detection and playback.
 *
 * - Synthesis: Debian's espeak-ng as a child process (GPL kept at the process boundary); the WAV
 *   crosses to the renderer, which plays it through Web Audio so Chromium's echo cancellation hears it.
 * - Recognition: an engine behind main's `SpeechToText` interface, on 16 kHz mono PCM16 utterances the
 *   renderer cut with its VAD or push to talk. Without an engine `speech.transcribe` answers
 *   `speech_unavailable`, and the page offers the keyboard.
 */

/** Longest text spoken in one call (an AgentCall `speech.segment` is usually a sentence or two). */
export const maxSynthesisChars = 2000;
/** The WAV espeak-ng writes for the longest text stays well under this (about 80 s at 22.05 kHz). */
export const maxSynthesisWavBytes = 4 * 1024 * 1024;
/** What recognition takes: 16 kHz mono, 16-bit little-endian samples. */
export const recognitionSampleRate = 16_000;
/** Longest utterance recognised in one call: 30 s. */
export const maxUtteranceSeconds = 30;
export const maxUtteranceBytes = recognitionSampleRate * 2 * maxUtteranceSeconds;
export const maxTranscriptChars = 2000;

const locale = z.string().regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/, 'a BCP 47 language tag such as en or cs-CZ');

export const speechStatusSchema = z.strictObject({
  synthesis: z.strictObject({
    available: z.boolean(),
    engine: z.literal('espeak-ng'),
    /** Why it is not available: the install command to run. */
    missing: z.string().max(300).optional(),
  }),
  recognition: z.strictObject({
    available: z.boolean(),
    engine: z.enum(['sherpa-onnx', 'pocketsphinx', 'none']),
    model: z.strictObject({ name: z.string().max(200), languages: z.array(z.string().max(35)).max(100) }).optional(),
    /** Why it is not available, in words. */
    reason: z.string().max(500).optional(),
  }),
});
export type SpeechStatus = z.infer<typeof speechStatusSchema>;

export const speechMethods = {
  'speech.status': { request: z.strictObject({}), response: speechStatusSchema },
  /** Speaks `text` (whitespace folded) in the locale's espeak-ng voice: Czech for `cs`, US English otherwise. */
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
} as const;
