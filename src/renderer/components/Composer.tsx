import { useEffect, useId, useState, type FormEvent, type KeyboardEvent, type MutableRefObject, type ReactNode, type RefObject } from 'react';
import type { IpcError } from '../../shared/base/errors';
import { useDraft } from '../hooks/useUiMemory';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorAlert, type ShownError } from './ErrorText';

/**
 * The one message field of every agent screen (Talkie, AgentCall, plain AG-UI): a labelled textarea
 * where Enter sends and Shift+Enter starts a new line (not while an input method is composing), the
 * typed text kept as a draft in main (`useDraft`: it survives leaving the screen and a reload), a
 * length counter and a limit message tied to the field for assistive technology, Send, and Cancel
 * while a run is going.
 *
 * `onSend` answers with main's refusal, if any: the text stays in the field until main took it, so a
 * refused message is not lost (text typed meanwhile stays too). Cancel either replaces Send while
 * the agent answers (`whileRunning: 'cancel'`, one run at a time: AgentCall, AG-UI) or comes beside
 * a disabled Send (`'cancel-beside-send'`, Talkie).
 *
 * Editing the last message (Talkie, AG-UI): `handleRef` lets the screen read the text and put a
 * message's text in the field, `notice` shows above the field what sending will do, ArrowUp in the
 * empty field calls `onEditLast`, and Escape in the field calls `onEscape` (which answers whether it
 * used the key: then the screen does not go back).
 */
