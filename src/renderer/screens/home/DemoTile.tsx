import { useId, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { ChatTarget } from '../../navigation';

/**
 * The built-in demo agent: main starts it on first use and the chosen side opens: the Talkie chat
 * (`demo.open`) or the AgentCall session with scans, photos and teaching (`demo.openAgentCall`).
 */
export function DemoTile({ api, onOpen }: { api: AgentDeskApi; onOpen: (target: ChatTarget) => void }) {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-heading`;
  const errorId = `${id}-error`;
  const [busy, setBusy] = useState<'talkie' | 'agentcall' | null>(null);
  const [error, setError] = useState<IpcError | null>(null);

  async function open(protocol: 'talkie' | 'agentcall') {
    if (busy) return;
    setBusy(protocol);
    setError(null);
    const result = await call(() => (protocol === 'talkie' ? api.demo.open() : api.demo.openAgentCall()));
    setBusy(null);
    if (result.ok) onOpen({ agentId: result.value.agentId, label: t(protocol === 'talkie' ? 'demo.title' : 'demo.agentCallTitle'), protocol });
    else setError(result.error);
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('demo.title')}
      </h2>
      <p>{t('demo.body')}</p>
      <p className="muted">{t('demo.note')}</p>
      <div className="button-row">
        <button
          type="button"
          className="button button--primary"
          aria-busy={busy === 'talkie' || undefined}
          aria-describedby={error ? errorId : undefined}
          onClick={() => void open('talkie')}
        >
          {busy === 'talkie' ? t('demo.opening') : t('demo.open')}
        </button>
        <button
          type="button"
          className="button button--secondary"
          aria-busy={busy === 'agentcall' || undefined}
          aria-describedby={error ? errorId : undefined}
          onClick={() => void open('agentcall')}
        >
          {busy === 'agentcall' ? t('demo.opening') : t('demo.openAgentCall')}
        </button>
      </div>
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
