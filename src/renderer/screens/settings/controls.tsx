import { useId } from 'react';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorText } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';

/** The settings groups; each has its own "Saved" or error line. */
export type SettingsGroup = 'language' | 'appearance' | 'signIn' | 'nfc' | 'voice' | 'bargeIn' | 'developer';
export type Feedback = { group: SettingsGroup; kind: 'saved' } | { group: SettingsGroup; kind: 'error'; error: IpcError } | null;

/** The group's live region: "Saved" or why the change was not saved. Always rendered. */
export function GroupFeedback({ feedback }: { feedback: Feedback }) {
  const { t } = useI18n();
  return (
    <div role="status" className="feedback">
      {feedback?.kind === 'saved' ? <p className="success-text">{t('settings.saved')}</p> : null}
      {feedback?.kind === 'error' ? (
        <p className="error-text">
          <ErrorText error={feedback.error} />
        </p>
      ) : null}
    </div>
  );
}

export function RadioGroup<V extends string>({
  name,
  legend,
  description,
  options,
  value,
  onChange,
}: {
  name: string;
  legend: MessageKey;
  description: MessageKey;
  options: readonly { value: V; label: MessageKey }[];
  value: V;
  onChange: (value: V) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <fieldset className="radio-group" aria-describedby={`${id}-description`}>
      <legend className="radio-group__legend">{t(legend)}</legend>
      <p id={`${id}-description`} className="field__hint">
        {t(description)}
      </p>
      <div className="radio-group__options">
        {options.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="radio"
              className="choice__input"
              name={`${id}-${name}`}
              value={option.value}
              checked={value === option.value}
              onChange={() => onChange(option.value)}
            />
            <span className="choice__label">{t(option.label)}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function Checkbox({
  label,
  description,
  checked,
  onChange,
}: {
  label: MessageKey;
  description: MessageKey;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <div className="checkbox-field">
      <label className="choice" htmlFor={`${id}-input`}>
        <input
          id={`${id}-input`}
          type="checkbox"
          className="choice__input"
          checked={checked}
          aria-describedby={`${id}-description`}
          onChange={(event) => onChange(event.target.checked)}
        />
        <span className="choice__label">{t(label)}</span>
      </label>
      <p id={`${id}-description`} className="field__hint checkbox-field__hint">
        {t(description)}
      </p>
    </div>
  );
}
