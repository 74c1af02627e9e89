import { describe, expect, it } from 'vitest';
import { endpointUrl, manifestUrlFor, validateManifest } from '../../../../src/shared/talkie/manifest';

const base = {
  spec: 'talkie/1',
  issuer: 'https://crm.example.com',
  serverId: 'crm.example.com',
  name: 'Example CRM',
  brand: { logo: '/talkie/logo.png', accent: '#0B7A75' },
  auth: { oauth: { issuer: 'https://crm.example.com/oauth', scopes: ['talkie', 'offline_access'] }, token: { hint: 'Settings' } },
  endpoints: {
    status: '/api/talkie/status',
    run: '/api/talkie/run',
    threads: '/api/talkie/threads',
    thread: '/api/talkie/threads/{threadId}',
    cancelRun: '/api/talkie/runs/{runId}/cancel',
  },
  limits: { maxMessageChars: 4000 },
  futureField: { anything: true },
};
const from = 'https://crm.example.com/.well-known/talkie.json';

function codes(json: unknown, fetchedFrom = from): string[] {
  return validateManifest(json, fetchedFrom).problems.map((problem) => problem.code);
}

describe('validateManifest (Talkie 1 §1)', () => {
  it('accepts the spec example, ignoring unknown fields and normalizing the accent', () => {
    const result = validateManifest(base, from);
    expect(result).toMatchObject({ ok: true, problems: [] });
    if (!result.ok) return;
    expect(result.manifest).toMatchObject({
      serverId: 'crm.example.com',
      accent: '#0b7a75',
      logo: 'https://crm.example.com/talkie/logo.png',
      maxMessageChars: 4000,
      testMode: false,
    });
    expect(result.manifest).not.toHaveProperty('futureField');
  });

  it('refuses other major versions with a clear message', () => {
    const result = validateManifest({ ...base, spec: 'talkie/2' }, from);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ code: 'spec_unsupported', path: '/spec', message: expect.stringContaining('Talkie 2') });
  });

  it('refuses a manifest whose issuer is not the origin it came from', () => {
    expect(codes(base, 'https://evil.example/.well-known/talkie.json')).toContain('issuer_mismatch');
    expect(codes({ ...base, issuer: 'https://crm.example.com/path' })).toContain('issuer_invalid');
    expect(validateManifest(base, 'https://evil.example/.well-known/talkie.json').ok).toBe(false);
  });

  it('notes cross-origin endpoints for the user to accept, and rejects non-https absolute ones', () => {
    const result = validateManifest(
      { ...base, endpoints: { ...base.endpoints, status: 'https://api.other.example/status', threads: 'http://plain.example/t' } },
      from,
    );
    expect(result.problems.map((p) => p.code)).toEqual(['endpoint_invalid', 'endpoint_missing']);
    const ok = validateManifest({ ...base, endpoints: { ...base.endpoints, status: 'https://api.other.example/status' } }, from);
    expect(ok.ok && ok.manifest.crossOriginEndpoints).toEqual([{ name: 'status', url: 'https://api.other.example/status' }]);
  });

  it('uses the default accent for a bad colour and drops an unsafe logo, with notes', () => {
    const result = validateManifest({ ...base, brand: { accent: 'red', logo: 'javascript:alert(1)' } }, from);
    expect(result.ok && result.manifest.accent).toBe('#0b7a75');
    expect(result.ok && result.manifest.logo).toBeUndefined();
    expect(result.problems.map((p) => p.code)).toEqual(['accent_invalid', 'logo_invalid']);
  });

  it('reports shape errors with a JSON pointer', () => {
    expect(validateManifest({ ...base, serverId: 42 }, from).problems[0]).toMatchObject({ code: 'manifest_invalid', path: '/serverId' });
    expect(validateManifest('not an object', from).ok).toBe(false);
  });

  it('notes a manifest without OAuth (required by the spec) but keeps it usable for development tokens', () => {
    const result = validateManifest({ ...base, auth: { token: {} } }, from);
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => p.code)).toEqual(['auth_oauth_missing']);
  });
});

describe('endpointUrl', () => {
  const manifest = { issuer: 'https://crm.example.com', endpoints: { thread: '/api/talkie/threads/{threadId}', cancelRun: '/api/talkie/runs/{runId}/cancel' } };

  it('resolves against the issuer origin and encodes placeholders as one path segment', () => {
    expect(endpointUrl(manifest, 'thread', { threadId: 't_1' })).toBe('https://crm.example.com/api/talkie/threads/t_1');
    expect(endpointUrl(manifest, 'thread', { threadId: '../../admin?x=1#y' })).toBe('https://crm.example.com/api/talkie/threads/..%2F..%2Fadmin%3Fx%3D1%23y');
    expect(endpointUrl(manifest, 'status')).toBeUndefined();
    expect(() => endpointUrl(manifest, 'cancelRun')).toThrow(/runId/);
  });

  // Found by `npm run fuzz` (talkie.manifest): an id with a lone surrogate made encodeURIComponent
  // throw a bare URIError (reported as "failed unexpectedly"); it is a clear invalid_request now.
  it('fills a placeholder only from the params given, never from Object.prototype', () => {
    const odd = { issuer: 'https://crm.example.com', endpoints: { thread: '/api/talkie/threads/{toString}' } };
    expect(() => endpointUrl(odd, 'thread', { threadId: 't_1' })).toThrow(/needs \{toString\}/);
  });

  it('refuses an id that is not well-formed text with invalid_request', () => {
    expect(() => endpointUrl(manifest, 'thread', { threadId: 't\ud800' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('threadId') }),
    );
    expect(endpointUrl(manifest, 'thread', { threadId: 'emoji 😀' })).toBe('https://crm.example.com/api/talkie/threads/emoji%20%F0%9F%98%80');
  });
});

describe('manifestUrlFor', () => {
  it('uses the well-known path for a host and keeps a full manifest URL', () => {
    expect(manifestUrlFor('https://crm.example.com/')).toBe('https://crm.example.com/.well-known/talkie.json');
    expect(manifestUrlFor('https://host.example/custom/talkie.json')).toBe('https://host.example/custom/talkie.json');
  });
});
