import { memo } from 'react';
import { prettyJson } from '../../../shared/agui/json-values';
import type { AnswerField } from '../../../shared/agui/interrupts';
import type { AguiItem, ToolCallState } from '../../../shared/agui/run-model';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { Markdown } from '../../components/Markdown';
import { MessageCopy, UserMessageTools } from '../../components/MessageCopy';

const toolStateKeys: Record<ToolCallState, MessageKey> = {
  streaming: 'agui.tool.state.streaming',
  called: 'agui.tool.state.called',
  completed: 'agui.tool.state.completed',
  failed: 'agui.tool.state.failed',
  incomplete: 'agui.tool.state.incomplete',
};

/** Activity content shown as pretty JSON (bounded by the run model already; this is a second guard). */
const maxShownJson = 65_536;

function Truncated() {
  const { t } = useI18n();
  return <p className="message__state">{t('agui.truncated')}</p>;
}

function ToolCallView({ item }: { item: Extract<AguiItem, { kind: 'toolCall' }> }) {
  const { t } = useI18n();
  const result = item.result;
  return (
    <details className={`agui-tool agui-tool--${item.state}`}>
      <summary className="agui-tool__summary">
        <span className="agui-tool__name">{item.name !== '' ? t('agui.tool.title', { name: item.name }) : t('agui.tool.unnamed')}</span>{' '}
        <span className="agui-tool__state">{t(toolStateKeys[item.state])}</span>
      </summary>
      <div className="agui-tool__body">
        {item.started ? (
          <>
            <p className="agui-tool__label">{t('agui.tool.arguments')}</p>
            {item.argsStatus === 'empty' ? <p className="muted">{t('agui.tool.argumentsEmpty')}</p> : <pre className="agui-pre">{item.argsPretty ?? item.argsText}</pre>}
            {item.argsStatus === 'invalid' ? <p className="message__state">{t('agui.tool.argumentsInvalid')}</p> : null}
            {item.argsStatus === 'truncated' ? <p className="message__state">{t('agui.tool.argumentsTruncated')}</p> : null}
          </>
        ) : null}
        {result ? (
          <>
            <p className="agui-tool__label">{t('agui.tool.result')}</p>
            {result.text !== '' ? <pre className="agui-pre">{result.text}</pre> : null}
            {result.truncated ? <Truncated /> : null}
            {result.error !== undefined ? <p className="error-text">{t('agui.tool.error', { message: result.error })}</p> : null}
            {result.media && result.media.length > 0 ? (
              <ul className="agui-tool__media">
                {result.media.map((media, index) => (
                  <li key={index}>{media.mimeType !== undefined ? t('agui.tool.mediaMime', { type: media.type, mime: media.mimeType }) : t('agui.tool.media', { type: media.type })}</li>
                ))}
              </ul>
            ) : null}
          </>
        ) : null}
      </div>
    </details>
  );
}

/**
 * One entry of a plain AG-UI thread. Everything in it came from the agent and is shown as text:
 * assistant text as Markdown without HTML (raw HTML stays literal), everything else as plain text
 * or pretty JSON in <pre>. Memoised: a streaming delta re-renders only the item it changed.
 */
export const AguiItemView = memo(function AguiItemView({ item, onEdit }: { item: AguiItem; /** The user's last message, while it may be edited. */ onEdit?: (() => void) | undefined }) {
  const { t } = useI18n();
  switch (item.kind) {
    case 'user':
      return (
        <div className="message message--user">
          <p className="visually-hidden">{t('agui.you')}</p>
          <p className="message__text">{item.text}</p>
          <UserMessageTools text={item.text} onEdit={onEdit} />
        </div>
      );
    case 'text':
      return (
        <div className={`message${item.streaming ? ' message--streaming' : ''}`}>
          {item.role === 'system' || item.role === 'developer' ? <p className="agui-item__kicker">{t(item.role === 'system' ? 'agui.role.system' : 'agui.role.developer')}</p> : null}
          {item.name !== undefined ? <p className="agui-item__kicker">{item.name}</p> : null}
          <Markdown text={item.text} />
          <MessageCopy text={item.text} streaming={item.streaming} />
          {item.truncated ? <Truncated /> : null}
        </div>
      );
    case 'reasoning':
      return (
        <details className="agui-reasoning">
          <summary className="agui-reasoning__summary">{item.streaming ? t('agui.thinking.streaming') : t('agui.thinking')}</summary>
          <div className="agui-reasoning__body">
            {item.text !== '' ? <p className="message__text">{item.text}</p> : null}
            {item.truncated ? <Truncated /> : null}
            {item.encryptedHidden ? <p className="muted">{t('agui.thinking.encrypted')}</p> : null}
          </div>
        </details>
      );
    case 'toolCall':
      return <ToolCallView item={item} />;
    case 'activity':
      return (
        <section className="agui-activity" aria-label={t('agui.activity.title', { type: item.activityType })}>
          <p className="agui-item__kicker">{t('agui.activity.title', { type: item.activityType })}</p>
          <pre className="agui-pre">{prettyJson(item.content, maxShownJson) ?? ''}</pre>
        </section>
      );
    case 'custom':
      return (
        <div className="agui-custom">
          <p className="agui-item__kicker">
            <span className="agui-custom__label">{item.label}</span> <span>{item.title}</span>
          </p>
          {item.text !== undefined ? <p className="message__text">{item.text}</p> : null}
          {item.json !== undefined ? (
            <details>
              <summary>{t('agui.custom.details')}</summary>
              <pre className="agui-pre">{item.json}</pre>
            </details>
          ) : null}
        </div>
      );
    case 'error':
      return (
        <div className="message message--error">
          <p className="agui-item__kicker">{t('agui.error.title')}</p>
          <p className="message__text">{item.message}</p>
          {item.code !== undefined ? <p className="message__state">{t('agui.error.code', { code: item.code })}</p> : null}
        </div>
      );
    case 'answer':
      return <AnswerView item={item} />;
  }
});

/** What the user answered to one of the agent's questions (their decision stays in the thread). */
function AnswerView({ item }: { item: Extract<AguiItem, { kind: 'answer' }> }) {
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
}
