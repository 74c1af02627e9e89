import { pointer, type Problem } from '../talkie/problems';
import { extensionUri, legacyExtensionUri, maxCardBytes, schemaVersion, webrtcProfile, type Modality } from './protocol';
import { checkWebrtcProfile, webrtcDescriptor, type AgentCallWebrtc } from './webrtc-profile';

/**
 * AgentCall discovery (AgentCall AG-UI extension 0.1, "Discovery"): validates an A2A 1.0 Agent Card
 * served at /.well-known/agent-card.json and, when it declares the AgentCall extension, normalizes
 * what the app needs to connect. Pure: fetching is main's job (src/main/agentcall/discovery.ts).
 *
 * Every refusal is a Problem with a stable snake_case code and a JSON pointer into the card.
 * Unknown additive fields are ignored everywhere; they never grant anything.
 */

export { maxCardBytes };

/** AgentMesh A2A UI Links extension 0.1 (data-only; recognised here, read by a later feature). */
export const uiLinksExtensionUri = 'https://dev.agentmesh.ai/extensions/ui-links/v1';

export { webrtcDescriptor, type AgentCallWebrtc };

/** Bounds that keep a hostile card from ballooning what the UI shows (binding choices; the spec says "bounded"). */
export const cardLimits = {
  nameChars: 200,
  descriptionChars: 2_000,
  versionChars: 100,
  urlChars: 2_048,
  shortChars: 256,
  interfaces: 32,
  modes: 64,
  skills: 256,
  skillTags: 64,
  extensions: 64,
  securitySchemes: 32,
  securityRequirements: 32,
  /** Skills the normalized card keeps, and how much of each it shows. */
  skillsShown: 32,
  skillNameShown: 100,
  skillDescriptionShown: 300,
  skillTagsShown: 10,
  skillTagShown: 50,
  /** At most this many problems are reported (a card with 256 broken skills gets 50 lines, not 256). */
  problems: 50,
} as const;

export interface AgentCallSkill {
  id: string;
  /** At most cardLimits.skillNameShown characters. */
  name: string;
  /** At most cardLimits.skillDescriptionShown characters. */
  description: string;
  /** The first cardLimits.skillTagsShown tags, each at most cardLimits.skillTagShown characters. */
  tags: string[];
}

interface AgentCallCardBase {
  name: string;
  description: string;
  version: string;
  /** Which identifier the card declared the extension with. */
  extensionUri: 'canonical' | 'legacy';
  /** `params.agui.url` as given (https, or http under the development setting). */
  aguiUrl: string;
  voiceOwner: 'client' | 'agent';
  /** Modalities the agent accepts (unique, ≤ 2). */
  accepted: Modality[];
  /** Modalities the agent may request (⊆ accepted). */
  agentRequests: Modality[];
  /** The card's security requirements need an HTTP bearer token (sent as the upgrade/POST Authorization header). */
  bearerRequired: boolean;
  skills: AgentCallSkill[];
  /** The card carries an AgentMesh UI links extension entry. */
  uiLinksDeclared: boolean;
}

export type AgentCallCard =
  | (AgentCallCardBase & { transport: 'websocket'; /** wss:// from https://, ws:// from http:// (development only). */ wsUrl: string })
  | (AgentCallCardBase & { transport: 'webrtc'; webrtc: AgentCallWebrtc });

export type CardKind = 'agentcall' | 'a2a' | 'unknown';

/** A valid A2A card without the AgentCall extension: what AgentDesk shows of it (bounded like an AgentCall card). */
export interface A2AAgent {
  name: string;
  description: string;
  version: string;
  skills: AgentCallSkill[];
  /**
   * Who offers the agent, and where its documentation and icon are, as the card says (A2A 1.0
   * `provider`, `documentationUrl`, `iconUrl`): untrusted links, each an https URL without
   * credentials (its parsed `href`), shown and opened only when a person asks; none is fetched.
   */
  provider?: { organization: string; url?: string };
  documentationUrl?: string;
  iconUrl?: string;
}

