import { usePolicyView, type PolicyView } from '../kiosk/policy-context';
import { useEffect, useId, useRef, useState, type ReactNode, type Ref } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/base/errors';
import type { NfcSettings } from '../../shared/nfc/ipc-schemas';
import {
  applySettingsPatch,
  bargeInSettingOf,
  bargeInSettingSchema,
  languageSchema,
  nfcSettingsOf,
  textSizeSchema,
  themeSchema,
  type BargeInSetting,
  type Settings,
  type SettingsPatch,
} from '../../shared/settings/settings';
import { useBargeIn } from '../voice/barge-in';
import { ErrorText } from '../components/ErrorText';
import { keyCombination } from '../components/key-combination';
import { callShortcut, callShortcutLabel, type AcceleratorProblem } from '../../shared/talkie/voice/call-shortcut';
import type { AppInfo } from '../hooks/useApiData';
import { call, type LiveResource, type Resource } from '../hooks/useLiveResource';
import { useI18n } from '../i18n/I18nProvider';
import { noticeKey, type MessageKey } from '../i18n/strings';
import { DiagnosticsSection } from './settings/DiagnosticsSection';
import { SpeechSettings } from './SpeechSettings';
import './nfc/nfc.css';

type Group = 'language' | 'appearance' | 'signIn' | 'nfc' | 'voice' | 'bargeIn' | 'developer';
type Feedback = { group: Group; kind: 'saved' } | { group: Group; kind: 'error'; error: IpcError } | null;

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

  async function change(group: Group, patch: SettingsPatch) {
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
    const feedbackFor = (group: Group) => (feedback?.group === group ? feedback : null);
    body = (
      <div className="settings-groups">
        <LanguageGroup
          value={shown.language}
          feedback={feedbackFor('language')}
          onChange={(language) => void change('language', { language })}
        />
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
          <BargeInChoice value={bargeInSettingOf(shown)} feedback={feedbackFor('bargeIn')} onChange={(bargeIn) => void change('bargeIn', { voice: { bargeIn } })} />
        </SpeechSettings>
        <DeveloperGroup
          value={shown.developer}
          feedback={feedbackFor('developer')}
          onChange={(developer) => void change('developer', { developer })}
        />
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

/** The group's live region: "Saved" or why the change was not saved. Always rendered. */
function GroupFeedback({ feedback }: { feedback: Feedback }) {
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

function LanguageGroup({
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

function RadioGroup<V extends string>({
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

const themeOptions = themeSchema.options.map((value) => ({ value, label: `settings.theme.${value}` as const }));
const textSizeOptions = textSizeSchema.options.map((value) => ({ value, label: `settings.textSize.${value}` as const }));

function AppearanceGroup({
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

function Checkbox({
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

function SignInGroup({
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

function NfcGroup({
  value,
  feedback,
  onChange,
}: {
  value: NfcSettings;
  feedback: Feedback;
  onChange: (patch: Partial<NfcSettings>) => void;
}) {
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

const bargeInOptions = bargeInSettingSchema.options.map((value) => ({ value, label: `settings.bargeIn.${value}` as const }));

/** Settings → Speech: barge-in (Automatic, On, Off), and which way Automatic goes with this page's devices now. */
function BargeInChoice({ value, feedback, onChange }: { value: BargeInSetting; feedback: Feedback; onChange: (value: BargeInSetting) => void }) {
  const { t } = useI18n();
  const automatic = useBargeIn('automatic');
  return (
    <div className="field">
      <RadioGroup name="barge-in" legend="settings.bargeIn.legend" description="settings.bargeIn.description" options={bargeInOptions} value={value} onChange={onChange} />
      <p className="field__hint">{automatic.on ? t('settings.bargeIn.nowOn', { device: automatic.headphones ?? '' }) : t('settings.bargeIn.nowOff')}</p>
      <GroupFeedback feedback={feedback} />
    </div>
  );
}

const onMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform || navigator.userAgent);

/** The call's global shortcut: the field records the keys pressed in it (Tab still moves on, Escape still leaves). */
function VoiceGroup({ shortcut, feedback, onChange }: { shortcut: string | undefined; feedback: Feedback; onChange: (accelerator: string | null) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [refused, setRefused] = useState<AcceleratorProblem | undefined>(undefined);
  const field = useRef<HTMLInputElement>(null);
  const platform = onMac ? 'darwin' : 'other';
  const shown = callShortcutLabel(platform, shortcut ?? callShortcut);
  const refusedKey: MessageKey | undefined =
    refused === undefined
      ? undefined
      : refused === 'no_modifier'
        ? 'settings.voice.shortcut.refused.no_modifier'
        : refused === 'escape'
          ? 'settings.voice.shortcut.refused.escape'
          : 'settings.voice.shortcut.refused.other';
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.voice.legend')}</legend>
      <div className="field">
        <label htmlFor={`${id}-shortcut`} className="field__label">
          {t('settings.voice.shortcut.label')}
        </label>
        <p id={`${id}-shortcut-description`} className="field__hint">
          {t('settings.voice.shortcut.description')}
        </p>
        <input
          ref={field}
          id={`${id}-shortcut`}
          className="input"
          type="text"
          readOnly
          autoComplete="off"
          value={shown}
          aria-invalid={refusedKey !== undefined || undefined}
          aria-describedby={`${id}-shortcut-description${refusedKey ? ` ${id}-shortcut-error` : ''}`}
          onKeyDown={(event) => {
            if (event.key === 'Tab' || (event.key === 'Escape' && !event.ctrlKey && !event.altKey && !event.shiftKey && !event.metaKey)) return;
            event.preventDefault();
            const pressed = keyCombination(event.nativeEvent, onMac);
            if (pressed.kind === 'modifiers-only') return;
            if (pressed.kind === 'refused') return setRefused(pressed.problem);
            setRefused(undefined);
            if (pressed.accelerator !== (shortcut ?? callShortcut)) onChange(pressed.accelerator === callShortcut ? null : pressed.accelerator);
          }}
        />
        {refusedKey ? (
          <p id={`${id}-shortcut-error`} className="error-text">
            {t(refusedKey)}
          </p>
        ) : null}
        {shortcut !== undefined ? (
          <p>
            <button
              type="button"
              className="button button--secondary"
              onClick={() => {
                // The button goes away with the choice: the focus stays in the group, on the field.
                field.current?.focus();
                onChange(null);
              }}
            >
              {t('settings.voice.shortcut.default', { keys: callShortcutLabel(platform, callShortcut) })}
            </button>
          </p>
        ) : null}
      </div>
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}

function DeveloperGroup({
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

function About({ info }: { info: Resource<AppInfo> }) {
  const { t } = useI18n();
  const id = useId();
  let line: ReactNode;
  if (info.status === 'loading') line = <p className="muted">…</p>;
  else if (info.status === 'error') line = <p className="muted">{t('settings.about.unavailable')}</p>;
  else
    line = (
      <p>
        {t('settings.about.line', {
          name: info.value.name,
          version: info.value.version,
          shell: t(info.value.shell === 'web' ? 'settings.about.shell.web' : 'settings.about.shell.electron'),
        })}
      </p>
    );
  return (
    <section className="about" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="about__title">
        {t('settings.about.title')}
      </h2>
      {line}
    </section>
  );
}

const policyKeyNames: Record<PolicyView['forced'][number], MessageKey> = {
  language: 'settings.policyKey.language',
  'appearance.theme': 'settings.policyKey.appearance.theme',
  'appearance.textSize': 'settings.policyKey.appearance.textSize',
  'developer.allowLocalHttp': 'settings.policyKey.developer.allowLocalHttp',
  'developer.allowPastedTokens': 'settings.policyKey.developer.allowPastedTokens',
  'nfc.kioskScan': 'settings.policyKey.nfc.kioskScan',
  'voice.bargeIn': 'settings.policyKey.voice.bargeIn',
};

/**
 * A kiosk shows no notice to a visitor (issue #27): the start-up notices meant for the administrator
 * (no keychain, a file moved aside, the NFC key's file) are here, behind the PIN, and in the diagnostics.
 */
function KioskNotices({ info }: { info: Resource<AppInfo> }) {
  const { t } = useI18n();
  const { kiosk } = usePolicyView();
  const notices = info.status === 'ready' ? info.value.notices : [];
  if (!kiosk || notices.length === 0) return null;
  return (
    <section className="card settings-notices" aria-labelledby="settings-notices-title">
      <h2 id="settings-notices-title" className="card__title">
        {t('kiosk.noticesTitle')}
      </h2>
      <p>{t('kiosk.noticesBody')}</p>
      <ul>
        {notices.map((notice) => (
          <li key={notice.message}>{t(noticeKey(notice.code), Object.fromEntries(Object.entries(notice.params ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)))}</li>
        ))}
      </ul>
    </section>
  );
}

/** Under a device policy: which settings its keys set (main refuses changing them). */
function PolicyKeys() {
  const { t } = useI18n();
  const { forced } = usePolicyView();
  if (forced.length === 0) return null;
  return (
    <section className="card settings-policy" aria-labelledby="settings-policy-title">
      <h2 id="settings-policy-title" className="card__title">
        {t('settings.policyTitle')}
      </h2>
      <p>{t('settings.policyBody')}</p>
      <ul>
        {forced.map((key) => (
          <li key={key}>{t(policyKeyNames[key])}</li>
        ))}
      </ul>
    </section>
  );
}
