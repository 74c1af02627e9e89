import { describe, expect, it } from 'vitest';
import { isLocalDevelopmentHost, normalizeAgentAddress } from '../../../src/shared/agents/address';
import type { ServiceError } from '../../../src/shared/base/errors';

const production = { allowLocalHttp: false };
const development = { allowLocalHttp: true };

function errorOf(input: string, options = production): ServiceError {
  try {
    normalizeAgentAddress(input, options);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error(`"${input}" was accepted`);
}

describe('normalizeAgentAddress', () => {
  it.each([
    ['crm.example.com', 'https://crm.example.com/', 'crm.example.com'],
    ['  CRM.Example.com  ', 'https://crm.example.com/', 'crm.example.com'],
    ['https://crm.example.com:8443', 'https://crm.example.com:8443/', 'crm.example.com:8443'],
    ['https://host.example/.well-known/talkie.json#x', 'https://host.example/.well-known/talkie.json', 'host.example/.well-known/talkie.json'],
  ])('%s → %s', (input, url, display) => {
    expect(normalizeAgentAddress(input, production)).toMatchObject({ url, display });
  });

  it('refuses empty, spaced, non-web and credential-bearing addresses with a clear message', () => {
    expect(errorOf('   ')).toMatchObject({ code: 'invalid_address', message: expect.stringContaining('for example') });
    expect(errorOf('crm example.com')).toMatchObject({ code: 'invalid_address', message: expect.stringContaining('spaces') });
    expect(errorOf('ftp://example.com')).toMatchObject({ code: 'invalid_address', message: expect.stringContaining('ftp:') });
    expect(errorOf('https://user:pw@example.com')).toMatchObject({ code: 'invalid_address', message: expect.stringContaining('password') });
    expect(errorOf('x'.repeat(3000))).toMatchObject({ code: 'invalid_address' });
  });

  it('allows http:// only under the development setting and only to local hosts', () => {
    expect(errorOf('http://127.0.0.1:8080')).toMatchObject({ code: 'insecure_scheme', message: expect.stringContaining('Settings') });
    expect(normalizeAgentAddress('http://127.0.0.1:8080', development).origin).toBe('http://127.0.0.1:8080');
    expect(normalizeAgentAddress('http://192.168.1.20', development).origin).toBe('http://192.168.1.20');
    expect(errorOf('http://example.com', development)).toMatchObject({ code: 'insecure_scheme', message: expect.stringContaining('example.com') });
  });
});

describe('isLocalDevelopmentHost', () => {
  it.each([
    ['localhost', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.0.1', true],
    ['[::1]', true],
    ['fd12:3456::1', true],
    ['172.32.0.1', false],
    ['11.0.0.1', false],
    ['192.169.0.1', false],
    ['example.com', false],
    ['localhost.example.com', false],
    ['256.0.0.1', false],
    ['8.8.8.8', false],
  ])('%s → %s', (host, expected) => {
    expect(isLocalDevelopmentHost(host)).toBe(expected);
  });
});

describe('addresses that cannot be an agent (#15)', () => {
  it('refuses a bare word and a name under .invalid, with the reason', () => {
    const refused = (input: string) => {
      try {
        normalizeAgentAddress(input, { allowLocalHttp: false });
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(refused('hello')).toBe('"hello" is not an address: an agent\'s address has a dot in it, for example crm.example.com.');
    expect(refused('unreachable.invalid')).toBe('unreachable.invalid does not resolve: names ending in .invalid never point to a computer.');
    expect(refused('https://agents.invalid/')).toMatch(/does not resolve/);
    // Still addresses: an explicit scheme with an intranet name, localhost, an IP.
    expect(refused('https://intranet/')).toBeUndefined();
    expect(refused('localhost:8443')).toBeUndefined();
    expect(refused('10.0.0.7')).toBeUndefined();
  });
});
