import type { AgentCallCard, CardValidation } from '../../shared/agentcall/card';
import { ServiceError } from '../../shared/base/errors';
import type { Problem } from '../../shared/talkie/problems';
import type { NetPolicy } from '../net/address-policy';
import { discoverAgentCard } from './discovery';

/** An agent identified as an AgentCall agent: its usable card and the notes that did not prevent use. */
export interface AgentCallAgent {
  protocol: 'agentcall';
  cardUrl: string;
  card: AgentCallCard;
  problems: Problem[];
}

/**
 * The agent card alone, for opening an AgentCall session on an agent already identified as one
 * (no Talkie manifest is read): the usable card, or the same refusals as `identifyAgent` (src/main/agents).
 */
export async function readAgentCallCard(url: string, policy: NetPolicy): Promise<AgentCallAgent> {
  const card = await discoverAgentCard(url, { allowLocalHttp: policy.allowLocalHttp, policy });
  if (!card.ok) {
    const network = card.problems.find((problem) => problem.code.startsWith('net_'));
    if (network) throw new ServiceError('network_error', network.message, undefined, true);
    throw new ServiceError('not_found', `No AgentCall agent card was found at ${new URL(url).host}. Check the address.`);
  }
  if (card.validation.ok && card.validation.kind === 'agentcall')
    return { protocol: 'agentcall', cardUrl: card.cardUrl, card: card.validation.card, problems: card.validation.problems };
  throw cardRefusal(card.validation);
}

/** Why a card that was read cannot be used (also `identifyAgent`'s refusal). */
export function cardRefusal(validation: CardValidation): ServiceError {
  if (validation.kind === 'agentcall') return incompatible('AgentDesk cannot talk to this agent', validation.problems);
  if (validation.kind === 'a2a') {
    return incompatible('This is an A2A agent without the AgentCall extension; AgentDesk talks to A2A agents only through AgentCall', validation.problems);
  }
  return incompatible('The agent card is not a valid A2A Agent Card', validation.problems);
}

/** "Summary: reason (path) reason …", or "Summary." when there is no reason to list (no dangling colon). */
function incompatible(summary: string, problems: readonly Problem[]): ServiceError {
  const reasons = problems
    .slice(0, 5)
    .map((problem) => `${problem.message}${problem.path ? ` (${problem.path})` : ''}`)
    .join(' ');
  return new ServiceError('incompatible', (reasons === '' ? `${summary}.` : `${summary}: ${reasons}`).slice(0, 1000));
}
