import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useI18n } from '../../i18n/I18nProvider';
import { usePolicyView } from '../../kiosk/policy-context';

/** Something the agent reported: its title and readable lines; the raw JSON only behind Details, and never on a kiosk (issue #27). */
export const ActivityItem = memo(function ActivityItem({ item }: { item: ItemOfKind<'activity'> }) {
  const { t } = useI18n();
  const { kiosk } = usePolicyView();
  return (
    <section className="agui-activity" aria-label={item.title}>
      <p className="agui-item__kicker">
        {item.source !== undefined ? <span className="agui-custom__label">{item.source}</span> : null} <span>{item.title}</span>
      </p>
      {item.text !== undefined ? <p className="message__text">{item.text}</p> : null}
      {item.json !== undefined && !kiosk ? (
        <details>
          <summary>{t('agui.custom.details')}</summary>
          <pre className="agui-pre">{item.json}</pre>
        </details>
      ) : null}
    </section>
  );
});
