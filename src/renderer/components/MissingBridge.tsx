import { useI18n } from '../i18n/I18nProvider';

/** Shown when the page was opened without the app around it (no preload, or the web shell without a session). */
export function MissingBridge() {
  const { t } = useI18n();
  return (
    <main id="content" className="missing" tabIndex={-1}>
      <div className="missing__panel">
        <p className="app-title">{t('app.name')}</p>
        <h1 className="missing__title">{t('missing.title')}</h1>
        <p className="missing__body">{t('missing.body')}</p>
        <p className="missing__hint">{t('missing.hint')}</p>
      </div>
    </main>
  );
}
