import { useId, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import { ErrorText } from '../../components/ErrorText';
import { useHardwareStatus } from '../../hooks/useApiData';
import { useMediaDevices } from '../../hooks/useMediaDevices';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { PhotoDialog } from '../photo/PhotoDialog';

/** NFC readers (from main), cameras and microphones (counted in the page, without asking for permission). */
export function HardwareStrip({ api }: { api: AgentDeskApi }) {
  const { t } = useI18n();
  const headingId = `${useId()}-heading`;
  const hardware = useHardwareStatus(api);
  const media = useMediaDevices();
  const [photoOpen, setPhotoOpen] = useState(false);

  let nfc: ReactNode;
  if (hardware.state.status === 'loading') nfc = <p className="muted">{t('hardware.checking')}</p>;
  else if (hardware.state.status === 'error')
    nfc = (
      <p className="error-text">
        <ErrorText error={hardware.state.error} />
      </p>
    );
  else {
    const status = hardware.state.value.nfc;
    if (status.state === 'unavailable') {
      nfc = (
        <>
          <p className="hardware__state">{t('hardware.notAvailable')}</p>
          {status.detail ? (
            <p className="muted" lang="en">
              {status.detail}
            </p>
          ) : null}
        </>
      );
    } else {
      nfc = (
        <>
          <p className="hardware__state">{t('hardware.nfcReady')}</p>
          {status.readers.length === 0 ? (
            <p className="muted">{t('hardware.nfcNoReaders')}</p>
          ) : (
            <ul className="hardware__list">
              {status.readers.map((reader, index) => (
                <li key={`${index}-${reader.name}`}>
                  {t(reader.connected ? 'hardware.readerConnected' : 'hardware.readerDisconnected', { name: reader.name })}
                </li>
              ))}
            </ul>
          )}
        </>
      );
    }
  }

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
    return kind === 'cameras'
      ? devices(media.cameras, 'hardware.cameraNumbered')
      : devices(media.microphones, 'hardware.microphoneNumbered');
  };

  const labelsHidden =
    media.status === 'ready' && [...media.cameras, ...media.microphones].some((label) => label.trim() === '');

  return (
    <section className="card hardware" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('hardware.title')}
      </h2>
      <div className="hardware__grid">
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.nfc')}</h3>
          {nfc}
        </div>
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.cameras')}</h3>
          {mediaState('cameras')}
          <button type="button" className="button button--secondary" onClick={() => setPhotoOpen(true)}>
            {t('hardware.takePhoto')}
          </button>
        </div>
        <div className="hardware__item">
          <h3 className="hardware__name">{t('hardware.microphones')}</h3>
          {mediaState('microphones')}
        </div>
      </div>
      {labelsHidden ? <p className="muted hardware__hint">{t('hardware.labelsHint')}</p> : null}
      {photoOpen ? (
        <PhotoDialog
          api={api}
          // Nothing consumes a photo before AgentCall sessions exist: Send releases it at once.
          onSend={(photoId) => {
            void api.photo.discard({ photoId });
            setPhotoOpen(false);
          }}
          onClose={() => setPhotoOpen(false)}
        />
      ) : null}
    </section>
  );
}
