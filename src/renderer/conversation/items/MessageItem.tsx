import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useChatEnvironment } from '../../components/ChatContext';
import { ErrorText } from '../../components/ErrorText';
import { Markdown, StreamingMarkdown } from '../../components/Markdown';
import { MessageCopy, UserMessageTools } from '../../components/MessageCopy';
import { useI18n } from '../../i18n/I18nProvider';
import { useItemActions } from '../item-actions';

/**
 * A message, the user's or the agent's. The agent's text is its Markdown subset (raw HTML stays
 * text); the user's is shown as typed. A queued message can be taken back, a failed one sent again,
 * the user's last one edited.
 */
export const MessageItem = memo(function MessageItem({ item }: { item: ItemOfKind<'message'> }) {
  const { t } = useI18n();
  const { serverName } = useChatEnvironment();
  const actions = useItemActions();
  if (item.role === 'user') {
    return (
      <div className={`message message--user message--${item.state}`}>
        <p className="visually-hidden">{t('chat.you')}</p>
        <p className="message__text">{item.text}</p>
        {item.state === 'queued' ? (
          <div className="message__queued">
            <p className="message__state">{t('conversation.queued')}</p>
            {actions.unqueue ? (
              <button type="button" className="copy-button" onClick={() => actions.unqueue?.(item.id)}>
                {t('conversation.unqueue')}
              </button>
            ) : null}
          </div>
        ) : (
          <UserMessageTools text={item.text} onEdit={item.id === actions.editableId ? actions.edit : undefined} />
        )}
        {item.state === 'sending' ? <p className="message__state">{t('chat.message.sending')}</p> : null}
        {item.state === 'failed' ? (
          <div className="message__failure">
            <p className="error-text">
              {t('chat.message.notSent')}
              {item.error ? (
                <>
                  {' '}
                  <ErrorText error={item.error} />
                </>
              ) : null}
            </p>
            {actions.retry ? (
              <button type="button" className="button button--secondary" disabled={actions.canRetry === false} onClick={() => actions.retry?.(item)}>
                {t('chat.retry')}
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    );
  }
  const streaming = item.state === 'streaming';
  return (
    <div className={`message message--assistant${streaming ? ' message--streaming' : ''}${item.role === 'system' ? ' message--system' : ''}`}>
      <p className="visually-hidden">{t('chat.agentSays', { name: item.author ?? serverName })}</p>
      {item.role === 'system' ? <p className="agui-item__kicker">{t('agui.role.system')}</p> : null}
      {item.author !== undefined ? <p className="agui-item__kicker">{item.author}</p> : null}
      {item.format === 'plain' ? (
        <p className="message__text">{item.text}</p>
      ) : streaming ? (
        <StreamingMarkdown text={item.text} />
      ) : (
        <Markdown text={item.text} />
      )}
      <MessageCopy text={item.text} streaming={streaming} />
      {item.truncated ? <p className="message__state">{t('agui.truncated')}</p> : null}
      {item.state === 'stopped' ? <p className="message__state">{t('conversation.answer.stopped')}</p> : null}
      {item.state === 'interrupted' ? <p className="message__state">{t('conversation.answer.interrupted')}</p> : null}
      {item.state === 'failed' ? <p className="message__state error-text">{t('conversation.answer.failed')}</p> : null}
    </div>
  );
});
