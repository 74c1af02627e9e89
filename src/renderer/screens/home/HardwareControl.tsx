import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import { localTagCarrier, portableTagCarrier } from '../../../shared/nfc/object-ref';
import type { NfcStatus } from '../../../shared/nfc/ipc-schemas';
import { ErrorText } from '../../components/ErrorText';
import { useHardwareStatus } from '../../hooks/useApiData';
import { useMediaDevices } from '../../hooks/useMediaDevices';
import { ObjectRefText } from '../../components/ObjectRefText';
import { useI18n } from '../../i18n/I18nProvider';
import { translate, type MessageKey } from '../../i18n/strings';
import { formatDateTime } from '../../components/format';
import { ScanControl, type NfcObservationResult } from '../nfc/ScanControl';
import { PhotoDialog } from '../photo/PhotoDialog';
import '../nfc/nfc.css';

/**
 * The sidebar's hardware control: one line that sums up the NFC readers and cameras, and opens a
 * popover with the details (NFC readers from main, cameras and microphones counted in the page
 * without asking for permission, a test scan and a test photo). Escape, Close or a click outside
 * closes it; focus goes back to the button.
 */
export function HardwareControl({ api }: { api: AgentDeskApi }) {
  const { t } = useI18n();
  const id = useId();
  const panelId = `${id}-panel`;
  const headingId = `${id}-heading`;
  const hardware = useHardwareStatus(api);
  const media = useMediaDevices();
  const [open, setOpen] = useState(false);
  const [photoOpen, setPhotoOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return undefined;
    const onPointerDown = (event: PointerEvent) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  /** The photo dialog takes the popover's place (it would cover the dialog's buttons); closing it returns to the hardware button. */
  const takePhoto = () => {
    setOpen(false);
    setPhotoOpen(true);
  };
  const closePhoto = () => {
    setPhotoOpen(false);
    button.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape' || !open || photoOpen) return;
    // Handled here: the screen's own Escape (back to Home) must not run as well.
    event.preventDefault();
    event.stopPropagation();
    close();
  };

  const nfcReady = hardware.state.status === 'ready' && hardware.state.value.nfc.state === 'ready';
  const cameraCount = media.status === 'ready' ? media.cameras.length : 0;
  const summary = `${t(nfcReady ? 'shell.hardwareNfcReady' : 'shell.hardwareNfcOff')} · ${t('shell.hardwareCameras', { count: cameraCount })}`;

  return (
    <div ref={root} className="hardware-control" onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        className="sidebar__item hardware-control__button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        <span className={`status-dot${nfcReady ? ' status-dot--ok' : ''}`} aria-hidden="true" />
        <span className="hardware-control__text">
          <span className="sidebar__item-text">{t('hardware.title')}</span>
          <span className="sidebar__meta">{summary}</span>
        </span>
      </button>
      {open ? (
        <div id={panelId} className="hardware-popover">
          <HardwareDetails api={api} hardware={hardware} media={media} headingId={headingId} onTakePhoto={takePhoto} onClose={close} />
        </div>
      ) : null}
      {photoOpen ? (
        <PhotoDialog
          api={api}
          // Nothing consumes a photo before AgentCall sessions exist: Send releases it at once.
          onSend={(photoId) => {
            void api.photo.discard({ photoId });
            closePhoto();
          }}
          onClose={closePhoto}
        />
      ) : null}
    </div>
  );
}

/** NFC readers (from main), cameras and microphones (counted in the page, without asking for permission). */
function HardwareDetails({
  api,
  hardware,
  media,
  headingId,
  onTakePhoto,
  onClose,
}: {
  api: AgentDeskApi;
  hardware: ReturnType<typeof useHardwareStatus>;
  media: ReturnType<typeof useMediaDevices>;
  headingId: string;
  onTakePhoto: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();

  let nfc: ReactNode;
  if (hardware.state.status === 'loading') nfc = <p className="muted">{t('hardware.checking')}</p>;
  else if (hardware.state.status === 'error')
    nfc = (
      <p className="error-text">
        <ErrorText error={hardware.state.error} />
      </p>
    );
  else nfc = <NfcStatusView api={api} status={hardware.state.value.nfc} />;

  const devices = (labels: string[], numbered: MessageKey): ReactNode => {
    if (labels.length === 0) return <p className="hardware__state">{t('hardware.noneFound')}</p>;
    return (
      <>
        <p className="hardware__state">{t('hardware.found', { count: labels.length })}</p>
        <ul className="hardware__list">
          {labels.map((label, index) => (
            <li key={index}>{label.trim() !== '' ? label : t(numbered, { number: index + 1 })}</li>
          ))}
        </ul>
      </>
    );
  };

  const mediaState = (kind: 'cameras' | 'microphones'): ReactNode => {
    if (media.status === 'loading') return <p className="muted">{t('hardware.checking')}</p>;
    if (media.status === 'unavailable') return <p className="hardware__state">{t('hardware.notAvailable')}</p>;
    return kind === 'cameras' ? devices(media.cameras, 'hardware.cameraNumbered') : devices(media.microphones, 'hardware.microphoneNumbered');
  };

  const labelsHidden = media.status === 'ready' && [...media.cameras, ...media.microphones].some((label) => label.trim() === '');

  return (
    <section className="hardware" aria-labelledby={headingId}>
      <div className="hardware__header">
        <h2 id={headingId} className="card__title">
          {t('hardware.title')}
        </h2>
        <button type="button" className="button button--secondary button--small" onClick={onClose}>
          {t('shell.hardwareClose')}
        </button>
      </div>
      <div className="hardware__grid">
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.nfc')}</h3>
          {nfc}
        </div>
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.cameras')}</h3>
          {mediaState('cameras')}
          <button type="button" className="button button--secondary" onClick={onTakePhoto}>
            {t('hardware.takePhoto')}
          </button>
        </div>
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.microphones')}</h3>
          {mediaState('microphones')}
        </div>
      </div>
      {labelsHidden ? <p className="muted hardware__hint">{t('hardware.labelsHint')}</p> : null}
    </section>
  );
}

const serviceKeys: Record<'starting' | 'restarting' | 'failed' | 'missing', MessageKey> = {
  starting: 'hardware.nfcService.starting',
  restarting: 'hardware.nfcService.restarting',
  failed: 'hardware.nfcService.failed',
  missing: 'hardware.nfcService.missing',
};

const carrierKeys: Record<NfcObservationResult['object']['carrier'], MessageKey> = {
  [localTagCarrier]: 'hardware.nfcCarrier.localTag',
  [portableTagCarrier]: 'hardware.nfcCarrier.ndefTag',
};

/**
 * The NFC part of the strip: the readers, the reader service's state (with the exact fix when the
 * smart-card service is missing), the last error, and a Scan object button to test a reader that
 * shows what the agent would receive (the reference and its carrier; the tag's ID never reaches
 * this page).
 */
function NfcStatusView({ api, status }: { api: AgentDeskApi; status: NfcStatus }) {
  const { t, language } = useI18n();
  const [lastScan, setLastScan] = useState<NfcObservationResult | undefined>(undefined);
  const english = language === 'en' ? undefined : 'en';
  const service = status.service && status.service !== 'running' ? status.service : undefined;
  const errorTime = status.lastError ? (formatDateTime(status.lastError.at, language) ?? status.lastError.at) : undefined;
  return (
    <>
      <p className="hardware__state">{t(status.state === 'ready' ? 'hardware.nfcReady' : 'hardware.notAvailable')}</p>
      {service ? <p>{t(serviceKeys[service])}</p> : null}
      {/* Main's detail is English; when it only repeats the service line (in English), it is left out. */}
      {status.detail && !(service && status.detail === translate('en', serviceKeys[service])) ? (
        <p className="muted" lang="en">
          {status.detail}
        </p>
      ) : null}
      {status.fix ? (
        <div className="hardware__fix-block">
          <p>{t('hardware.nfcFix')}</p>
          <code className="hardware__fix" lang="en">
            {status.fix}
          </code>
        </div>
      ) : null}
      {status.readers.length === 0 ? (
        status.state === 'ready' ? (
          <p className="muted">{t('hardware.nfcNoReaders')}</p>
        ) : null
      ) : (
        <ul className="hardware__list">
          {status.readers.map((reader, index) => (
            <li key={`${index}-${reader.name}`}>{t(reader.connected ? 'hardware.readerConnected' : 'hardware.readerDisconnected', { name: reader.name })}</li>
          ))}
        </ul>
      )}
      {status.lastError ? (
        <p className="muted">
          {t('hardware.nfcLastError', { time: errorTime ?? '' })} <span lang={english}>{status.lastError.message}</span>
        </p>
      ) : null}
      <ScanControl api={api} nfcStatus={status} onObservation={setLastScan} />
      {lastScan ? (
        <div className="hardware__last-scan">
          <h4 className="hardware__name">{t('hardware.nfcLastScan')}</h4>
          <dl className="hardware__scan-result">
            <dt>{t('hardware.nfcObjectRef')}</dt>
            <dd>
              <ObjectRefText value={lastScan.object.objectRef} />
            </dd>
            <dt>{t('hardware.nfcCarrier')}</dt>
            <dd>{t(carrierKeys[lastScan.object.carrier], { carrier: lastScan.object.carrier })}</dd>
            <dt>{t('hardware.nfcReader')}</dt>
            <dd>{lastScan.reader}</dd>
            {lastScan.note ? (
              <>
                <dt>{t('hardware.nfcNote')}</dt>
                <dd lang={english}>{lastScan.note}</dd>
              </>
            ) : null}
          </dl>
        </div>
      ) : null}
    </>
  );
}
