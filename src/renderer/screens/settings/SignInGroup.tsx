import { useI18n } from '../../i18n/I18nProvider';
import { Checkbox, GroupFeedback, type Feedback } from './controls';

export function SignInGroup({
  redirect,
  feedback,
  onChange,
}: {
  redirect: 'loopback' | 'private-use';
  feedback: Feedback;
  onChange: (redirect: 'loopback' | 'private-use') => void;
}) {
  const { t } = useI18n();
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.signIn.legend')}</legend>
      <Checkbox
        label="settings.signIn.privateUse.label"
        description="settings.signIn.privateUse.description"
        checked={redirect === 'private-use'}
        onChange={(checked) => onChange(checked ? 'private-use' : 'loopback')}
      />
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
