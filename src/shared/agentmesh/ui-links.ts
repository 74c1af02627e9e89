import { uiLinksExtensionUri } from '../agentcall/card';
import { pointer, type Problem } from '../talkie/problems';

/**
 * AgentMesh UI links 0.1 (https://dev.agentmesh.ai/extensions/ui-links/v1): the web pages an A2A card lists. Pure and bounded
 * (`uiLinksLimits`): https only, no user name or password; strings cleaned after they are cut. Nothing here fetches, opens
 * or embeds anything: every entry is an untrusted link (AgentMesh UI links 0.1 §5, §7).
 * Decision: docs/architecture.md#agentmesh-ui-links
 */

export { uiLinksExtensionUri };

export const uiLinksLimits = {
  /** Extensions of the card examined when looking for the declaration. */
  extensions: 64,
  /** `uis` entries read; the rest are ignored with one problem saying how many. */
  entries: 100,
  /** Skills of the card whose ids a `skill` reference is checked against. */
  skills: 256,
  /** A longer url is refused before it is parsed. */
  urlChars: 2_048,
  labelChars: 120,
  purposeChars: 300,
  kindChars: 64,
  skillChars: 256,
  /** Problems listed; beyond this, one `ui_links_problems_truncated` says how many were left out. */
  problems: 100,
} as const;

export type UiLinkAudience = 'public' | 'client' | 'operator' | 'unstated';
export type UiLinkAccess = 'open' | 'authenticated';

/** The audiences the spec defines (AgentMesh UI links 0.1 §3 rule 5), in the order a panel lists them. */
export const uiLinkAudiences = ['public', 'client', 'operator'] as const;
/** The spec's suggested kinds (AgentMesh UI links 0.1 §3 rule 7); any other value is kept and shown as-is. */
export const suggestedUiLinkKinds = ['dashboard', 'status', 'reports', 'settings', 'docs', 'chat', 'storefront'] as const;

export interface UiLink {
  /** The https URL, as parsed (`URL.href`): show it whole before opening it. */
  url: string;
  /** Link text: control characters removed, at most uiLinksLimits.labelChars. */
  label: string;
  purpose?: string;
  /** `unstated` when the card gives none or an unknown value: show it as "audience not stated", never as public. */
  audience: UiLinkAudience;
  /** A label only (AgentMesh UI links 0.1 §4): says nothing about safety or secrecy. */
  access?: UiLinkAccess;
  /** As given (an unknown kind is shown as-is). */
  kind?: string;
  /** The skill id the entry names (kept even when the card declares no such skill; see notes). */
  skill?: string;
  /** The entry's origin differs from the origin the card was fetched from (computed here, never declared). */
  crossOrigin: boolean;
  /** public, client and unstated: yes; operator: only behind "Show operator pages". */
  shownByDefault: boolean;
  /** Human notes about the entry (audience not stated, a dangling skill, a shortened label …). */
  notes: string[];
  /** JSON pointer of the entry in the card, matching the paths of its problems. */
  path: string;
}

export interface UiLinksResult {
  /** The card declares the extension (exact URI). false says nothing about the agent (AgentMesh UI links 0.1 §7 rule 2). */
  declared: boolean;
  /** Usable entries, in card order. */
  links: UiLink[];
  /** Skipped entries, declaration notes and per-entry notes, each with a stable code and a JSON pointer. */
  problems: Problem[];
}

/** The codes of an entry that was skipped (one problem per skipped entry). */
export const uiLinkSkippedCodes = [
  'ui_link_not_object',
  'ui_link_url_missing',
  'ui_link_url_invalid',
  'ui_link_url_too_long',
  'ui_link_url_not_https',
  'ui_link_url_credentials',
  'ui_link_label_missing',
  'ui_link_label_invalid',
] as const;

