import { agentCardUrlFor, type A2AAgent, type AgentCallCard, type CardValidation } from '../../shared/agentcall/card';
import type { UiLink, UiLinksResult } from '../../shared/agentmesh/ui-links';
import { normalizeAgentAddress } from '../../shared/agents/address';
import { manifestUrlFor } from '../../shared/talkie/manifest';
import { ServiceError } from '../../shared/base/errors';
import type { Problem } from '../../shared/talkie/problems';
import { discoverAgentCard, type AgentCardDiscovery } from '../agentcall/discovery';
import type { Timeouts } from '../net/guarded-fetch';
import { discoverTalkie, type Discovery } from '../talkie/discovery';
import { exitCodes, terminalText, type Io } from './output';

/**
 * `agentdesk probe <address> [--json] [--dev]`: discovery and validation, as the app does it (a Talkie manifest and/or an
 * A2A card, its UI links). Exit 0 usable, 1 rejected (the server answered but breaks the protocol), 2 usage or network error.
 * Card links are printed as given, never fetched. Decision: docs/architecture.md#what-agentdesk-probe-reads
 */
export async function probe(address: string, options: { json: boolean; dev: boolean; timeouts?: Partial<Timeouts> }, io: Io): Promise<number> {
  let url: string;
  try {
    url = normalizeAgentAddress(address, { allowLocalHttp: options.dev }).url;
  } catch (error) {
    const message =
      error instanceof ServiceError && error.code === 'insecure_scheme' && !options.dev
        ? `${error.message.split('.')[0]}. Add --dev to allow http:// to this computer and the local network.`
        : error instanceof ServiceError
          ? error.message
          : String(error);
    return report(io, options.json, { ok: false, kind: 'unknown', problems: [{ code: 'invalid_address', path: '', message }] }, exitCodes.usage);
  }
  const path = new URL(url).pathname;
  const wantCard = !path.endsWith('/.well-known/talkie.json');
  const wantTalkie = !path.endsWith('agent-card.json');
  const code = await probeDocuments(url, { ...options, wantCard, wantTalkie }, io);
  // The human output ends with the documents that were read (whatever they turned out to be); an
  // address with a path is itself read as the manifest, and the line says so.
  if (!options.json) {
    if (wantTalkie)
      io.out(
        manifestUrlFor(url) === url && !path.endsWith('/.well-known/talkie.json')
          ? `read: ${url} (as a Talkie manifest)`
          : `read: Talkie manifest ${manifestUrlFor(url)}`,
      );
    const cardUrl = wantCard ? agentCardUrlFor(url) : undefined;
    if (cardUrl !== undefined) io.out(`read: agent card ${cardUrl}`);
  }
  return code;
}

async function probeDocuments(
  url: string,
  options: { json: boolean; dev: boolean; timeouts?: Partial<Timeouts>; wantCard: boolean; wantTalkie: boolean },
  io: Io,
): Promise<number> {
  const { wantCard, wantTalkie } = options;
  const timeouts = options.timeouts ? { timeouts: options.timeouts } : {};
  const [talkie, card] = await Promise.all([
    wantTalkie ? discoverTalkie(url, { allowLocalHttp: options.dev }, timeouts) : undefined,
    wantCard ? discoverAgentCard(url, { allowLocalHttp: options.dev, ...timeouts }) : undefined,
  ]);

  if (talkie?.ok) {
    const alsoCard = card?.ok && card.validation.ok && card.validation.kind === 'agentcall' ? card : undefined;
    return report(io, options.json, { ...talkieReport(talkie.server), ...(alsoCard ? cardFields(alsoCard) : {}) }, exitCodes.ok);
  }
  const fetchedCard = card?.ok ? card : undefined;
  if (fetchedCard && fetchedCard.validation.kind === 'agentcall') return reportCard(io, options.json, fetchedCard);
  if (talkie && talkieFound(talkie, wantCard)) return report(io, options.json, { ok: false, kind: 'talkie', problems: talkie.problems }, exitCodes.rejected);
  if (fetchedCard && (fetchedCard.validation.kind === 'a2a' || !talkie || !talkieFound(talkie, false))) return reportCard(io, options.json, fetchedCard);

  // Nothing recognised: every problem of what was tried, once.
  const problems = dedupe([...(talkie && !talkie.ok ? talkie.problems : []), ...(card && !card.ok ? card.problems : [])]);
  const network = problems.some((problem) => problem.code.startsWith('net_'));
  // An address with a path that answered over HTTP, without a manifest or a card, may be a plain
  // AG-UI endpoint: AG-UI has no discovery document (its GET typically answers 405, or Express's 404).
  const answered = !network && talkie && !talkie.ok && manifestUrlFor(url) === url && !new URL(url).pathname.endsWith('/.well-known/talkie.json');
  const agui = answered ? { answered: url, try: `agentdesk chat --agui ${url}${options.dev ? ' --dev' : ''}` } : {};
  return report(io, options.json, { ok: false, kind: 'unknown', problems, ...agui }, network ? exitCodes.usage : exitCodes.rejected);
}

