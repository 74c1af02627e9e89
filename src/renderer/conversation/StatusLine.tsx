import type { ReactNode } from 'react';
import type { ConversationStatus } from '../../shared/conversation/view';
import { useConnectionLost } from '../hooks/useConnection';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/strings';

const outcomeKeys: Record<NonNullable<ConversationStatus['outcome']>, MessageKey> = {
  done: 'chat.status.answered',
  stopped: 'chat.status.cancelled',
  failed: 'chat.status.error',
  interrupted: 'conversation.status.interrupted',
  waiting: 'conversation.status.waiting',
};

/**
 * The one polite status line of a conversation: what the agent is doing (answering, stopping) or how
 * its last answer ended, never the streamed text. A lost connection to main says so instead of a
 * spinner that would never stop.
 */
export function StatusLine({ status, waitingText, extra }: { status: ConversationStatus | undefined; waitingText?: string | undefined; extra?: ReactNode }) {
  const { t } = useI18n();
  const lost = useConnectionLost();
  let text: string | undefined;
  let busy = false;
  /** Announced, not shown: the conversation's own end item says it where it happened (AgentCall). */
  let hidden = false;
  if (status === undefined || status.phase === 'connecting') text = undefined;
  else if (status.phase === 'ended') {
    text = t('agentcall.ended.title');
    hidden = true;
  } else if (status.run !== 'idle') {
    if (lost) text = t('chat.status.connectionLost');
    else {
      busy = true;
      text = t(status.run === 'cancelling' ? 'agentcall.status.cancelling' : 'chat.status.answering');
    }
  } else if (status.outcome === 'waiting' && waitingText !== undefined) text = waitingText;
  else if (status.outcome !== undefined) text = t(outcomeKeys[status.outcome]);
  return (
    <div className="run-status">
      <p className="run-status__text" role="status" aria-live="polite">
        {busy ? <span className="spinner" aria-hidden="true" /> : null}
        {hidden ? <span className="visually-hidden">{text}</span> : text}
      </p>
      {extra}
    </div>
  );
}
