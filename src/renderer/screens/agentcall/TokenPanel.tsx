import { useId, useState, type FormEvent } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorAlert, ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * The agent's card asks for a bearer token: the user pastes it (a password field), main keeps it in
 * the keychain (`agentcall.useToken`) and the screen connects again.
 */
export function TokenPanel({ api, agentId, name, reason, onSaved }: { api: AgentDeskApi; agentId: string; name: string; reason: IpcError; onSaved: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || token.trim() === '') return;
    setBusy(true);
    setError(undefined);
    const result = await call(() => api.agentcall.useToken({ agentId, token: token.trim() }));
    setBusy(false);
    if (!result.ok) return setError(result.error);
    setToken('');
    onSaved();
  }

  return (
    <section className="card gate" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        {t('agentcall.token.title', { name })}
      </h2>
      <p className="error-text">
        <ErrorText error={reason} />
      </p>
      <form className="gate__group token-form" noValidate onSubmit={(event) => void submit(event)}>
        <label htmlFor={`${id}-token`} className="field__label">
          {t('chat.signIn.tokenLabel')}
        </label>
        <p id={`${id}-hint`} className="field__hint">
          {t('agentcall.token.hint')}
        </p>
        <div className="add-form__row">
          <input
            id={`${id}-token`}
            type="password"
            className="input"
            autoComplete="off"
            spellCheck={false}
            value={token}
            readOnly={busy}
            aria-describedby={`${id}-hint`}
            onChange={(event) => setToken(event.target.value)}
          />
          <button type="submit" className="button button--primary" disabled={busy || token.trim() === ''} aria-busy={busy || undefined}>
            {t('agentcall.token.use')}
          </button>
        </div>
      </form>
      <div role="status" className="feedback">
        {busy ? <p className="muted">{t('agentcall.token.saving')}</p> : null}
      </div>
      <ErrorAlert error={error} />
    </section>
  );
}
