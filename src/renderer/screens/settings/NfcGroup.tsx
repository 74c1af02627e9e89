import { useId, useState } from 'react';
import type { NfcSettings } from '../../../shared/nfc/ipc-schemas';
import { useI18n } from '../../i18n/I18nProvider';
import { Checkbox, GroupFeedback, type Feedback } from './controls';
import '../nfc/nfc.css';

/** Seconds as the field shows them: "2", "0.5" ("0,5" in Czech). */
function secondsText(ms: number, language: 'en' | 'cs'): string {
  const text = String(ms / 1000);
  return language === 'cs' ? text.replace('.', ',') : text;
}

/** The debounce field's text in ms, or undefined when it is not a number of seconds from 0 to 10. */
function parseSeconds(text: string): number | undefined {
  const trimmed = text.trim().replace(',', '.');
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(trimmed)) return undefined;
  const ms = Math.round(Number(trimmed) * 1000);
  return ms >= 0 && ms <= 10_000 ? ms : undefined;
}

export function NfcGroup({ value, feedback, onChange }: { value: NfcSettings; feedback: Feedback; onChange: (patch: Partial<NfcSettings>) => void }) {
  const { t, language } = useI18n();
  const id = useId();
  /** What the user typed and has not committed yet; otherwise the field shows the stored value. */
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [invalid, setInvalid] = useState(false);
  const text = draft ?? secondsText(value.debounceMs, language);

  const commit = () => {
    if (draft === undefined) return;
    const ms = parseSeconds(draft);
    setInvalid(ms === undefined);
    if (ms === undefined) return;
    setDraft(undefined);
    if (ms !== value.debounceMs) onChange({ debounceMs: ms });
  };

  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.nfc.legend')}</legend>
      <div className="field">
        <label htmlFor={`${id}-debounce`} className="field__label">
          {t('settings.nfc.debounce.label')}
        </label>
        <p id={`${id}-debounce-description`} className="field__hint">
          {t('settings.nfc.debounce.description')}
        </p>
        <input
          id={`${id}-debounce`}
          className="input nfc-settings__seconds"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={text}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-debounce-description${invalid ? ` ${id}-debounce-error` : ''}`}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={commit}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              commit();
            }
          }}
        />
        {invalid ? (
          <p id={`${id}-debounce-error`} className="error-text">
            {t('settings.nfc.debounce.invalid')}
          </p>
        ) : null}
      </div>
      <Checkbox
        label="settings.nfc.kiosk.label"
        description="settings.nfc.kiosk.description"
        checked={value.kioskScan}
        onChange={(kioskScan) => onChange({ kioskScan })}
      />
      <Checkbox
        label="settings.nfc.readerFeedback.label"
        description="settings.nfc.readerFeedback.description"
        checked={value.readerFeedback}
        onChange={(readerFeedback) => onChange({ readerFeedback })}
      />
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
