import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useChatEnvironment } from '../../components/ChatContext';
import { MessageCopy } from '../../components/MessageCopy';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * Something said in a call: marked as spoken; its transcript when there is one, "Listening…" until
 * it comes, else only that (and for how long) someone spoke — a call never hides the user's turns.
 */
export const SpeechItem = memo(function SpeechItem({ item }: { item: ItemOfKind<'speech'> }) {
  const { serverName } = useChatEnvironment();
  const { t, language } = useI18n();
  const who = item.role === 'user' ? t('chat.spoken.you') : t('chat.spoken.agent', { name: serverName });
  const seconds = item.durationMs === undefined ? undefined : Math.max(1, Math.round(item.durationMs / 1000));
  const text = item.text !== undefined && item.text !== '' ? item.text : undefined;
  return (
    <div className={`message message--${item.role === 'user' ? 'user' : 'assistant'} message--spoken message--spoken-${item.state}`}>
      <p className="visually-hidden">{who}</p>
      <p className="message__spoken-mark">
        {seconds === undefined ? t('chat.spoken.mark') : t('conversation.spokenFor', { seconds: new Intl.NumberFormat(language).format(seconds) })}
      </p>
      {text !== undefined ? <p className="message__text">{text}</p> : null}
      {text === undefined && item.state === 'hearing' ? <p className="message__text muted">{t('chat.spoken.hearing')}</p> : null}
      {text === undefined && item.state === 'unavailable' ? <p className="message__text muted">{t('chat.spoken.unavailable')}</p> : null}
      {text === undefined && item.state === 'final' ? (
        <p className="message__text muted">{t(item.role === 'user' ? 'conversation.youSpoke' : 'conversation.agentSpoke')}</p>
      ) : null}
      {text !== undefined && item.state === 'final' ? <MessageCopy text={text} /> : null}
    </div>
  );
});
