import type { HandlerTable } from '../ipc/handler-table';
import type { SpeechService } from './speech-service';

/** `speech.*`: client-owned voice's synthesis and recognition (#17). */
export function speechHandlers({ speech }: { speech: SpeechService }): HandlerTable<'speech'> {
  return {
    'speech.status': () => speech.status(),
    'speech.synthesize': async ({ text, locale }) => ({ wav: await speech.synthesize(text, locale) }),
    'speech.transcribe': async ({ pcm, sampleRate }) => ({ text: await speech.transcribe(pcm, sampleRate) }),
  };
}
