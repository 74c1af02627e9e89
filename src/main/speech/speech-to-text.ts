import type { Pcm } from './pcm';

/** A speech recognizer behind SpeechService (#17): pocketsphinx for the demo and tests, sherpa-onnx in its process for users. */
export interface SpeechToText {
  /** The words heard, or '' when nothing matched. Throws SpeechEngineError when the engine cannot run. */
  transcribe(pcm: Pcm): Promise<string>;
  /** Releases what the engine holds (a temporary file, a process). */
  close(): void;
}