export type CardValidation =
  /** `problems` are warnings only. */
  | { ok: true; kind: 'agentcall'; card: AgentCallCard; problems: Problem[] }
  /** A valid A2A card that declares no AgentCall extension. */
  | { ok: true; kind: 'a2a'; a2a: A2AAgent; problems: Problem[] }
  | { ok: false; kind: CardKind; problems: Problem[] };

/**
 * The card URL for what the user typed: the URL itself when its path already ends in
 * `agent-card.json`, else `<origin>/.well-known/agent-card.json`. undefined for a non-http(s) URL.
 */
export function agentCardUrlFor(address: string): string | undefined {
  if (typeof address !== 'string' || !URL.canParse(address)) return undefined;
  const url = new URL(address);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  url.hash = '';
  if (url.pathname.endsWith('agent-card.json')) return url.href;
  return `${url.origin}/.well-known/agent-card.json`;
}

type Json = Record<string, unknown>;
type Segments = (string | number)[];

class Report {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];
  error(code: string, path: Segments, message: string): void {
    this.errors.push({ code, path: pointer(path), message });
  }
  warn(code: string, path: Segments, message: string): void {
    this.warnings.push({ code, path: pointer(path), message });
  }
  all(): Problem[] {
    return [...this.errors, ...this.warnings].slice(0, cardLimits.problems);
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (object: Json, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/** Cuts `text` to `max` code points, ending with an ellipsis when it was cut. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/** A value quoted for a message, bounded. */
const quote = (value: unknown): string => (typeof value === 'string' ? `"${clip(value, 80)}"` : (JSON.stringify(value)?.slice(0, 80) ?? String(value)));

/** A required string field: missing, wrong type and too long are errors. */
function requiredString(r: Report, object: Json, key: string, path: Segments, max: number, what: string): string | undefined {
  if (!has(object, key) || object[key] === undefined) return void r.error('field_missing', [...path, key], `The card has no ${what}.`);
  const value = object[key];
  if (typeof value !== 'string') return void r.error('field_invalid', [...path, key], `The ${what} must be a string.`);
  if (value.length > max) return void r.error('field_too_long', [...path, key], `The ${what} is longer than ${max} characters.`);
  return value;
}

/** A required array field, bounded: returns the array or undefined after recording the problem. */
function requiredArray(r: Report, object: Json, key: string, path: Segments, max: number, what: string): unknown[] | undefined {
  if (!has(object, key) || object[key] === undefined) return void r.error('field_missing', [...path, key], `The card has no ${what}.`);
  return boundedArray(r, object[key], [...path, key], max, what);
}

function boundedArray(r: Report, value: unknown, path: Segments, max: number, what: string): unknown[] | undefined {
  if (!Array.isArray(value)) return void r.error('field_invalid', path, `The ${what} must be an array.`);
  if (value.length > max) return void r.error('too_many_items', path, `The ${what} has ${value.length} entries; at most ${max} are accepted.`);
  return value;
}

function stringArray(r: Report, object: Json, key: string, path: Segments, what: string): void {
  const list = requiredArray(r, object, key, path, cardLimits.modes, what);
  list?.forEach((item, index) => {
    if (typeof item !== 'string' || item.length > cardLimits.shortChars) {
      r.error('field_invalid', [...path, key, index], `Each entry of the ${what} must be a string of at most ${cardLimits.shortChars} characters.`);
    }
  });
}

/** Fields an A2A card has and a Talkie manifest or an arbitrary JSON document does not. */
const a2aMarkers = ['supportedInterfaces', 'skills', 'defaultInputModes', 'defaultOutputModes', 'protocolVersion', 'preferredTransport'];

interface Declaration {
  index: number;
  which: 'canonical' | 'legacy';
  entry: Json;
}

/**
 * Validates a parsed Agent Card. `allowLocalHttp` is the development setting: it permits an http://
 * AG-UI URL (the network layer still limits it to loopback/private hosts when connecting).
 */
export function validateAgentCard(json: unknown, options: { allowLocalHttp: boolean }): CardValidation {
  if (!isObject(json)) {
    return { ok: false, kind: 'unknown', problems: [{ code: 'card_not_object', path: '', message: 'The agent card is not a JSON object.' }] };
  }
  const r = new Report();
  const base = checkA2ABase(r, json);
  const extensions = scanExtensions(r, base.extensions);
  const kind: CardKind = extensions.declarations.length > 0 ? 'agentcall' : a2aMarkers.some((key) => has(json, key)) ? 'a2a' : 'unknown';
  const security = checkSecurity(r, json);

  let params: CheckedParams | undefined;
  if (extensions.declarations.length > 1) {
    for (const duplicate of extensions.declarations.slice(1)) {
      r.error(
        'duplicate_extension',
        ['capabilities', 'extensions', duplicate.index],
        `The AgentCall extension is declared more than once (${extensions.declarations.map((d) => `${d.which} at index ${d.index}`).join(', ')}); a card declares exactly one identifier.`,
      );
    }
  } else if (extensions.declarations[0]) {
    params = checkParams(r, extensions.declarations[0], options);
    if (security.unsupported) {
      r.error(
        'security_unsupported',
        security.path,
        'The card requires authentication other than an HTTP bearer token; AgentDesk can only send a bearer token to an AgentCall agent.',
      );
    }
  }

  if (r.errors.length > 0 || base.name === undefined || base.description === undefined || base.version === undefined) {
    return { ok: false, kind, problems: r.all() };
  }
  if (kind !== 'agentcall' || !params || !extensions.declarations[0]) {
    if (kind === 'a2a') {
      const a2a: A2AAgent = { name: base.name, description: base.description, version: base.version, skills: base.skills, ...checkAbout(r, json) };
      return { ok: true, kind: 'a2a', a2a, problems: r.all() };
    }
    return { ok: false, kind, problems: r.all() };
  }
  const common: AgentCallCardBase = {
    name: base.name,
    description: base.description,
    version: base.version,
    extensionUri: extensions.declarations[0].which,
    aguiUrl: params.aguiUrl,
    voiceOwner: params.voiceOwner,
    accepted: params.accepted,
    agentRequests: params.agentRequests,
    bearerRequired: security.bearerRequired,
    skills: base.skills,
    uiLinksDeclared: extensions.uiLinksDeclared,
  };
  const card: AgentCallCard = params.webrtc
    ? { ...common, transport: 'webrtc', webrtc: params.webrtc }
    : { ...common, transport: 'websocket', wsUrl: params.wsUrl ?? '' };
  return { ok: true, kind: 'agentcall', card, problems: r.all() };
}

interface A2ABase {
  name?: string;
  description?: string;
  version?: string;
  skills: AgentCallSkill[];
  extensions: { list: unknown[]; path: Segments } | undefined;
}

/** The A2A 1.0 AgentCard required fields and their types (lf.a2a.v1 AgentCard, JSON names). */
function checkA2ABase(r: Report, card: Json): A2ABase {
  const name = requiredString(r, card, 'name', [], cardLimits.nameChars, 'name');
  if (name !== undefined && name.trim() === '') r.error('field_invalid', ['name'], 'The name is empty.');
  const description = requiredString(r, card, 'description', [], Number.MAX_SAFE_INTEGER, 'description');
  if (description !== undefined && description.length > cardLimits.descriptionChars) {
    r.warn('description_truncated', ['description'], `The description is longer than ${cardLimits.descriptionChars} characters; it is shortened for display.`);
  }
  const version = requiredString(r, card, 'version', [], cardLimits.versionChars, 'version');

  if (!has(card, 'supportedInterfaces') && has(card, 'url')) {
    r.error(
      'field_missing',
      ['supportedInterfaces'],
      'The card has no supportedInterfaces: it looks like an A2A 0.3 card (top-level url); AgentCall needs an A2A 1.0 card.',
    );
  } else {
    const interfaces = requiredArray(r, card, 'supportedInterfaces', [], cardLimits.interfaces, 'supportedInterfaces list');
    interfaces?.forEach((entry, index) => {
      const path = ['supportedInterfaces', index];
      if (!isObject(entry)) return void r.error('field_invalid', path, 'Each supported interface must be an object.');
      requiredString(r, entry, 'url', path, cardLimits.urlChars, 'interface url');
      requiredString(r, entry, 'protocolBinding', path, cardLimits.shortChars, 'interface protocolBinding');
      requiredString(r, entry, 'protocolVersion', path, cardLimits.shortChars, 'interface protocolVersion');
    });
  }

  let extensions: A2ABase['extensions'];
  if (!has(card, 'capabilities')) r.error('field_missing', ['capabilities'], 'The card has no capabilities object.');
  else if (!isObject(card.capabilities)) r.error('field_invalid', ['capabilities'], 'capabilities must be an object.');
  else if (has(card.capabilities, 'extensions')) {
    const list = boundedArray(r, card.capabilities.extensions, ['capabilities', 'extensions'], cardLimits.extensions, 'extensions list');
    if (list) extensions = { list, path: ['capabilities', 'extensions'] };
  }

  stringArray(r, card, 'defaultInputModes', [], 'defaultInputModes list');
  stringArray(r, card, 'defaultOutputModes', [], 'defaultOutputModes list');

  const skills: AgentCallSkill[] = [];
  const list = requiredArray(r, card, 'skills', [], cardLimits.skills, 'skills list');
  list?.forEach((entry, index) => {
    const path = ['skills', index];
    if (!isObject(entry)) return void r.error('field_invalid', path, 'Each skill must be an object.');
    const id = requiredString(r, entry, 'id', path, cardLimits.shortChars, 'skill id');
    const skillName = requiredString(r, entry, 'name', path, Number.MAX_SAFE_INTEGER, 'skill name');
    const skillDescription = requiredString(r, entry, 'description', path, Number.MAX_SAFE_INTEGER, 'skill description');
    const tags = requiredArray(r, entry, 'tags', path, cardLimits.skillTags, 'skill tags list');
    tags?.forEach((tag, tagIndex) => {
      if (typeof tag !== 'string' || tag.length > cardLimits.shortChars) {
        r.error('field_invalid', [...path, 'tags', tagIndex], `Each skill tag must be a string of at most ${cardLimits.shortChars} characters.`);
      }
    });
    if (id !== undefined && skillName !== undefined && skillDescription !== undefined && skills.length < cardLimits.skillsShown) {
      const shownTags = (tags ?? []).filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== '').slice(0, cardLimits.skillTagsShown);
      skills.push({
        id,
        name: clip(skillName, cardLimits.skillNameShown),
        description: clip(skillDescription, cardLimits.skillDescriptionShown),
        tags: shownTags.map((tag) => clip(tag, cardLimits.skillTagShown)),
      });
    }
  });
  if (list && list.length > cardLimits.skillsShown) {
    r.warn('skills_truncated', ['skills'], `The card lists ${list.length} skills; the first ${cardLimits.skillsShown} are shown.`);
  }

  return {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description: clip(description, cardLimits.descriptionChars) }),
    ...(version === undefined ? {} : { version }),
    skills,
    extensions,
  };
}

