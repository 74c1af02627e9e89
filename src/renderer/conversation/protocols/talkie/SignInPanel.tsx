import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import type { ServerView } from '../../../../shared/talkie/ipc-schemas';
import { ErrorAlert, ErrorDetails, ErrorText, type ShownError } from '../../../components/ErrorText';
import { LinkOpenError } from '../../../components/LinkOpenError';
import { call } from '../../../hooks/useLiveResource';
import { TokenField } from '../../../components/TokenField';
import { useCopy } from '../../../components/CopyButton';
import { useI18n } from '../../../i18n/I18nProvider';

/**
 * Sign-in (Talkie 1 §2): through the system browser when the server offers OAuth; a pasted
 * development token when the server and the developer switch allow it. While the browser sign-in
 * waits, the link main opened is shown to copy or open again, with main's time limit and Cancel;
 * a browser that did not open says so.
 */
export function SignInPanel({
  api,
  view,
  reason,
  headingRef,
  onView,
}: {
  api: AgentDeskApi;
  view: ServerView;
  /** Why the user sees this again (for example "Sign in again to continue."). */
  reason: ShownError | undefined;
  headingRef: RefObject<HTMLHeadingElement | null>;
  onView: (view: ServerView) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-signin`;
  const [busy, setBusy] = useState<'browser' | 'token' | null>(null);
  const [error, setError] = useState<IpcError | undefined>();
  /** The waiting browser sign-in's link, as main reported it (`talkie.signInLink`). */
  const [link, setLink] = useState<{ url: string; timeoutMs: number; openError?: IpcError } | undefined>();
  const [openAgainError, setOpenAgainError] = useState<IpcError | undefined>();
  // The sign-in link's copy result stays in the panel's status line until the next copy.
  const { state: copied, copy: copyLink, reset: forgetCopy } = useCopy(null);
  const [cancelled, setCancelled] = useState(false);
  const cancelling = useRef(false);
  const panelRef = useRef<HTMLElement>(null);
  const { agentId } = view;

  useEffect(
    () =>
      api.talkie.onSignInLink((payload) => {
        if (payload.agentId !== agentId) return;
        setLink({
          url: payload.url,
          timeoutMs: payload.timeoutMs,
          ...(payload.openError === undefined ? {} : { openError: { code: 'no_browser', message: payload.openError } }),
        });
      }),
    [api, agentId],
  );

  async function signIn() {
    if (busy) return;
    focusNext.current = 'cancel';
    setBusy('browser');
    setError(undefined);
    setLink(undefined);
    setOpenAgainError(undefined);
    forgetCopy();
    setCancelled(false);
    cancelling.current = false;
    const result = await call(() => api.talkie.signIn({ agentId }));
    // Where focus was inside the panel (Cancel, the link's buttons), it returns to the sign-in button.
    focusNext.current = panelRef.current?.contains(document.activeElement) || document.activeElement === document.body ? 'browser' : null;
    setBusy(null);
    setLink(undefined);
    if (result.ok) onView(result.value);
    // The user's own Cancel is not an error.
    else if (cancelling.current) setCancelled(true);
    else setError(result.error);
  }

  // "Sign in with your browser" is disabled while it waits: focus goes to Cancel sign-in, and back to the
  // sign-in button when the wait ends (cancelled, failed), never to <body>.
  const browserButtonRef = useRef<HTMLButtonElement>(null);
  const cancelButtonRef = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<'cancel' | 'browser' | null>(null);
  useEffect(() => {
    const target = focusNext.current;
    if (target === null) return;
    if (target === 'cancel' && busy === 'browser') cancelButtonRef.current?.focus();
    else if (target === 'browser' && busy === null) browserButtonRef.current?.focus();
    else return;
    focusNext.current = null;
  }, [busy]);

  function cancelSignIn() {
    cancelling.current = true;
    void call(() => api.talkie.cancelSignIn({ agentId }));
  }

  function openAgain() {
    setOpenAgainError(undefined);
    void call(() => api.talkie.openSignInLink({ agentId })).then((result) => {
      if (!result.ok) setOpenAgainError(result.error);
    });
  }

  async function saveToken(token: string): Promise<boolean> {
    if (busy) return false;
    setBusy('token');
    setError(undefined);
    const result = await call(() => api.talkie.useToken({ agentId, token }));
    setBusy(null);
    if (!result.ok) {
      setError(result.error);
      return false;
    }
    onView(result.value);
    return true;
  }

  const { oauth, pastedToken, tokenHint } = view.signIn;
  return (
    <section ref={panelRef} className="card gate" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1} className="card__title">
        {t('chat.signIn.title', { name: view.name })}
      </h2>
      {reason ? (
        <p className="error-text">
          <ErrorText error={reason} />
        </p>
      ) : null}
      {view.tokenStorage.kind === 'memory' ? (
        <p className="gate__notice">
          {t('chat.signIn.memory')}
          {view.tokenStorage.reason !== undefined ? (
            <>
              {' '}
              <ErrorDetails detail={view.tokenStorage.reason} />
            </>
          ) : null}
        </p>
      ) : null}
      {oauth ? (
        <div className="gate__group">
          <button
            ref={browserButtonRef}
            type="button"
            className="button button--primary"
            disabled={busy !== null}
            aria-busy={busy === 'browser' || undefined}
            onClick={() => void signIn()}
          >
            {t('chat.signIn.browser')}
          </button>
          <div role="status" className="feedback">
            {busy === 'browser' ? <p className="muted">{t('chat.signIn.waiting')}</p> : null}
            {cancelled ? <p className="muted">{t('chat.signIn.cancelled')}</p> : null}
            {copied !== 'idle' ? <p className="muted">{t(copied === 'copied' ? 'chat.signIn.copied' : 'chat.signIn.copyFailed')}</p> : null}
          </div>
          {busy === 'browser' ? (
            <div className="gate__group">
              {link ? (
                <>
                  {link.openError ? (
                    <div className="inline-error" role="alert">
                      <p className="error-text">
                        {t('chat.signIn.browserNotOpened')} <ErrorText error={link.openError} />
                      </p>
                    </div>
                  ) : null}
                  <label htmlFor={`${id}-link`} className="field__label">
                    {t('chat.signIn.linkLabel')}
                  </label>
                  <p id={`${id}-link-hint`} className="field__hint">
                    {t('chat.signIn.linkHint', { minutes: String(Math.round(link.timeoutMs / 60_000)) })}
                  </p>
                  <input
                    id={`${id}-link`}
                    className="input"
                    readOnly
                    value={link.url}
                    aria-describedby={`${id}-link-hint`}
                    onFocus={(event) => event.target.select()}
                  />
                  <div className="button-row">
                    <button type="button" className="button button--secondary" onClick={() => copyLink(link.url)}>
                      {t('chat.signIn.copy')}
                    </button>
                    <button type="button" className="button button--secondary" onClick={openAgain}>
                      {t('chat.signIn.openAgain')}
                    </button>
                  </div>
                  <LinkOpenError error={openAgainError} />
                </>
              ) : null}
              <div className="button-row">
                <button ref={cancelButtonRef} type="button" className="button button--secondary" onClick={cancelSignIn}>
                  {t('chat.signIn.cancel')}
                </button>
              </div>
            </div>
          ) : null}
        </div>
      ) : null}
      {pastedToken ? (
        <TokenField
          className="gate__group token-form"
          label={t('chat.signIn.tokenLabel')}
          hint={tokenHint !== undefined ? t('chat.signIn.tokenHintFromServer', { hint: tokenHint }) : t('chat.signIn.tokenHint')}
          saveLabel={t('chat.signIn.useToken')}
          primary={false}
          busy={busy === 'token'}
          disabled={busy !== null}
          onSave={saveToken}
        />
      ) : null}
      {!oauth && !pastedToken ? <p>{t('chat.signIn.none')}</p> : null}
      <ErrorAlert error={error} />
    </section>
  );
}
