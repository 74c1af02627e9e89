/**
 * A stand-in for the system browser in sign-in tests: plain fetch with redirect: 'manual' and a
 * cookie jar, following the authorization server's redirects (the demo AS logs in and consents
 * for its demo user by itself) until the redirect to AgentDesk's callback, which it returns.
 */
export async function browse(authorizationUrl: string): Promise<URL> {
  const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri') ?? '';
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    if (url.href.startsWith(redirectUri)) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(`the browser stopped at ${response.status} ${url.pathname}: ${body.slice(0, 300)}`);
    }
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
