import { useState } from 'react';
import type { ConversationItem } from '../../../shared/talkie/conversation';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { newestKey, StickyScroller } from '../../components/StickyScroller';
import { MessageTime, useDayNow, withDaySeparators } from '../../components/MessageTime';
import { readTime } from '../../components/message-time';
import { useI18n } from '../../i18n/I18nProvider';
import { TranscriptItem, type ItemHandlers } from './TranscriptItems';

/**
 * The newest items on the page when a thread opens: more than a tall window shows, few enough that
 * opening a 2,000-message thread is one short render (bench:render measured the switch median fall
 * from 361 ms to 104 ms, with 200 and with 50, back to back on the same loaded machine).
 */
export const transcriptFirstPage = 50;
/** What "Show earlier messages" adds each time. */
export const transcriptPageSize = 200;

/**
 * The conversation. Deliberately not a live region: streamed text would be read out delta by delta.
 * The status line below it announces "answering" and "answered" instead. A long thread shows its
 * newest 50 items and a button for earlier ones (200 more at a time): every item on the page is
 * rendered when the thread opens and laid out again while a reply streams, so a 2,000-message thread
 * would otherwise cost most of each frame.
 */
export function Transcript({
  items,
  loading,
  loadError,
  onRetryLoad,
  handlers,
  now: fixedNow,
}: {
  items: ConversationItem[];
  loading: boolean;
  loadError: ShownError | undefined;
  onRetryLoad: () => void;
  handlers: ItemHandlers;
  /** Now, for "Today" and "Yesterday" (tests fix it; otherwise read at mount and at each midnight). */
  now?: number;
}) {
  const { t } = useI18n();
  const now = useDayNow(fixedNow);
  const [shownCount, setShownCount] = useState(transcriptFirstPage);
  const hidden = Math.max(0, items.length - shownCount);
  const shown = hidden > 0 ? items.slice(hidden) : items;
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
      <>
        {hidden > 0 ? (
          <p className="transcript__earlier">
            <button type="button" className="button button--secondary" onClick={() => setShownCount((count) => count + transcriptPageSize)}>
              {t('chat.showEarlier', { count: Math.min(hidden, transcriptPageSize) })}
            </button>
          </p>
        ) : null}
        <ol className="transcript__list">
          {withDaySeparators(shown, {
            timeOf: (item) => readTime(item.at),
            keyOf: (item) => `${item.kind}:${item.id}`,
            now,
            render: (item) => (
              <li className={`transcript__item transcript__item--${item.kind}`}>
                <TranscriptItem item={item} handlers={handlers} />
                <MessageTime at={item.at} />
              </li>
            ),
          })}
        </ol>
      </>
    );
  }

  return (
    <StickyScroller className="transcript" label={t('chat.messagesLabel')} followKey={newestKey(items, (item) => (item.kind === 'user' || (item.kind === 'spoken' && item.role === 'user') ? item.id : undefined))}>
      {body}
    </StickyScroller>
  );
}