/** Finds the AgentCall declarations (canonical or legacy), the UI links entry, and unknown required extensions. */
function scanExtensions(r: Report, extensions: A2ABase['extensions']): { declarations: Declaration[]; uiLinksDeclared: boolean } {
  const declarations: Declaration[] = [];
  let uiLinksDeclared = false;
  extensions?.list.forEach((entry, index) => {
    const path = [...extensions.path, index];
    if (!isObject(entry)) return void r.error('field_invalid', path, 'Each extension must be an object.');
    const uri = requiredString(r, entry, 'uri', path, cardLimits.urlChars, 'extension uri');
    if (has(entry, 'required') && typeof entry.required !== 'boolean')
      r.error('field_invalid', [...path, 'required'], 'An extension\'s "required" must be true or false.');
    if (uri === undefined) return;
    if (uri === extensionUri || uri === legacyExtensionUri) {
      declarations.push({ index, which: uri === extensionUri ? 'canonical' : 'legacy', entry });
    } else if (uri === uiLinksExtensionUri) {
      uiLinksDeclared = true;
      // UI links is data-only: "required" must not be true, and a consumer may ignore the flag rather than refuse the agent.
      if (entry.required === true)
        r.warn('ui_links_marked_required', [...path, 'required'], 'The UI links extension is marked required; it is data-only, so the flag is ignored.');
    } else if (entry.required === true) {
      r.error(
        'unknown_required_extension',
        path,
        `The card requires the extension ${quote(uri)}, which AgentDesk does not support; the agent is incompatible.`,
      );
    }
  });
  return { declarations, uiLinksDeclared };
}

