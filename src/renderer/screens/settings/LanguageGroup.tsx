import { useId } from 'react';
import { languageSchema, type Settings } from '../../../shared/settings/settings';
import { useI18n } from '../../i18n/I18nProvider';
import { GroupFeedback, type Feedback } from './controls';

export function LanguageGroup({
  value,
  feedback,
  onChange,
}: {
  value: Settings['language'];
  feedback: Feedback;
  onChange: (value: Settings['language']) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.language.legend')}</legend>
      <div className="field">
        <label htmlFor={`${id}-select`} className="field__label">
          {t('settings.language.label')}
        </label>
        <p id={`${id}-description`} className="field__hint">
          {t('settings.language.description')}
        </p>
        <select
          id={`${id}-select`}
          className="select"
          value={value}
          aria-describedby={`${id}-description`}
          onChange={(event) => {
            const parsed = languageSchema.safeParse(event.target.value);
            if (parsed.success) onChange(parsed.data);
          }}
        >
          <option value="system">{t('settings.language.system')}</option>
          <option value="en" lang="en">
            {t('settings.language.en')}
          </option>
          <option value="cs" lang="cs">
            {t('settings.language.cs')}
          </option>
        </select>
      </div>
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
