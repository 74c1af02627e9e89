import { groupBySubagent, type AguiItem, type AguiThreadView, type SubagentGroup } from '../../../shared/agui/run-model';
import type { AguiThreadWindow } from '../../../shared/agui/thread-window';
import type { IpcError } from '../../../shared/ipc/errors';
import { EarlierMessages } from '../../components/EarlierMessages';
import { newestKey, StickyScroller } from '../../components/StickyScroller';
import { MessageTime, useDayNow, withDaySeparators } from '../../components/MessageTime';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { AguiItemView } from './AguiItems';

type Entry = { kind: 'item'; item: AguiItem } | { kind: 'group'; group: SubagentGroup };

const subagentStateKeys: Record<NonNullable<SubagentGroup['subagent']>['state'], MessageKey> = {
  running: 'agui.subagent.state.running',
  finished: 'agui.subagent.state.finished',
  suspended: 'agui.subagent.state.suspended',
  failed: 'agui.subagent.state.failed',
};

/**
 * The parent agent's items in order, and each subagent invocation as its own labelled group placed
 * where its first item appeared (invocations without items yet come last). Groups are per
 * subagentRunId, so two parallel invocations of the same subagent never merge.
 */
export function transcriptEntries(thread: AguiThreadView): Entry[] {
  const { subagents } = groupBySubagent(thread);
  const groups = new Map(subagents.map((group) => [group.subagentRunId, group]));
  const placed = new Set<string>();
  const entries: Entry[] = [];
  for (const item of thread.items) {
    const lane = 'subagentRunId' in item ? item.subagentRunId : undefined;
    if (lane === undefined) {
      entries.push({ kind: 'item', item });
      continue;
    }
    if (placed.has(lane)) continue;
    const group = groups.get(lane);
    if (!group) continue;
    placed.add(lane);
    entries.push({ kind: 'group', group });
  }
  for (const group of subagents) if (!placed.has(group.subagentRunId)) entries.push({ kind: 'group', group });
  return entries;
}

function itemClass(item: AguiItem): string {
  if (item.kind === 'user') return 'transcript__item transcript__item--user';
  if (item.kind === 'answer') return 'transcript__item transcript__item--user agui-entry--answer';
  if (item.kind === 'error') return 'transcript__item transcript__item--error agui-entry';
  return `transcript__item agui-entry agui-entry--${item.kind}`;
}

function SubagentGroupView({ group }: { group: SubagentGroup }) {
  const { t } = useI18n();
  const subagent = group.subagent;
  const title = subagent ? t('agui.subagent.title', { name: subagent.name }) : t('agui.subagent.unknown', { id: group.subagentRunId });
  return (
    <section className={`agui-subagent${subagent ? ` agui-subagent--${subagent.state}` : ''}`} aria-label={title}>
      <header className="agui-subagent__header">
        <p className="agui-subagent__title">{title}</p>
        {subagent ? <p className="agui-subagent__state">{t(subagentStateKeys[subagent.state])}</p> : null}
        {subagent?.description !== undefined ? <p className="field__hint">{subagent.description}</p> : null}
        {/* Distinct invocations may share a name: the id tells them apart. */}
        <p className="agui-subagent__id">
          <code>{group.subagentRunId}</code>
        </p>
      </header>
      {subagent?.error ? <p className="error-text">{subagent.error.message}</p> : null}
      {group.items.length === 0 ? (
        <p className="muted">{t('agui.subagent.empty')}</p>
      ) : (
        <ol className="transcript__list">
          {group.items.map((item) => (
            <li key={`${item.kind}:${item.id}`} className={itemClass(item)}>
              <AguiItemView item={item} />
              <MessageTime at={item.at} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * The thread's transcript: the page's window of it (its newest items, earlier ones on "Show earlier").
 * Not a live region: the status line below it announces how the run goes.
 */
export function AguiTranscript({
  thread,
  now: fixedNow,
  edit,
  onShowEarlier,
}: {
  thread: AguiThreadWindow;
  /** Asks main for the items before the window. */
  onShowEarlier?: () => Promise<IpcError | undefined>;
  /** Now, for "Today" and "Yesterday" (tests fix it). */
  now?: number;
  /** The user message that offers Edit (the last one, while no run is going). */
  edit?: { messageId: string; onEdit: () => void } | undefined;
}) {
  const { t } = useI18n();
  const now = useDayNow(fixedNow);
  const entries = transcriptEntries(thread);
  return (
    <StickyScroller
      className="transcript agui-transcript"
      label={t('chat.messagesLabel')}
     
      followKey={newestKey(thread.items, (item) => (item.kind === 'user' ? item.id : undefined))}
    >
      <EarlierMessages removed={thread.droppedItems > 0} earlier={thread.earlierItems ?? 0} {...(onShowEarlier ? { onShowEarlier } : {})} />
      {entries.length === 0 ? (
        <p className="muted transcript__empty">{t('agui.empty')}</p>
      ) : (
        <ol className="transcript__list">
          {withDaySeparators(entries, {
            // A subagent's group starts its day with its first item.
            timeOf: (entry) => (entry.kind === 'item' ? entry.item.at : entry.group.items[0]?.at),
            keyOf: (entry) => (entry.kind === 'item' ? `${entry.item.kind}:${entry.item.id}` : `subagent:${entry.group.subagentRunId}`),
            now,
            render: (entry) =>
              entry.kind === 'item' ? (
                <li className={itemClass(entry.item)}>
                  <AguiItemView item={entry.item} onEdit={entry.item.kind === 'user' && entry.item.id === edit?.messageId ? edit.onEdit : undefined} />
                  <MessageTime at={entry.item.at} />
                </li>
              ) : (
                <li className="transcript__item agui-entry agui-entry--subagent">
                  <SubagentGroupView group={entry.group} />
                </li>
              ),
          })}
        </ol>
      )}
    </StickyScroller>
  );
}
