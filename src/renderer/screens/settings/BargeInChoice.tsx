import { bargeInSettingSchema, type BargeInSetting } from '../../../shared/settings/settings';
import { useBargeIn } from '../../voice/barge-in';
import { useI18n } from '../../i18n/I18nProvider';
import { GroupFeedback, RadioGroup, type Feedback } from './controls';

const bargeInOptions = bargeInSettingSchema.options.map((value) => ({ value, label: `settings.bargeIn.${value}` as const }));

/** Settings → Speech: barge-in (Automatic, On, Off), and which way Automatic goes with this page's devices now. */
export function BargeInChoice({ value, feedback, onChange }: { value: BargeInSetting; feedback: Feedback; onChange: (value: BargeInSetting) => void }) {
  const { t } = useI18n();
  const automatic = useBargeIn('automatic');
  return (
    <div className="field">
      <RadioGroup
        name="barge-in"
        legend="settings.bargeIn.legend"
        description="settings.bargeIn.description"
        options={bargeInOptions}
        value={value}
        onChange={onChange}
      />
      <p className="field__hint">{automatic.on ? t('settings.bargeIn.nowOn', { device: automatic.headphones ?? '' }) : t('settings.bargeIn.nowOff')}</p>
      <GroupFeedback feedback={feedback} />
    </div>
  );
}
