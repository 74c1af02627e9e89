import type { RefObject } from 'react';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import { AgentHeader } from '../../components/AgentHeader';
import { useI18n } from '../../i18n/I18nProvider';

/** The server's band: Back, logo, name (the screen's heading), description and Sign out. */
export function ChatHeader({
  headingRef,
  title,
  view,
  canSignOut,
  signingOut,
  signOutError,
  onBack,
  onSignOut,
}: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  title: string;
  view: ServerView | undefined;
  canSignOut: boolean;
  signingOut: boolean;
  signOutError: IpcError | undefined;
  onBack: () => void;
  onSignOut: () => void;
}) {
  const { t } = useI18n();
  // Main re-encodes the logo as a PNG data URL; anything else is not shown.
  const logo = view?.logo !== undefined && view.logo.startsWith('data:image/png;base64,') ? view.logo : undefined;
  return (
    <AgentHeader
      headingRef={headingRef}
      title={title}
      onBack={onBack}
      logo={logo !== undefined && view ? <img className="chat-header__logo" src={logo} alt={view.name} width={48} height={48} /> : null}
      subtitle={view?.description !== undefined ? <p className="chat-header__description" title={view.description}>{view.description}</p> : null}
      action={canSignOut ? { label: t('chat.signOut'), busy: signingOut, onClick: onSignOut } : undefined}
      failure={signOutError ? { summary: t('chat.signOutFailed'), error: signOutError } : undefined}
    />
  );
}
