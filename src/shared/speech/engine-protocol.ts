import { z } from 'zod';
import { maxSynthesisChars, maxSynthesisSamples, maxTranscriptChars, maxUtteranceBytes } from './ipc-schemas';

/**
 * The messages between main and a speech engine process (#17): an Electron utilityProcess in the app, a
 * Node child process under plain Node. Each process loads one imported model: a recognizer (it then
 * transcribes) or a Piper voice (it then synthesises). sherpa-onnx aborts the whole process (an uncaught
 * Ort::Exception) when a model file is corrupt, so a model is loaded there and never in main.
 * Main validates every message from the process against `engineToMainSchema` and drops what does
 * not match; the process does the same with `mainToEngineSchema`.
 */

export const engineProtocolVersion = 1;

const filePath = z.string().min(1).max(4096);
const detail = z.string().max(2000);

/** The sherpa-onnx model kinds AgentDesk loads, with the files each needs. */
export const engineModelSchema = z.discriminatedUnion('kind', [
  /** A streaming (online) zipformer transducer: encoder, decoder and joiner .onnx and tokens.txt. */
  z.strictObject({ kind: z.literal('transducer'), encoder: filePath, decoder: filePath, joiner: filePath, tokens: filePath }),
  /** Whisper (offline): encoder and decoder .onnx and its tokens file; `language` '' lets Whisper detect it. */
  z.strictObject({ kind: z.literal('whisper'), encoder: filePath, decoder: filePath, tokens: filePath, language: z.string().max(10) }),
  /** A Piper voice (VITS, text to speech): its .onnx, tokens.txt and the espeak-ng-data folder it phonemises with. */
  z.strictObject({ kind: z.literal('voice'), model: filePath, tokens: filePath, dataDir: filePath }),
]);
export type EngineModel = z.infer<typeof engineModelSchema>;
export type EngineModelKind = EngineModel['kind'];

/** An utterance's 16 kHz PCM16 little-endian bytes, base64 (JSON-safe on both kinds of channel). */
const pcmBase64 = z
  .string()
  .max(Math.ceil(maxUtteranceBytes / 3) * 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);
const requestId = z.number().int().nonnegative();
/** A voice's speech: mono PCM16 little-endian bytes, base64, at most what a synthesised WAV may hold. */
const speechBase64 = z
  .string()
  .max(Math.ceil((maxSynthesisSamples * 2) / 3) * 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);

export const mainToEngineSchema = z.discriminatedUnion('type', [
  /** Load this model (once per process: a new model gets a new process). */
  z.strictObject({ type: z.literal('load'), model: engineModelSchema }),
  z.strictObject({ type: z.literal('transcribe'), id: requestId, pcm: pcmBase64 }),
  z.strictObject({ type: z.literal('synthesize'), id: requestId, text: z.string().min(1).max(maxSynthesisChars) }),
  z.strictObject({ type: z.literal('shutdown') }),
]);
export type MainToEngine = z.infer<typeof mainToEngineSchema>;

export const engineToMainSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), version: z.literal(engineProtocolVersion), pid: z.number().int().nonnegative() }),
  z.strictObject({ type: z.literal('loaded') }),
  /** The engine refused the model with an error it survived (a missing file, a bad config). A corrupt model ends the process instead. */
  z.strictObject({ type: z.literal('loadFailed'), detail }),
  z.strictObject({ type: z.literal('result'), id: requestId, text: z.string().max(maxTranscriptChars * 2) }),
  z.strictObject({ type: z.literal('audio'), id: requestId, sampleRate: z.number().int().min(8000).max(96_000), pcm: speechBase64 }),
  z.strictObject({ type: z.literal('failed'), id: requestId, detail }),
]);
export type EngineToMain = z.infer<typeof engineToMainSchema>;
