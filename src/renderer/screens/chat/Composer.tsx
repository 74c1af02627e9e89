import { useId, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * The message field: Enter sends, Shift+Enter starts a new line. With the server's
 * `maxMessageChars` a counter shows the length, and Send is disabled past the limit. While a run is
 * active, Cancel stops it (`talkie.cancel`).
 */
export function Composer({
  textareaRef,
  maxChars,
  busy,
  canCancel,
  cancelling,
  cancelError,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  maxChars: number | undefined;
  busy: boolean;
  canCancel: boolean;
  cancelling: boolean;
  cancelError: ShownError | undefined;
  onSend: (text: string) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const fieldId = `${id}-message`;
  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const limitId = `${id}-limit`;
  const [text, setText] = useState('');
  const over = maxChars !== undefined && text.length > maxChars;
  const empty = text.trim() === '';
  const canSend = !empty && !over && !busy;

  function submit() {
    if (!canSend) return;
    onSend(text);
    setText('');
    textareaRef.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  }

  const describedBy = [hintId, maxChars !== undefined ? counterId : undefined, over ? limitId : undefined].filter(Boolean).join(' ');
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
        data-composer="true"
        aria-invalid={over || undefined}
        aria-describedby={describedBy}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer__row">
        <div className="composer__info">
          {maxChars !== undefined ? (
            <p id={counterId} className={`composer__counter${over ? ' composer__counter--over' : ''}`}>
              {t('chat.composer.counter', { count: text.length, max: maxChars })}
            </p>
          ) : null}
          {over ? (
            <p id={limitId} className="field__error">
              {t('chat.composer.tooLong', { max: maxChars })}
            </p>
          ) : null}
        </div>
        <div className="composer__buttons">
          {busy ? (
            <button type="button" className="button button--secondary" disabled={!canCancel || cancelling} aria-busy={cancelling || undefined} onClick={onCancel}>
              {t('chat.composer.cancel')}
            </button>
          ) : null}
          <button type="submit" className="button button--primary" disabled={!canSend}>
            {t('chat.composer.send')}
          </button>
        </div>
      </div>
      {cancelError ? (
        <p className="error-text" role="alert">
          {t('chat.composer.cancelFailed')} <ErrorText error={cancelError} />
        </p>
      ) : null}
    </form>
  );
}
