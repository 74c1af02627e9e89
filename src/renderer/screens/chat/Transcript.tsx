import type { ConversationItem } from '../../../shared/talkie/conversation';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { StickyScroller } from '../../components/StickyScroller';
import { useI18n } from '../../i18n/I18nProvider';
import { TranscriptItem, type ItemHandlers } from './TranscriptItems';

/**
 * The conversation. Deliberately not a live region: streamed text would be read out delta by delta.
 * The status line below it announces "answering" and "answered" instead.
 */
export function Transcript({
  items,
  loading,
  loadError,
  onRetryLoad,
  handlers,
}: {
  items: ConversationItem[];
  loading: boolean;
  loadError: ShownError | undefined;
  onRetryLoad: () => void;
  handlers: ItemHandlers;
}) {
  const { t } = useI18n();
  let body;
  if (loading) body = <p className="muted transcript__empty">{t('chat.loadingThread')}</p>;
  else if (loadError) {
    body = (
      <div className="inline-error transcript__empty">
        <p className="error-text">
          {t('chat.threadLoadFailed')} <ErrorText error={loadError} />
        </p>
        <button type="button" className="button button--secondary" onClick={onRetryLoad}>
          {t('chat.retry')}
        </button>
      </div>
    );
  } else if (items.length === 0) body = <p className="muted transcript__empty">{t('chat.emptyConversation')}</p>;
  else {
    body = (
      <ol className="transcript__list">
        {items.map((item) => (
          <li key={`${item.kind}:${item.id}`} className={`transcript__item transcript__item--${item.kind}`}>
            <TranscriptItem item={item} handlers={handlers} />
          </li>
        ))}
      </ol>
    );
  }

  return (
    <StickyScroller className="transcript" label={t('chat.messagesLabel')} content={items}>
      {body}
    </StickyScroller>
  );
}
