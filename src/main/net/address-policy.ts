import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, isIPv6, type LookupFunction } from 'node:net';
import { isLocalDevelopmentHost, parseIPv4 } from '../../shared/agents/address';
import { describeUrl, NetError } from './net-error';

/**
 * Which URLs and addresses main may connect to. Shared by guardedRequest (HTTP) and
 * resolveGuardedAddress (WebSocket), so every protocol applies the same rules.
 */
export interface NetPolicy {
  /** The development setting: http:// and private/loopback addresses for localhost, 127.0.0.1 and private LAN hosts. */
  allowLocalHttp: boolean;
  /** Exact host names (lowercase, no port) allowed to resolve to private/loopback addresses even without allowLocalHttp. */
  allowedPrivateHosts?: readonly string[];
  /** Injected resolver for tests (default: dns.promises.lookup with {all:true}). */
  lookup?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
}

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

/** An address that passed the policy: the only address the connection may use. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

const describeClass: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address on this computer',
  private: 'a private network address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address, which is never allowed',
  unspecified: 'an unspecified address, which is never allowed',
  multicast: 'a multicast address, which is never allowed',
  reserved: 'a reserved address, which is never allowed',
};

/**
 * Classifies an IP literal (IPv4 or IPv6, with or without [brackets] or a %zone).
 * Anything that is not an IP literal is 'reserved', so it can never pass as public.
 */
export function classifyAddress(ip: string): AddressClass {
  const text = ip.replace(/^\[|\]$/g, '');
  const v4 = parseIPv4(text);
  if (v4) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6) return classifyIPv6(v6);
  return 'reserved';
}

function classifyIPv4([a, b, c, d]: readonly [number, number, number, number]): AddressClass {
  if (a === 0) return b === 0 && c === 0 && d === 0 ? 'unspecified' : 'reserved'; // 0.0.0.0/8 "this network"
  if (a === 127) return 'loopback';
  if (a === 10) return 'private';
  if (a === 100 && b >= 64 && b <= 127) {
    return b === 100 && c === 100 && d === 200 ? 'metadata' : 'private'; // 100.64.0.0/10 CGNAT; Alibaba Cloud metadata
  }
  if (a === 169 && b === 254) {
    if ((c === 169 && d === 254) || (c === 170 && d === 2)) return 'metadata'; // cloud / ECS task metadata
    return 'link_local';
  }
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 192 && b === 0 && c === 0) return d === 192 ? 'metadata' : 'reserved'; // 192.0.0.0/24; Oracle Cloud metadata
  if (a === 192 && b === 0 && c === 2) return 'reserved'; // TEST-NET-1
  if (a === 192 && b === 88 && c === 99) return 'reserved'; // 6to4 relay anycast (deprecated)
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if (a === 198 && b === 51 && c === 100) return 'reserved'; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return 'reserved'; // TEST-NET-3
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved'; // 240.0.0.0/4 and the broadcast address
  return 'public';
}

function classifyIPv6(g: readonly number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (): [number, number, number, number] => [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0 && g6 === 0) {
    if (g7 === 0) return 'unspecified';
    if (g7 === 1) return 'loopback';
  }
  if (firstFiveZero && g5 === 0xffff) return classifyIPv4(embedded()); // ::ffff:a.b.c.d mapped
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return classifyIPv4(embedded()); // ::ffff:0:a.b.c.d translated
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIPv4(embedded()); // NAT64 64:ff9b::/96
  if (g0 < 0x100) return 'reserved'; // ::/8: IPv4-compatible (deprecated), discard-only 100::/64, …
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) return 'metadata'; // AWS IMDS over IPv6
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // site-local fec0::/10 (deprecated)
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2002) {
    // 6to4: the IPv4 address is in bits 16–47; only a public one makes sense.
    return classifyIPv4([g1 >> 8, g1 & 0xff, g2 >> 8, g2 & 0xff]) === 'public' ? 'public' : 'reserved';
  }
  if (g0 === 0x2001 && g1 < 0x200) return 'reserved'; // 2001::/23 IETF protocol assignments (Teredo, …)
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation
  if (g0 === 0x3fff && g1 < 0x1000) return 'reserved'; // 3fff::/20 documentation
  if ((g0 & 0xe000) !== 0x2000) return 'reserved'; // outside global unicast 2000::/3
  return 'public';
}

/** Eight 16-bit groups, or undefined when `text` is not an IPv6 literal. A %zone suffix is ignored. */
export function parseIPv6(input: string): number[] | undefined {
  const zone = input.indexOf('%');
  const text = zone >= 0 ? input.slice(0, zone) : input;
  if (!isIPv6(text)) return undefined;
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const octets = parseIPv4(last);
    if (!octets) return undefined;
    tail = [(octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]];
    head = text.slice(0, lastColon);
    if (head.endsWith(':')) head += ':';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const left = groups(halves[0]);
  const right = groups(halves[1]);
  const missing = 8 - tail.length - left.length - right.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const all = [...left, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right, ...tail];
  if (all.length !== 8 || all.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff)) return undefined;
  return all;
}

/** The URL's host name in lowercase, without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

/**
 * Scheme rules, before any DNS: https is always fine; http only under allowLocalHttp and only to a local
 * development host (localhost, 127.0.0.1, private LAN IP literals). `url` must use http: or https:.
 */
