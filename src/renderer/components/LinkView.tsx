import type { MouseEvent, ReactNode } from 'react';
import { safeLink } from '../../shared/talkie/content';
import { useI18n } from '../i18n/I18nProvider';
import { useChatEnvironment } from './ChatContext';
import { usePolicyView } from '../kiosk/policy-context';

/** What may be done with a URL the server sent (Talkie 1 §6/§7). */
export type LinkTarget = { kind: 'open'; href: string } | { kind: 'show'; href: string } | { kind: 'none' };

/**
 * https: links (external, or same-origin over https) open in the system browser on a click;
 * a same-origin link on a non-https server (development) is shown as text; anything else is no link.
 */
export function linkTarget(url: string | undefined, issuer: string): LinkTarget {
  const link = safeLink(url, issuer);
  if (!link) return { kind: 'none' };
  return new URL(link.href).protocol === 'https:' ? { kind: 'open', href: link.href } : { kind: 'show', href: link.href };
}

/**
 * A link from the server. It never navigates the page: a click (or Enter) calls external.open and
 * nothing opens by itself. `url` is untrusted: safeLink decides what it may become.
 */
export function LinkView({ url, children, className }: { url: string | undefined; children: ReactNode; className?: string }) {
  const { t } = useI18n();
  const { issuer, openLink } = useChatEnvironment();
  const { kiosk } = usePolicyView();
  const target = linkTarget(url, issuer);
  if (target.kind === 'none') return <span className="link-text">{children}</span>;
  if (kiosk) {
    // A kiosk opens no web pages: the address is shown, nothing more.
    return (
      <span className="link-text">
        {children} <span className="link-note">({target.href})</span>
      </span>
    );
  }
  if (target.kind === 'show') {
    return (
      <span className="link-text">
        {children} <span className="link-note">({t('chat.link.notOpened', { url: target.href })})</span>
      </span>
    );
  }
  const open = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    openLink(target.href);
  };
  return (
    <a
      href={target.href}
      className={className ?? 'link'}
      rel="noreferrer noopener"
      draggable={false}
      onClick={open}
      // A middle click would ask for a new window: never navigate, never open without the user's click.
      onAuxClick={(event) => event.preventDefault()}
    >
      {children}
      <span className="visually-hidden"> {t('chat.link.opensInBrowser')}</span>
    </a>
  );
}