/**
 * A plain A2A card's provider, documentation and icon (all optional in A2A 1.0). Shown only, so a
 * value that cannot be shown is left out with a warning and never refuses the card. A link must be
 * https without a user name or password, also under the development setting: it is what
 * `external.open` would open, and nothing here or later fetches it (the icon is a link too, never
 * loaded: a picture chosen by the card would dress up an agent AgentDesk cannot talk to).
 */
function checkAbout(r: Report, card: Json): Pick<A2AAgent, 'provider' | 'documentationUrl' | 'iconUrl'> {
  const about: Pick<A2AAgent, 'provider' | 'documentationUrl' | 'iconUrl'> = {};
  if (has(card, 'provider') && card.provider !== undefined) {
    const provider = card.provider;
    const organization = isObject(provider) ? provider.organization : undefined;
    if (!isObject(provider) || typeof organization !== 'string' || organization.trim() === '') {
      r.warn('provider_invalid', ['provider'], 'The provider is not an object with an organization name; it is not shown.');
    } else {
      if (organization.length > cardLimits.nameChars)
        r.warn(
          'provider_truncated',
          ['provider', 'organization'],
          `The provider's organization is longer than ${cardLimits.nameChars} characters; it is shortened for display.`,
        );
      const url = has(provider, 'url') && provider.url !== undefined ? cardLink(r, provider.url, ['provider', 'url'], "provider's url") : undefined;
      about.provider = { organization: clip(organization, cardLimits.nameChars), ...(url === undefined ? {} : { url }) };
    }
  }
  for (const key of ['documentationUrl', 'iconUrl'] as const) {
    if (!has(card, key) || card[key] === undefined) continue;
    const url = cardLink(r, card[key], [key], key);
    if (url !== undefined) about[key] = url;
  }
  return about;
}

