import { textSizeSchema, themeSchema, type Settings } from '../../../shared/settings/settings';
import { useI18n } from '../../i18n/I18nProvider';
import { GroupFeedback, RadioGroup, type Feedback } from './controls';

const themeOptions = themeSchema.options.map((value) => ({ value, label: `settings.theme.${value}` as const }));
const textSizeOptions = textSizeSchema.options.map((value) => ({ value, label: `settings.textSize.${value}` as const }));

export function AppearanceGroup({
  theme,
  textSize,
  feedback,
  onChange,
}: {
  theme: Settings['appearance']['theme'];
  textSize: Settings['appearance']['textSize'];
  feedback: Feedback;
  onChange: (patch: Partial<Settings['appearance']>) => void;
}) {
  const { t } = useI18n();
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.appearance.legend')}</legend>
      <RadioGroup
        name="theme"
        legend="settings.theme.legend"
        description="settings.theme.description"
        options={themeOptions}
        value={theme}
        onChange={(value) => onChange({ theme: value })}
      />
      <RadioGroup
        name="text-size"
        legend="settings.textSize.legend"
        description="settings.textSize.description"
        options={textSizeOptions}
        value={textSize}
        onChange={(value) => onChange({ textSize: value })}
      />
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
