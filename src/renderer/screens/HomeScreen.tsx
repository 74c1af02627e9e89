import { useCallback, useRef, type Ref } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { AgentEntry } from '../../shared/ipc/contract';
import { useAgents } from '../hooks/useApiData';
import type { ChatTarget } from '../navigation';
import { useI18n } from '../i18n/I18nProvider';
import { AddAgentForm } from './home/AddAgentForm';
import { AgentList } from './home/AgentList';
import { DemoTile } from './home/DemoTile';
import { HardwareStrip } from './home/HardwareStrip';

export function HomeScreen({
  api,
  headingRef,
  onOpenChat,
}: {
  api: AgentDeskApi;
  headingRef: Ref<HTMLHeadingElement>;
  onOpenChat: (target: ChatTarget) => void;
}) {
  const { t } = useI18n();
  const agents = useAgents(api);
  const addInputRef = useRef<HTMLInputElement>(null);
  const { update } = agents;

  // agents.changed normally arrives first; this covers a transport that does not deliver events.
  const onAdded = useCallback(
    (agent: AgentEntry) => update((list) => (list.some((entry) => entry.id === agent.id) ? list : [...list, agent])),
    [update],
  );

  return (
    <div className="screen">
      <h1 ref={headingRef} tabIndex={-1} className="screen__title">
        {t('home.title')}
      </h1>
      <div className="home-grid">
        <div className="home-grid__column">
          <AgentList api={api} agents={agents} addInputRef={addInputRef} onOpen={(agent) => onOpenChat({ agentId: agent.id, label: agent.name ?? agent.display })} />
          <AddAgentForm api={api} inputRef={addInputRef} onAdded={onAdded} />
        </div>
        <div className="home-grid__column">
          <DemoTile api={api} onOpen={onOpenChat} />
          <HardwareStrip api={api} />
        </div>
      </div>
    </div>
  );
}