/** A link of the card, as its parsed href; undefined (with a warning) when it is not an https URL without credentials. */
function cardLink(r: Report, value: unknown, path: Segments, what: string): string | undefined {
  if (typeof value !== 'string' || value.length > cardLimits.urlChars || !URL.canParse(value)) {
    return void r.warn('card_link_invalid', path, `The ${what} is not a URL of at most ${cardLimits.urlChars} characters; it is not shown.`);
  }
  const url = new URL(value);
  if (url.protocol !== 'https:') return void r.warn('card_link_not_https', path, `The ${what} uses ${quote(url.protocol)}, not https:; it is not shown.`);
  if (url.username !== '' || url.password !== '')
    return void r.warn('card_link_credentials', path, `The ${what} carries a user name or password; it is not shown.`);
  // Parsing may lengthen it (punycode, percent-encoding): what is kept stays within the bound too.
  if (url.href.length > cardLimits.urlChars)
    return void r.warn('card_link_invalid', path, `The ${what} is longer than ${cardLimits.urlChars} characters once parsed; it is not shown.`);
  return url.href;
}

/*
 * Security. A2A 1.0 (lf.a2a.v1) writes a scheme as a oneof, e.g.
 *   securitySchemes: {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}
 *   securityRequirements: [{"schemes": {"bearer": {"list": []}}}]
 * A2A 0.3 wrote the OpenAPI shape, which cards in the wild still carry:
 *   securitySchemes: {"bearer": {"type": "http", "scheme": "bearer"}}
 *   security: [{"bearer": []}]
 * Both shapes are accepted (and 0.3-style entries inside securityRequirements, which producers also emit).
 * Requirements are alternatives: a bearer token is required when every alternative names a scheme and
 * at least one alternative consists of HTTP bearer schemes only.
 */