/** The Talkie manifest was found: an answer that is not a network failure or an HTTP error (when probing both, also a JSON manifest). */
function talkieFound(result: Discovery & { ok: false }, strict: boolean): boolean {
  const absent = ['manifest_http_error', ...(strict ? ['manifest_not_json', 'manifest_too_large'] : [])];
  return !result.problems.some((problem) => problem.code.startsWith('net_') || absent.includes(problem.code));
}

function talkieReport({ manifest, problems, manifestUrl }: Extract<Discovery, { ok: true }>['server']): ProbeReport {
  return {
    ok: true,
    kind: 'talkie',
    problems,
    manifestUrl,
    talkie: {
      serverId: manifest.serverId,
      name: manifest.name,
      issuer: manifest.issuer,
      accent: manifest.accent,
      auth: { oauth: manifest.auth.oauth?.issuer ?? null, token: manifest.auth.token !== undefined },
      endpoints: manifest.endpoints,
      crossOriginEndpoints: manifest.crossOriginEndpoints,
      maxMessageChars: manifest.maxMessageChars ?? null,
      testMode: manifest.testMode,
    },
  };
}

/** What `--json` prints about an AgentCall card. */
export interface AgentCallProbe {
  name: string;
  version: string;
  /** Which identifier the card declares. */
  extension: AgentCallCard['extensionUri'];
  transport: AgentCallCard['transport'];
  /** The card's AG-UI URL (WebSocket: the https:// URL; `wsUrl` is what is dialled). */
  url: string;
  wsUrl: string | null;
  voiceOwner: AgentCallCard['voiceOwner'];
  accepted: AgentCallCard['accepted'];
  agentRequests: AgentCallCard['agentRequests'];
  bearerRequired: boolean;
  uiLinksDeclared: boolean;
}

/** What `--json` prints for each usable UI links entry. */
export interface UiLinkProbe {
  url: string;
  label: string;
  audience: UiLink['audience'];
  access: UiLink['access'] | null;
  kind: string | null;
  crossOrigin: boolean;
  shownByDefault: boolean;
  notes: string[];
}

/** A fetched card, with the UI links discoverAgentCard reads from it (parseUiLinks, src/shared/agentmesh/ui-links.ts). */
type FoundCard = Extract<AgentCardDiscovery, { ok: true }> & { uiLinks?: UiLinksResult };

function cardFields(discovery: FoundCard): Record<string, unknown> {
  const validation: CardValidation = discovery.validation;
  const fields: Record<string, unknown> = { cardUrl: discovery.cardUrl };
  if (validation.ok && validation.kind === 'agentcall') {
    const { card } = validation;
    const agentcall: AgentCallProbe = {
      name: card.name,
      version: card.version,
      extension: card.extensionUri,
      transport: card.transport,
      url: card.aguiUrl,
      wsUrl: card.transport === 'websocket' ? card.wsUrl : null,
      voiceOwner: card.voiceOwner,
      accepted: card.accepted,
      agentRequests: card.agentRequests,
      bearerRequired: card.bearerRequired,
      uiLinksDeclared: card.uiLinksDeclared,
    };
    fields.agentcall = agentcall;
  }
  if (validation.ok && validation.kind === 'a2a') fields.a2a = validation.a2a;
  if (discovery.uiLinks?.declared) {
    fields.uiLinks = discovery.uiLinks.links.map((link): UiLinkProbe => ({
      url: link.url,
      label: link.label,
      audience: link.audience,
      access: link.access ?? null,
      kind: link.kind ?? null,
      crossOrigin: link.crossOrigin,
      shownByDefault: link.shownByDefault,
      notes: link.notes,
    }));
    fields.uiLinksProblems = discovery.uiLinks.problems;
  }
  return fields;
}

