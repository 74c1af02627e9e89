import { ServiceError } from '../../shared/base/errors';
import type { SpeechPurpose } from '../../shared/speech/ipc-schemas';
import type { EventBus } from '../ipc/event-bus';
import type { HandlerTable } from '../ipc/handler-table';
import type { SpeechModels } from './speech-models';
import type { SpeechService } from './speech-service';

/**
 * The chooser main opens (Electron's dialog) for a model folder or a model archive (Linux and Windows
 * dialogs cannot pick both at once), titled for what it is for; undefined when the user cancelled.
 */
export type ChooseFolder = (what: 'folder' | 'archive', purpose: SpeechPurpose) => Promise<string | undefined>;

/** `speech.*`: client-owned voice's synthesis and recognition (#17), and the imported speech models (a recognizer, a voice). */
export function speechHandlers({
  speech,
  models,
  events,
  chooseFolder,
}: {
  speech: SpeechService;
  models: SpeechModels;
  events: EventBus;
  chooseFolder?: ChooseFolder;
}): HandlerTable<'speech'> {
  return {
    'speech.status': () => speech.status(),
    'speech.synthesize': async ({ text, locale }) => ({ wav: await speech.synthesize(text, locale) }),
    'speech.transcribe': async ({ pcm, sampleRate }) => ({ text: await speech.transcribe(pcm, sampleRate) }),
    'speech.importModel': async ({ path, choose, purpose }) => {
      let folder = path;
      if (folder === undefined) {
        if (!chooseFolder) throw new ServiceError('invalid_request', "Type the path of the model's folder or archive: there is no chooser here.", '/path');
        folder = await chooseFolder(choose ?? 'folder', purpose ?? 'recognition');
        if (folder === undefined) return {};
      }
      return { model: await models.importModel(folder, (progress) => events.emit('speech.importProgress', progress), purpose) };
    },
    'speech.removeModel': async ({ purpose }) => {
      await models.removeModel(purpose);
      return {};
    },
  };
}
