import type { A2AAgent } from '../../shared/agentcall/card';
import type { A2AAgentView } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/ipc/errors';
import type { Problem } from '../../shared/talkie/problems';
import { discoverAgentCard } from '../agentcall/discovery';
import { cardRefusal, type AgentCallAgent } from '../agentcall/read-card';
import type { NetPolicy } from '../net/address-policy';
import { discoverTalkie } from '../talkie/discovery';

/**
 * Which protocol an address speaks, as the app decides it when the user opens an agent: the Talkie
 * manifest and the A2A Agent Card are read at once (the same documents `agentdesk probe` reads).
 * A usable Talkie server wins; then an AgentCall card (usable, or with the reasons it is not);
 * then a Talkie manifest with problems (the Talkie screen explains them); then a valid A2A card
 * without the AgentCall extension (`a2a`: no session, a page with its card and web pages). Anything
 * else fails with `incompatible` (an agent card AgentDesk cannot use, with its problems) or `not_found`.
 */
export type IdentifiedAgent =
  | { protocol: 'talkie' }
  | AgentCallAgent
  | { protocol: 'a2a'; cardUrl: string; a2a: A2AAgent; problems: Problem[] };

export async function identifyAgent(url: string, policy: NetPolicy): Promise<IdentifiedAgent> {
  const path = new URL(url).pathname;
  const wantTalkie = !path.endsWith('agent-card.json');
  const wantCard = !path.endsWith('/.well-known/talkie.json');
  const [talkie, card] = await Promise.all([wantTalkie ? discoverTalkie(url, policy) : undefined, wantCard ? discoverAgentCard(url, { allowLocalHttp: policy.allowLocalHttp, policy }) : undefined]);
  if (talkie?.ok) return { protocol: 'talkie' };
  if (card?.ok && card.validation.kind === 'agentcall') {
    if (card.validation.ok) return { protocol: 'agentcall', cardUrl: card.cardUrl, card: card.validation.card, problems: card.validation.problems };
    throw cardRefusal(card.validation);
  }
  const talkieAnswered = talkie && !talkie.ok && !talkie.problems.some((problem) => problem.code.startsWith('net_') || ['manifest_http_error', 'manifest_not_json'].includes(problem.code));
  if (talkieAnswered) return { protocol: 'talkie' };
  if (card?.ok && card.validation.ok && card.validation.kind === 'a2a') return { protocol: 'a2a', cardUrl: card.cardUrl, a2a: card.validation.a2a, problems: card.validation.problems };
  if (card?.ok) throw cardRefusal(card.validation);
  const problems = [...(talkie && !talkie.ok ? talkie.problems : []), ...(card && !card.ok ? card.problems : [])];
  const network = problems.find((problem) => problem.code.startsWith('net_'));
  if (network) throw new ServiceError('network_error', network.message, undefined, true);
  throw new ServiceError('not_found', `No Talkie manifest and no AgentCall agent card was found at ${new URL(url).host}. Check the address.`);
}

/** What the renderer's A2A page shows of a plain A2A agent, within the contract's bounds. */
export function a2aAgentView(agent: Extract<IdentifiedAgent, { protocol: 'a2a' }>): A2AAgentView {
  const { a2a } = agent;
  return {
    name: a2a.name.slice(0, 200),
    description: a2a.description.slice(0, 2000),
    version: a2a.version.slice(0, 100),
    cardUrl: agent.cardUrl.slice(0, 4096),
    skills: a2a.skills.slice(0, 32).map((skill) => ({
      name: skill.name.slice(0, 100),
      description: skill.description.slice(0, 300),
      tags: skill.tags.slice(0, 10).map((tag) => tag.slice(0, 50)),
    })),
  };
}
