import { useId, useState } from 'react';
import { ipcErrorCodes, type IpcError, type IpcErrorCode } from '../../shared/base/errors';
import { isTechnical, splitBracketedCode, wordsFor } from '../i18n/error-words';
import { useI18n } from '../i18n/I18nProvider';
import { errorKey } from '../i18n/strings';

/** An IPC failure, or a failure main reported in an event (a run's outcome code is the server's own). */
export type ShownError = Pick<IpcError, 'message' | 'retryable'> & { code: string };

const knownCodes: ReadonlySet<string> = new Set(ipcErrorCodes);

function isKnownCode(code: string): code is IpcErrorCode {
  return knownCodes.has(code);
}

/**
 * The text of an IPC failure. Main writes its messages in English and they are specific
 * ("crm.example.com is already in your list."), so the English UI shows them as they are.
 * Other languages show the catalogue's sentence for the error code, with main's English message
 * behind Details (marked as English so screen readers pronounce it correctly). A Talkie server's own
 * message (`server_error`) is shown as it is: the server answers in the user's language.
 */
export function ErrorText({ error }: { error: ShownError }) {
  const { language, t } = useI18n();
  const generic = t(isKnownCode(error.code) ? errorKey(error.code) : 'error.unknown');
  const message = typeof error.message === 'string' ? error.message.trim() : '';
  if (message === '' || message === generic) return <>{generic}</>;
  // ECONNREFUSED, 0x80100013 or a stack is never the main line: a sentence is, the raw text is behind Details.
  // A sentence main wrote with the code in parentheses keeps its words (the file, the folder, why); the code goes behind Details.
  const split = splitBracketedCode(message);
  if (split !== undefined && (language === 'en' || error.code === 'server_error')) {
    return (
      <>
        {split.sentence} <ErrorDetails detail={split.codes} />
      </>
    );
  }
  if (isTechnical(message)) {
    const words = wordsFor(message);
    return (
      <>
        {words !== undefined ? t(words) : generic} <ErrorDetails detail={message} />
      </>
    );
  }
  // A server's own message (Talkie 1 §3) is written in the user's language, not main's English.
  if (language === 'en' || error.code === 'server_error') return <>{message}</>;
  // Main's English specifics are one click away; the main line is the user's language.
  return (
    <>
      {generic} <ErrorDetails detail={message} />
    </>
  );
}

/** The raw text of a failure, shown only when asked for (a disclosure button, valid inside a paragraph). */
export function ErrorDetails({ detail }: { detail: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button type="button" className="error-details__toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen((was) => !was)}>
        {open ? t('error.hideDetails') : t('error.details')}
      </button>
      <span id={id} className="error-details" hidden={!open}>
        {' '}
        <code lang="en">{detail}</code>
      </span>
    </>
  );
}

/**
 * A failure as an alert line: what did not happen (`summary`, when there is one) and why. Nothing
 * when there is no error.
 */
export function ErrorAlert({ summary, error, className }: { summary?: string; error: ShownError | undefined; className?: string }) {
  if (!error) return null;
  return (
    <p className={className === undefined ? 'error-text' : `error-text ${className}`} role="alert">
      {summary !== undefined ? `${summary} ` : null}
      <ErrorText error={error} />
    </p>
  );
}