/** Every code parseUiLinks reports (for translations and tests). Codes never change meaning. */
export const uiLinksProblemCodes = [
  // The declaration.
  'ui_links_card_url_invalid',
  'ui_links_extensions_truncated',
  'ui_links_duplicate_extension',
  'ui_links_marked_required',
  'ui_links_required_invalid',
  'ui_links_params_missing',
  'ui_links_params_invalid',
  'ui_links_uis_missing',
  'ui_links_uis_invalid',
  'ui_links_uis_empty',
  'ui_links_entries_truncated',
  'ui_links_problems_truncated',
  // An entry skipped.
  ...uiLinkSkippedCodes,
  // An entry kept, with a note.
  'ui_link_label_truncated',
  'ui_link_purpose_invalid',
  'ui_link_purpose_truncated',
  'ui_link_audience_unstated',
  'ui_link_audience_unknown',
  'ui_link_access_unknown',
  'ui_link_kind_invalid',
  'ui_link_kind_truncated',
  'ui_link_skill_invalid',
  'ui_link_skill_dangling',
] as const;
export type UiLinksProblemCode = (typeof uiLinksProblemCodes)[number];

/** The links a "Web pages" panel lists: the ones shown by default, plus operator pages once the user asks for them. */
export function visibleUiLinks(links: readonly UiLink[], options: { showOperator: boolean }): UiLink[] {
  return links.filter((link) => link.shownByDefault || options.showOperator);
}

/** How many links stay behind "Show operator pages". */
export const hiddenUiLinkCount = (links: readonly UiLink[]): number => links.filter((link) => !link.shownByDefault).length;

/** The host a link goes to (punycode, with a port when it has one), for a visible "other site: …" flag. */
export function uiLinkHost(link: Pick<UiLink, 'url'>): string {
  return new URL(link.url).host;
}

type Json = Record<string, unknown>;
type Segments = (string | number)[];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (object: Json, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/** Format characters dropped from displayed text: bidi marks, embeddings, overrides and isolates; zero-width space, word joiners, BOM. */
const isFormat = (code: number): boolean =>
  code === 0x061c ||
  code === 0x200b ||
  code === 0x200e ||
  code === 0x200f ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2060 && code <= 0x2064) ||
  (code >= 0x2066 && code <= 0x2069) ||
  code === 0xfeff;

/** Controls (C0, DEL, C1) and Unicode white space: each run becomes one space in displayed text. */
const isSpace = (code: number): boolean =>
  code <= 0x20 ||
  (code >= 0x7f && code <= 0xa0) ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000;

const isBlank = (code: number): boolean => isSpace(code) || isFormat(code);

/**
 * Text fit for display: format characters removed, controls and white-space runs as one space, trimmed,
 * at most `max` code units (a cut never splits a surrogate pair and ends in "…"). Reads `value` at most
 * once; what it allocates is bounded by `max`, whatever the length of `value`.
 */
export function displayText(value: string, max: number): { text: string; truncated: boolean } {
  let start = 0;
  while (start < value.length && isBlank(value.charCodeAt(start))) start += 1;
  let text = '';
  let space = false;
  let index = start;
  // One code unit past `max` tells whether there is more to show.
  for (; index < value.length && text.length <= max; index += 1) {
    const code = value.charCodeAt(index);
    if (isFormat(code)) continue;
    if (isSpace(code)) {
      space = true;
      continue;
    }
    if (space) text += ' ';
    space = false;
    text += value[index];
  }
  let truncated = text.length > max;
  for (; !truncated && index < value.length; index += 1) truncated = !isBlank(value.charCodeAt(index));
  if (!truncated) return { text, truncated };
  let cut = Math.min(text.length, max - 1);
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return { text: `${text.slice(0, cut).trimEnd()}…`, truncated };
}

/** A value quoted for a message: at most 60 characters, invisible characters removed. */
function quote(value: unknown): string {
  if (typeof value === 'string') return `"${displayText(value, 60).text}"`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return displayText(String(value), 60).text;
}

