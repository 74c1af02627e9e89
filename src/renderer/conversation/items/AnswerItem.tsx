import { memo } from 'react';
import type { AnswerField } from '../../../shared/agui/interrupts';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useI18n } from '../../i18n/I18nProvider';

/** What the user answered to one of the agent's questions: their decision stays in the conversation. */
export const AnswerItem = memo(function AnswerItem({ item }: { item: ItemOfKind<'answer'> }) {
  const { t, language } = useI18n();
  const shown = (value: AnswerField['value']): string => {
    if (typeof value === 'boolean') return t(value ? 'agui.answer.yes' : 'agui.answer.no');
    if (typeof value === 'number') return new Intl.NumberFormat(language).format(value);
    if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : t('agui.answer.none');
    return value !== '' ? value : t('agui.answer.none');
  };
  return (
    <div className="message message--user agui-answer">
      <p className="agui-item__kicker">{t(item.status === 'resolved' ? 'agui.answer.resolved' : 'agui.answer.cancelled')}</p>
      <p className="message__text">{item.question}</p>
      {item.fields.length > 0 ? (
        <dl className="agui-answer__fields">
          {item.fields.map((field, index) => (
            <div key={index} className="agui-answer__field">
              {field.label !== '' ? <dt>{field.label}</dt> : null}
              <dd>{shown(field.value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </div>
  );
});
