import { ServiceError } from '../../shared/base/errors';

/** Opens a URL in the system browser: Electron's shell.openExternal, or xdg-open in the web shell. */
export type OpenExternal = (url: string) => Promise<void>;

/**
 * The only way a link leaves the app: https: URLs without credentials. It runs only as
 * `external.open`, which the contract marks `gesture`: the dispatcher has checked the click.
 */
export async function openExternalLink(url: string, openExternal: OpenExternal): Promise<void> {
  if (!URL.canParse(url)) throw new ServiceError('unsafe_url', 'That link is not a valid address.', '/url');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') {
    throw new ServiceError('unsafe_url', `Only https: links open in the browser, not ${parsed.protocol} links.`, '/url');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ServiceError('unsafe_url', 'Links with a user name or password in them are not opened.', '/url');
  }
  try {
    await openExternal(parsed.href);
  } catch {
    throw new ServiceError('no_browser', 'No web browser could be started to open the link.');
  }
}
