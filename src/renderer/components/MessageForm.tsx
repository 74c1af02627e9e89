import { useId, type FormEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useI18n } from '../i18n/I18nProvider';

/**
 * The message field both chats use: a labelled textarea where Enter sends and Shift+Enter starts a
 * new line (not while an input method is composing), a length counter and a limit message tied to
 * the field for assistive technology, and the caller's buttons and messages below it.
 */
export function MessageForm({
  textareaRef,
  text,
  onTextChange,
  onSubmit,
  max,
  showCounter,
  tooLongMessage,
  buttons,
  children,
  draftSaved,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  text: string;
  onTextChange: (text: string) => void;
  /** Enter or the submit button; the caller decides whether anything can be sent. */
  onSubmit: () => void;
  max: number | undefined;
  showCounter: boolean;
  /** Shown (and announced with the field) while the text is longer than `max`. */
  tooLongMessage: string;
  buttons: ReactNode;
  /** Below the buttons: errors about sending or cancelling. */
  children?: ReactNode;
  /** Main holds the text as typed (it comes back after a reload); `data-draft-saved` on the field. */
  draftSaved?: boolean;
}) {
  const { t } = useI18n();
  const id = useId();
  const fieldId = `${id}-message`;
  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const limitId = `${id}-limit`;
  const over = max !== undefined && text.length > max;
  const counter = showCounter && max !== undefined;

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    onSubmit();
  }

  const describedBy = [hintId, counter ? counterId : undefined, over ? limitId : undefined].filter(Boolean).join(' ');
  return (
    <form
      className="composer"
      noValidate
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        onSubmit();
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
        data-draft-saved={draftSaved === undefined ? undefined : String(draftSaved)}
        aria-invalid={over || undefined}
        aria-describedby={describedBy}
        onChange={(event) => onTextChange(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer__row">
        <div className="composer__info">
          {counter ? (
            <p id={counterId} className={`composer__counter${over ? ' composer__counter--over' : ''}`}>
              {t('chat.composer.counter', { count: text.length, max })}
            </p>
          ) : null}
          {over ? (
            <p id={limitId} className="field__error">
              {tooLongMessage}
            </p>
          ) : null}
        </div>
        <div className="composer__buttons">{buttons}</div>
      </div>
      {children}
    </form>
  );
}
