import { useI18n } from '../i18n/I18nProvider';

/**
 * Kiosk mode with a device policy that cannot be used (issue #18): main runs nothing else, and the
 * page says so, naming the file and main's description of the problem (English, like main's other messages).
 */
export function PolicyError({ file, message }: { file: string; message: string }) {
  const { t } = useI18n();
  return (
    <main id="content" className="missing" tabIndex={-1}>
      <div className="missing__panel" role="alert">
        <p className="app-title">{t('app.name')}</p>
        <h1 className="missing__title">{t('policy.errorTitle')}</h1>
        <p className="missing__body">{t('policy.errorFile', { file })}</p>
        <p className="missing__body">{message}</p>
        <p className="missing__hint">{t('policy.errorHint')}</p>
      </div>
    </main>
  );
}
