import { memo, useState, type ComponentType, type ReactNode } from 'react';
import type { ConversationItem, ConversationItemKind, ItemOfKind } from '../../shared/conversation/items';
import type { ConversationView } from '../../shared/conversation/view';
import { ErrorText, type ShownError } from '../components/ErrorText';
import { MessageTime, useDayNow, withDaySeparators } from '../components/MessageTime';
import { newestKey, StickyScroller } from '../components/StickyScroller';
import { useI18n } from '../i18n/I18nProvider';
import { ActivityItem } from './items/ActivityItem';
import { AnswerItem } from './items/AnswerItem';
import { LinkItem } from './items/LinkItem';
import { MessageItem } from './items/MessageItem';
import { NoticeItem } from './items/NoticeItem';
import { ReasoningItem } from './items/ReasoningItem';
import { SpeechItem } from './items/SpeechItem';
import { ToolItem } from './items/ToolItem';

/** How one kind of item is drawn. */
export type ItemViews = { [K in ConversationItemKind]?: ComponentType<{ item: ItemOfKind<K> }> };

/**
 * The kinds every protocol shows the same way. A protocol's screen adds the views of its own kinds
 * (a Talkie card or action, an AG-UI question, an AgentCall observation, request or proposal): one
 * registry, so a kind is drawn in one place whichever screen shows it.
 */
export const commonItemViews: ItemViews = {
  message: MessageItem,
  speech: SpeechItem,
  reasoning: ReasoningItem,
  tool: ToolItem,
  activity: ActivityItem,
  notice: NoticeItem,
  answer: AnswerItem,
  link: LinkItem,
};

const Item = memo(function Item({ item, views }: { item: ConversationItem; views: ItemViews }) {
  const View = views[item.kind] as ComponentType<{ item: ConversationItem }> | undefined;
  return View ? <View item={item} /> : null;
});

/** Subagent lanes: consecutive items of one subagent are grouped under its name. */
function laneOf(item: ConversationItem): string | undefined {
  return item.subagent?.id;
}

/**
 * The one transcript of every agent screen: a single scrolling element with role `log`, named
 * "Conversation", holding everything the conversation shows in order (messages, tools, cards,
 * requests, forms, observations, notices). Never a live region (streamed text would be read out delta
 * by delta): the status line announces instead. It follows the newest item while the reader is at the
 * end, and offers earlier items main still holds.
 */
export function Transcript({
  view,
  views,
  loadError,
  onRetryLoad,
  onEarlier,
  empty,
  pending,
  now: fixedNow,
}: {
  view: ConversationView | undefined;
  views: ItemViews;
  loadError?: ShownError | undefined;
  onRetryLoad?: () => void;
  /** "Show earlier": resolves when main answered. */
  onEarlier: () => Promise<unknown>;
  /** What an empty conversation says (the agent's own greeting, or "Send a message to start"). */
  empty?: string;
  /** After the items, in the log: what waits on this machine for the user to send it (see ProtocolProfile.pending). */
  pending?: ReactNode;
  now?: number;
}) {
  const { t } = useI18n();
  const now = useDayNow(fixedNow);
  const [loadingEarlier, setLoadingEarlier] = useState(false);
  const items = view?.items ?? [];
  const earlier = view?.status.earlier ?? 0;
  let body;
  if (loadError) {
    body = (
      <div className="inline-error transcript__empty">
        <p className="error-text">
          {t('chat.threadLoadFailed')} <ErrorText error={loadError} />
        </p>
        {onRetryLoad ? (
          <button type="button" className="button button--secondary" onClick={onRetryLoad}>
            {t('chat.retry')}
          </button>
        ) : null}
      </div>
    );
  } else if (view === undefined) body = <p className="muted transcript__empty">{t('chat.loadingThread')}</p>;
  else if (items.length === 0 && earlier === 0 && pending === undefined)
    body = <p className="muted transcript__empty">{empty ?? t('chat.emptyConversation')}</p>;
  else {
    body = (
      <>
        {/* The oldest items the budget removed are gone for good: said once, at the top, above Show earlier. */}
        {view.status.dropped > 0 ? <p className="muted transcript__earlier transcript__removed">{t('conversation.removed')}</p> : null}
        {earlier > 0 ? (
          <p className="transcript__earlier">
            <button
              type="button"
              className="button button--secondary"
              disabled={loadingEarlier}
              aria-busy={loadingEarlier || undefined}
              onClick={() => {
                setLoadingEarlier(true);
                void onEarlier().finally(() => setLoadingEarlier(false));
              }}
            >
              {t('chat.showEarlier', { count: Math.min(earlier, 200) })}
            </button>
          </p>
        ) : null}
        <ol className="transcript__list">
          {withDaySeparators(items, {
            timeOf: (item) => item.at,
            keyOf: (item) => item.id,
            now,
            render: (item) => {
              const lane = laneOf(item);
              const index = items.indexOf(item);
              const laneStarts = lane !== undefined && (index === 0 || laneOf(items[index - 1] as ConversationItem) !== lane);
              return (
                <li className={`transcript__item transcript__item--${item.kind}${lane !== undefined ? ' transcript__item--subagent' : ''}`}>
                  {laneStarts ? (
                    <p className="agui-item__kicker transcript__lane">
                      {t('conversation.subagent', { name: item.subagent?.name || t('conversation.subagentUnnamed') })}
                    </p>
                  ) : null}
                  <Item item={item} views={views} />
                  <MessageTime at={item.at} />
                </li>
              );
            },
          })}
        </ol>
        {pending !== undefined ? <div className="transcript__pending">{pending}</div> : null}
      </>
    );
  }
  return (
    <StickyScroller
      className="transcript"
      role="log"
      label={t('conversation.label')}
      followKey={newestKey(items, (item) =>
        ((item.kind === 'message' || item.kind === 'speech') && item.role === 'user') || item.kind === 'observation' ? item.id : undefined,
      )}
    >
      {body}
    </StickyScroller>
  );
}
