import type { SpeechImportProgress } from '../../../src/shared/speech/ipc-schemas';
import { EventBus } from '../../../src/main/ipc/event-bus';
import type { SpeechEngineLauncher } from '../../../src/main/speech/engine-client';
import { speechHandlers } from '../../../src/main/speech/speech-handlers';
import { SpeechModels } from '../../../src/main/speech/speech-models';
import { SpeechService } from '../../../src/main/speech/speech-service';
import { Notices } from '../../../src/main/store/notices';
import { memoryLogger } from '../logger';
import { fixtureEngineLauncher } from './model-folders';

/**
 * Main's speech as the app wires it (app-services.ts): the imported models (SpeechModels on
 * `userDataDir`), SpeechService over both slots, and the `speech.*` handlers, with the import's progress
 * events kept. `launcher`: the fixture engine process by default. `withoutEspeak`: the service finds no
 * espeak-ng (recognition alone is tested, whatever this computer has). No basic recognizer stands in
 * (pocketsphinx, where installed): these tests are about the imported models, whatever this computer has.
 */
export async function speechServices(userDataDir: string, options: { launcher?: SpeechEngineLauncher; withoutEspeak?: boolean } = {}) {
  const log = memoryLogger();
  const models = await SpeechModels.open({ userDataDir, log, notices: new Notices(), launcher: options.launcher ?? fixtureEngineLauncher() });
  const events = new EventBus(log);
  const progress: SpeechImportProgress[] = [];
  events.connect((channel, payload) => {
    if (channel.endsWith('speech.importProgress')) progress.push(payload as SpeechImportProgress);
  });
  const speech = new SpeechService({
    ...(options.withoutEspeak
      ? {
          findEngines: () => ({
            available: false,
            missing: [],
            installCommand: 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us' as const,
            found: {},
          }),
        }
      : {}),
    recognizer: () => models.recognizer(),
    basic: false,
    imported: () => models.info('recognition'),
    voice: () => models.voice(),
    importedVoice: () => models.info('voice'),
    log,
  });
  const handlers = speechHandlers({ speech, models, events });
  return { models, speech, handlers, progress, log };
}
