import { ServiceError } from '../base/errors';

/**
 * Turns what a user types into "Add an agent" (`crm.example.com`, `https://host/path/manifest.json`,
 * `http://127.0.0.1:8080` under the development setting) into one normalized URL, or a clear error.
 * This is syntax only: DNS, redirects and what the server answers are checked by main's network layer.
 */
export interface NormalizedAddress {
  /** The normalized URL, without credentials or fragment. */
  url: string;
  /** scheme://host[:port] */
  origin: string;
  /** What to show the user: host[:port] plus the path when it is not `/`. */
  display: string;
}

export const maxAddressLength = 2048;

export function normalizeAgentAddress(input: string, options: { allowLocalHttp: boolean }): NormalizedAddress {
  const text = input.trim();
  if (text.length === 0) {
    throw new ServiceError('invalid_address', "Type the agent's address, for example crm.example.com.");
  }
  if (text.length > maxAddressLength) {
    throw new ServiceError('invalid_address', `The address is longer than ${maxAddressLength} characters.`);
  }
  if (/\s/.test(text)) {
    throw new ServiceError('invalid_address', 'An address cannot contain spaces.');
  }
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  const candidate = hasScheme ? text : `https://${text}`;
  if (!URL.canParse(candidate)) {
    throw new ServiceError('invalid_address', `"${truncate(text)}" is not a valid address.`);
  }
  const url = new URL(candidate);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceError('invalid_address', `Only https:// addresses are supported, not ${url.protocol}//.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ServiceError('invalid_address', 'Remove the user name and password from the address; AgentDesk signs in separately.');
  }
  if (url.hostname === '') {
    throw new ServiceError('invalid_address', 'The address has no host name.');
  }
  // A bare word typed without a scheme ("hello") is not an address; an explicit https://intranet still is.
  if (!hasScheme && !url.hostname.includes('.') && !url.hostname.includes(':') && url.hostname !== 'localhost' && !url.hostname.startsWith('[')) {
    throw new ServiceError(
      'invalid_address',
      `"${truncate(text)}" is not an address: an agent's address has a dot in it, for example crm.example.com.`,
      '/address',
    );
  }
  // RFC 6761 §6.4: names under .invalid never resolve.
  if (/(^|\.)invalid\.?$/i.test(url.hostname)) {
    throw new ServiceError('invalid_address', `${url.hostname} does not resolve: names ending in .invalid never point to a computer.`, '/address');
  }
  if (url.protocol === 'http:') {
    if (!options.allowLocalHttp) {
      throw new ServiceError(
        'insecure_scheme',
        'Unencrypted http:// is only allowed for development. Use https://, or turn on Settings → Developer → Allow http:// to this computer and the local network.',
      );
    }
    if (!isLocalDevelopmentHost(url.hostname)) {
      throw new ServiceError('insecure_scheme', `http:// is only allowed to localhost, 127.0.0.1 and private network addresses, not ${url.hostname}.`);
    }
  }
  url.hash = '';
  const path = url.pathname === '/' && url.search === '' ? '' : `${url.pathname}${url.search}`;
  return { url: url.href, origin: url.origin, display: `${url.host}${path}` };
}

/** localhost, loopback and private-range IP literals: where the development setting allows http://. */
export function isLocalDevelopmentHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1') return true;
  if (/^f[cd][0-9a-f]{2}:/.test(host)) return true; // IPv6 unique local fc00::/7
  const octets = parseIPv4(host);
  if (!octets) return false;
  const [a, b] = octets;
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

export function parseIPv4(host: string): [number, number, number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  if (parts.some((part) => part > 255)) return undefined;
  return parts as [number, number, number, number];
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
