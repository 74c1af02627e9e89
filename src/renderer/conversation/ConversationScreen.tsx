import { useCallback, useMemo, useRef, useState, type RefObject } from 'react';
import type { AgentStatus } from '../hooks/useAgentStatus';
import { useReportAgentStatus } from '../hooks/useAgentStatus';
import { useAccent } from '../components/accent';
import { ChatEnvironmentContext } from '../components/ChatContext';
import { Composer, type ComposerHandle } from '../components/Composer';
import { ConnectionFeedback } from '../components/ConnectionFeedback';
import { useI18n } from '../i18n/I18nProvider';
import { InSidebar } from '../screens/shell/SidebarPlace';
import { usePolicyView } from '../kiosk/policy-context';
import type { AgentDeskApi } from '../../shared/ipc/api';
import { AgentDetails } from './AgentDetails';
import { conversationPort } from './conversation-port';
import { ItemActionsContext } from './item-actions';
import type { ProfileInput, ProtocolProfile } from './profile';
import { StatusLine } from './StatusLine';
import { commonItemViews, Transcript } from './Transcript';
import { useConversation } from './useConversation';
import '../styles/conversation.css';

export interface ConversationScreenProps {
  api: AgentDeskApi;
  headingRef: RefObject<HTMLHeadingElement | null>;
  agentId: string;
  label: string;
  /** The protocol's share of the screen (protocols/*.tsx): one hook, fixed for the screen's life. */
  useProfile: (input: ProfileInput) => ProtocolProfile;
  /** A kiosk's Start over: the session is wiped and the start screen returns. */
  onBack?: () => void;
}

/**
 * The one conversation screen, whatever the agent speaks: a compact header (the agent's name, its
 * own actions, and an info button for its details), the transcript filling the height, one status
 * line, a call's bar when one is going, and one composer row with the protocol's tools. Escape never
 * leaves it: it closes what is open (the details), or does nothing.
 *
 * On a kiosk (issue #27) it is a visitor's: the agent is called by the administrator's name (`label`,
 * the policy's), the header holds Start over (a new visitor's start screen) instead of the agent's
 * actions and Details, and nothing goes to a sidebar (there is none).
 */
export function ConversationScreen({ api, headingRef, agentId, label, useProfile, onBack }: ConversationScreenProps) {
  const { t } = useI18n();
  const { kiosk } = usePolicyView();
  const port = useMemo(() => conversationPort(api), [api]);
  const { state, store } = useConversation(port, agentId);
  const view = state.status === 'open' ? state.view : undefined;
  const field = useRef<HTMLTextAreaElement>(null);
  const handle = useRef<ComposerHandle | null>(null);
  const [detailsOpen, setDetailsOpen] = useState(false);
  const closeDetails = useCallback(() => setDetailsOpen(false), []);
  const profile = useProfile({ api, agentId, label, store, state, view, composer: { field: () => field.current, handle: () => handle.current }, closeDetails });
  const rootRef = useAccent<HTMLDivElement>(profile.accent);
  const title = kiosk ? label : (profile.title ?? label);
  const status = view?.status;

  const agentStatus: AgentStatus | undefined =
    profile.gate !== undefined
      ? profile.status
      : state.status === 'failed'
        ? state.error.code === 'sign_in_required'
          ? 'signInNeeded'
          : 'unreachable'
        : status?.phase === 'ended'
          ? 'sessionEnded'
          : status?.phase === 'ready'
            ? 'connected'
            : 'connecting';
  useReportAgentStatus(agentId, agentStatus);

  // Take back is the screen's, for every protocol: the queue of messages typed during an answer is main's conversation's.
  const actions = useMemo(() => ({ unqueue: (itemId: string) => void store.unqueue(itemId), ...profile.actions }), [store, profile.actions]);
  const running = status !== undefined && status.run !== 'idle';
  const ready = status?.phase === 'ready' && profile.composer.blocked === undefined;
  return (
    <div ref={rootRef} className="screen conversation">
      <header className="conversation-header">
        {profile.logo}
        <h1 ref={headingRef} tabIndex={-1} className="conversation-header__title">
          {title}
        </h1>
        <div className="conversation-header__actions">
          {kiosk ? (
            onBack ? (
              <button type="button" className="button button--secondary conversation-header__start-over" onClick={onBack}>
                {t('kiosk.startOver')}
              </button>
            ) : null
          ) : (
            <>
              {profile.headerActions}
              <button
                type="button"
                className="button button--secondary conversation-header__info"
                aria-haspopup="dialog"
                aria-expanded={detailsOpen}
                onClick={() => setDetailsOpen(true)}
              >
                <span aria-hidden="true" className="conversation-header__info-icon">
                  i
                </span>{' '}
                {t('conversation.details.open')}
              </button>
            </>
          )}
        </div>
      </header>
      {profile.sidebar !== undefined && !kiosk ? <InSidebar agentId={agentId}>{profile.sidebar}</InSidebar> : null}
      {profile.gate !== undefined ? (
        profile.gate
      ) : state.status !== 'open' ? (
        <ConnectionFeedback
          connectingText={state.status === 'opening' ? t('chat.connecting', { name: title }) : undefined}
          failure={state.status === 'failed' ? { summary: t('chat.connectFailed', { name: title }), error: state.error } : undefined}
          onRetry={() => void store.open()}
          onBack={() => headingRef.current?.focus()}
        />
      ) : (
        <ChatEnvironmentContext.Provider value={profile.environment}>
          <ItemActionsContext.Provider value={actions}>
            <Transcript
              view={view}
              views={{ ...commonItemViews, ...profile.views }}
              onEarlier={() => store.earlier()}
              {...(profile.empty === undefined ? {} : { empty: profile.empty })}
              pending={profile.pending}
            />
          </ItemActionsContext.Provider>
          <StatusLine status={status} waitingText={profile.waitingText} extra={profile.statusExtra} />
          {profile.callBar}
          <Composer
            textareaRef={field}
            handleRef={handle}
            draftKey={profile.composer.draftKey}
            ready={ready}
            running={running}
            whileRunning="queue"
            cancelling={status?.run === 'cancelling'}
            max={profile.composer.max}
            counterFrom={profile.composer.max === undefined ? undefined : Math.max(0, profile.composer.max - 1_000)}
            tooLongMessage={t('conversation.composer.tooLong', { max: profile.composer.max ?? 0 })}
            notSentText={t('chat.message.notSent')}
            onSend={(text) => (profile.composer.send ?? ((message: string) => store.send(message)))(text)}
            onCancel={() => store.cancel()}
            notice={profile.composer.blocked !== undefined ? <p className="composer__notice-text">{t(profile.composer.blocked)}</p> : profile.composer.notice}
            tools={profile.tools}
            {...(profile.composer.onEditLast ? { onEditLast: profile.composer.onEditLast } : {})}
            {...(profile.composer.onEscape ? { onEscape: profile.composer.onEscape } : {})}
          />
        </ChatEnvironmentContext.Provider>
      )}
      {profile.overlay}
      {detailsOpen && !kiosk ? (
        <AgentDetails title={title} onClose={() => setDetailsOpen(false)}>
          {profile.details}
        </AgentDetails>
      ) : null}
    </div>
  );
}
