import { useEffect, useRef, useState, type ReactNode, type Ref } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import { applySettingsPatch, bargeInSettingOf, nfcSettingsOf, type Settings, type SettingsPatch } from '../../shared/settings/settings';
import { ErrorText } from '../components/ErrorText';
import type { AppInfo } from '../hooks/useApiData';
import { call, type LiveResource, type Resource } from '../hooks/useLiveResource';
import { useI18n } from '../i18n/I18nProvider';
import { About } from './settings/About';
import { KioskNotices, PolicyKeys } from './settings/AdminNotices';
import { AppearanceGroup } from './settings/AppearanceGroup';
import { BargeInChoice } from './settings/BargeInChoice';
import type { Feedback, SettingsGroup } from './settings/controls';
import { DeveloperGroup } from './settings/DeveloperGroup';
import { DiagnosticsSection } from './settings/DiagnosticsSection';
import { LanguageGroup } from './settings/LanguageGroup';
import { NfcGroup } from './settings/NfcGroup';
import { SignInGroup } from './settings/SignInGroup';
import { SpeechSettings } from './settings/SpeechSettings';
import { VoiceGroup } from './settings/VoiceGroup';

export interface SettingsScreenProps {
  api: AgentDeskApi;
  headingRef: Ref<HTMLHeadingElement>;
  settings: LiveResource<Settings>;
  info: Resource<AppInfo>;
  onBack: () => void;
}

/**
 * Every change is saved at once. The control shows the new value while the call runs; on failure
 * it returns to the stored value and the group shows why. Escape goes back to the home screen.
 */
export function SettingsScreen({ api, headingRef, settings, info, onBack }: SettingsScreenProps) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<Settings | null>(null);
  const [feedback, setFeedback] = useState<Feedback>(null);
  const latestCall = useRef(0);
  const { state, set: setStored } = settings;

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing) return;
      event.preventDefault();
      onBack();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [onBack]);

  async function change(group: SettingsGroup, patch: SettingsPatch) {
    if (state.status !== 'ready') return;
    setDraft(applySettingsPatch(draft ?? state.value, patch));
    // Empty the live region first, so that a second "Saved" is announced again.
    setFeedback(null);
    const callNumber = ++latestCall.current;
    const result = await call(() => api.settings.update({ patch }));
    if (result.ok) setStored(result.value);
    if (callNumber === latestCall.current) setDraft(null);
    setFeedback(result.ok ? { group, kind: 'saved' } : { group, kind: 'error', error: result.error });
  }

  let body: ReactNode;
  if (state.status === 'loading') {
    body = <p className="muted">{t('settings.loading')}</p>;
  } else if (state.status === 'error') {
    body = (
      <div className="inline-error">
        <p className="error-text">
          {t('settings.loadFailed')} <ErrorText error={state.error} />
        </p>
        <button type="button" className="button button--secondary" onClick={settings.reload}>
          {t('settings.retry')}
        </button>
      </div>
    );
  } else {
    const shown = draft ?? state.value;
    const feedbackFor = (group: SettingsGroup) => (feedback?.group === group ? feedback : null);
    body = (
      <div className="settings-groups">
        <LanguageGroup value={shown.language} feedback={feedbackFor('language')} onChange={(language) => void change('language', { language })} />
        <AppearanceGroup
          theme={shown.appearance.theme}
          textSize={shown.appearance.textSize}
          feedback={feedbackFor('appearance')}
          onChange={(appearance) => void change('appearance', { appearance })}
        />
        <SignInGroup
          redirect={shown.signIn?.redirect ?? 'loopback'}
          feedback={feedbackFor('signIn')}
          onChange={(redirect) => void change('signIn', { signIn: { redirect } })}
        />
        <NfcGroup value={nfcSettingsOf(shown)} feedback={feedbackFor('nfc')} onChange={(nfc) => void change('nfc', { nfc })} />
        <VoiceGroup shortcut={shown.voice?.shortcut} feedback={feedbackFor('voice')} onChange={(voiceShortcut) => void change('voice', { voiceShortcut })} />
        <SpeechSettings api={api}>
          <BargeInChoice
            value={bargeInSettingOf(shown)}
            feedback={feedbackFor('bargeIn')}
            onChange={(bargeIn) => void change('bargeIn', { voice: { bargeIn } })}
          />
        </SpeechSettings>
        <DeveloperGroup value={shown.developer} feedback={feedbackFor('developer')} onChange={(developer) => void change('developer', { developer })} />
      </div>
    );
  }

  return (
    <div className="screen">
      <div className="screen__header">
        <h1 ref={headingRef} tabIndex={-1} className="screen__title">
          {t('settings.title')}
        </h1>
        <button type="button" className="button button--secondary" onClick={onBack}>
          {t('settings.back')}
        </button>
      </div>
      <PolicyKeys />
      <KioskNotices info={info} />
      {body}
      <DiagnosticsSection api={api} />
      <About info={info} />
    </div>
  );
}
