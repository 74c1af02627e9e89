import type { RefObject } from 'react';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import { ErrorText } from '../../components/ErrorText';
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
    <header className="chat-header">
      <div className="chat-header__band">
        <button type="button" className="button chat-header__back" onClick={onBack}>
          {t('chat.back')}
        </button>
        {logo !== undefined && view ? <img className="chat-header__logo" src={logo} alt={view.name} width={48} height={48} /> : null}
        <div className="chat-header__text">
          <h1 ref={headingRef} tabIndex={-1} className="chat-header__title">
            {title}
          </h1>
          {view?.description !== undefined ? <p className="chat-header__description">{view.description}</p> : null}
        </div>
        {canSignOut ? (
          <button type="button" className="button chat-header__action" disabled={signingOut} aria-busy={signingOut || undefined} onClick={onSignOut}>
            {t('chat.signOut')}
          </button>
        ) : null}
      </div>
      {signOutError ? (
        <p className="error-text chat-header__error" role="alert">
          {t('chat.signOutFailed')} <ErrorText error={signOutError} />
        </p>
      ) : null}
    </header>
  );
}