class Report {
  readonly problems: Problem[] = [];
  private dropped = 0;
  add(code: UiLinksProblemCode, path: Segments, message: string): void {
    if (this.problems.length < uiLinksLimits.problems) this.problems.push({ code, path: pointer(path), message });
    else this.dropped += 1;
  }
  all(): Problem[] {
    if (this.dropped === 0) return this.problems;
    return [
      ...this.problems,
      {
        code: 'ui_links_problems_truncated',
        path: '',
        message: `${this.dropped} more UI links problems are not listed (at most ${uiLinksLimits.problems} are).`,
      },
    ];
  }
}

/**
 * Reads the UI links declaration of an A2A Agent Card. `cardUrl` is the URL the card was fetched from
 * (after same-origin redirects): cross-origin entries are flagged against its origin.
 * A card that is not an object, has no capabilities.extensions, or does not declare the extension
 * gives `{ declared: false, links: [], problems: [] }`: validating the card is not this function's job.
 */
export function parseUiLinks(card: unknown, options: { cardUrl: string }): UiLinksResult {
  const r = new Report();
  const capabilities = isObject(card) ? card.capabilities : undefined;
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  if (!Array.isArray(extensions)) return { declared: false, links: [], problems: [] };

  const at: Segments = ['capabilities', 'extensions'];
  const examined = Math.min(extensions.length, uiLinksLimits.extensions);
  let declaration: { entry: Json; index: number } | undefined;
  for (let index = 0; index < examined; index += 1) {
    const entry: unknown = extensions[index];
    if (!isObject(entry) || entry.uri !== uiLinksExtensionUri) continue;
    if (declaration) {
      r.add(
        'ui_links_duplicate_extension',
        [...at, index],
        `The UI links extension is declared again (first at index ${declaration.index}); only the first declaration is read.`,
      );
    } else declaration = { entry, index };
  }
  if (extensions.length > examined) {
    r.add('ui_links_extensions_truncated', at, `The card lists ${extensions.length} extensions; only the first ${examined} were searched for UI links.`);
  }
  if (!declaration) return { declared: false, links: [], problems: r.all() };

  const declPath: Segments = [...at, declaration.index];
  const { entry } = declaration;
  if (has(entry, 'required')) {
    if (entry.required === true) {
      r.add('ui_links_marked_required', [...declPath, 'required'], 'The UI links extension is marked required; it is data-only, so the flag is ignored.');
    } else if (typeof entry.required !== 'boolean') {
      r.add(
        'ui_links_required_invalid',
        [...declPath, 'required'],
        `The extension's "required" is ${quote(entry.required)}, not true or false; it is ignored.`,
      );
    }
  }

  let cardOrigin: string | undefined;
  if (typeof options.cardUrl === 'string' && URL.canParse(options.cardUrl)) cardOrigin = new URL(options.cardUrl).origin;
  if (cardOrigin === undefined || cardOrigin === 'null') {
    cardOrigin = undefined;
    r.add('ui_links_card_url_invalid', [], 'The address the card was fetched from is unknown, so every page is flagged as on another site.');
  }

  const paramsPath = [...declPath, 'params'];
  if (!has(entry, 'params') || entry.params === undefined) {
    r.add('ui_links_params_missing', paramsPath, 'The UI links extension has no params, so it lists no pages.');
    return { declared: true, links: [], problems: r.all() };
  }
  if (!isObject(entry.params)) {
    r.add('ui_links_params_invalid', paramsPath, 'The UI links extension params must be an object; no pages are listed.');
    return { declared: true, links: [], problems: r.all() };
  }
  const uisPath = [...paramsPath, 'uis'];
  const uis = entry.params.uis;
  if (uis === undefined) {
    r.add('ui_links_uis_missing', uisPath, 'The UI links extension has no params.uis list, so it lists no pages.');
    return { declared: true, links: [], problems: r.all() };
  }
  if (!Array.isArray(uis)) {
    r.add('ui_links_uis_invalid', uisPath, 'params.uis must be an array; no pages are listed.');
    return { declared: true, links: [], problems: r.all() };
  }
  if (uis.length === 0) {
    r.add('ui_links_uis_empty', uisPath, 'params.uis is empty; the extension must list at least one page.');
    return { declared: true, links: [], problems: r.all() };
  }

  const skillIds = declaredSkillIds(card as Json);
  const links: UiLink[] = [];
  const read = Math.min(uis.length, uiLinksLimits.entries);
  for (let index = 0; index < read; index += 1) {
    const link = readEntry(r, uis[index], [...uisPath, index], { cardOrigin, skillIds });
    if (link) links.push(link);
  }
  if (uis.length > read) {
    r.add('ui_links_entries_truncated', uisPath, `The card lists ${uis.length} pages; the first ${read} were read and ${uis.length - read} ignored.`);
  }
  return { declared: true, links, problems: r.all() };
}

