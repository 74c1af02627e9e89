import type { A2AAgent, CardValidation } from '../../shared/agentcall/card';
import type { A2AAgentView } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import type { Problem } from '../../shared/talkie/problems';
import { discoverAgentCard } from '../agentcall/discovery';
import { cardRefusal, type AgentCallAgent } from '../agentcall/read-card';
import type { NetPolicy } from '../net/address-policy';
import type { Timeouts } from '../net/guarded-fetch';
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
  /** `name`: the manifest's, when it is valid; without it the manifest answered with the `problems` that make it unusable. */
  | { protocol: 'talkie'; name?: string; problems: Problem[] }
  | (AgentCallAgent & { webPages: number })
  /** `webPages`: how many usable web pages (AgentMesh UI links) its card lists. */
  | { protocol: 'a2a'; cardUrl: string; a2a: A2AAgent; problems: Problem[]; webPages: number };

/**
 * What identification found, or why nothing usable: `error` is what `identifyAgent` throws
 * (`network_error`, `not_found`, `incompatible`, with main's sentence), `detail` the problem code
 * behind it (`net_dns_failed`, `card_http_error`, a card's first problem …) for a Details line.
 */
export type Identification = { ok: true; agent: IdentifiedAgent } | { ok: false; error: ServiceError; detail: string };

/** Bounds for one identification: the network layer's timeouts, and a signal that stops it (`net_aborted`). */
export interface IdentifyOptions {
  timeouts?: Partial<Timeouts>;
  signal?: AbortSignal;
}

export async function identifyAgent(url: string, policy: NetPolicy, options: IdentifyOptions = {}): Promise<IdentifiedAgent> {
  const identification = await identifyAgentOrWhy(url, policy, options);
  if (!identification.ok) throw identification.error;
  return identification.agent;
}

/** `identifyAgent`, with a failure as an answer (for `agents.check`, which reports it instead of failing). */
export async function identifyAgentOrWhy(url: string, policy: NetPolicy, options: IdentifyOptions = {}): Promise<Identification> {
  const path = new URL(url).pathname;
  const wantTalkie = !path.endsWith('agent-card.json');
  const wantCard = !path.endsWith('/.well-known/talkie.json');
  const bounds = { ...(options.timeouts ? { timeouts: options.timeouts } : {}), ...(options.signal ? { signal: options.signal } : {}) };
  const [talkie, card] = await Promise.all([
    wantTalkie ? discoverTalkie(url, policy, bounds) : undefined,
    wantCard ? discoverAgentCard(url, { allowLocalHttp: policy.allowLocalHttp, policy, ...bounds }) : undefined,
  ]);
  const found = (agent: IdentifiedAgent): Identification => ({ ok: true, agent });
  const refused = (validation: CardValidation): Identification => ({
    ok: false,
    error: cardRefusal(validation),
    detail: validation.problems[0]?.code ?? 'card_invalid',
  });
  if (talkie?.ok) return found({ protocol: 'talkie', name: talkie.server.manifest.name, problems: talkie.server.problems });
  const webPages = card?.ok ? card.uiLinks.links.length : 0;
  if (card?.ok && card.validation.kind === 'agentcall') {
    if (card.validation.ok)
      return found({ protocol: 'agentcall', cardUrl: card.cardUrl, card: card.validation.card, problems: card.validation.problems, webPages });
    return refused(card.validation);
  }
  const talkieAnswered =
    talkie &&
    !talkie.ok &&
    !talkie.problems.some((problem) => problem.code.startsWith('net_') || ['manifest_http_error', 'manifest_not_json'].includes(problem.code));
  if (talkieAnswered) return found({ protocol: 'talkie', problems: talkie.problems });
  if (card?.ok && card.validation.ok && card.validation.kind === 'a2a')
    return found({ protocol: 'a2a', cardUrl: card.cardUrl, a2a: card.validation.a2a, problems: card.validation.problems, webPages });
  if (card?.ok) return refused(card.validation);
  const problems = [...(talkie && !talkie.ok ? talkie.problems : []), ...(card && !card.ok ? card.problems : [])];
  const network = problems.find((problem) => problem.code.startsWith('net_'));
  if (network) return { ok: false, error: new ServiceError('network_error', network.message, undefined, true), detail: network.code };
  return {
    ok: false,
    error: new ServiceError('not_found', `No Talkie manifest and no AgentCall agent card was found at ${new URL(url).host}. Check the address.`),
    detail: problems[0]?.code ?? 'not_found',
  };
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
    // Links are never cut (a cut URL opens somewhere else): the card's validation keeps them within cardLimits.urlChars.
    ...(a2a.provider === undefined ? {} : { provider: { ...a2a.provider, organization: a2a.provider.organization.slice(0, 200) } }),
    ...(a2a.documentationUrl === undefined ? {} : { documentationUrl: a2a.documentationUrl }),
    ...(a2a.iconUrl === undefined ? {} : { iconUrl: a2a.iconUrl }),
  };
}
