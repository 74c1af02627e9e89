import { usePolicyView } from '../../kiosk/policy-context';
import type { Ref } from 'react';
import { agentTitle } from '../../../shared/agents/label';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, type AgentEntry } from '../../../shared/ipc/contract';
import type { AgentStatus } from '../../hooks/useAgentStatus';
import type { LiveResource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import type { AgentProtocol, ChatTarget, Screen } from '../../navigation';
import { ErrorText } from '../../components/ErrorText';
import { useDemoOpener, type DemoSide } from '../home/DemoTile';
import { HardwareControl } from '../home/HardwareControl';

/** An agent's kind in words: what the user does with it, not the protocol it speaks. */
const kindKeys: Record<AgentProtocol | 'a2a' | 'unknown', MessageKey> = {
  talkie: 'shell.kind.chat',
  agentcall: 'shell.kind.objects',
  agui: 'shell.kind.tasks',
  a2a: 'shell.kind.info',
  unknown: 'shell.kindUnknown',
};

const statusKeys: Record<AgentStatus, MessageKey> = {
  connecting: 'shell.status.connecting',
  connected: 'shell.status.connected',
  signInNeeded: 'shell.status.signInNeeded',
  approvalNeeded: 'shell.status.approvalNeeded',
  unreachable: 'shell.status.unreachable',
  sessionEnded: 'shell.status.sessionEnded',
};

const demoLinks: { side: DemoSide; key: MessageKey; agentId: string }[] = [
  { side: 'talkie', key: 'shell.demoChat', agentId: builtInDemoAgentId },
  { side: 'agentcall', key: 'shell.demoAgentCall', agentId: builtInAgentCallDemoId },
  { side: 'agui', key: 'shell.demoWatch', agentId: builtInAguiDemoId },
];

/** What the list knows of an agent's kind: AG-UI when added as such, A2A once its card named it, what main found when it was opened. */
function kindOf(agent: AgentEntry, current: Screen, kinds: Readonly<Record<string, AgentProtocol | 'a2a'>>): keyof typeof kindKeys {
  if (agent.protocol === 'agui') return 'agui';
  if (agent.name !== undefined) return 'a2a';
  const known = kinds[agent.id];
  if (known !== undefined) return known;
  if (current.name === 'chat' && current.agentId === agent.id && current.protocol) return current.protocol;
  return 'unknown';
}

/**
 * The app's sidebar: the added agents (kind, and which one is open), "Add an agent", the built-in
 * demo's three sides, the hardware control and Settings. Under the open agent's entry is its place
 * (`placeRef`): the agent's screen shows its threads there, or its live session (SidebarPlace.tsx).
 * Only the middle scrolls: the hardware control and Settings stay in view however long the lists
 * are. In a window narrower than 1000 px it is a drawer (App).
 */
export function Sidebar({
  api,
  agents,
  id,
  current,
  kinds = {},
  statuses = {},
  firstRef,
  placeRef,
  onNavigate,
  onAddAgent,
}: {
  api: AgentDeskApi;
  /** The agent list (App's: Home shows the same one). */
  agents: LiveResource<AgentEntry[]>;
  id: string;
  current: Screen;
  /** What the agents opened this session turned out to speak, by agent id. */
  kinds?: Readonly<Record<string, AgentProtocol | 'a2a'>>;
  /** What the open agent's screen says of it (useReportAgentStatus). */
  statuses?: Readonly<Record<string, AgentStatus>>;
  /** The first control: focus goes there when the drawer opens. */
  firstRef: Ref<HTMLButtonElement>;
  /** The element under the open agent's entry (SidebarPlace). */
  placeRef: Ref<HTMLDivElement>;
  onNavigate: (screen: Screen) => void;
  onAddAgent: () => void;
}) {
  const { t } = useI18n();
  // A locked agent list (device policy) has no Add and no demo; a kiosk without an admin PIN has no Settings.
  const policy = usePolicyView();
  const demo = useDemoOpener(api, (target: ChatTarget) => onNavigate({ name: 'chat', ...target }));
  const state = agents.state;

  return (
    <nav id={id} className="sidebar" aria-label={t('shell.navigation')}>
      <button
        ref={firstRef}
        type="button"
        className="sidebar__title"
        aria-current={current.name === 'home' ? 'page' : undefined}
        onClick={() => onNavigate({ name: 'home' })}
      >
        {t('app.name')}
      </button>
      {/* The agents, the open one's chats and the demo scroll here; the title and the footer stay in view. */}
      <div className="sidebar__scroll">
        <div className="sidebar__group">
          <h2 className="sidebar__heading">{t('shell.agents')}</h2>
          {state.status === 'ready' ? (
            state.value.length === 0 ? (
              <p className="sidebar__empty">{t('shell.noAgents')}</p>
            ) : (
              <ul className="sidebar__list">
                {state.value.map((agent) => {
                  const open = current.name === 'chat' && current.agentId === agent.id;
                  const name = agentTitle(agent);
                  const status = statuses[agent.id];
                  return (
                    <li key={agent.id}>
                      <button
                        type="button"
                        className="sidebar__item"
                        aria-current={open ? 'page' : undefined}
                        onClick={() => onNavigate({ name: 'chat', agentId: agent.id, label: name })}
                      >
                        <span className="sidebar__item-text">{name}</span>
                        <span className="sidebar__meta">
                          {t(kindKeys[kindOf(agent, current, kinds)])}
                          {status !== undefined ? ` · ${t(statusKeys[status])}` : open ? ` · ${t('shell.statusOpen')}` : ''}
                        </span>
                      </button>
                      {open ? <div ref={placeRef} className="sidebar__place" /> : null}
                    </li>
                  );
                })}
              </ul>
            )
          ) : state.status === 'error' ? (
            <p className="sidebar__empty error-text">
              <ErrorText error={state.error} />
            </p>
          ) : null}
          {policy.agentsLocked ? null : (
            <button type="button" className="sidebar__item sidebar__item--add" onClick={onAddAgent}>
              <span aria-hidden="true">+</span> {t('shell.addAgent')}
            </button>
          )}
        </div>
        {policy.agentsLocked ? null : (
          <div className="sidebar__group">
            <h2 className="sidebar__heading">{t('shell.demo')}</h2>
            <ul className="sidebar__list">
              {demoLinks.map(({ side, key, agentId }) => {
                const open = current.name === 'chat' && current.agentId === agentId;
                return (
                  <li key={side}>
                    <button
                      type="button"
                      className="sidebar__item"
                      aria-current={open ? 'page' : undefined}
                      aria-busy={demo.busy === side || undefined}
                      onClick={() => void demo.open(side)}
                    >
                      <span className="sidebar__item-text">{t(key)}</span>
                    </button>
                    {open ? <div ref={placeRef} className="sidebar__place" /> : null}
                  </li>
                );
              })}
            </ul>
            <div role="status" className="sidebar__status">
              {demo.error ? (
                <p className="error-text">
                  {t('demo.failed')} <ErrorText error={demo.error} />
                </p>
              ) : null}
            </div>
          </div>
        )}
      </div>
      <div className="sidebar__footer">
        <HardwareControl api={api} />
        {policy.kiosk && !policy.adminPin ? null : (
          <button
            type="button"
            className="sidebar__item"
            aria-current={current.name === 'settings' ? 'page' : undefined}
            onClick={() => onNavigate({ name: 'settings' })}
          >
            <span className="sidebar__item-text">{t('shell.settings')}</span>
          </button>
        )}
      </div>
    </nav>
  );
}
