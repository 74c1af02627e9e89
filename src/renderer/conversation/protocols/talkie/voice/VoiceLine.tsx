import { createContext, useContext } from 'react';
import type { ConfirmationLine } from '../../../../../shared/talkie/voice/voice-call';
import { useI18n } from '../../../../i18n/I18nProvider';

/** The live voice call's confirmation line (Talkie 1 §10.4), for the action card it is about. */
export const VoiceLineContext = createContext<ConfirmationLine>({ line: 'none' });

/** What to say to confirm: "yes, confirm", or "yes, <keyword>" when the action names one (C7). */
export function useConfirmPhrase(): (keyword: string | undefined) => string {
  const { t } = useI18n();
  return (keyword) => (keyword === undefined || keyword.trim() === '' ? t('voice.confirm.phrase') : t('voice.confirm.phraseKeyword', { keyword }));
}

/**
 * The line under an action card while a voice call handles it: read out, listening for "yes, …",
 * deciding, or "use the buttons". The card and its buttons stay the whole time (C15). Not a live
 * region: the chat's announcer says when the window opens and closes.
 */
export function VoiceConfirmationLine({ actionId }: { actionId: string }) {
  const { t } = useI18n();
  const phrase = useConfirmPhrase();
  const line = useContext(VoiceLineContext);
  if (line.line === 'none' || line.actionId !== actionId) return null;
  let text: string;
  switch (line.line) {
    case 'proposing':
      text = t('voice.confirm.proposing');
      break;
    case 'listening':
      text = t('voice.confirm.listening', { phrase: phrase(line.keyword) });
      break;
    case 'deciding':
      text = t(line.decision === 'confirm' ? 'voice.confirm.deciding.confirm' : 'voice.confirm.deciding.cancel');
      break;
    case 'use-button':
      text = t('voice.confirm.useButton');
      break;
  }
  return <p className={`action__voice action__voice--${line.line}`}>{text}</p>;
}
