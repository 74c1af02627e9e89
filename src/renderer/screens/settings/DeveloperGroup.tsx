import type { Settings } from '../../../shared/settings/settings';
import { useI18n } from '../../i18n/I18nProvider';
import { Checkbox, GroupFeedback, type Feedback } from './controls';

export function DeveloperGroup({
  value,
  feedback,
  onChange,
}: {
  value: Settings['developer'];
  feedback: Feedback;
  onChange: (patch: Partial<Settings['developer']>) => void;
}) {
  const { t } = useI18n();
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.developer.legend')}</legend>
      <p className="field__hint">{t('settings.developer.description')}</p>
      <Checkbox
        label="settings.allowLocalHttp.label"
        description="settings.allowLocalHttp.description"
        checked={value.allowLocalHttp}
        onChange={(allowLocalHttp) => onChange({ allowLocalHttp })}
      />
      <Checkbox
        label="settings.allowPastedTokens.label"
        description="settings.allowPastedTokens.description"
        checked={value.allowPastedTokens}
        onChange={(allowPastedTokens) => onChange({ allowPastedTokens })}
      />
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