/** Ids of the first uiLinksLimits.skills skills (strings of a sane length only). */
function declaredSkillIds(card: Json): { ids: Set<string>; partial: boolean } {
  const ids = new Set<string>();
  const skills = card.skills;
  if (!Array.isArray(skills)) return { ids, partial: false };
  const examined = Math.min(skills.length, uiLinksLimits.skills);
  for (let index = 0; index < examined; index += 1) {
    const skill: unknown = skills[index];
    if (isObject(skill) && typeof skill.id === 'string' && skill.id.length <= uiLinksLimits.skillChars) ids.add(skill.id);
  }
  return { ids, partial: skills.length > examined };
}

function readEntry(
  r: Report,
  value: unknown,
  path: Segments,
  context: { cardOrigin: string | undefined; skillIds: { ids: Set<string>; partial: boolean } },
): UiLink | undefined {
  if (!isObject(value)) return void r.add('ui_link_not_object', path, `Entry ${String(path.at(-1))} is ${quote(value)}, not an object; it is skipped.`);

  const url = readUrl(r, value, path);
  if (url === undefined) return undefined;

  const labelPath = [...path, 'label'];
  if (!has(value, 'label') || value.label === undefined)
    return void r.add('ui_link_label_missing', labelPath, `The page ${quote(url.href)} has no label; it is skipped.`);
  if (typeof value.label !== 'string')
    return void r.add('ui_link_label_invalid', labelPath, `The label of ${quote(url.href)} is ${quote(value.label)}, not text; the page is skipped.`);
  const label = displayText(value.label, uiLinksLimits.labelChars);
  if (label.text === '') return void r.add('ui_link_label_invalid', labelPath, `The label of ${quote(url.href)} is empty; the page is skipped.`);

  const notes: string[] = [];
  const note = (code: UiLinksProblemCode, segments: Segments, message: string): void => {
    notes.push(message);
    r.add(code, segments, message);
  };
  if (label.truncated) note('ui_link_label_truncated', labelPath, `The label is longer than ${uiLinksLimits.labelChars} characters; it is shortened.`);

  let purpose: string | undefined;
  if (has(value, 'purpose') && value.purpose !== undefined) {
    if (typeof value.purpose !== 'string')
      note('ui_link_purpose_invalid', [...path, 'purpose'], `The purpose is ${quote(value.purpose)}, not text; it is left out.`);
    else {
      const text = displayText(value.purpose, uiLinksLimits.purposeChars);
      if (text.text !== '') purpose = text.text;
      if (text.truncated)
        note('ui_link_purpose_truncated', [...path, 'purpose'], `The purpose is longer than ${uiLinksLimits.purposeChars} characters; it is shortened.`);
    }
  }

  let audience: UiLinkAudience = 'unstated';
  if (!has(value, 'audience') || value.audience === undefined) {
    note('ui_link_audience_unstated', [...path, 'audience'], 'Audience not stated (not the same as public).');
  } else if (value.audience === 'public' || value.audience === 'client' || value.audience === 'operator') {
    audience = value.audience;
  } else {
    note(
      'ui_link_audience_unknown',
      [...path, 'audience'],
      `The audience ${quote(value.audience)} is not public, client or operator; it is treated as not stated.`,
    );
  }

  let access: UiLinkAccess | undefined;
  if (has(value, 'access') && value.access !== undefined) {
    if (value.access === 'open' || value.access === 'authenticated') access = value.access;
    else note('ui_link_access_unknown', [...path, 'access'], `The access ${quote(value.access)} is not open or authenticated; it is left out.`);
  }

  let kind: string | undefined;
  if (has(value, 'kind') && value.kind !== undefined) {
    const text = typeof value.kind === 'string' ? displayText(value.kind, uiLinksLimits.kindChars) : undefined;
    if (!text || text.text === '') note('ui_link_kind_invalid', [...path, 'kind'], `The kind ${quote(value.kind)} is not a word; it is left out.`);
    else {
      kind = text.text;
      if (text.truncated) note('ui_link_kind_truncated', [...path, 'kind'], `The kind is longer than ${uiLinksLimits.kindChars} characters; it is shortened.`);
    }
  }

  let skill: string | undefined;
  if (has(value, 'skill') && value.skill !== undefined) {
    if (typeof value.skill !== 'string' || value.skill === '' || value.skill.length > uiLinksLimits.skillChars) {
      note('ui_link_skill_invalid', [...path, 'skill'], `The skill reference ${quote(value.skill)} is not a skill id; it is left out.`);
    } else {
      skill = value.skill;
      if (!context.skillIds.ids.has(skill)) {
        const where = context.skillIds.partial ? `the first ${uiLinksLimits.skills} skills the card declares` : 'the skills the card declares';
        note('ui_link_skill_dangling', [...path, 'skill'], `The page names the skill ${quote(skill)}, which is not among ${where}.`);
      }
    }
  }

  return {
    url: url.href,
    label: label.text,
    ...(purpose === undefined ? {} : { purpose }),
    audience,
    ...(access === undefined ? {} : { access }),
    ...(kind === undefined ? {} : { kind }),
    ...(skill === undefined ? {} : { skill }),
    crossOrigin: context.cardOrigin === undefined || url.origin !== context.cardOrigin,
    shownByDefault: audience !== 'operator',
    notes,
    path: pointer(path),
  };
}