function isBearerScheme(scheme: unknown): boolean {
  if (!isObject(scheme)) return false;
  const v1 = scheme.httpAuthSecurityScheme;
  if (isObject(v1)) return typeof v1.scheme === 'string' && v1.scheme.toLowerCase() === 'bearer';
  return (
    typeof scheme.type === 'string' && scheme.type.toLowerCase() === 'http' && typeof scheme.scheme === 'string' && scheme.scheme.toLowerCase() === 'bearer'
  );
}

function checkSecurity(r: Report, card: Json): { bearerRequired: boolean; unsupported: boolean; path: Segments } {
  const schemes = new Map<string, boolean>();
  if (has(card, 'securitySchemes')) {
    const value = card.securitySchemes;
    if (!isObject(value)) r.error('field_invalid', ['securitySchemes'], 'securitySchemes must be an object.');
    else if (Object.keys(value).length > cardLimits.securitySchemes)
      r.error('too_many_items', ['securitySchemes'], `The card declares more than ${cardLimits.securitySchemes} security schemes.`);
    else for (const [name, scheme] of Object.entries(value)) schemes.set(name, isBearerScheme(scheme));
  }
  const key = has(card, 'securityRequirements') ? 'securityRequirements' : has(card, 'security') ? 'security' : undefined;
  const none = { bearerRequired: false, unsupported: false, path: [key ?? 'securityRequirements'] };
  if (key === undefined) return none;
  const list = boundedArray(r, card[key], [key], cardLimits.securityRequirements, `${key} list`);
  if (!list || list.length === 0) return none;
  const alternatives: string[][] = [];
  list.forEach((entry, index) => {
    if (!isObject(entry)) return void r.error('field_invalid', [key, index], 'Each security requirement must be an object.');
    const v1 = key === 'securityRequirements' && has(entry, 'schemes');
    const names = v1 ? (isObject(entry.schemes) ? entry.schemes : undefined) : entry;
    if (!names) return void r.error('field_invalid', [key, index, 'schemes'], "A security requirement's schemes must be an object.");
    const namePath: Segments = v1 ? [key, index, 'schemes'] : [key, index];
    for (const name of Object.keys(names)) {
      if (!schemes.has(name))
        r.error('unknown_security_scheme', [...namePath, name], `The security requirement names ${quote(name)}, which securitySchemes does not declare.`);
    }
    alternatives.push(Object.keys(names));
  });
  if (alternatives.length === 0 || alternatives.some((names) => names.length === 0)) return none;
  const bearerOnly = alternatives.some((names) => names.every((name) => schemes.get(name) === true));
  return { bearerRequired: bearerOnly, unsupported: !bearerOnly, path: [key] };
}

interface CheckedParams {
  aguiUrl: string;
  wsUrl?: string;
  webrtc?: AgentCallWebrtc;
  voiceOwner: 'client' | 'agent';
  accepted: Modality[];
  agentRequests: Modality[];
}