function reportCard(io: Io, json: boolean, discovery: FoundCard): number {
  const { validation } = discovery;
  return report(
    io,
    json,
    { ok: validation.ok, kind: validation.kind, problems: validation.problems, ...cardFields(discovery) },
    validation.ok ? exitCodes.ok : exitCodes.rejected,
  );
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.code}\n${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

interface ProbeReport {
  ok: boolean;
  kind: 'talkie' | 'agentcall' | 'a2a' | 'unknown';
  problems: { code: string; path: string; message: string }[];
  [key: string]: unknown;
}

const kindNames: Record<ProbeReport['kind'], string> = { talkie: ' Talkie server', agentcall: ' AgentCall agent', a2a: ' A2A agent', unknown: '' };

function report(io: Io, json: boolean, result: ProbeReport, code: number): number {
  if (json) {
    io.out(JSON.stringify(result));
    return code;
  }
  const talkie = result.talkie as { name: string; issuer: string; serverId: string; testMode: boolean } | undefined;
  const agentcall = result.agentcall as AgentCallProbe | undefined;
  const a2a = result.a2a as A2AAgent | undefined;
  if (result.ok && talkie) io.out(`usable: Talkie server "${talkie.name}" (${talkie.serverId}) at ${talkie.issuer}${talkie.testMode ? ', test mode' : ''}`);
  if (result.ok && agentcall) io.out(`usable: ${describeAgentCall(agentcall)}`);
  if (result.ok && a2a) {
    io.out(
      `usable: A2A agent "${terminalText(a2a.name)}" ${terminalText(a2a.version)} without AgentCall: the app shows its card, skills and web pages; no conversation`,
    );
  }
  if (!result.ok) io.out(`not usable${kindNames[result.kind]}${a2a ? ` "${terminalText(a2a.name)}"` : ''}:`);
  for (const problem of result.problems) io.out(`  ${problem.code}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}`);
  if (result.ok && a2a && (a2a.provider || a2a.documentationUrl || a2a.iconUrl)) {
    const cardUrl = result.cardUrl as string;
    const link = (url: string) => `${url}${new URL(url).origin === new URL(cardUrl).origin ? '' : ' (other site)'}`;
    io.out('from the card (untrusted links, not fetched):');
    if (a2a.provider) io.out(`  provider: ${terminalText(a2a.provider.organization)}${a2a.provider.url === undefined ? '' : `, ${link(a2a.provider.url)}`}`);
    if (a2a.documentationUrl) io.out(`  documentation: ${link(a2a.documentationUrl)}`);
    if (a2a.iconUrl) io.out(`  icon: ${link(a2a.iconUrl)}`);
  }
  if (typeof result.answered === 'string') {
    io.out(
      `found: a server answers at ${result.answered}, with no Talkie manifest and no agent card. A plain AG-UI endpoint looks like this (AG-UI has no discovery document); whether it speaks AG-UI shows on its first run.`,
    );
    io.out(`try: ${String(result.try)}`);
  }
  const uiLinks = result.uiLinks as UiLinkProbe[] | undefined;
  if (uiLinks) {
    io.out('web pages:');
    if (uiLinks.length === 0) io.out('  (none usable)');
    for (const link of uiLinks) io.out(`  ${describeUiLink(link)}`);
    for (const problem of result.uiLinksProblems as Problem[]) io.out(`  ${problem.code}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}`);
  }
  return code;
}

/** `https://status.example/ "Service status", public, open, "status" (other site)`; operator pages say they are not shown by default. */
function describeUiLink(link: UiLinkProbe): string {
  const parts = [
    `${link.url} ${JSON.stringify(link.label)}`,
    link.audience === 'unstated' ? 'audience not stated' : link.audience,
    ...(link.access ? [link.access] : []),
    ...(link.kind ? [JSON.stringify(link.kind)] : []),
  ];
  return `${parts.join(', ')}${link.shownByDefault ? '' : ' (not shown by default)'}${link.crossOrigin ? ' (other site)' : ''}`;
}

/** `AgentCall agent "Name" 1.0 over websocket at wss://…, accepts nfc and photo, may request nfc, bearer token required, legacy identifier`. */
function describeAgentCall(agent: AgentCallProbe): string {
  const list = (items: readonly string[]) => items.join(' and ');
  const parts = [
    `AgentCall agent "${agent.name}" ${agent.version} over ${agent.transport} at ${agent.wsUrl ?? agent.url}`,
    agent.accepted.length > 0 ? `accepts ${list(agent.accepted)}` : 'no NFC or photo input',
    ...(agent.agentRequests.length > 0 ? [`may request ${list(agent.agentRequests)}`] : []),
    `voice by the ${agent.voiceOwner}`,
    ...(agent.bearerRequired ? ['bearer token required'] : []),
    ...(agent.extension === 'legacy' ? ['legacy identifier'] : []),
  ];
  return parts.join(', ');
}
