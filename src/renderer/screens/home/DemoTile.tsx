import { useId, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { ChatTarget } from '../../navigation';

/** The built-in demo agent: main starts it on first use (`demo.open`) and the chat opens on it. */
export function DemoTile({ api, onOpen }: { api: AgentDeskApi; onOpen: (target: ChatTarget) => void }) {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-heading`;
  const errorId = `${id}-error`;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);

  async function open() {
    if (busy) return;
    setBusy(true);
    setError(null);
    const result = await call(() => api.demo.open());
    setBusy(false);
    if (result.ok) onOpen({ agentId: result.value.agentId, label: t('demo.title') });
    else setError(result.error);
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('demo.title')}
      </h2>
      <p>{t('demo.body')}</p>
      <p className="muted">{t('demo.note')}</p>
      <button
        type="button"
        className="button button--primary"
        aria-busy={busy || undefined}
        aria-describedby={error ? errorId : undefined}
        onClick={() => void open()}
      >
        {busy ? t('demo.opening') : t('demo.open')}
      </button>
      <div role="status" className="feedback">
        {error ? (
          <p id={errorId} className="error-text">
            {t('demo.failed')} <ErrorText error={error} />
          </p>
        ) : null}
      </div>
    </section>
  );
}
