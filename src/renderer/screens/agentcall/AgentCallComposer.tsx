import { useId, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { limits } from '../../../shared/agentcall/protocol';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
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
  const id = useId();
  const fieldId = `${id}-message`;
  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const limitId = `${id}-limit`;
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

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  }

  const describedBy = [hintId, showCounter ? counterId : undefined, over ? limitId : undefined].filter(Boolean).join(' ');
  return (
    <form
      className="composer"
      noValidate
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={fieldId} className="field__label">
        {t('chat.composer.label')}
      </label>
      <p id={hintId} className="field__hint">
        {t('chat.composer.hint')}
      </p>
      <textarea
        ref={textareaRef}
        id={fieldId}
        name="message"
        className="input composer__input"
        rows={3}
        value={text}
        aria-invalid={over || undefined}
        aria-describedby={describedBy}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer__row">
        <div className="composer__info">
          {showCounter ? (
            <p id={counterId} className={`composer__counter${over ? ' composer__counter--over' : ''}`}>
              {t('chat.composer.counter', { count: text.length, max })}
            </p>
          ) : null}
          {over ? (
            <p id={limitId} className="field__error">
              {t('agentcall.composer.tooLong', { max })}
            </p>
          ) : null}
        </div>
        <div className="composer__buttons">
          {runActive ? (
            <button type="button" className="button button--secondary" disabled={cancelling || cancelRequested} aria-busy={cancelling || cancelRequested || undefined} onClick={cancel}>
              {t('chat.composer.cancel')}
            </button>
          ) : (
            <button type="submit" className="button button--primary" disabled={!canSend} aria-busy={sending || undefined}>
              {t('chat.composer.send')}
            </button>
          )}
        </div>
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {t('agentcall.notSent')} <ErrorText error={error} />
        </p>
      ) : null}
    </form>
  );
}
