import { maxSynthesisChars, maxSynthesisWavBytes, primaryLanguage } from '../../shared/speech/ipc-schemas';
import { runBounded, SpeechEngineError } from './bounded-process';
import { parseWav, type Pcm } from './pcm';

/**
 * The demo provider's voice (#16): Debian's espeak-ng as a child process (GPL kept at the process
 * boundary). The text goes in on stdin (never as an argument, so it cannot be read as
 * an option) and a 22050 Hz mono WAV comes back on stdout.
 */
export interface TextToSpeech {
  /** Speech for `text` in the session's language ("cs" → Czech, anything else → US English). */
  synthesize(text: string, locale?: string): Promise<Pcm>;
}

export interface EspeakOptions {
  readonly binary?: string;
  readonly timeoutMs?: number;
  /** Extra arguments before `--stdout` (tests vary speed and pitch: `['-s', '140']`). */
  readonly extraArgs?: readonly string[];
}

export function espeakVoice(locale: string | undefined): string {
  return locale !== undefined && primaryLanguage(locale) === 'cs' ? 'cs' : 'en-us';
}

export function createEspeakTts(options: EspeakOptions = {}): TextToSpeech {
  const binary = options.binary ?? 'espeak-ng';
  return {
    async synthesize(text, locale) {
      const spoken = text.replace(/\s+/g, ' ').trim().slice(0, maxSynthesisChars);
      const wav = await runBounded(binary, ['-v', espeakVoice(locale), ...(options.extraArgs ?? []), '--stdout', '--stdin'], {
        input: spoken,
        timeoutMs: options.timeoutMs ?? 15_000,
        maxOutputBytes: maxSynthesisWavBytes,
      });
      try {
        return parseWav(wav);
      } catch (error) {
        throw new SpeechEngineError('failed', `${binary} wrote no usable WAV: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
