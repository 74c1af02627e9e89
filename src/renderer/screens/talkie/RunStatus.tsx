import type { RunState } from '../../../shared/talkie/conversation';
import { useConnectionLost } from '../../hooks/useConnection';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import type { RunNote } from './useChat';

/**
 * The one polite live region of the conversation: "answering" when a run starts and how it ended,
 * instead of every streamed delta. After a dropped connection without a stored answer it offers Reload.
 */
export function RunStatus({ busy, runState, note, canReload, onReload }: { busy: boolean; runState: RunState; note: RunNote | undefined; canReload: boolean; onReload: () => void }) {
  const { t } = useI18n();
  const lost = useConnectionLost();
  let key: MessageKey | undefined;
  // Main is gone: nothing more of this answer will arrive, so no spinner says it is coming.
  if (busy && lost) key = 'chat.status.connectionLost';
  else if (busy) key = 'chat.status.answering';
  else if (note === 'recovered') key = 'chat.status.recovered';
  else if (note === 'interrupted' || runState === 'interrupted') key = 'chat.status.interrupted';
  else if (note === 'cancelled' || runState === 'cancelled') key = 'chat.status.cancelled';
  else if (runState === 'finished') key = 'chat.status.answered';
  else if (runState === 'error') key = 'chat.status.error';
  const showReload = !busy && (note === 'interrupted' || runState === 'interrupted') && canReload;
  return (
    <div className="run-status">
      <p className="run-status__text" role="status" aria-live="polite">
        {busy && !lost ? <span className="spinner" aria-hidden="true" /> : null}
        {key !== undefined ? t(key) : null}
      </p>
      {showReload ? (
        <button type="button" className="button button--secondary" onClick={onReload}>
          {t('chat.status.reload')}
        </button>
      ) : null}
    </div>
  );
}
