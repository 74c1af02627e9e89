import { useId, useState } from 'react';
import type { Modality } from '../../../shared/agentcall/protocol';
import type { PendingInteraction } from '../../../shared/agentcall/session-view';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorAlert } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { ScanControl, type NfcObservationResult } from '../nfc/ScanControl';
import type { SendObservation } from './ObservationBar';
import { ScannedObject } from './ScannedObject';

/**
 * The agent's pending request to scan an object or take a photo: its prompt (plain text), the
 * control that collects it, and Decline. Nothing is collected by itself: the user arms the scan
 * or opens the camera, and the answer carries the request's interactionId only when the user
 * sends it. Render it keyed by the interactionId, so a new request starts clean.
 */
export function RequestPanel({
  api,
  interaction,
  usable,
  send,
  onOpenPhoto,
  onDecline,
  photoError,
}: {
  api: AgentDeskApi;
  interaction: PendingInteraction;
  usable: readonly Modality[];
  send: SendObservation;
  onOpenPhoto: () => void;
  onDecline: () => Promise<IpcError | undefined>;
  photoError: IpcError | undefined;
}) {
  const { t } = useI18n();
  const id = useId();
  const [scanned, setScanned] = useState<NfcObservationResult | undefined>();
  const [busy, setBusy] = useState<'send' | 'decline' | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const { interactionId, modality, prompt } = interaction;
  const canCollect = usable.includes(modality);

  function sendScan() {
    const current = scanned;
    if (!current || busy) return;
    setBusy('send');
    setError(undefined);
    void send({ scan: { scanId: current.scanId, objectRef: current.object.objectRef }, interactionId }).then((failure) => {
      setBusy(undefined);
      if (failure) setError(failure);
      else setScanned(undefined);
    });
  }

  function decline() {
    if (busy) return;
    setBusy('decline');
    setError(undefined);
    void onDecline().then((failure) => {
      setBusy(undefined);
      if (failure) setError(failure);
    });
  }

  const shownError = error ?? photoError;
  return (
    <section className="agentcall-request" role="region" aria-labelledby={`${id}-title`} aria-describedby={`${id}-prompt`}>
      <h2 id={`${id}-title`} className="agentcall-request__title">
        {t(modality === 'nfc' ? 'agentcall.request.title.nfc' : 'agentcall.request.title.photo')}
      </h2>
      <p id={`${id}-prompt`} className="agentcall-request__prompt">
        {prompt}
      </p>
      {!canCollect ? <p className="muted">{t('agentcall.request.unusable')}</p> : null}
      {canCollect && modality === 'nfc' ? (
        scanned ? (
          <ScannedObject
            scan={scanned}
            sendLabel={t('agentcall.request.send')}
            sending={busy === 'send'}
            onSend={sendScan}
            onDiscard={() => {
              setScanned(undefined);
              setError(undefined);
            }}
          />
        ) : (
          <ScanControl
            api={api}
            label={t('agentcall.request.scan')}
            onObservation={(result) => {
              setError(undefined);
              setScanned(result);
            }}
          />
        )
      ) : null}
      <div className="button-row">
        {canCollect && modality === 'photo' ? (
          <button type="button" className="button button--primary" onClick={onOpenPhoto}>
            {t('agentcall.request.photo')}
          </button>
        ) : null}
        <button type="button" className="button button--secondary" disabled={busy !== undefined} aria-busy={busy === 'decline' || undefined} onClick={decline}>
          {t('agentcall.request.decline')}
        </button>
      </div>
      <ErrorAlert summary={t('agentcall.notSent')} error={shownError} />
    </section>
  );
}
