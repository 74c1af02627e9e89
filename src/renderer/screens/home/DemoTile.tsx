import { useId } from 'react';
import { useI18n } from '../../i18n/I18nProvider';

/** The built-in demo agent arrives with a later feature; until then the tile says so honestly. */
export function DemoTile() {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-heading`;
  const unavailableId = `${id}-unavailable`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('demo.title')}
      </h2>
      <p>{t('demo.body')}</p>
      <p id={unavailableId} className="muted">
        {t('demo.unavailable')}
      </p>
      <button type="button" className="button button--primary" disabled aria-describedby={unavailableId}>
        {t('demo.open')}
      </button>
    </section>
  );
}
