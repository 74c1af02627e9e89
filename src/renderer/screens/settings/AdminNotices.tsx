import { usePolicyView, type PolicyView } from '../../kiosk/policy-context';
import type { AppInfo } from '../../hooks/useApiData';
import type { Resource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import { noticeKey, type MessageKey } from '../../i18n/strings';

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
export function KioskNotices({ info }: { info: Resource<AppInfo> }) {
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
          <li key={notice.message}>
            {t(
              noticeKey(notice.code),
              Object.fromEntries(Object.entries(notice.params ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)),
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Under a device policy: which settings its keys set (main refuses changing them). */
export function PolicyKeys() {
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
