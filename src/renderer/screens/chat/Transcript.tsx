import { useLayoutEffect, useRef } from 'react';
import type { ConversationItem } from '../../../shared/talkie/conversation';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { TranscriptItem, type ItemHandlers } from './TranscriptItems';

/** How close to the end (px) counts as "reading the newest": new content then scrolls into view. */
const stickDistance = 48;

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
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [items]);

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
    <div
      ref={scroller}
      className="transcript"
      role="region"
      aria-label={t('chat.messagesLabel')}
      // Scrollable content must be reachable from the keyboard.
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget;
        stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < stickDistance;
      }}
    >
      {body}
    </div>
  );
}
