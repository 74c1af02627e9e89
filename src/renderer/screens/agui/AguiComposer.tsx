import { useId, useState, type RefObject } from 'react';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { MessageForm } from '../../components/MessageForm';
import { useI18n } from '../../i18n/I18nProvider';

/** agui.send takes at most this much text. */
export const maxMessageChars = 100_000;
const counterFrom = maxMessageChars - 1_000;

/**
 * The message field: Enter sends (`agui.send`, a new run on the same thread). The text stays until
 * main took it. While a run is going, Cancel (`agui.cancel`) replaces Send; while the agent waits
 * for answers to its requests, the whole field is disabled with a hint (answer them first).
 */
export function AguiComposer({
  textareaRef,
  ready,
  running,
  blocked,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  ready: boolean;
  running: boolean;
  /** Interrupts are open. */
  blocked: boolean;
  onSend: (text: string) => Promise<IpcError | undefined>;
  onCancel: () => Promise<IpcError | undefined>;
}) {
  const { t } = useI18n();
  const id = useId();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<{ kind: 'send' | 'cancel'; error: IpcError } | undefined>();
  const over = text.length > maxMessageChars;
  const canSend = ready && !running && !blocked && !sending && !over && text.trim() !== '';

  function submit() {
    if (!canSend) return;
    const sent = text;
    setSending(true);
    setError(undefined);
    void onSend(sent).then((failure) => {
      setSending(false);
      if (failure) return setError({ kind: 'send', error: failure });
      setText((current) => (current === sent ? '' : current));
      textareaRef.current?.focus();
    });
  }

  function cancel() {
    if (cancelling) return;
    setCancelling(true);
    setError(undefined);
    void onCancel().then((failure) => {
      setCancelling(false);
      if (failure) setError({ kind: 'cancel', error: failure });
    });
  }

  return (
    // A disabled fieldset disables the field and its buttons together while interrupts are open.
    <fieldset className="agui-composer" disabled={blocked} aria-describedby={blocked ? `${id}-blocked` : undefined}>
      <legend className="visually-hidden">{t('chat.composer.label')}</legend>
      {blocked ? (
        <p id={`${id}-blocked`} className="field__hint agui-composer__blocked">
          {t('agui.composer.blocked')}
        </p>
      ) : null}
      <MessageForm
        textareaRef={textareaRef}
        text={text}
        onTextChange={setText}
        onSubmit={submit}
        max={maxMessageChars}
        showCounter={text.length >= counterFrom}
        tooLongMessage={t('agui.composer.tooLong', { max: maxMessageChars })}
        buttons={
          running ? (
            <button type="button" className="button button--secondary" disabled={cancelling} aria-busy={cancelling || undefined} onClick={cancel}>
              {t('chat.composer.cancel')}
            </button>
          ) : (
            <button type="submit" className="button button--primary" disabled={!canSend} aria-busy={sending || undefined}>
              {t('chat.composer.send')}
            </button>
          )
        }
      >
        {error ? (
          <p className="error-text" role="alert">
            {t(error.kind === 'send' ? 'agui.notSent' : 'chat.composer.cancelFailed')} <ErrorText error={error.error} />
          </p>
        ) : null}
      </MessageForm>
    </fieldset>
  );
}
