import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { agentCardUrlFor, cardLimits, validateAgentCard } from '../../../src/shared/agentcall/card';
import { displayText, parseUiLinks, uiLinkHost, uiLinksLimits } from '../../../src/shared/agentmesh/ui-links';
import { endpointNames, endpointUrl, validateManifest } from '../../../src/shared/talkie/manifest';
import { ServiceError } from '../../../src/shared/base/errors';
import type { Problem } from '../../../src/shared/talkie/problems';
import { anyJson, check, isJsonSerializable, mutatedFrom, nastyStrings, target } from '../kit';

/** The discovery documents: the Talkie manifest, the A2A/AgentCall card, AgentMesh UI links. */

const fixture = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8'));

function checkProblems(problems: readonly Problem[], max: number): void {
  check(Array.isArray(problems) && problems.length <= max, `at most ${max} problems, got ${problems.length}`);
  for (const problem of problems) {
    check(typeof problem.code === 'string' && /^[a-z0-9_]+$/.test(problem.code), `problem code ${problem.code}`);
    check(typeof problem.path === 'string' && (problem.path === '' || problem.path.startsWith('/')), `problem path ${problem.path}`);
    check(typeof problem.message === 'string' && problem.message.length > 0, 'problem message');
  }
}

const isWellFormed = (text: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const issuer = 'https://crm.example.com';
const manifestSeeds = [
  {
    spec: 'talkie/1',
    issuer,
    serverId: 'crm.example.com',
    name: 'Example CRM',
    description: 'A CRM',
    locale: 'en',
    brand: { logo: '/talkie/logo.png', accent: '#0B7A75' },
    auth: { oauth: { issuer: `${issuer}/oauth`, scopes: ['talkie', 'offline_access'] }, token: { hint: 'Settings' } },
    endpoints: {
      status: '/api/talkie/status',
      run: '/api/talkie/run',
      threads: '/api/talkie/threads',
      thread: '/api/talkie/threads/{threadId}',
      cancelRun: '/api/talkie/runs/{runId}/cancel',
      action: 'https://actions.example.net/a/{actionId}',
      voiceSessions: `${issuer}/voice`,
    },
    capabilities: { voice: { realtime: true } },
    limits: { maxMessageChars: 4000 },
    testMode: true,
  },
  {
    spec: 'talkie/1.2',
    issuer: 'http://127.0.0.1:4000',
    serverId: 'x',
    name: 'X',
    auth: { oauth: { issuer: 'http://127.0.0.1:4000' } },
    endpoints: { run: '/r', threads: '/t', thread: '/t/{threadId}' },
  },
];

export const manifestTarget = target({
  name: 'talkie.manifest',
  weight: 8,
  arbitrary: fc.record({
    json: fc.oneof({ weight: 6, arbitrary: mutatedFrom(manifestSeeds, 4) }, { weight: 1, arbitrary: anyJson }),
    fetchedFrom: fc.oneof(
      fc.constantFrom(`${issuer}/.well-known/talkie.json`, 'http://127.0.0.1:4000/.well-known/talkie.json', 'https://other.example/x'),
      fc.webUrl(),
      fc.constantFrom(...nastyStrings),
    ),
    params: fc.dictionary(fc.constantFrom('threadId', 'runId', 'actionId', 'other'), fc.oneof(fc.string(), fc.constantFrom(...nastyStrings)), { maxKeys: 4 }),
  }),
  property: ({ json, fetchedFrom, params }) => {
    const result = validateManifest(json, fetchedFrom);
    check(isJsonSerializable(result), 'the result is JSON');
    checkProblems(result.problems, 40);
    if (!result.ok) return;
    const { manifest } = result;
    check(/^#[0-9a-f]{6}$/.test(manifest.accent), `accent ${manifest.accent}`);
    check(new URL(manifest.issuer).origin === manifest.issuer, `issuer ${manifest.issuer} is an origin`);
    for (const required of ['run', 'threads', 'thread'] as const) check(manifest.endpoints[required] !== undefined, `endpoint ${required}`);
    for (const [name, template] of Object.entries(manifest.endpoints)) {
      check((endpointNames as readonly string[]).includes(name), `endpoint name ${name}`);
      check((template.startsWith('/') && !template.startsWith('//')) || template.startsWith('https://'), `endpoint ${name} is a path or https: ${template}`);
      // Every placeholder filled: the URL is built (a missing one is the caller's bug, so all are given).
      const filled: Record<string, string> = { ...params };
      for (const match of template.matchAll(/\{([a-zA-Z][a-zA-Z0-9]*)\}/g)) if (!Object.hasOwn(filled, match[1]!)) filled[match[1]!] = 'value';
      let url: string | undefined;
      try {
        url = endpointUrl(manifest, name as (typeof endpointNames)[number], filled);
      } catch (error) {
        // A value that is not well-formed text (a lone surrogate) is refused with a clear code.
        check(
          error instanceof ServiceError && error.code === 'invalid_request' && Object.values(filled).some((value) => !isWellFormed(value)),
          `endpointUrl threw ${String(error)}`,
        );
        continue;
      }
      check(url !== undefined && URL.canParse(url), `endpoint URL ${url}`);
    }
    for (const entry of manifest.crossOriginEndpoints)
      check(entry.url.startsWith('https://') && new URL(entry.url).origin !== manifest.issuer, `cross-origin ${entry.url}`);
    if (manifest.logo !== undefined) check(URL.canParse(manifest.logo), `logo ${manifest.logo}`);
  },
});

const cardCases = (fixture('agentcall-cards/cases.json') as { cases: { card: unknown }[] }).cases.map((entry) => entry.card);
const worked = fixture('agentmesh/worked-example.json');

export const cardTarget = target({
  name: 'agentcall.card',
  weight: 8,
  arbitrary: fc.record({
    json: fc.oneof({ weight: 6, arbitrary: mutatedFrom([...cardCases, worked], 4) }, { weight: 1, arbitrary: anyJson }),
    allowLocalHttp: fc.boolean(),
    address: fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom(...nastyStrings)),
  }),
  property: ({ json, allowLocalHttp, address }) => {
    const cardUrl = agentCardUrlFor(address);
    if (cardUrl !== undefined) check(/^https?:\/\//.test(cardUrl) && cardUrl.endsWith('agent-card.json'), `card URL ${cardUrl}`);
    const result = validateAgentCard(json, { allowLocalHttp });
    check(isJsonSerializable(result), 'the result is JSON');
    checkProblems(result.problems, cardLimits.problems);
    if (!result.ok) return;
    if (result.kind === 'a2a') {
      check(result.a2a.name.length <= cardLimits.nameChars && result.a2a.version.length <= cardLimits.versionChars, 'a2a name/version bounded');
      return;
    }
    const { card } = result;
    check(card.name.trim() !== '' && card.name.length <= cardLimits.nameChars, 'name bounded');
    check([...card.description].length <= cardLimits.descriptionChars, 'description bounded');
    check(card.aguiUrl.startsWith('https://') || (allowLocalHttp && card.aguiUrl.startsWith('http://')), `agui URL ${card.aguiUrl}`);
    check(!new URL(card.aguiUrl).username && !new URL(card.aguiUrl).password, 'no credentials');
    check(
      new Set(card.accepted).size === card.accepted.length && card.accepted.every((modality) => modality === 'nfc' || modality === 'photo'),
      'accepted modalities',
    );
    check(
      card.agentRequests.every((modality) => card.accepted.includes(modality)),
      'agentRequests ⊆ accepted',
    );
    check(card.skills.length <= cardLimits.skillsShown, 'skills bounded');
    for (const skill of card.skills)
      check([...skill.name].length <= cardLimits.skillNameShown && [...skill.description].length <= cardLimits.skillDescriptionShown, 'skill bounded');
    if (card.transport === 'websocket')
      check(/^wss?:\/\//.test(card.wsUrl) && card.wsUrl.startsWith(card.aguiUrl.startsWith('https:') ? 'wss:' : 'ws:'), `ws URL ${card.wsUrl}`);
    else check(card.voiceOwner === 'agent', 'webrtc: the agent owns the voice');
  },
});

// eslint-disable-next-line no-control-regex
const controlOrBidi = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

export const uiLinksTarget = target({
  name: 'agentmesh.uiLinks',
  weight: 7,
  arbitrary: fc.record({
    card: fc.oneof({ weight: 6, arbitrary: mutatedFrom([worked], 5) }, { weight: 1, arbitrary: anyJson }),
    cardUrl: fc.oneof(fc.constantFrom('https://agent.larkfield.example/.well-known/agent-card.json', 'not a url', 'data:,x'), fc.webUrl()),
    text: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom(...nastyStrings)),
    max: fc.integer({ min: 1, max: 130 }),
  }),
  property: ({ card, cardUrl, text, max }) => {
    const shown = displayText(text, max);
    check(shown.text.length <= max, `displayText(…, ${max}) has ${shown.text.length} code units`);
    check(!controlOrBidi.test(shown.text), 'displayText removes controls');
    const result = parseUiLinks(card, { cardUrl });
    check(isJsonSerializable(result), 'the result is JSON');
    checkProblems(result.problems, uiLinksLimits.problems + 1);
    check(result.links.length <= uiLinksLimits.entries, 'links bounded');
    if (!result.declared) check(result.links.length === 0, 'no links without a declaration');
    for (const link of result.links) {
      const url = new URL(link.url);
      check(url.protocol === 'https:' && url.username === '' && url.password === '', `link ${link.url}`);
      check(url.href === link.url, 'the URL kept is the parsed href');
      check(link.label !== '' && link.label.length <= uiLinksLimits.labelChars && !controlOrBidi.test(link.label), `label ${link.label}`);
      if (link.purpose !== undefined) check(link.purpose.length <= uiLinksLimits.purposeChars && !controlOrBidi.test(link.purpose), 'purpose bounded');
      if (link.kind !== undefined) check(link.kind.length <= uiLinksLimits.kindChars, 'kind bounded');
      check(['public', 'client', 'operator', 'unstated'].includes(link.audience), `audience ${link.audience}`);
      check(link.shownByDefault === (link.audience !== 'operator'), 'operator links are hidden by default');
      check(typeof uiLinkHost(link) === 'string', 'host');
      // Computed, never declared: a link is on another site unless its origin is the card's.
      const cardOrigin = URL.canParse(cardUrl) ? new URL(cardUrl).origin : 'null';
      check(link.crossOrigin === (cardOrigin === 'null' || url.origin !== cardOrigin), `crossOrigin of ${link.url} from ${cardUrl}`);
    }
  },
});
