import { useState, type RefObject } from 'react';
import { useDraft } from '../hooks/useUiMemory';
import type { IpcError } from '../../shared/ipc/errors';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorAlert } from './ErrorText';
import { MessageForm } from './MessageForm';

/**
 * The message field of a session with one run at a time (AgentCall, plain AG-UI): Enter sends,
 * and the text stays in the field until main took it, so a refused message is not lost (text typed
 * meanwhile stays too). While the agent answers, Cancel replaces Send. The length counter appears
 * 1,000 characters before `max`.
 */
export function SessionComposer({
  textareaRef,
  draftKey,
  ready,
  running,
  cancelling = false,
  max,
  tooLongMessage,
  notSentText,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Where the typed text is kept while it is not sent (see useDraft). */
  draftKey: string;
  /** The session can take a message now (established, not ended, nothing else blocking). */
  ready: boolean;
  running: boolean;
  /** A cancel was already sent (the run has not ended yet). */
  cancelling?: boolean;
  max: number;
  tooLongMessage: string;
  /** Before the reason when a message was refused. */
  notSentText: string;
  onSend: (text: string) => Promise<IpcError | undefined>;
  onCancel: () => Promise<IpcError | undefined>;
}) {
  const { t } = useI18n();
  const { text, setText, saved } = useDraft(draftKey);
  const [sending, setSending] = useState(false);
  const [cancelRequested, setCancelRequested] = useState(false);
  const [error, setError] = useState<{ kind: 'send' | 'cancel'; error: IpcError } | undefined>();
  const over = text.length > max;
  const canSend = ready && !running && !sending && !over && text.trim() !== '';

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
    if (cancelRequested || cancelling) return;
    setCancelRequested(true);
    setError(undefined);
    void onCancel().then((failure) => {
      setCancelRequested(false);
      if (failure) setError({ kind: 'cancel', error: failure });
    });
  }

  return (
    <MessageForm
      textareaRef={textareaRef}
      text={text}
      onTextChange={setText}
      onSubmit={submit}
      max={max}
      showCounter={text.length >= max - 1_000}
      tooLongMessage={tooLongMessage}
      draftSaved={saved}
      buttons={
        running ? (
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
      <ErrorAlert summary={error?.kind === 'send' ? notSentText : t('chat.composer.cancelFailed')} error={error?.error} />
    </MessageForm>
  );
}
