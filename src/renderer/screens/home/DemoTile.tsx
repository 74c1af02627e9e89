import { useId, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import type { ChatTarget } from '../../navigation';

export type DemoSide = 'talkie' | 'agentcall' | 'agui';
type Side = DemoSide;

export const demoTitles = { talkie: 'demo.title', agentcall: 'demo.agentCallTitle', agui: 'demo.watchTitle' } as const satisfies Record<Side, MessageKey>;

/**
 * The built-in demo agent: main starts it on first use and the chosen side opens: the Talkie chat
 * (`demo.open`), the AgentCall session with scans, photos and teaching (`demo.openAgentCall`), or a
 * plain AG-UI run with reasoning, steps, a tool call and a confirmation to answer (`demo.openAgui`).
 * Each is named for what the user does there (chat, scan and teach, watch an agent work), not by its protocol.
 */
export function DemoTile({ api, onOpen }: { api: AgentDeskApi; onOpen: (target: ChatTarget) => void }) {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-heading`;
  const errorId = `${id}-error`;
  const { busy, error, open } = useDemoOpener(api, onOpen);

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
          {busy === 'talkie' ? t('demo.opening') : t('demo.chat')}
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
        <button
          type="button"
          className="button button--secondary"
          aria-busy={busy === 'agui' || undefined}
          aria-describedby={error ? errorId : undefined}
          onClick={() => void open('agui')}
        >
          {busy === 'agui' ? t('demo.opening') : t('demo.watch')}
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

/** Starts the demo (main starts it on first use) and opens the chosen side; the sidebar's demo links use it too. */
export function useDemoOpener(api: AgentDeskApi, onOpen: (target: ChatTarget) => void) {
  const { t } = useI18n();
  const [busy, setBusy] = useState<Side | null>(null);
  const [error, setError] = useState<IpcError | null>(null);

  async function open(protocol: Side) {
    if (busy) return;
    setBusy(protocol);
    setError(null);
    const result = await call(() => (protocol === 'talkie' ? api.demo.open() : protocol === 'agentcall' ? api.demo.openAgentCall() : api.demo.openAgui()));
    setBusy(null);
    if (result.ok) onOpen({ agentId: result.value.agentId, label: t(demoTitles[protocol]), protocol });
    else setError(result.error);
  }

  return { busy, error, open };
}
