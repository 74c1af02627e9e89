import { useId, useRef, type KeyboardEvent } from 'react';
import { useDialogFocus } from '../../../../hooks/useDialogFocus';
import { useI18n } from '../../../../i18n/I18nProvider';

/**
 * Asked before the first voice call with a server (Talkie 1 §12: tell users that voice audio goes to
 * the speech provider): where the audio goes, Continue or Cancel. Focus moves in, Tab stays inside,
 * Escape cancels and focus goes back to Call (useDialogFocus). Continue's click starts the call.
 */
export function VoiceConsentDialog({
  serverName,
  hosts,
  onContinue,
  onCancel,
}: {
  serverName: string;
  hosts: readonly string[];
  onContinue: () => void;
  onCancel: () => void;
}) {
  const { t, language } = useI18n();
  const titleId = useId();
  const bodyId = useId();
  const panel = useRef<HTMLDivElement>(null);
  useDialogFocus(panel);
  const where = new Intl.ListFormat(language, { type: 'disjunction' }).format(hosts);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape') return;
    // Escape closes this dialog only: the chat screen does not go back to Home.
    event.preventDefault();
    event.stopPropagation();
    onCancel();
  };

  return (
    <div className="modal" onMouseDown={(event) => event.target === event.currentTarget && onCancel()}>
      <div ref={panel} className="modal__panel" role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId} onKeyDown={onKeyDown}>
        <h2 id={titleId} className="card__title">
          {t('voice.consent.title', { name: serverName })}
        </h2>
        <p id={bodyId}>{t('voice.consent.body', { hosts: where, name: serverName })}</p>
        <div className="voice-dialog__buttons">
          <button type="button" className="button button--primary" onClick={onContinue}>
            {t('voice.consent.continue')}
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            {t('voice.consent.cancel')}
          </button>
        </div>
      </div>
    </div>
  );
}
