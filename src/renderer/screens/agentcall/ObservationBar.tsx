import { useId, useState } from 'react';
import { intentSchema, type Intent, type Modality } from '../../../shared/agentcall/protocol';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorAlert } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { ScanControl, type NfcObservationResult } from '../nfc/ScanControl';
import { intentKeys } from './AgentCallItems';
import { ScannedObject } from './ScannedObject';

/** What the screen sends for an observation (it adds the intent and the session key). */
export interface ObservationRequest {
  scan?: { scanId: string; objectRef: string };
  photoId?: string;
  interactionId?: string;
}

/** Sends an observation; resolves with the failure, if any. Call it from a click: main wants a user gesture. */
export type SendObservation = (request: ObservationRequest) => Promise<IpcError | undefined>;

/** Why the user cannot send this modality now, or undefined when they can. */
export function modalityReason(modality: Modality, state: { ready: boolean; ended: boolean }, usable: readonly Modality[], accepted: readonly Modality[]): MessageKey | undefined {
  if (state.ended) return 'agentcall.ended.title';
  if (!state.ready) return 'agentcall.notReady';
  if (usable.includes(modality)) return undefined;
  if (modality === 'nfc') return accepted.includes('nfc') ? 'agentcall.scan.noReader' : 'agentcall.scan.notAccepted';
  return 'agentcall.photo.notAccepted';
}

/**
 * The bar above the composer: the intent (Identify by default; it grants nothing), Scan object
 * (the scan waits as a chip until the user sends it) and Take a photo… (PhotoDialog's Send sends it).
 * Each is disabled, with the reason, when the session cannot carry it.
 */
export function ObservationBar({
  api,
  ready,
  ended,
  usable,
  accepted,
  intent,
  onIntent,
  send,
  onOpenPhoto,
  photoError,
}: {
  api: AgentDeskApi;
  /** The session is established and has not ended. */
  ready: boolean;
  ended: boolean;
  usable: readonly Modality[];
  accepted: readonly Modality[];
  intent: Intent;
  onIntent: (intent: Intent) => void;
  send: SendObservation;
  onOpenPhoto: () => void;
  /** Why the last photo was not sent. */
  photoError: IpcError | undefined;
}) {
  const { t } = useI18n();
  const id = useId();
  const [scanned, setScanned] = useState<NfcObservationResult | undefined>();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const nfcReason = modalityReason('nfc', { ready, ended }, usable, accepted);
  const photoReason = modalityReason('photo', { ready, ended }, usable, accepted);

  function sendScan() {
    const current = scanned;
    if (!current || sending) return;
    setSending(true);
    setError(undefined);
    // Called from the click itself: main checks that the user just acted.
    void send({ scan: { scanId: current.scanId, objectRef: current.object.objectRef } }).then((failure) => {
      setSending(false);
      if (failure) setError(failure);
      else setScanned((shown) => (shown === current ? undefined : shown));
    });
  }

  const shownError = error ?? photoError;
  // One row (the intent, Scan object, Take a photo…) and one line of small print under it, so the
  // conversation keeps its room in a short window.
  return (
    <section className="agentcall-bar" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="visually-hidden">
        {t('agentcall.bar.label')}
      </h2>
      <div className="agentcall-bar__row">
        <label className="agentcall-intent">
          <span className="agentcall-intent__label">{t('agentcall.intent.short')}</span>
          <select className="select agentcall-intent__select" value={intent} aria-describedby={`${id}-intent-hint`} onChange={(event) => onIntent(intentSchema.parse(event.target.value))}>
            {intentSchema.options.map((option) => (
              <option key={option} value={option}>
                {t(intentKeys[option])}
              </option>
            ))}
          </select>
        </label>
        <ScanControl api={api} disabled={nfcReason !== undefined} onObservation={(result) => {
          setError(undefined);
          setScanned(result);
        }} />
        <button type="button" className="button button--secondary" disabled={photoReason !== undefined} aria-describedby={photoReason !== undefined ? `${id}-photo-reason` : undefined} onClick={onOpenPhoto}>
          {t('agentcall.photo.open')}
        </button>
      </div>
      <p className="agentcall-bar__notes">
        <span id={`${id}-intent-hint`}>
          {t('agentcall.intent.label')} {t('agentcall.intent.hint')}
        </span>
        {nfcReason !== undefined ? <span>{t(nfcReason)}</span> : null}
        {photoReason !== undefined && photoReason !== nfcReason ? <span id={`${id}-photo-reason`}>{t(photoReason)}</span> : null}
        {photoReason !== undefined && photoReason === nfcReason ? <span id={`${id}-photo-reason`} className="visually-hidden">{t(photoReason)}</span> : null}
      </p>
      {scanned && ready ? (
        <ScannedObject scan={scanned} sendLabel={t('agentcall.pending.send')} sending={sending} onSend={sendScan} onDiscard={() => {
          setScanned(undefined);
          setError(undefined);
        }} />
      ) : null}
      <ErrorAlert summary={t('agentcall.notSent')} error={shownError} />
    </section>
  );
}
