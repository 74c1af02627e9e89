import { useLayoutEffect, useRef } from 'react';
import type { SessionItem } from '../../../shared/agentcall/session-view';
import { useI18n } from '../../i18n/I18nProvider';
import { AgentCallItem, isShown, type ItemContext } from './AgentCallItems';

/** How close to the end (px) counts as "reading the newest": new content then scrolls into view. */
const stickDistance = 48;

/**
 * The session's transcript. Deliberately not a live region (streamed text would be read out delta
 * by delta): the status line below it announces "answering" and "answered" instead.
 */
export function AgentCallTranscript({ items, context, thumbnail }: { items: SessionItem[]; context: ItemContext; thumbnail: (sha256: string) => string | undefined }) {
  const { t } = useI18n();
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [items]);

  const shown = items.filter(isShown);
  return (
    <div
      ref={scroller}
      className="transcript agentcall-transcript"
      role="region"
      aria-label={t('chat.messagesLabel')}
      // Scrollable content must be reachable from the keyboard.
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget;
        stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < stickDistance;
      }}
    >
      {shown.length === 0 ? (
        <p className="muted transcript__empty">{t('agentcall.empty')}</p>
      ) : (
        <ol className="transcript__list">
          {shown.map((item) => (
            <li key={`${item.kind}:${item.id}`} className={`transcript__item agentcall-item agentcall-item--${item.kind}`}>
              <AgentCallItem item={item} context={context} thumbnail={item.kind === 'userObservation' && item.image ? thumbnail(item.image.sha256) : undefined} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
