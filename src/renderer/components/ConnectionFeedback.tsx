import type { IpcError } from '../../shared/base/errors';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorAlert } from './ErrorText';

/**
 * Opening an agent: a polite "Connecting…" line while it runs, and when it failed, the reason with
 * Retry and Back. `failure` is undefined unless there is a failure this component should show.
 */
export function ConnectionFeedback({
  connectingText,
  failure,
  onRetry,
  onBack,
}: {
  /** Shown with a spinner while connecting; undefined when not connecting. */
  connectingText: string | undefined;
  failure: { summary: string; error: IpcError } | undefined;
  onRetry: () => void;
  onBack: () => void;
}) {
  const { t } = useI18n();
  return (
    <>
      <div role="status" className="feedback">
        {connectingText !== undefined ? (
          <p className="connecting">
            <span className="spinner" aria-hidden="true" /> {connectingText}
          </p>
        ) : null}
      </div>
      {failure ? (
        <div className="inline-error card">
          <ErrorAlert summary={failure.summary} error={failure.error} />
          <div className="button-row">
            <button type="button" className="button button--primary" onClick={onRetry}>
              {t('chat.retry')}
            </button>
            <button type="button" className="button button--secondary" onClick={onBack}>
              {t('chat.back')}
            </button>
          </div>
        </div>
      ) : null}
    </>
  );
}
