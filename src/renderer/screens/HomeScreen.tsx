import { usePolicyView } from '../kiosk/policy-context';
import { useCallback, type Ref, type RefObject } from 'react';
import { agentTitle } from '../../shared/agents/label';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { AgentEntry } from '../../shared/ipc/contract';
import type { LiveResource } from '../hooks/useLiveResource';
import type { ChatTarget } from '../navigation';
import { useI18n } from '../i18n/I18nProvider';
import { AddAgentForm } from './home/AddAgentForm';
import { AgentList } from './home/AgentList';
import { DemoTile } from './home/DemoTile';

export function HomeScreen({
  api,
  headingRef,
  agents,
  addInputRef,
  onOpenChat,
}: {
  api: AgentDeskApi;
  headingRef: Ref<HTMLHeadingElement>;
  /** The agent list (App's: the sidebar shows the same one). */
  agents: LiveResource<AgentEntry[]>;
  /** The address field: the sidebar's "Add an agent" moves the focus there. */
  addInputRef: RefObject<HTMLInputElement | null>;
  onOpenChat: (target: ChatTarget) => void;
}) {
  const { t } = useI18n();
  const { update } = agents;
  // The device policy's agent list: no add, and no built-in demo (main refuses both).
  const locked = usePolicyView().agentsLocked;

  // agents.changed normally arrives first; this covers a transport that does not deliver events.
  const onAdded = useCallback((agent: AgentEntry) => update((list) => (list.some((entry) => entry.id === agent.id) ? list : [...list, agent])), [update]);

  return (
    <div className="screen">
      <h1 ref={headingRef} tabIndex={-1} className="screen__title">
        {t('home.title')}
      </h1>
      <div className="home-grid">
        <div className="home-grid__column">
          <AgentList api={api} agents={agents} addInputRef={addInputRef} onOpen={(agent) => onOpenChat({ agentId: agent.id, label: agentTitle(agent) })} />
          {locked ? null : <AddAgentForm api={api} inputRef={addInputRef} onAdded={onAdded} />}
        </div>
        {locked ? null : (
          <div className="home-grid__column">
            <DemoTile api={api} onOpen={onOpenChat} />
          </div>
        )}
      </div>
    </div>
  );
}
