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
  return (
    <section className="agentcall-bar" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="visually-hidden">
        {t('agentcall.bar.label')}
      </h2>
      <fieldset className="radio-group agentcall-intent" aria-describedby={`${id}-intent-hint`}>
        <legend className="radio-group__legend">{t('agentcall.intent.label')}</legend>
        <p id={`${id}-intent-hint`} className="field__hint">
          {t('agentcall.intent.hint')}
        </p>
        <div className="radio-group__options">
          {intentSchema.options.map((option) => (
            <label key={option} className="choice">
              <input type="radio" className="choice__input" name={`${id}-intent`} value={option} checked={intent === option} onChange={() => onIntent(option)} />
              <span className="choice__label">{t(intentKeys[option])}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="agentcall-bar__controls">
        <div className="agentcall-bar__control">
          <ScanControl api={api} disabled={nfcReason !== undefined} onObservation={(result) => {
            setError(undefined);
            setScanned(result);
          }} />
          {nfcReason !== undefined ? <p className="muted agentcall-bar__reason">{t(nfcReason)}</p> : null}
        </div>
        <div className="agentcall-bar__control">
          <button type="button" className="button button--secondary" disabled={photoReason !== undefined} aria-describedby={photoReason !== undefined ? `${id}-photo-reason` : undefined} onClick={onOpenPhoto}>
            {t('agentcall.photo.open')}
          </button>
          {photoReason !== undefined ? (
            <p id={`${id}-photo-reason`} className="muted agentcall-bar__reason">
              {t(photoReason)}
            </p>
          ) : null}
        </div>
      </div>
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
