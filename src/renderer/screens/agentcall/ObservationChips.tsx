import type { ImageSummary, ObjectSummary } from '../../../shared/agentcall/session-view';
import { localTagCarrier, portableTagCarrier, unverifiedTagAssurance } from '../../../shared/nfc/object-ref';
import { ObjectRefText } from '../../components/ObjectRefText';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * A scanned object, compactly: its reference as code, how the tag carries it, and that a tag
 * proves nothing (anyone can write one). The reference is shown as text, never followed.
 */
export function ObjectChip({ object }: { object: ObjectSummary }) {
  const { t } = useI18n();
  const carrier =
    object.carrier === localTagCarrier ? t('agentcall.carrier.localTag') : object.carrier === portableTagCarrier ? t('agentcall.carrier.ndefTag') : object.carrier;
  const assurance = object.assurance === unverifiedTagAssurance ? t('agentcall.assurance.unverifiedTag') : t('agentcall.assurance.other', { assurance: object.assurance });
  return (
    <span className="agentcall-chip agentcall-chip--object">
      <span className="agentcall-chip__kicker">{t('agentcall.object.kicker')}</span> <ObjectRefText value={object.objectRef} />
      <span className="agentcall-chip__meta">
        {carrier} · {assurance}
      </span>
    </span>
  );
}

/** A sent photo: its thumbnail while the session lasts (when the screen still has it), and its size. */
export function PhotoChip({ image, thumbnail }: { image: ImageSummary; thumbnail: string | undefined }) {
  const { t, language } = useI18n();
  const size = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(image.byteCount / 1024);
  return (
    <span className="agentcall-chip agentcall-chip--photo">
      {thumbnail !== undefined ? (
        <img className="agentcall-chip__thumbnail" src={thumbnail} alt={t('agentcall.photo.thumbnailAlt', { width: image.pixelWidth, height: image.pixelHeight })} />
      ) : null}
      <span className="agentcall-chip__kicker">{t('agentcall.photo.kicker')}</span>{' '}
      <span className="agentcall-chip__meta">{t('agentcall.photo.facts', { width: image.pixelWidth, height: image.pixelHeight, size })}</span>
    </span>
  );
}