/** The AgentCall extension's params. Returns undefined when they cannot be used (errors recorded). */
function checkParams(r: Report, declaration: Declaration, options: { allowLocalHttp: boolean }): CheckedParams | undefined {
  const at = ['capabilities', 'extensions', declaration.index, 'params'];
  const params = declaration.entry.params;
  if (params === undefined) return void r.error('field_missing', at, 'The AgentCall extension has no params.');
  if (!isObject(params)) return void r.error('field_invalid', at, 'The AgentCall extension params must be an object.');

  if (!has(params, 'schemaVersion')) r.error('field_missing', [...at, 'schemaVersion'], 'The AgentCall extension params have no schemaVersion.');
  else if (params.schemaVersion !== schemaVersion) {
    r.error('schema_version_unsupported', [...at, 'schemaVersion'], `schemaVersion is ${quote(params.schemaVersion)}; AgentDesk supports "${schemaVersion}".`);
  }

  const aguiPath = [...at, 'agui'];
  const agui = params.agui;
  let aguiUrl: string | undefined;
  let wsUrl: string | undefined;
  let transport: string | undefined;
  let webrtc: AgentCallWebrtc | undefined;
  let profileOk = false;
  let profileName = 'an unknown transport';
  if (agui === undefined) r.error('field_missing', aguiPath, 'The AgentCall extension has no agui object.');
  else if (!isObject(agui)) r.error('field_invalid', aguiPath, 'agui must be an object.');
  else {
    const url = checkAguiUrl(r, agui, aguiPath, options);
    aguiUrl = url?.href;
    if (!has(agui, 'transport')) r.error('field_missing', [...aguiPath, 'transport'], 'agui has no transport.');
    else if (agui.transport === 'websocket' || agui.transport === 'webrtc') transport = agui.transport;
    else
      r.error(
        'agui_transport_unsupported',
        [...aguiPath, 'transport'],
        `The transport ${quote(agui.transport)} is not supported; AgentCall 0.1 uses "websocket" or "webrtc".`,
      );
    if (typeof agui.transport === 'string') profileName = `"${clip(agui.transport, 80)}"`;

    if (transport === 'websocket') {
      profileOk = true;
      if (url) wsUrl = `${url.protocol === 'https:' ? 'wss:' : 'ws:'}${url.href.slice(url.protocol.length)}`;
    } else if (transport === 'webrtc') {
      const checked = checkWebrtc(r, agui.webrtc, [...aguiPath, 'webrtc']);
      webrtc = checked.webrtc;
      profileOk = checked.profileOk;
      profileName = checked.profileName;
    }

    if (has(agui, 'session')) {
      const session = agui.session;
      if (!isObject(session)) r.error('field_invalid', [...aguiPath, 'session'], 'agui.session must be an object.');
      else {
        for (const key of ['resume', 'replay'] as const) {
          if (!has(session, key)) continue;
          if (typeof session[key] !== 'boolean') r.error('field_invalid', [...aguiPath, 'session', key], `session.${key} must be true or false.`);
          else if (session[key])
            r.error(
              `session_${key}_unsupported`,
              [...aguiPath, 'session', key],
              `The card advertises session ${key}; AgentCall 0.1 sessions have no ${key} (it must be false or absent).`,
            );
        }
      }
    }
  }

  let voiceOwner: 'client' | 'agent' | undefined;
  const voice = params.voice;
  if (voice !== undefined) {
    if (!isObject(voice)) r.error('field_invalid', [...at, 'voice'], 'voice must be an object.');
    else if (has(voice, 'owner')) {
      if (voice.owner === 'client' || voice.owner === 'agent') voiceOwner = voice.owner;
      else r.error('voice_owner_invalid', [...at, 'voice', 'owner'], `voice.owner is ${quote(voice.owner)}; it must be "client" or "agent".`);
    }
  }
  if (transport === 'webrtc' && voiceOwner !== 'agent' && !r.errors.some((p) => p.code === 'voice_owner_invalid')) {
    r.error('webrtc_voice_owner_not_agent', [...at, 'voice', 'owner'], 'A WebRTC card must declare voice.owner "agent" (the agent owns the audio).');
  }

  const physical = checkPhysical(r, params.physicalObservations, [...at, 'physicalObservations']);
  if ((physical.accepted.length > 0 || physical.agentRequests.length > 0) && !profileOk) {
    r.error(
      'physical_profile_unsupported',
      [...at, 'physicalObservations'],
      `NFC/photo observations are supported only on WebSocket or the exact ${webrtcProfile} profile, not on ${profileName}.`,
    );
  }

  if (aguiUrl === undefined || transport === undefined || (transport === 'webrtc' && !webrtc) || (transport === 'websocket' && !wsUrl)) return undefined;
  return {
    aguiUrl,
    ...(wsUrl === undefined ? {} : { wsUrl }),
    ...(webrtc === undefined ? {} : { webrtc }),
    voiceOwner: voiceOwner ?? 'client',
    accepted: physical.accepted,
    agentRequests: physical.agentRequests,
  };
}