export function checkUrl(url: URL, policy: NetPolicy, labels: { secure: string; plain: string } = { secure: 'https', plain: 'http' }): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new NetError('invalid_url', `Only ${labels.secure}:// addresses are supported, not ${url.protocol}//.`);
  }
  const host = bareHost(url);
  if (host === '') throw new NetError('invalid_url', 'The address has no host name.');
  if (url.username !== '' || url.password !== '') {
    throw new NetError(
      'invalid_url',
      `The address of ${url.host} contains a user name or password; AgentDesk never sends those in an address.`,
      describeUrl(url),
    );
  }
  if (url.protocol === 'http:') {
    if (!policy.allowLocalHttp) {
      throw new NetError(
        'insecure_scheme',
        `Unencrypted ${labels.plain}:// to ${url.host} is only allowed for development. Use ${labels.secure}://, or turn on the development setting for this computer and the local network.`,
        describeUrl(url),
      );
    }
    if (!isLocalDevelopmentHost(host)) {
      throw new NetError(
        'insecure_scheme',
        `${labels.plain}:// is only allowed to localhost, 127.0.0.1 and private network addresses, not ${url.host}.`,
        describeUrl(url),
      );
    }
  }
}

/**
 * Resolves the URL's host once, checks every address it resolves to, and returns the first one (the one
 * to connect to). IP literals are classified directly. Call checkUrl first.
 */
export async function resolveCheckedAddress(url: URL, policy: NetPolicy): Promise<CheckedAddress> {
  const [first] = await resolveCheckedAddresses(url, policy);
  if (!first) throw new NetError('dns_failed', `Could not find ${url.host}: the name has no addresses.`, describeUrl(url));
  return first;
}

/**
 * Like resolveCheckedAddress, but returns every address (all checked, in resolver order, never empty), so
 * a connection may fall back from one family to the other (happy eyeballs) without leaving the checked set.
 */
export async function resolveCheckedAddresses(url: URL, policy: NetPolicy): Promise<CheckedAddress[]> {
  const host = bareHost(url);
  const literal = isIP(host);
  let addresses: { address: string; family: 4 | 6 }[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    addresses = await resolve(url, host, policy);
  }
  if (addresses.length === 0) throw new NetError('dns_failed', `Could not find ${url.host}: the name has no addresses.`, describeUrl(url));
  for (const { address } of addresses) checkAddress(url, host, address, literal !== 0, policy);
  return addresses.map(({ address, family }) => ({ address, family }));
}

async function resolve(url: URL, host: string, policy: NetPolicy): Promise<{ address: string; family: 4 | 6 }[]> {
  try {
    const lookup = policy.lookup ?? defaultLookup;
    const answers = await lookup(host);
    if (answers.length === 0) throw new NetError('dns_failed', `Could not find ${url.host}: the name has no addresses.`, describeUrl(url));
    return answers.map(({ address, family }) => ({ address, family: family === 6 || isIP(address) === 6 ? 6 : 4 }));
  } catch (error) {
    if (error instanceof NetError) throw error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason = code === 'ENOTFOUND' || code === 'ENODATA' ? 'the name does not exist' : 'the name could not be resolved';
    throw new NetError('dns_failed', `Could not find ${url.host}: ${reason}${code ? ` (${code})` : ''}.`, describeUrl(url), { cause: error });
  }
}

async function defaultLookup(hostname: string): Promise<{ address: string; family: 4 | 6 }[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function checkAddress(url: URL, host: string, address: string, literal: boolean, policy: NetPolicy): void {
  const kind = classifyAddress(address);
  const where = literal ? 'it is' : `it resolves to ${address},`;
  if (url.protocol === 'http:' && kind === 'public') {
    // http:// is for this computer and the local network; a "local" name that leads to the internet is not.
    throw new NetError(
      'insecure_scheme',
      `Unencrypted http:// is only allowed to this computer and the local network, but ${url.host} resolves to the public address ${address}.`,
      describeUrl(url),
    );
  }
  if (kind === 'public') return;
  if (kind === 'loopback' || kind === 'private' || kind === 'link_local') {
    const allowedHosts = (policy.allowedPrivateHosts ?? []).map((name) => name.toLowerCase().replace(/^\[|\]$/g, ''));
    if (allowedHosts.includes(host)) return;
    if (policy.allowLocalHttp && (literal || isLocalDevelopmentHost(host))) return;
    const fix = policy.allowLocalHttp ? '' : ' Local addresses are only allowed with the development setting.';
    throw new NetError('blocked_address', `Refused to connect to ${url.host}: ${where} ${describeClass[kind]}.${fix}`, describeUrl(url));
  }
  throw new NetError('blocked_address', `Refused to connect to ${url.host}: ${where} ${describeClass[kind]}.`, describeUrl(url));
}

/**
 * A `lookup` for net/tls/http/ws options that answers only with the checked address(es), so the connection
 * goes where the policy looked (a rebinding DNS server cannot swap it between check and connect). With a
 * list, Node's happy eyeballs (`all: true` lookups) may try each of them; otherwise the first is used.
 */
export function pinnedLookup(hostname: string, checked: CheckedAddress | readonly CheckedAddress[]): LookupFunction {
  const expected = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const list = (Array.isArray(checked) ? checked : [checked]) as readonly CheckedAddress[];
  const first = list[0];
  if (!first) throw new TypeError('pinnedLookup needs at least one checked address.');
  return (name, options, callback) => {
    process.nextTick(() => {
      if (name.toLowerCase().replace(/^\[|\]$/g, '') !== expected) {
        const error: NodeJS.ErrnoException = new Error(`${name} was not checked by the network policy`);
        error.code = 'ENOTFOUND';
        callback(error, '', 4);
      } else if (options.all) {
        callback(
          null,
          list.map(({ address, family }) => ({ address, family })),
        );
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}
