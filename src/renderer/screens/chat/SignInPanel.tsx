import { useId, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import { ErrorAlert, ErrorText, type ShownError } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { TokenField } from '../../components/TokenField';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * Sign-in (Talkie §2): through the system browser when the server offers OAuth; a pasted
 * development token when the server and the developer switch allow it.
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

  async function signIn() {
    if (busy) return;
    setBusy('browser');
    setError(undefined);
    const result = await call(() => api.talkie.signIn({ agentId: view.agentId }));
    setBusy(null);
    if (result.ok) onView(result.value);
    else setError(result.error);
  }

  async function saveToken(token: string): Promise<boolean> {
    if (busy) return false;
    setBusy('token');
    setError(undefined);
    const result = await call(() => api.talkie.useToken({ agentId: view.agentId, token }));
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
    <section className="card gate" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1} className="card__title">
        {t('chat.signIn.title', { name: view.name })}
      </h2>
      {reason ? (
        <p className="error-text">
          <ErrorText error={reason} />
        </p>
      ) : null}
      {view.tokenStorage.kind === 'memory' ? (
        <p className="gate__notice">{t('chat.signIn.memory', { reason: view.tokenStorage.reason ?? t('chat.signIn.memoryUnknown') })}</p>
      ) : null}
      {oauth ? (
        <div className="gate__group">
          <button type="button" className="button button--primary" disabled={busy !== null} aria-busy={busy === 'browser' || undefined} onClick={() => void signIn()}>
            {t('chat.signIn.browser')}
          </button>
          <div role="status" className="feedback">
            {busy === 'browser' ? <p className="muted">{t('chat.signIn.waiting')}</p> : null}
          </div>
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
