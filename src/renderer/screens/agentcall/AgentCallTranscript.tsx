import type { SessionItem } from '../../../shared/agentcall/session-view';
import { EarlierMessages } from '../../components/EarlierMessages';
import { newestKey, StickyScroller } from '../../components/StickyScroller';
import { MessageTime, useDayNow, withDaySeparators } from '../../components/MessageTime';
import { useI18n } from '../../i18n/I18nProvider';
import { AgentCallItem, shownItems, type ItemContext } from './AgentCallItems';
import { itemTimeKey } from './useAgentCallSession';

/**
 * The session's transcript, with a note when the oldest items were removed to keep the session
 * within its bounds. Not a live region: the status line below it announces "answering" and
 * "answered" instead.
 */
export function AgentCallTranscript({
  items,
  removed = false,
  times,
  context,
  thumbnail,
  now: fixedNow,
}: {
  items: SessionItem[];
  /** The oldest items were removed (SessionView.removedItems). */
  removed?: boolean;
  /** When each item reached the screen (see SessionState.times). */
  times: ReadonlyMap<string, number>;
  context: ItemContext;
  thumbnail: (sha256: string) => string | undefined;
  /** Now, for "Today" and "Yesterday" (tests fix it). */
  now?: number;
}) {
  const { t } = useI18n();
  const now = useDayNow(fixedNow);
  const shown = shownItems(items);
  return (
    <StickyScroller
      className="transcript agentcall-transcript"
      label={t('chat.messagesLabel')}
     
      followKey={newestKey(items, (item) => (item.kind === 'userText' || item.kind === 'userObservation' ? item.id : undefined))}
    >
      <EarlierMessages removed={removed} earlier={0} />
      {shown.length === 0 ? (
        <p className="muted transcript__empty">{t('agentcall.empty')}</p>
      ) : (
        <ol className="transcript__list">
          {withDaySeparators(shown, {
            timeOf: (item) => times.get(itemTimeKey(item)),
            keyOf: (item) => `${item.kind}:${item.id}`,
            now,
            render: (item) => (
              <li className={`transcript__item agentcall-item agentcall-item--${item.kind}`}>
                <AgentCallItem item={item} context={context} thumbnail={item.kind === 'userObservation' && item.image ? thumbnail(item.image.sha256) : undefined} />
                <MessageTime at={times.get(itemTimeKey(item))} />
              </li>
            ),
          })}
        </ol>
      )}
    </StickyScroller>
  );
}
