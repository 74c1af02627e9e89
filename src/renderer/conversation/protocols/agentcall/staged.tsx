import { useEffect, useRef, type ReactNode } from 'react';
import type { Intent } from '../../../../shared/agentcall/protocol';
import type { IpcError } from '../../../../shared/base/errors';
import { localTagCarrier, portableTagCarrier, unverifiedTagAssurance } from '../../../../shared/nfc/object-ref';
import { ErrorAlert } from '../../../components/ErrorText';
import { useI18n } from '../../../i18n/I18nProvider';
import type { NfcObservationResult } from '../../../screens/nfc/ScanControl';
import type { StagedPhotoView } from '../../../screens/photo/photo-api';
import { intentKeys, ObjectName } from './items';
import { usePolicyView } from '../../../kiosk/policy-context';

/**
 * What exists only on this machine until the user sends it — a tag just read, a photo taken — shown
 * at the end of the conversation (not in a panel): a scan comes from the reader, not from the user's
 * hand on the app, and main sends an observation only right after a click or key press, so each one
 * waits here for Send (with the intent) or Discard. Their Send takes the focus when the control that
 * produced them had it (or nothing had it), so a tap on the reader and Enter are enough.
 */

export interface StagedTag {
  kind: 'tag';
  scan: NfcObservationResult;
  /** Read for the agent's request (while it still waits). */
  interactionId?: string;
}

export interface StagedPhoto {
  kind: 'photo';
  photo: StagedPhotoView;
  interactionId?: string;
}

export type Staged = StagedTag | StagedPhoto;

interface StagedProps {
  intent: Intent;
  /** The request it answers, while that request still waits. */
  forRequest: boolean;
  sending: boolean;
  error: IpcError | undefined;
  onSend: () => void;
  onDiscard: () => void;
}

/** Send takes the focus once the source control settled (it may move the focus back to itself first). */
function useFocusSend(key: string) {
  const send = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const timer = setTimeout(() => {
      const active = document.activeElement;
      if (active === null || active === document.body || active.closest('[data-staging-source]') !== null) send.current?.focus();
    }, 0);
    return () => clearTimeout(timer);
  }, [key]);
  return send;
}

function StagedFrame({
  title,
  children,
  props,
  sendLabel,
  discardLabel,
  sendRef,
}: {
  title: string;
  children: ReactNode;
  props: StagedProps;
  sendLabel: string;
  discardLabel: string;
  sendRef: React.RefObject<HTMLButtonElement | null>;
}) {
  const { t } = useI18n();
  const { intent, forRequest, sending, error, onSend, onDiscard } = props;
  // A kiosk offers no intent (tools.tsx), so it does not name one either.
  const { kiosk } = usePolicyView();
  return (
    <section className="agentcall-staged" aria-label={title}>
      <p className="agentcall-staged__title">
        <span className="agentcall-staged__icon" aria-hidden="true">
          ✓
        </span>{' '}
        {title}
      </p>
      {children}
      {forRequest ? (
        <p className="message__state">{t('agentcall.observation.answers')}</p>
      ) : kiosk ? null : (
        <p className="message__state">{t('agentcall.intent.line', { intent: t(intentKeys[intent]) })}</p>
      )}
      <div className="button-row">
        <button
          ref={sendRef}
          type="button"
          className="button button--primary"
          aria-disabled={sending || undefined}
          aria-busy={sending || undefined}
          onClick={() => !sending && onSend()}
        >
          {sendLabel}
        </button>
        <button type="button" className="button button--secondary" disabled={sending} onClick={onDiscard}>
          {discardLabel}
        </button>
      </div>
      <ErrorAlert summary={t('agentcall.notSent')} error={error} />
    </section>
  );
}

/** A tag that was read: the object by its name in this session (else "Unknown object"), how its tag carries it, and that a tag proves nothing. */
export function StagedTagView({ staged, label, ...props }: StagedProps & { staged: StagedTag; label: string | undefined }) {
  const { t, language } = useI18n();
  const { object, note } = staged.scan;
  const sendRef = useFocusSend(`${staged.scan.scanId}:${object.objectRef}`);
  const carrier =
    object.carrier === localTagCarrier
      ? t('agentcall.carrier.localTag')
      : object.carrier === portableTagCarrier
        ? t('agentcall.carrier.ndefTag')
        : object.carrier;
  const assurance =
    object.assurance === unverifiedTagAssurance ? t('agentcall.assurance.unverifiedTag') : t('agentcall.assurance.other', { assurance: object.assurance });
  return (
    <StagedFrame
      title={t('agentcall.staged.tag')}
      props={props}
      sendRef={sendRef}
      sendLabel={t(props.forRequest ? 'agentcall.request.send' : 'agentcall.pending.send')}
      discardLabel={t('agentcall.pending.discard')}
    >
      <p className="agentcall-staged__object">
        <ObjectName objectRef={object.objectRef} label={label} />
        <span className="agentcall-chip__meta">
          {' '}
          · {carrier} · {assurance}
        </span>
      </p>
      {note !== undefined && note !== '' ? (
        <p className="muted" lang={language === 'en' ? undefined : 'en'}>
          {note}
        </p>
      ) : null}
    </StagedFrame>
  );
}

/** A photo taken or chosen: exactly the JPEG that would be sent (main processed it), its size, Send and Discard. */
export function StagedPhotoView({ staged, ...props }: StagedProps & { staged: StagedPhoto }) {
  const { t, language } = useI18n();
  const { photo } = staged;
  const sendRef = useFocusSend(photo.photoId);
  const size = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(photo.byteCount / 1024);
  return (
    <StagedFrame
      title={t('agentcall.staged.photo')}
      props={props}
      sendRef={sendRef}
      sendLabel={t(props.forRequest ? 'agentcall.request.send' : 'agentcall.staged.sendPhoto')}
      discardLabel={t('photo.discard')}
    >
      <figure className="agentcall-staged__photo">
        <img className="agentcall-staged__image" src={photo.preview} alt={t('photo.reviewAlt', { width: photo.pixelWidth, height: photo.pixelHeight })} />
        <figcaption className="agentcall-chip__meta">{t('photo.facts', { width: photo.pixelWidth, height: photo.pixelHeight, size })}</figcaption>
      </figure>
    </StagedFrame>
  );
}
