import { useState, type RefObject } from 'react';
import { limits } from '../../../shared/agentcall/protocol';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { MessageForm } from '../../components/MessageForm';
import { useI18n } from '../../i18n/I18nProvider';

/** The counter appears this close to the limit. */
const counterFrom = limits.textChars - 1_000;

/**
 * The message field of a session: Enter sends (`agentcall.sendText`), Shift+Enter starts a new
 * line. The text stays in the field until main took it, so a refused message is not lost. While
 * the agent answers, Cancel (`agentcall.cancel`) replaces Send: one run at a time.
 */
export function AgentCallComposer({
  textareaRef,
  ready,
  runActive,
  cancelling,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** The session is established and has not ended. */
  ready: boolean;
  runActive: boolean;
  /** `response.cancel` was sent; the run has not ended yet. */
  cancelling: boolean;
  onSend: (text: string) => Promise<IpcError | undefined>;
  onCancel: () => Promise<IpcError | undefined>;
}) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [cancelRequested, setCancelRequested] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const max = limits.textChars;
  const over = text.length > max;
  const showCounter = text.length >= counterFrom;
  const canSend = ready && !runActive && !sending && !over && text.trim() !== '';

  function submit() {
    if (!canSend) return;
    const sent = text;
    setSending(true);
    setError(undefined);
    void onSend(sent).then((failure) => {
      setSending(false);
      if (failure) {
        setError(failure);
        return;
      }
      // Only what was sent is cleared: text typed meanwhile stays.
      setText((current) => (current === sent ? '' : current));
      textareaRef.current?.focus();
    });
  }

  function cancel() {
    if (cancelRequested || cancelling) return;
    setCancelRequested(true);
    setError(undefined);
    void onCancel().then((failure) => {
      setCancelRequested(false);
      if (failure) setError(failure);
    });
  }

  return (
    <MessageForm
      textareaRef={textareaRef}
      text={text}
      onTextChange={setText}
      onSubmit={submit}
      max={max}
      showCounter={showCounter}
      tooLongMessage={t('agentcall.composer.tooLong', { max })}
      buttons={
        runActive ? (
          <button type="button" className="button button--secondary" disabled={cancelling || cancelRequested} aria-busy={cancelling || cancelRequested || undefined} onClick={cancel}>
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
          {t('agentcall.notSent')} <ErrorText error={error} />
        </p>
      ) : null}
    </MessageForm>
  );
}