export function Composer({
  textareaRef,
  draftKey,
  ready = true,
  running,
  whileRunning = 'cancel',
  canCancel = true,
  cancelling = false,
  max,
  counterFrom,
  tooLongMessage,
  notSentText,
  cancelError,
  onSend,
  onCancel,
  handleRef,
  notice,
  onEditLast,
  onEscape,
  tools,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Where the typed text is kept while it is not sent (see useDraft). */
  draftKey: string;
  /** The session can take a message now (established, not ended, nothing else blocking). */
  ready?: boolean;
  /** A run is going: Send waits (or queues), Cancel is offered. */
  running: boolean;
  /**
   * While a run is going: Cancel replaces Send (`cancel`), comes beside a disabled Send
   * (`cancel-beside-send`), or comes beside Send, which queues the message until the answer ended (`queue`).
   */
  whileRunning?: 'cancel' | 'cancel-beside-send' | 'queue';
  /** Cancel can be sent now (Talkie: once the run has its key). */
  canCancel?: boolean;
  /** A cancel was already sent (the run has not ended yet). */
  cancelling?: boolean;
  /** The longest text Send accepts (none: no limit, no counter). */
  max: number | undefined;
  /** The counter shows from this length on (default: always, when there is a `max`). */
  counterFrom?: number;
  /** Shown (and announced with the field) while the text is longer than `max`. */
  tooLongMessage: string;
  /** Before the reason when a message was refused. */
  notSentText?: string;
  /** A cancel failure the caller tracks itself (Talkie). */
  cancelError?: ShownError | undefined;
  onSend: (text: string) => Promise<IpcError | undefined> | void;
  onCancel: () => Promise<IpcError | undefined> | void;
  handleRef?: MutableRefObject<ComposerHandle | null>;
  /** Shown above the field (and tied to it for assistive technology), e.g. what sending an edited message does. */
  notice?: ReactNode;
  /** ArrowUp in the empty field (no modifier): edit the last message (the hint under the field says so). */
  onEditLast?: () => void;
  /** Escape in the field: answers true when it used the key. */
  onEscape?: () => boolean;
  /** Controls that belong to the message row (Scan, Photo, Talk, the intent), before the field. */
  tools?: ReactNode;
}) {
  const { t } = useI18n();
  const id = useId();
  const fieldId = `${id}-message`;
  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const limitId = `${id}-limit`;
  const noticeId = `${id}-notice`;
  const { text, setText, saved } = useDraft(draftKey);
  const [sending, setSending] = useState(false);
  const [cancelRequested, setCancelRequested] = useState(false);
  const [error, setError] = useState<{ kind: 'send' | 'cancel'; error: IpcError } | undefined>();
  const over = max !== undefined && text.length > max;
  const counter = max !== undefined && text.length >= (counterFrom ?? 0);
  const canSend = ready && (!running || whileRunning === 'queue') && !sending && !over && text.trim() !== '';

  useEffect(() => {
    if (!handleRef) return undefined;
    handleRef.current = {
      text: () => textareaRef.current?.value ?? '',
      fill: (next) => {
        setText(next);
        setError(undefined);
        const field = textareaRef.current;
        if (!field) return;
        field.focus();
        // The caret goes to the end of the text once it is in the field.
        requestAnimationFrame(() => field.setSelectionRange(field.value.length, field.value.length));
      },
    };
    return () => {
      handleRef.current = null;
    };
  }, [handleRef, setText, textareaRef]);

  function submit() {
    if (!canSend) return;
    const sent = text;
    setError(undefined);
    const answer = onSend(sent);
    if (!answer) {
      setText('');
      textareaRef.current?.focus();
      return;
    }
    // The field empties at once, as the message shows in the conversation: a run can end before the
    // send's own answer arrives, and Edit or ArrowUp must not find the sent text still here. A send
    // that fails puts it back (unless something else was typed meanwhile).
    setText('');
    setSending(true);
    void answer.then((failure) => {
      setSending(false);
      if (failure) {
        setText((current) => (current === '' ? sent : current));
        return setError({ kind: 'send', error: failure });
      }
      textareaRef.current?.focus();
    });
  }

  function cancel() {
    if (cancelRequested || cancelling) return;
    setError(undefined);
    const answer = onCancel();
    if (!answer) return;
    setCancelRequested(true);
    void answer.then((failure) => {
      setCancelRequested(false);
      if (failure) setError({ kind: 'cancel', error: failure });
    });
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.nativeEvent.isComposing) return;
    const plain = !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey;
    if (event.key === 'ArrowUp' && plain && onEditLast && text === '') {
      event.preventDefault();
      onEditLast();
      return;
    }
    if (event.key === 'Escape' && onEscape?.()) {
      event.preventDefault();
      return;
    }
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  }

  const cancelBusy = cancelling || cancelRequested;
  const cancelButton = (
    <button type="button" className="button button--secondary" disabled={!canCancel || cancelBusy} aria-busy={cancelBusy || undefined} onClick={cancel}>
      {t('chat.composer.cancel')}
    </button>
  );
  const sendButton = (
    <button type="submit" className="button button--primary" disabled={!canSend} aria-busy={sending || undefined}>
      {t(running && whileRunning === 'queue' ? 'conversation.composer.queue' : 'chat.composer.send')}
    </button>
  );
  const describedBy = [notice ? noticeId : undefined, hintId, counter ? counterId : undefined, over ? limitId : undefined].filter(Boolean).join(' ');
  const shownError: ShownError | undefined = error?.error ?? cancelError;
  return (
    <form
      className="composer"
      noValidate
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={fieldId} className="visually-hidden">
        {t('chat.composer.label')}
      </label>
      {notice ? (
        <div id={noticeId} className="composer__notice">
          {notice}
        </div>
      ) : null}
      <div className="composer__box">
        {tools ? <div className="composer__tools">{tools}</div> : null}
        <textarea
          ref={textareaRef}
          id={fieldId}
          name="message"
          className="input composer__input"
          rows={tools ? 1 : 2}
          value={text}
          placeholder={t('chat.composer.label')}
          data-composer="true"
          data-draft-saved={String(saved)}
          aria-invalid={over || undefined}
          aria-describedby={describedBy}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer__buttons">
          {running ? cancelButton : null}
          {!running || whileRunning !== 'cancel' ? sendButton : null}
        </div>
      </div>
      <div className="composer__row">
        <p id={hintId} className="composer__hint">
          {t(running && whileRunning === 'queue' ? 'conversation.composer.hintQueue' : onEditLast ? 'chat.composer.hintEdit' : 'chat.composer.hint')}
        </p>
        {counter ? (
          <p id={counterId} className={`composer__counter${over ? ' composer__counter--over' : ''}`}>
            {t('chat.composer.counter', { count: text.length, max })}
          </p>
        ) : null}
      </div>
      {over ? (
        <p id={limitId} className="field__error">
          {tooLongMessage}
        </p>
      ) : null}
      <ErrorAlert summary={error?.kind === 'send' ? (notSentText ?? t('chat.composer.cancelFailed')) : t('chat.composer.cancelFailed')} error={shownError} />
    </form>
  );
}

/** What a screen may do with its composer's field (see `handleRef`). */
export interface ComposerHandle {
  /** The text in the field now. */
  text: () => string;
  /** Puts this text in the field (kept as the draft) and the focus at its end. */
  fill: (text: string) => void;
}
