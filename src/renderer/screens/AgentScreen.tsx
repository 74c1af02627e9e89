import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { A2AAgentView } from '../../shared/ipc/contract';
import type { IpcError } from '../../shared/base/errors';
import { ErrorText } from '../components/ErrorText';
import { call } from '../hooks/useLiveResource';
import { useI18n } from '../i18n/I18nProvider';
import type { AgentProtocol } from '../navigation';
import { A2AScreen } from './a2a/A2AScreen';
import { ConversationScreen } from '../conversation/ConversationScreen';
import { agentCallProfile } from '../conversation/protocols/agentcall';
import { useAguiProfile } from '../conversation/protocols/agui';
import { useTalkieProfile } from '../conversation/protocols/talkie';
import type { StartTag } from '../kiosk/KioskStartScreen';

type Identified =
  | { status: 'checking' }
  | { status: 'failed'; error: IpcError }
  | { status: 'ready'; protocol: AgentProtocol }
  /** A plain A2A agent: no session, a page with its card and web pages. */
  | { status: 'a2a'; agent: A2AAgentView };

/**
 * One agent, whatever it speaks: when the protocol is not known yet (an agent from the list), main
 * reads its Talkie manifest and agent card (`agents.identify`) and the matching screen opens (for a
 * plain A2A agent, its page); when neither is usable the reason is shown here, with Retry.
 */
export interface AgentScreenProps {
  api: AgentDeskApi;
  headingRef: RefObject<HTMLHeadingElement | null>;
  agentId: string;
  label: string;
  protocol?: AgentProtocol;
  onBack: () => void;
  /** What main found the agent speaks (the sidebar shows it as the agent's kind). */
  onIdentified?: (protocol: AgentProtocol | 'a2a') => void;
  /** The kiosk's start tag: the first observation of an AgentCall session (other protocols take no tags). */
  startTag?: StartTag;
}

export function AgentScreen({ api, headingRef, agentId, label, protocol, onBack, onIdentified, startTag }: AgentScreenProps) {
  const { t } = useI18n();
  const [identified, setIdentified] = useState<Identified>(protocol ? { status: 'ready', protocol } : { status: 'checking' });
  const [attempt, setAttempt] = useState(0);
  // The kiosk's start tag goes with the AgentCall profile (one hook for the screen's life).
  const useAgentCallProfile = useMemo(() => agentCallProfile(startTag ? { startTag } : {}), [startTag]);
  const identifiedRef = useRef(onIdentified);
  useEffect(() => {
    identifiedRef.current = onIdentified;
  }, [onIdentified]);

  useEffect(() => {
    if (protocol) return;
    let current = true;
    void call(() => api.agents.identify({ agentId })).then((result) => {
      if (!current) return;
      if (!result.ok) return setIdentified({ status: 'failed', error: result.error });
      identifiedRef.current?.(result.value.protocol);
      if (result.value.protocol === 'a2a') setIdentified({ status: 'a2a', agent: result.value.agent });
      else setIdentified({ status: 'ready', protocol: result.value.protocol });
    });
    return () => {
      current = false;
    };
  }, [api, agentId, protocol, attempt]);

  useEffect(() => {
    if (identified.status === 'checking' || identified.status === 'failed') headingRef.current?.focus();
  }, [identified.status, headingRef]);

  if (identified.status === 'a2a') return <A2AScreen api={api} headingRef={headingRef} agentId={agentId} agent={identified.agent} onBack={onBack} />;
  if (identified.status === 'ready') {
    const props = { api, headingRef, agentId, label, onBack };
    if (identified.protocol === 'agentcall') return <ConversationScreen {...props} useProfile={useAgentCallProfile} />;
    if (identified.protocol === 'agui') return <ConversationScreen {...props} useProfile={useAguiProfile} />;
    return <ConversationScreen {...props} useProfile={useTalkieProfile} />;
  }
  return (
    <section className="screen" aria-labelledby="agent-heading">
      <div className="screen__header">
        <button type="button" className="button button--secondary" onClick={onBack}>
          {t('chat.back')}
        </button>
        <h1 id="agent-heading" ref={headingRef} tabIndex={-1} className="screen__title">
          {label}
        </h1>
      </div>
      <div role="status" className="card">
        {identified.status === 'checking' ? (
          <p className="muted" aria-busy="true">
            {t('agent.identifying', { name: label })}
          </p>
        ) : (
          <div className="inline-error">
            <p className="error-text">
              {t('agent.identifyFailed')} <ErrorText error={identified.error} />
            </p>
            <button
              type="button"
              className="button button--secondary"
              onClick={() => {
                setIdentified({ status: 'checking' });
                setAttempt((value) => value + 1);
              }}
            >
              {t('chat.retry')}
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
