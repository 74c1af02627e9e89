import { useId, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import { ErrorText } from '../../../components/ErrorText';
import { TokenField } from '../../../components/TokenField';
import { call } from '../../../hooks/useLiveResource';
import { useI18n } from '../../../i18n/I18nProvider';

/**
 * The agent's card asks for a bearer token: the user pastes it (a password field), main keeps it in
 * the keychain (`agentcall.useToken`) and the screen connects again.
 */
export function TokenPanel({
  api,
  agentId,
  name,
  reason,
  onSaved,
}: {
  api: AgentDeskApi;
  agentId: string;
  name: string;
  reason: IpcError;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();

  async function save(token: string): Promise<boolean> {
    setBusy(true);
    setError(undefined);
    const result = await call(() => api.agentcall.useToken({ agentId, token }));
    setBusy(false);
    if (!result.ok) {
      setError(result.error);
      return false;
    }
    onSaved();
    return true;
  }

  return (
    <section className="card gate" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        {t('agentcall.token.title', { name })}
      </h2>
      <p className="error-text">
        <ErrorText error={reason} />
      </p>
      <TokenField
        className="gate__group token-form"
        label={t('chat.signIn.tokenLabel')}
        hint={t('agentcall.token.hint')}
        saveLabel={t('agentcall.token.use')}
        busy={busy}
        onSave={save}
        error={error}
      />
      <div role="status" className="feedback">
        {busy ? <p className="muted">{t('agentcall.token.saving')}</p> : null}
      </div>
    </section>
  );
}