/** The entry's url: https only (the spec has no development allowance), no credentials, bounded before parsing. */
function readUrl(r: Report, entry: Json, path: Segments): URL | undefined {
  const urlPath = [...path, 'url'];
  if (!has(entry, 'url') || entry.url === undefined) return void r.add('ui_link_url_missing', urlPath, 'The entry has no url; it is skipped.');
  const text = entry.url;
  if (typeof text !== 'string') return void r.add('ui_link_url_invalid', urlPath, `The url is ${quote(text)}, not text; the entry is skipped.`);
  if (text.length > uiLinksLimits.urlChars) {
    return void r.add(
      'ui_link_url_too_long',
      urlPath,
      `The url is ${text.length} characters long; at most ${uiLinksLimits.urlChars} are accepted, so the entry is skipped.`,
    );
  }
  if (!URL.canParse(text)) return void r.add('ui_link_url_invalid', urlPath, `The url ${quote(text)} is not an absolute URL; the entry is skipped.`);
  const url = new URL(text);
  if (url.protocol !== 'https:') {
    const scheme = displayText(url.protocol, 40).text;
    const why = url.protocol === 'http:' ? ' (unencrypted; the UI links spec allows only https, also under the development setting)' : '';
    return void r.add('ui_link_url_not_https', urlPath, `The url uses ${scheme}, not https:${why}; the entry is skipped.`);
  }
  if (url.username !== '' || url.password !== '') {
    return void r.add('ui_link_url_credentials', urlPath, `The url of ${url.host} carries a user name or password; the entry is skipped.`);
  }
  return url;
}
