import { useState } from 'react';
import { conversationBounds } from '../../../shared/conversation/bounds';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ConversationItem } from '../../../shared/talkie/conversation';
import { EarlierMessages } from '../../components/EarlierMessages';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { newestKey, StickyScroller } from '../../components/StickyScroller';
import { MessageTime, useDayNow, withDaySeparators } from '../../components/MessageTime';
import { readTime } from '../../components/message-time';
import { useI18n } from '../../i18n/I18nProvider';
import { TranscriptItem, type ItemHandlers } from './TranscriptItems';

/**
 * The newest items on the page when a thread opens (the conversation bounds' first window): more than
 * a tall window shows, few enough that opening a 2,000-message thread is one short render
 * (bench:render measured the switch median fall from 361 ms to 104 ms, with 200 and with 50, back to
 * back on the same loaded machine).
 */
export const transcriptFirstPage = conversationBounds.firstWindowItems;
/** What "Show earlier messages" adds each time. */
export const transcriptPageSize = conversationBounds.earlierItems;

/**
 * The conversation. Deliberately not a live region: streamed text would be read out delta by delta.
 * The status line below it announces "answering" and "answered" instead. A long thread shows its
 * newest 50 items and a button for earlier ones (200 more at a time): first those the page holds
 * (every item on the page is rendered when the thread opens and laid out again while a reply streams,
 * so a 2,000-message thread would otherwise cost most of each frame), then those main holds before
 * the window it sent (`earlier`, `onShowEarlier`). A note says when the oldest were removed to keep
 * the conversation within its bounds.
 */
export function Transcript({
  items,
  earlier = 0,
  removed = false,
  onShowEarlier,
  loading,
  loadError,
  onRetryLoad,
  handlers,
  now: fixedNow,
}: {
  items: ConversationItem[];
  /** Items main holds before these (a thread opened on its newest window). */
  earlier?: number;
  /** The oldest items were removed to keep the conversation within its bounds. */
  removed?: boolean;
  /** Asks main for the `earlier` items. */
  onShowEarlier?: () => Promise<IpcError | undefined>;
  loading: boolean;
  loadError: ShownError | undefined;
  onRetryLoad: () => void;
  handlers: ItemHandlers;
  /** Now, for "Today" and "Yesterday" (tests fix it; otherwise read at mount and at each midnight). */
  now?: number;
}) {
  const { t } = useI18n();
  const now = useDayNow(fixedNow);
  const [shownCount, setShownCount] = useState<number>(transcriptFirstPage);
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
    // Earlier items the page holds come first; then those main holds, shown as they arrive.
    const showEarlier = async () => {
      if (hidden === 0 && onShowEarlier) {
        const failed = await onShowEarlier();
        if (failed) return failed;
      }
      setShownCount((count) => count + transcriptPageSize);
      return undefined;
    };
    body = (
      <>
        <EarlierMessages removed={removed} earlier={hidden > 0 ? hidden : onShowEarlier ? earlier : 0} onShowEarlier={showEarlier} />
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
