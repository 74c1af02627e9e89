import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/base/errors';
import { call } from '../hooks/useLiveResource';
import { useI18n } from '../i18n/I18nProvider';
import { usePolicyView } from '../kiosk/policy-context';
import { ErrorAlert } from './ErrorText';
import '../styles/webpages.css';

/**
 * A link an agent's card gives (a web page, its provider, its documentation or icon): untrusted,
 * so it is never opened, embedded or fetched by itself. Its label is a control that first shows the
 * full URL; only "Open in browser" hands it to `external.open` (https only, checked again in main).
 * A kiosk shows the URL and opens nothing. `children` (what the link is: labels, notes) is shown
 * between the label and the confirmation. The caller places it in a list item.
 */
export function UntrustedLink({ api, url, label, children }: { api: AgentDeskApi; url: string; label: string; children?: ReactNode }) {
  const { t } = useI18n();
  const { kiosk } = usePolicyView();
  const [confirming, setConfirming] = useState(false);
  const [opening, setOpening] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const linkRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const confirmId = useId();

  useEffect(() => {
    if (confirming) openRef.current?.focus();
  }, [confirming]);

  function cancel() {
    setConfirming(false);
    setError(undefined);
    linkRef.current?.focus();
  }

  function open() {
    setError(undefined);
    setOpening(true);
    // No await before this call: it runs in the user's click, which main checks for.
    void call(() => api.external.open({ url })).then((result) => {
      setOpening(false);
      if (result.ok) setConfirming(false);
      else setError(result.error);
    });
  }

  if (kiosk) {
    // A kiosk shows where a link goes, never opens it.
    return (
      <>
        <p className="web-page__link web-page__link--kiosk">{label}</p>
        <p className="web-page__url">
          <code>{url}</code>
        </p>
        <p className="muted">{t('kiosk.linkNotOpened')}</p>
      </>
    );
  }

  return (
    <>
      <button
        ref={linkRef}
        type="button"
        className="web-page__link"
        aria-expanded={confirming}
        aria-controls={confirming ? confirmId : undefined}
        onClick={() => (confirming ? cancel() : setConfirming(true))}
      >
        {label}
      </button>
      {children}
      {confirming ? (
        <div id={confirmId} className="web-page__confirm" role="group" aria-label={t('webpages.confirm.label', { label })}>
          <p>{t('webpages.confirm.text')}</p>
          <p className="web-page__url">
            <code>{url}</code>
          </p>
          <div className="button-row">
            <button ref={openRef} type="button" className="button button--primary" disabled={opening} aria-busy={opening || undefined} onClick={open}>
              {t('webpages.confirm.open')}
            </button>
            <button type="button" className="button button--secondary" onClick={cancel}>
              {t('webpages.confirm.cancel')}
            </button>
          </div>
          <ErrorAlert summary={t('webpages.openFailed')} error={error} />
        </div>
      ) : null}
    </>
  );
}
