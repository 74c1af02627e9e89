import type { WebPages } from '../../shared/agentmesh/ipc-schemas';
import type { UiLinksResult } from '../../shared/agentmesh/ui-links';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, type AgentEntry } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import type { Problem } from '../../shared/talkie/problems';
import { discoverAgentCard } from '../agentcall/discovery';
import type { NetPolicy } from '../net/address-policy';

/**
 * `agents.webPages`: the web pages an agent's A2A card lists (AgentMesh UI links 0.1), for the
 * renderer's "Web pages" panel. The card is read through src/main/agentcall/discovery.ts under the
 * same network policy the app uses to identify the agent; nothing listed is fetched, opened or
 * checked here (AgentMesh UI links 0.1 §5, §7: a page that loads or fails to load proves nothing).
 *
 * No card (HTTP error, not JSON, too large, no address) → no pages and no problems: absence states
 * nothing (AgentMesh UI links 0.1 §7 rule 2). A network failure → `network_error` (retryable), so the
 * panel can say it could not look rather than that there is nothing.
 */

/** Where to read the card and under which policy; undefined: the agent has no card to read. */
export type WebPagesSource = { cardAddress: string; policy: NetPolicy } | undefined;

/**
 * Which card an agent id stands for, as `agents.identify` reads it: a listed agent's address under
 * the development setting; the built-in demo's AgentCall card on 127.0.0.1, trusted without it.
 * The Talkie demo's origin and plain AG-UI endpoints have no card; neither has an address that
 * names the Talkie manifest itself (identify reads no card there either).
 */
export function webPagesSource(deps: {
  agents: { get(id: string): AgentEntry; allowsLocalHttp(id: string, developmentSetting: boolean): boolean };
  allowLocalHttp: () => boolean;
  demoAgentCallCardUrl: () => Promise<string | undefined>;
}): (agentId: string) => Promise<WebPagesSource> {
  return async (agentId) => {
    if (agentId === builtInDemoAgentId || agentId === builtInAguiDemoId) return undefined;
    if (agentId === builtInAgentCallDemoId) {
      const cardUrl = await deps.demoAgentCallCardUrl();
      return cardUrl === undefined ? undefined : { cardAddress: cardUrl, policy: { allowLocalHttp: true } };
    }
    const agent = deps.agents.get(agentId);
    if (agent.protocol === 'agui' || new URL(agent.url).pathname.endsWith('/.well-known/talkie.json')) return undefined;
    return { cardAddress: agent.url, policy: { allowLocalHttp: deps.agents.allowsLocalHttp(agentId, deps.allowLocalHttp()) } };
  };
}

/** The bounds of the IPC schema (src/shared/agentmesh/ipc-schemas.ts), applied before answering. */
export const webPagesBounds = {
  urlChars: 2048,
  labelChars: 200,
  purposeChars: 400,
  kindChars: 100,
  skillChars: 300,
  notes: 20,
  noteChars: 500,
  pathChars: 200,
  links: 100,
  problems: 101,
  problemCodeChars: 64,
  problemPathChars: 300,
  problemMessageChars: 500,
} as const;

/** How long an answer is reused for the same agent (the panel asks each time a screen opens). */
export const webPagesCacheMs = 60_000;

const cut = (text: string, max: number): string => {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
};

const boundProblem = (problem: Problem): Problem => ({
  code: cut(problem.code, webPagesBounds.problemCodeChars),
  path: cut(problem.path, webPagesBounds.problemPathChars),
  message: cut(problem.message, webPagesBounds.problemMessageChars),
});

/**
 * parseUiLinks' result within the IPC schema. Its own limits are tighter than the schema's except
 * where a string grows after parsing (a URL's normalised href, a host quoted in a message): such a
 * link is skipped with a problem (a cut URL would open somewhere else), such a message is shortened.
 */
export function boundWebPages(result: UiLinksResult, cardUrl: string): WebPages {
  const links: WebPages['links'] = [];
  const problems: Problem[] = [];
  for (const link of result.links) {
    if (links.length >= webPagesBounds.links) break;
    if (link.url.length > webPagesBounds.urlChars) {
      problems.push({
        code: 'ui_link_url_too_long',
        path: `${link.path}/url`,
        message: `The url is longer than ${webPagesBounds.urlChars} characters once normalised; the entry is skipped.`,
      });
      continue;
    }
    links.push({
      url: link.url,
      label: cut(link.label, webPagesBounds.labelChars),
      ...(link.purpose === undefined ? {} : { purpose: cut(link.purpose, webPagesBounds.purposeChars) }),
      audience: link.audience,
      ...(link.access === undefined ? {} : { access: link.access }),
      ...(link.kind === undefined ? {} : { kind: cut(link.kind, webPagesBounds.kindChars) }),
      ...(link.skill === undefined ? {} : { skill: cut(link.skill, webPagesBounds.skillChars) }),
      crossOrigin: link.crossOrigin,
      shownByDefault: link.shownByDefault,
      notes: link.notes.slice(0, webPagesBounds.notes).map((note) => cut(note, webPagesBounds.noteChars)),
      path: cut(link.path, webPagesBounds.pathChars),
    });
  }
  problems.push(...result.problems);
  const listed =
    problems.length <= webPagesBounds.problems
      ? problems
      : [
          ...problems.slice(0, webPagesBounds.problems - 1),
          { code: 'ui_links_problems_truncated', path: '', message: `More UI links problems are not listed (at most ${webPagesBounds.problems - 1} are).` },
        ];
  return {
    ...(cardUrl.length <= webPagesBounds.urlChars ? { cardUrl } : {}),
    links,
    problems: listed.map(boundProblem),
  };
}

/** Reads an agent's card for its web pages, keeping each answer for `webPagesCacheMs` per agent. */
export class WebPagesService {
  private readonly cache = new Map<string, { key: string; at: number; answer: Promise<WebPages> }>();

  constructor(private readonly deps: { source: (agentId: string) => Promise<WebPagesSource>; now?: () => number }) {}

  async webPages(agentId: string): Promise<WebPages> {
    const source = await this.deps.source(agentId);
    if (source === undefined) return { links: [], problems: [] };
    const now = (this.deps.now ?? Date.now)();
    // A changed address or development setting is a different question.
    const key = `${source.policy.allowLocalHttp ? 'dev' : 'strict'} ${source.cardAddress}`;
    const cached = this.cache.get(agentId);
    if (cached && cached.key === key && now - cached.at < webPagesCacheMs) return cached.answer;
    const answer = read(source);
    this.cache.set(agentId, { key, at: now, answer });
    // A failure is not remembered: the next look tries again.
    answer.catch(() => {
      if (this.cache.get(agentId)?.answer === answer) this.cache.delete(agentId);
    });
    return answer;
  }
}

async function read(source: NonNullable<WebPagesSource>): Promise<WebPages> {
  const found = await discoverAgentCard(source.cardAddress, { allowLocalHttp: source.policy.allowLocalHttp, policy: source.policy });
  if (found.ok) return boundWebPages(found.uiLinks, found.cardUrl);
  const network = found.problems.find((problem) => problem.code.startsWith('net_'));
  if (network) throw new ServiceError('network_error', cut(`The agent card could not be read: ${network.message}`, 1000), undefined, true);
  return { links: [], problems: [] };
}
