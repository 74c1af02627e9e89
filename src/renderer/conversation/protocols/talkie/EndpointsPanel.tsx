import { useId, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import type { ServerView } from '../../../../shared/talkie/ipc-schemas';
import { ErrorAlert } from '../../../components/ErrorText';
import { call } from '../../../hooks/useLiveResource';
import { useI18n } from '../../../i18n/I18nProvider';

/** Talkie 1 §1: endpoints on another origin are used only after the user saw them in full and accepted. */
export function EndpointsPanel({
  api,
  view,
  headingRef,
  onView,
}: {
  api: AgentDeskApi;
  view: ServerView;
  headingRef: RefObject<HTMLHeadingElement | null>;
  onView: (view: ServerView) => void;
}) {
  const { t } = useI18n();
  const headingId = `${useId()}-endpoints`;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();

  async function accept() {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    const result = await call(() => api.talkie.acceptEndpoints({ agentId: view.agentId }));
    setBusy(false);
    if (result.ok) onView(result.value);
    else setError(result.error);
  }

  return (
    <section className="card gate" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1} className="card__title">
        {t('chat.endpoints.title')}
      </h2>
      <p>{t('chat.endpoints.body', { name: view.name, issuer: view.issuer })}</p>
      <ul className="endpoints">
        {view.crossOriginEndpoints.map((endpoint) => (
          <li key={endpoint.name} className="endpoints__item">
            <span className="endpoints__name">{endpoint.name}</span>
            <code className="endpoints__url">{endpoint.url}</code>
          </li>
        ))}
      </ul>
      <p className="muted">{t('chat.endpoints.hint')}</p>
      <button type="button" className="button button--primary" disabled={busy} aria-busy={busy || undefined} onClick={() => void accept()}>
        {t('chat.endpoints.accept')}
      </button>
      <ErrorAlert error={error} />
    </section>
  );
}
