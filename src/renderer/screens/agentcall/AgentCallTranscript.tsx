import type { SessionItem } from '../../../shared/agentcall/session-view';
import { newestKey, StickyScroller } from '../../components/StickyScroller';
import { useI18n } from '../../i18n/I18nProvider';
import { AgentCallItem, shownItems, type ItemContext } from './AgentCallItems';

/**
 * The session's transcript. Not a live region: the status line below it announces "answering" and
 * "answered" instead.
 */
export function AgentCallTranscript({ items, context, thumbnail }: { items: SessionItem[]; context: ItemContext; thumbnail: (sha256: string) => string | undefined }) {
  const { t } = useI18n();
  const shown = shownItems(items);
  return (
    <StickyScroller
      className="transcript agentcall-transcript"
      label={t('chat.messagesLabel')}
     
      followKey={newestKey(items, (item) => (item.kind === 'userText' || item.kind === 'userObservation' ? item.id : undefined))}
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
    </StickyScroller>
  );
}
