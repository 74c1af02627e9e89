import type { RefObject } from 'react';
import { ErrorAlert, type ShownError } from '../../components/ErrorText';
import { MessageForm } from '../../components/MessageForm';
import { useDraft } from '../../hooks/useUiMemory';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * The message field: Enter sends, Shift+Enter starts a new line. With the server's
 * `maxMessageChars` a counter shows the length, and Send is disabled past the limit. While a run is
 * active, Cancel stops it (`talkie.cancel`).
 */
export function Composer({
  textareaRef,
  draftKey,
  maxChars,
  busy,
  canCancel,
  cancelling,
  cancelError,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Where the typed text is kept until it is sent (it survives leaving the screen and a reload). */
  draftKey: string;
  maxChars: number | undefined;
  busy: boolean;
  canCancel: boolean;
  cancelling: boolean;
  cancelError: ShownError | undefined;
  onSend: (text: string) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const { text, setText, saved } = useDraft(draftKey);
  const over = maxChars !== undefined && text.length > maxChars;
  const empty = text.trim() === '';
  const canSend = !empty && !over && !busy;

  function submit() {
    if (!canSend) return;
    onSend(text);
    setText('');
    textareaRef.current?.focus();
  }

  return (
    <MessageForm
      textareaRef={textareaRef}
      text={text}
      onTextChange={setText}
      onSubmit={submit}
      max={maxChars}
      showCounter={maxChars !== undefined}
      draftSaved={saved}
      tooLongMessage={t('chat.composer.tooLong', { max: maxChars ?? 0 })}
      buttons={
        <>
          {busy ? (
            <button type="button" className="button button--secondary" disabled={!canCancel || cancelling} aria-busy={cancelling || undefined} onClick={onCancel}>
              {t('chat.composer.cancel')}
            </button>
          ) : null}
          <button type="submit" className="button button--primary" disabled={!canSend}>
            {t('chat.composer.send')}
          </button>
        </>
      }
    >
      <ErrorAlert summary={t('chat.composer.cancelFailed')} error={cancelError} />
    </MessageForm>
  );
}
