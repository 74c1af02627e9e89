import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { LinkView } from '../../components/LinkView';
import { useI18n } from '../../i18n/I18nProvider';

/** A link the agent suggested: untrusted, opened only through the app's link rules. */
export const LinkItem = memo(function LinkItem({ item }: { item: ItemOfKind<'link'> }) {
  const { t } = useI18n();
  return (
    <p className="suggestion">
      <span className="suggestion__kicker">{t('chat.link.suggested')}</span>{' '}
      <LinkView url={item.url} className="chip">
        {item.label}
      </LinkView>
    </p>
  );
});
