import { useI18n } from '../i18n/I18nProvider';
import { CopyButton } from './CopyButton';

/**
 * Copy for a whole message (its text as written, Markdown included), shown when the message is
 * hovered or has focus. Nothing while the text is still streaming or empty.
 */
export function MessageCopy({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const { t } = useI18n();
  if (streaming || text.trim() === '') return null;
  return <CopyButton className="message__copy" text={text} label={t('message.copy')} />;
}
