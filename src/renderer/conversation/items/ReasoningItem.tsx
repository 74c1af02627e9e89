import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useI18n } from '../../i18n/I18nProvider';

/** The agent's thinking, folded away: the summary says it thought; the text is one click away. */
export const ReasoningItem = memo(function ReasoningItem({ item }: { item: ItemOfKind<'reasoning'> }) {
  const { t } = useI18n();
  return (
    <details className="agui-reasoning">
      <summary className="agui-reasoning__summary">{item.streaming ? t('agui.thinking.streaming') : t('agui.thinking')}</summary>
      <div className="agui-reasoning__body">
        {item.text !== '' ? <p className="message__text">{item.text}</p> : null}
        {item.truncated ? <p className="message__state">{t('agui.truncated')}</p> : null}
        {item.hiddenPart ? <p className="muted">{t('agui.thinking.encrypted')}</p> : null}
      </div>
    </details>
  );
});
