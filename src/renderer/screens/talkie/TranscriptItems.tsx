import { memo } from 'react';
import type { ConversationItem } from '../../../shared/talkie/conversation';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { ActionItem, type ActionHandlers } from './ActionItem';
import { CardView } from './CardView';
import { useChatEnvironment } from '../../components/ChatContext';
import { LinkView } from '../../components/LinkView';
import { Markdown, StreamingMarkdown } from '../../components/Markdown';
import { MessageCopy, UserMessageTools } from '../../components/MessageCopy';

type Item<K extends ConversationItem['kind']> = Extract<ConversationItem, { kind: K }>;

export function UserMessage({
  item,
  failure,
  onRetry,
  canRetry,
  onEdit,
}: {
  item: Item<'user'>;
  failure: ShownError | undefined;
  onRetry: () => void;
  canRetry: boolean;
  /** The user's last message, while no run is going: Edit puts its text back in the composer. */
  onEdit?: (() => void) | undefined;
}) {
  const { t } = useI18n();
  return (
    <div className={`message message--user message--${item.state}`}>
      <p className="visually-hidden">{t('chat.you')}</p>
      <p className="message__text">{item.text}</p>
      <UserMessageTools text={item.text} onEdit={onEdit} />
      {item.state === 'sending' ? <p className="message__state">{t('chat.message.sending')}</p> : null}
      {item.state === 'failed' ? (
        <div className="message__failure">
          <p className="error-text">
            {t('chat.message.notSent')}
            {failure ? (
              <>
                {' '}
                <ErrorText error={failure} />
              </>
            ) : null}
          </p>
          <button type="button" className="button button--secondary" disabled={!canRetry} onClick={onRetry}>
            {t('chat.retry')}
          </button>
        </div>
      ) : null}
    </div>
  );
}

export function AssistantMessage({ item }: { item: Item<'assistant'> }) {
  const { serverName } = useChatEnvironment();
  const { t } = useI18n();
  return (
    <div className={`message message--assistant${item.streaming ? ' message--streaming' : ''}`}>
      <p className="visually-hidden">{t('chat.agentSays', { name: serverName })}</p>
      {item.streaming ? <StreamingMarkdown text={item.text} /> : <Markdown text={item.text} />}
      <MessageCopy text={item.text} streaming={item.streaming} />
    </div>
  );
}

export function ToolLine({ item }: { item: Item<'tool'> }) {
  const { t } = useI18n();
  const icon = item.state === 'running' ? <span className="spinner" aria-hidden="true" /> : <span aria-hidden="true">{item.state === 'ok' ? '✓' : '✗'}</span>;
  return (
    <p className={`tool-line tool-line--${item.state}`}>
      <span className="tool-line__icon">{icon}</span>
      <span className="tool-line__label">{item.label}</span>
      {item.state === 'ok' ? <span className="visually-hidden"> {t('chat.tool.done')}</span> : null}
      {item.state === 'error' ? (
        <span className="tool-line__error">
          {' '}
          {item.error !== undefined && item.error !== '' ? t('chat.tool.failedWith', { error: item.error }) : t('chat.tool.failed')}
        </span>
      ) : null}
    </p>
  );
}

export function LinkSuggestion({ item }: { item: Item<'link'> }) {
  const { t } = useI18n();
  return (
    <p className="suggestion">
      <span className="suggestion__kicker">{t('chat.link.suggested')}</span>{' '}
      <LinkView url={item.url} className="chip">
        {item.label}
      </LinkView>
    </p>
  );
}

export function ErrorItem({ item, onRetry, canRetry }: { item: Item<'error'>; onRetry: () => void; canRetry: boolean }) {
  const { t } = useI18n();
  return (
    <div className="message message--error">
      <p className="error-text">
        {/* The server's own message (§3), in the user's language. */}
        <ErrorText error={{ code: 'server_error', message: item.message }} />
      </p>
      {item.retryable ? (
        <button type="button" className="button button--secondary" disabled={!canRetry} onClick={onRetry}>
          {t('chat.retry')}
        </button>
      ) : null}
    </div>
  );
}

/** A line said in a voice call: marked as spoken, "Listening…" until transcribed, a placeholder when that failed. */
export function SpokenMessage({ item }: { item: Item<'spoken'> }) {
  const { serverName } = useChatEnvironment();
  const { t } = useI18n();
  const who = item.role === 'user' ? t('chat.spoken.you') : t('chat.spoken.agent', { name: serverName });
  return (
    <div className={`message message--${item.role} message--spoken message--spoken-${item.state}`}>
      <p className="visually-hidden">{who}</p>
      <p className="message__spoken-mark">{t('chat.spoken.mark')}</p>
      {item.state === 'final' ? <p className="message__text">{item.text}</p> : null}
      {item.state === 'hearing' ? <p className="message__text muted">{t('chat.spoken.hearing')}</p> : null}
      {item.state === 'unavailable' ? <p className="message__text muted">{t('chat.spoken.unavailable')}</p> : null}
      {item.state === 'final' ? <MessageCopy text={item.text} /> : null}
    </div>
  );
}

export interface ItemHandlers extends ActionHandlers {
  failures: ReadonlyMap<string, ShownError>;
  /** No run is on its way: a retry may start one. */
  canRetry: boolean;
  retryMessage: (messageId: string) => void;
  retryAfterError: (errorItemId: string) => void;
  /** The message Edit is offered on (the user's last typed one, while no run is going). */
  editableId?: string | undefined;
  editLast?: () => void;
}

/**
 * One transcript entry, memoized: the reducer keeps unchanged items identical, so while a reply
 * streams only the growing message re-renders, not the thousands of messages before it.
 */
export const TranscriptItem = memo(function TranscriptItem({ item, handlers }: { item: ConversationItem; handlers: ItemHandlers }) {
  switch (item.kind) {
    case 'user':
      return (
        <UserMessage
          item={item}
          failure={handlers.failures.get(item.id)}
          canRetry={handlers.canRetry}
          onRetry={() => handlers.retryMessage(item.id)}
          onEdit={item.id === handlers.editableId ? handlers.editLast : undefined}
        />
      );
    case 'assistant':
      return <AssistantMessage item={item} />;
    case 'tool':
      return <ToolLine item={item} />;
    case 'card':
      return <CardView card={item.card} />;
    case 'action':
      return <ActionItem action={item.action} handlers={handlers} />;
    case 'link':
      return <LinkSuggestion item={item} />;
    case 'error':
      return <ErrorItem item={item} canRetry={handlers.canRetry} onRetry={() => handlers.retryAfterError(item.id)} />;
    case 'spoken':
      return <SpokenMessage item={item} />;
  }
});
