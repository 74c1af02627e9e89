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

/**
 * The tools of one of the user's own messages: Copy and, on the last one while no run is going,
 * Edit (which puts its text back in the composer).
 */
export function UserMessageTools({ text, onEdit }: { text: string; onEdit?: (() => void) | undefined }) {
  const { t } = useI18n();
  if (!onEdit) return <MessageCopy text={text} />;
  return (
    <div className="message__tools">
      <MessageCopy text={text} />
      <button type="button" className="copy-button message__edit" onClick={onEdit}>
        {t('chat.edit')}
      </button>
    </div>
  );
}
