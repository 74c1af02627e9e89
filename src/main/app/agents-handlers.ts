import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId } from '../../shared/ipc/contract';
import { checkAgent } from '../agents/check-agent';
import { a2aAgentView, identifyAgent } from '../agents/identify-agent';
import type { AguiService } from '../agui/agui-service';
import type { HandlerTable } from '../ipc/handler-table';
import type { TalkieService } from '../talkie/talkie-service';
import type { AgentRegistry } from '../store/agent-registry';
import type { SettingsService } from '../store/settings-service';
import type { WebPagesService } from './web-pages';

/**
 * `agents.*`: the agent list, telling an agent's protocol apart, and its web pages. It lives with the
 * composition root because it reaches across floors: the list (store), a removed agent's plain
 * AG-UI state (agui) and the web pages (app).
 */
export function agentsHandlers({
  agents,
  settings,
  agui,
  talkie,
  webPages,
}: {
  agents: AgentRegistry;
  settings: SettingsService;
  agui: Pick<AguiService, 'forget' | 'searchThread'>;
  talkie: Pick<TalkieService, 'searchThreads'>;
  webPages: WebPagesService;
}): HandlerTable<'agents'> {
  return {
    'agents.list': () => ({ agents: agents.list() }),
    'agents.add': async ({ address, kind }) => ({
      agent: await agents.add(address, { allowLocalHttp: settings.get().developer.allowLocalHttp, ...(kind === 'agui' ? { protocol: 'agui' as const } : {}) }),
    }),
    'agents.check': ({ address, kind }) => {
      const policy = { allowLocalHttp: settings.get().developer.allowLocalHttp };
      return checkAgent({ ...agents.vet(address, policy), kind: kind ?? 'auto' }, policy);
    },
    'agents.rename': async ({ id, name }) => ({ agent: await agents.rename(id, name) }),
    'agents.remove': async ({ id }) => {
      const list = await agents.remove(id);
      await agui.forget(id);
      return { agents: list };
    },
    'agents.restore': async ({ agent, index }) => ({ agents: await agents.restore(agent, index, { allowLocalHttp: settings.get().developer.allowLocalHttp }) }),
    'agents.identify': async ({ agentId }) => {
      if (agentId === builtInDemoAgentId) return { protocol: 'talkie' as const };
      if (agentId === builtInAgentCallDemoId) return { protocol: 'agentcall' as const };
      if (agentId === builtInAguiDemoId) return { protocol: 'agui' as const };
      const agent = agents.get(agentId);
      // A plain AG-UI endpoint has no documents to read: it is what the user added it as.
      if (agent.protocol === 'agui') return { protocol: 'agui' as const };
      const identified = await identifyAgent(agent.url, { allowLocalHttp: agents.allowsLocalHttp(agentId, settings.get().developer.allowLocalHttp) });
      if (identified.protocol !== 'a2a') return { protocol: identified.protocol };
      // A plain A2A agent is listed by its card's name from now on.
      await agents.setName(agent.id, identified.a2a.name);
      return { protocol: 'a2a' as const, agent: a2aAgentView(identified) };
    },
    'agents.webPages': ({ agentId }) => webPages.webPages(agentId),
    'agents.searchThreads': ({ agentId, query }) => {
      if (agentId === builtInAgentCallDemoId) return { results: [] };
      // A plain AG-UI agent's thread is in main's files; every other agent's is what Talkie saw this session.
      const isAgui = agentId === builtInAguiDemoId || (agentId !== builtInDemoAgentId && agents.get(agentId).protocol === 'agui');
      return isAgui ? agui.searchThread(agentId, query) : talkie.searchThreads(agentId, query);
    },
  };
}
