import { useId, useRef } from 'react';
import { useDialogFocus } from '../hooks/useDialogFocus';
import { useI18n } from '../i18n/I18nProvider';

/**
 * The idle reset's visible countdown: the session ends (and everything in it is deleted) when it
 * reaches zero; any touch, key or tap cancels it (the Continue button is one such touch).
 */
export function IdleCountdown({ secondsLeft, onContinue }: { secondsLeft: number; onContinue: () => void }) {
  const { t } = useI18n();
  const titleId = useId();
  const bodyId = useId();
  const panel = useRef<HTMLDivElement>(null);
  useDialogFocus(panel);
  return (
    <div className="modal kiosk-idle">
      <div ref={panel} className="modal__panel" role="alertdialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId}>
        <h2 id={titleId} className="card__title">
          {t('kiosk.idleTitle')}
        </h2>
        <p id={bodyId}>{t('kiosk.idleBody')}</p>
        {/* The number changes every second: shown large, read as words (not announced each second). */}
        <p className="kiosk-idle__count">
          <span aria-hidden="true">{secondsLeft}</span>
          <span className="visually-hidden">{t('kiosk.idleSecondsLabel', { seconds: secondsLeft })}</span>
        </p>
        <div className="voice-dialog__buttons">
          <button type="button" className="button button--primary" onClick={onContinue}>
            {t('kiosk.idleContinue')}
          </button>
        </div>
      </div>
    </div>
  );
}
