import { localObjectRefPrefix, portableUrnPrefix } from '../../shared/nfc/object-ref';
import { useI18n } from '../i18n/I18nProvider';

/** How many characters of a long reference are shown before "…". */
const shownChars = 6;
const longAfter = 16;

function shorten(value: string): string {
  return value.length > longAfter ? `${value.slice(0, shownChars)}…` : value;
}

/**
 * A scanned tag's or object's reference, shortened with a label ("tag 23638a…") instead of a wall
 * of 64 hex characters; the whole reference is the tooltip (and what is copied or compared).
 */
export function ObjectRefText({ value }: { value: string }) {
  const { t } = useI18n();
  const text = value.startsWith(localObjectRefPrefix)
    ? t('objectRef.tag', { id: shorten(value.slice(localObjectRefPrefix.length)) })
    : value.startsWith(portableUrnPrefix)
      ? t('objectRef.object', { id: shorten(value.slice(portableUrnPrefix.length)) })
      : shorten(value);
  return (
    <code className="object-ref" title={value} data-ref={value}>
      {text}
    </code>
  );
}
