import { describe, expect, it } from 'vitest';
import { agentCardUrlFor, cardLimits, validateAgentCard, type CardValidation } from '../../../src/shared/agentcall/card';
import { extensionUri, legacyExtensionUri } from '../../../src/shared/agentcall/protocol';
import { cardCases, codesOf } from './card-cases';

const byName = (name: string) => {
  const found = cardCases.find((entry) => entry.name === name);
  if (!found) throw new Error(`no fixture named "${name}"`);
  return structuredClone(found.card) as Record<string, unknown>;
};
const problemAt = (result: CardValidation, code: string) => result.problems.find((problem) => problem.code === code);

describe('the agent card fixture table', () => {
  it.each(cardCases.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const result = validateAgentCard(entry.card, { allowLocalHttp: entry.allowLocalHttp ?? false });
    expect({ ok: result.ok, kind: result.kind, codes: codesOf(result.problems) }).toEqual(entry.expect);
    for (const problem of result.problems) {
      expect(problem.path === '' || problem.path.startsWith('/')).toBe(true);
      expect(problem.message.length).toBeGreaterThan(0);
    }
    if (entry.expectCard) {
      expect(result.ok && result.kind === 'agentcall').toBe(true);
      if (result.ok && result.kind === 'agentcall') expect(result.card).toMatchObject(entry.expectCard);
    }
    if (entry.expectDev) {
      const dev = validateAgentCard(entry.card, { allowLocalHttp: true });
      expect({ ok: dev.ok, kind: dev.kind, codes: codesOf(dev.problems) }).toEqual(entry.expectDev);
    }
  });

  it('covers every case the brief lists', () => {
    const names = cardCases.map((entry) => entry.name);
    for (const name of [
      'minimal valid websocket card',
      'legacy identifier only',
      'valid webrtc card',
      'canonical and legacy declared together',
      'canonical declared twice',
      'unknown required extension',
      'unknown optional extension is fine',
      'wrong schemaVersion',
      'http agui url without the development setting',
      'agentRequests not a subset of accepted',
      'duplicate modality',
      'three modalities',
      'photo on openai-realtime-webrtc-1',
      'photo on http.sse',
      'webrtc with voice.owner client',
      'webrtc object wrong',
      'session resume true',
      'plain A2A card without the extension',
      'not an object',
      'missing name',
    ])
      expect(names).toContain(name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('validateAgentCard details', () => {
  it('points each problem at the exact JSON path of the offending value', () => {
    const card = byName('minimal valid websocket card');
    const extensions = (card.capabilities as { extensions: Record<string, unknown>[] }).extensions;
    extensions.unshift({ uri: 'https://other.example/ext/x/1' });
    (extensions[1]!.params as { agui: { url: string } }).agui.url = 'http://agent.example/agui';
    const result = validateAgentCard(card, { allowLocalHttp: false });
    expect(result.problems).toEqual([
      { code: 'agui_url_insecure', path: '/capabilities/extensions/1/params/agui/url', message: expect.stringContaining('http://') },
    ]);
  });

  it('marks the second of two declarations as the duplicate, and names the unknown required URI', () => {
    const mixed = validateAgentCard(byName('canonical and legacy declared together'), { allowLocalHttp: false });
    expect(problemAt(mixed, 'duplicate_extension')?.path).toBe('/capabilities/extensions/1');
    const unknown = validateAgentCard(byName('unknown required extension'), { allowLocalHttp: false });
    expect(problemAt(unknown, 'unknown_required_extension')).toEqual({
      code: 'unknown_required_extension',
      path: '/capabilities/extensions/1',
      message: expect.stringContaining('https://other.example/ext/secret/1'),
    });
  });

  it('returns name, description, version and skills (with their tags) for a plain A2A card', () => {
    const result = validateAgentCard(byName('plain A2A card without the extension'), { allowLocalHttp: false });
    expect(result).toEqual({
      ok: true,
      kind: 'a2a',
      a2a: {
        name: 'Workshop agent',
        description: 'Identifies workshop objects.',
        version: '1.0.0',
        skills: [{ id: 'identify', name: 'Identify objects', description: 'Tells what a scanned object is.', tags: ['nfc', 'photo'] }],
      },
      problems: [],
    });
  });

  it("keeps a plain A2A card's provider, documentation and icon as https links, and leaves out each one it cannot show, with a warning at its path", () => {
    const good = validateAgentCard(byName('plain A2A card with provider, documentation and icon'), { allowLocalHttp: false });
    expect(good).toMatchObject({
      ok: true,
      kind: 'a2a',
      a2a: {
        provider: { organization: 'Larkfield Payroll Ltd', url: 'https://larkfield.example/' },
        documentationUrl: 'https://docs.larkfield.example/agent',
        iconUrl: 'https://agent.larkfield.example/icon.png',
      },
      problems: [],
    });
    const bad = validateAgentCard(byName('plain A2A card with unusable provider, documentation and icon'), { allowLocalHttp: true });
    expect(bad.ok && bad.kind === 'a2a' ? Object.keys(bad.a2a).sort() : []).toEqual(['description', 'name', 'skills', 'version']);
    expect(bad.problems.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'provider_invalid', path: '/provider' },
      { code: 'card_link_not_https', path: '/documentationUrl' },
      { code: 'card_link_credentials', path: '/iconUrl' },
    ]);
    // http:// stays out under the development setting too (only https opens), and an organization too long is shortened.
    const card = byName('plain A2A card with provider, documentation and icon');
    card.provider = { organization: 'L'.repeat(cardLimits.nameChars + 5), url: 'http://127.0.0.1:8080/' };
    const dev = validateAgentCard(card, { allowLocalHttp: true });
    expect(dev.ok && dev.kind === 'a2a' ? dev.a2a.provider : undefined).toEqual({ organization: `${'L'.repeat(cardLimits.nameChars - 1)}…` });
    expect(codesOf(dev.problems)).toEqual(['card_link_not_https', 'provider_truncated']);
  });

  it('points agentRequests problems at the offending entry', () => {
    const result = validateAgentCard(byName('agentRequests not a subset of accepted'), { allowLocalHttp: false });
    expect(problemAt(result, 'agent_request_not_accepted')?.path).toBe('/capabilities/extensions/0/params/physicalObservations/agentRequests/1');
    const duplicate = validateAgentCard(byName('duplicate modality'), { allowLocalHttp: false });
    expect(problemAt(duplicate, 'modality_duplicate')?.path).toBe('/capabilities/extensions/0/params/physicalObservations/accepted/1');
  });

  it('bounds what a hostile card can make the UI show', () => {
    const card = byName('minimal valid websocket card');
    card.description = 'd'.repeat(100_000);
    card.skills = Array.from({ length: 40 }, (_, index) => ({ id: `s${index}`, name: 'n'.repeat(5_000), description: 'x'.repeat(50_000), tags: [] }));
    const result = validateAgentCard(card, { allowLocalHttp: false });
    if (!result.ok || result.kind !== 'agentcall') throw new Error(`expected a valid card, got ${JSON.stringify(result.problems)}`);
    expect(result.card.description.length).toBeLessThanOrEqual(cardLimits.descriptionChars);
    expect(result.card.skills).toHaveLength(cardLimits.skillsShown);
    expect(result.card.skills[0]!.name).toHaveLength(cardLimits.skillNameShown);
    expect(result.card.skills[0]!.name.endsWith('…')).toBe(true);
    expect(result.card.skills[0]!.description.length).toBeLessThanOrEqual(cardLimits.skillDescriptionShown);
    expect(codesOf(result.problems)).toEqual(['description_truncated', 'skills_truncated']);

    const broken = byName('minimal valid websocket card');
    broken.skills = Array.from({ length: 200 }, () => 'not a skill');
    const refused = validateAgentCard(broken, { allowLocalHttp: false });
    expect(refused.ok).toBe(false);
    expect(refused.problems).toHaveLength(cardLimits.problems);
  });

  it('does not treat a Talkie manifest or arbitrary JSON as an A2A card', () => {
    const talkie = { spec: 'talkie/1', issuer: 'https://x.example', serverId: 'x', name: 'X', auth: {}, endpoints: {}, capabilities: {} };
    expect(validateAgentCard(talkie, { allowLocalHttp: false })).toMatchObject({ ok: false, kind: 'unknown' });
    expect(validateAgentCard(null, { allowLocalHttp: false })).toMatchObject({ ok: false, kind: 'unknown', problems: [{ code: 'card_not_object', path: '' }] });
  });

  it('treats a bearer requirement with an anonymous alternative as optional', () => {
    const card = byName('bearer required, A2A 1.0 shape');
    (card.securityRequirements as unknown[]).push({ schemes: {} });
    const result = validateAgentCard(card, { allowLocalHttp: false });
    expect(result).toMatchObject({ ok: true, kind: 'agentcall', card: { bearerRequired: false } });
  });

  it('uses the protocol constants for both identifiers', () => {
    expect(JSON.stringify(byName('minimal valid websocket card'))).toContain(extensionUri);
    expect(JSON.stringify(byName('legacy identifier only'))).toContain(legacyExtensionUri);
  });
});

describe('agentCardUrlFor', () => {
  it.each([
    ['https://agent.example', 'https://agent.example/.well-known/agent-card.json'],
    ['https://agent.example/some/page?x=1#f', 'https://agent.example/.well-known/agent-card.json'],
    ['https://agent.example/cards/agent-card.json#top', 'https://agent.example/cards/agent-card.json'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/.well-known/agent-card.json'],
  ])('%s → %s', (address, expected) => {
    expect(agentCardUrlFor(address)).toBe(expected);
  });

  it('refuses what is not an http(s) URL', () => {
    expect(agentCardUrlFor('not a url')).toBeUndefined();
    expect(agentCardUrlFor('file:///etc/agent-card.json')).toBeUndefined();
  });
});
