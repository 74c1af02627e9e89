import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { ErrorText } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { useItemActions } from '../item-actions';

/** A note in the conversation: the run's error (in the agent's words, Retry when it may help), or something to know. */
export const NoticeItem = memo(function NoticeItem({ item }: { item: ItemOfKind<'notice'> }) {
  const { t } = useI18n();
  const actions = useItemActions();
  if (item.tone === 'error') {
    return (
      <div className="message message--error">
        <p className="error-text">
          <ErrorText error={{ code: 'server_error', message: item.message }} />
        </p>
        {item.retryable && actions.retry ? (
          <button type="button" className="button button--secondary" disabled={actions.canRetry === false} onClick={() => actions.retry?.(item)}>
            {t('chat.retry')}
          </button>
        ) : null}
      </div>
    );
  }
  return <p className={`conversation-notice conversation-notice--${item.tone}`}>{item.message}</p>;
});
