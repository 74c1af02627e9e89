import { useEffect, useRef } from 'react';
import { useI18n } from '../../i18n/I18nProvider';
import type { NfcObservationResult } from '../nfc/ScanControl';
import { ObjectChip } from './ObservationChips';

/**
 * A tag that was read but not sent yet. A scan result arrives from the reader, not from the user's
 * hand on the app, and main sends an observation only right after a click or key press: so the
 * user sends it with this button (or discards it). The Send button takes the focus when the focus
 * was near it, so a tap on the reader and Enter are enough.
 */
export function ScannedObject({
  scan,
  sendLabel,
  sending,
  onSend,
  onDiscard,
}: {
  scan: NfcObservationResult;
  sendLabel: string;
  sending: boolean;
  onSend: () => void;
  onDiscard: () => void;
}) {
  const { t, language } = useI18n();
  const root = useRef<HTMLDivElement>(null);
  const sendButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const active = document.activeElement;
    const nearby = active === null || active === document.body || (root.current?.parentElement?.contains(active) ?? false);
    if (nearby) sendButton.current?.focus();
  }, [scan.scanId, scan.object.objectRef]);

  return (
    <div ref={root} className="agentcall-pending">
      <p className="agentcall-pending__title">{t('agentcall.pending.title')}</p>
      <ObjectChip object={scan.object} />
      {scan.note !== undefined && scan.note !== '' ? (
        <p className="muted" lang={language === 'en' ? undefined : 'en'}>
          {scan.note}
        </p>
      ) : null}
      <div className="button-row">
        <button ref={sendButton} type="button" className="button button--primary" aria-disabled={sending || undefined} aria-busy={sending || undefined} onClick={() => !sending && onSend()}>
          {sendLabel}
        </button>
        <button type="button" className="button button--secondary" disabled={sending} onClick={onDiscard}>
          {t('agentcall.pending.discard')}
        </button>
      </div>
    </div>
  );
}
