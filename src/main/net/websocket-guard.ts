import { checkUrl, resolveCheckedAddress, type CheckedAddress, type NetPolicy } from './address-policy';
import { formatDuration, NetError } from './net-error';

export { pinnedLookup, type CheckedAddress } from './address-policy';

/** How long resolving the host may take (the same as guardedRequest's default connect timeout). */
const resolveTimeoutMs = 10_000;

/**
 * The same scheme, DNS and IP checks as guardedRequest, for a WebSocket URL: wss:// follows the https://
 * rules, ws:// the http:// rules (only under allowLocalHttp, only to local development hosts). http(s)://
 * URLs are accepted too. Returns the checked address; connect to exactly that one, for example with
 * `new WebSocket(url, { lookup: pinnedLookup(url.hostname, checked), followRedirects: false })`.
 */
export async function resolveGuardedAddress(url: URL, policy: NetPolicy): Promise<CheckedAddress> {
  const asHttp = new URL(url.href);
  if (url.protocol === 'wss:') asHttp.protocol = 'https:';
  else if (url.protocol === 'ws:') asHttp.protocol = 'http:';
  else if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new NetError('invalid_url', `Only wss:// addresses are supported, not ${url.protocol}//.`);
  }
  const labels = url.protocol === 'ws:' || url.protocol === 'wss:' ? { secure: 'wss', plain: 'ws' } : undefined;
  checkUrl(asHttp, policy, labels);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new NetError('connect_timeout', `Could not connect to ${url.host}: resolving the name took longer than ${formatDuration(resolveTimeoutMs)}.`)),
      resolveTimeoutMs,
    );
  });
  try {
    return await Promise.race([resolveCheckedAddress(asHttp, policy), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