/** agui.url: absolute https (http only under the development setting), no credentials; the fragment is dropped. */
function checkAguiUrl(r: Report, agui: Json, aguiPath: Segments, options: { allowLocalHttp: boolean }): URL | undefined {
  const path = [...aguiPath, 'url'];
  const text = requiredString(r, agui, 'url', aguiPath, cardLimits.urlChars, 'agui url');
  if (text === undefined) return undefined;
  if (!URL.canParse(text)) return void r.error('agui_url_invalid', path, 'agui.url is not an absolute URL.');
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return void r.error('agui_url_invalid', path, `agui.url must be an https:// URL, not ${url.protocol}//.`);
  if (url.username !== '' || url.password !== '') return void r.error('agui_url_invalid', path, 'agui.url must not carry a user name or password.');
  if (url.protocol === 'http:' && !options.allowLocalHttp) {
    return void r.error('agui_url_insecure', path, 'agui.url uses unencrypted http://, which is allowed only under the development setting.');
  }
  url.hash = '';
  return url;
}

function checkWebrtc(r: Report, value: unknown, path: Segments): { webrtc?: AgentCallWebrtc; profileOk: boolean; profileName: string } {
  const checked = checkWebrtcProfile(value);
  if (checked.ok) return { webrtc: checked.webrtc, profileOk: true, profileName: `"${webrtcProfile}"` };
  for (const problem of checked.problems) r.error(problem.code, [...path, ...problem.path], problem.message);
  return { profileOk: checked.profileOk, profileName: checked.profileName };
}

const modalities: readonly Modality[] = ['nfc', 'photo'];

/** physicalObservations: unique arrays of at most two modalities; agentRequests ⊆ accepted. Omitted or empty means unsupported. */
function checkPhysical(r: Report, value: unknown, path: Segments): { accepted: Modality[]; agentRequests: Modality[] } {
  if (value === undefined) return { accepted: [], agentRequests: [] };
  if (!isObject(value)) {
    r.error('field_invalid', path, 'physicalObservations must be an object.');
    return { accepted: [], agentRequests: [] };
  }
  const list = (key: 'accepted' | 'agentRequests'): Modality[] => {
    if (!has(value, key)) return [];
    const raw = value[key];
    if (!Array.isArray(raw)) {
      r.error('field_invalid', [...path, key], `physicalObservations.${key} must be an array.`);
      return [];
    }
    if (raw.length > modalities.length) {
      r.error('too_many_modalities', [...path, key], `physicalObservations.${key} lists ${raw.length} modalities; at most ${modalities.length} (nfc, photo).`);
      return [];
    }
    const result: Modality[] = [];
    raw.forEach((item, index) => {
      if (!modalities.includes(item as Modality))
        return void r.error('modality_invalid', [...path, key, index], `${quote(item)} is not a modality; use "nfc" or "photo".`);
      if (result.includes(item as Modality))
        return void r.error('modality_duplicate', [...path, key, index], `"${String(item)}" is listed twice in physicalObservations.${key}.`);
      result.push(item as Modality);
    });
    return result;
  };
  const accepted = list('accepted');
  const agentRequests = list('agentRequests');
  const rawRequests = Array.isArray(value.agentRequests) ? value.agentRequests : [];
  agentRequests.forEach((modality) => {
    if (!accepted.includes(modality)) {
      r.error(
        'agent_request_not_accepted',
        [...path, 'agentRequests', rawRequests.indexOf(modality)],
        `The agent may request "${modality}" but does not accept it; every requested modality must also be accepted.`,
      );
    }
  });
  return { accepted, agentRequests };
}
