import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId } from '../../shared/ipc/contract';
import type { ConversationProtocol } from '../../shared/conversation/view';
import { ServiceError } from '../../shared/base/errors';
import type { AgentCallService } from '../agentcall/agentcall-service';
import { identifyAgent } from '../agents/identify-agent';
import type { AguiService } from '../agui/agui-service';
import { agentCallAdapter } from '../conversation/agentcall-source';
import { aguiAdapter } from '../conversation/agui-source';
import { ConversationService } from '../conversation/conversation-service';
import { talkieAdapter, type TalkieConversations } from '../conversation/talkie-source';
import type { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';
import type { AgentRegistry } from '../store/agent-registry';
import type { SettingsService } from '../store/settings-service';
import type { TalkieService } from '../talkie/talkie-service';

/**
 * The conversations of every protocol (src/main/conversation/), composed: one adapter per protocol
 * and what an agent speaks, as `agents.identify` decides it (the built-in demos by id, an agent added
 * as a plain AG-UI endpoint as such, any other by its documents, remembered for the session).
 */
export function startConversations(deps: {
  agents: AgentRegistry;
  settings: SettingsService;
  events: EventBus;
  log: Logger;
  talkie: TalkieService;
  agui: AguiService;
  agentCall: AgentCallService;
}): { conversations: ConversationService; talkie: TalkieConversations } {
  const talkie = talkieAdapter(deps.talkie, deps.events);
  const known = new Map<string, ConversationProtocol>();
  const protocolOf = async (agentId: string): Promise<ConversationProtocol> => {
    if (agentId === builtInDemoAgentId) return 'talkie';
    if (agentId === builtInAgentCallDemoId) return 'agentcall';
    if (agentId === builtInAguiDemoId) return 'agui';
    const agent = deps.agents.get(agentId);
    if (agent.protocol === 'agui') return 'agui';
    const remembered = known.get(agent.url);
    if (remembered !== undefined) return remembered;
    const identified = await identifyAgent(agent.url, { allowLocalHttp: deps.agents.allowsLocalHttp(agentId, deps.settings.get().developer.allowLocalHttp) });
    if (identified.protocol === 'a2a') throw new ServiceError('incompatible', 'This agent has web pages but no conversation AgentDesk can hold.');
    known.set(agent.url, identified.protocol);
    return identified.protocol;
  };
  const conversations = new ConversationService({
    adapters: { talkie, agui: aguiAdapter(deps.agui), agentcall: agentCallAdapter(deps.agentCall, deps.events) },
    protocolOf,
    emit: (payload) => deps.events.emit('conversation.update', payload),
    log: deps.log,
  });
  return { conversations, talkie };
}
