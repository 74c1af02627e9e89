import { memo } from 'react';
import type { ItemOfKind } from '../../../shared/conversation/items';
import { useI18n, type I18n } from '../../i18n/I18nProvider';
import { usePolicyView } from '../../kiosk/policy-context';

/** "Searching contacts…" → "searching contacts" (the line after it finished says "Finished searching contacts"). */
function labelPhrase(label: string): string {
  const trimmed = label
    .trim()
    .replace(/(…|\.\.\.)$/u, '')
    .trim();
  return trimmed.length > 1 && trimmed[1] === trimmed[1]?.toLowerCase() ? `${trimmed[0]?.toLowerCase() ?? ''}${trimmed.slice(1)}` : trimmed;
}

/**
 * One line saying what the tool is doing or did, in words: present while it runs, past once done, a
 * failure as a failure. `named: false` (a kiosk's visitor): a tool without a label for people is "a
 * tool", never its identifier.
 */
export function toolLine(item: ItemOfKind<'tool'>, { t }: Pick<I18n, 't'>, { named = true }: { named?: boolean } = {}): string {
  const name = named ? item.name.trim() : '';
  if (item.label !== undefined && item.label.trim() !== '') {
    const label = item.label.trim();
    if (item.state === 'running') return label;
    if (item.state === 'done') return t('conversation.tool.finishedLabel', { label: labelPhrase(label) });
    if (item.state === 'cancelled') return t('conversation.tool.stoppedLabel', { label: labelPhrase(label) });
    return t('conversation.tool.failedLabel', { label: labelPhrase(label) });
  }
  if (name === '')
    return t(
      item.state === 'failed'
        ? 'conversation.tool.failedUnnamed'
        : item.state === 'running'
          ? 'conversation.tool.usingUnnamed'
          : item.state === 'cancelled'
            ? 'conversation.tool.stoppedUnnamed'
            : 'conversation.tool.usedUnnamed',
    );
  if (item.state === 'running') return t('conversation.tool.using', { name });
  if (item.state === 'done') return t('conversation.tool.used', { name });
  if (item.state === 'cancelled') return t('conversation.tool.stopped', { name });
  return t('conversation.tool.failed', { name });
}

/**
 * A tool the agent used: one readable line (a spinner while it runs, ✓ once done, ✗ when it failed,
 * with the failure's words), and what it was given and gave back behind Details — not on a kiosk,
 * where a visitor gets the line only (issue #27: no tool identifiers, raw arguments, results or error
 * texts on a visitor's screen).
 */
export const ToolItem = memo(function ToolItem({ item }: { item: ItemOfKind<'tool'> }) {
  const i18n = useI18n();
  const { t } = i18n;
  const icon =
    item.state === 'running' ? (
      <span className="spinner" aria-hidden="true" />
    ) : (
      <span aria-hidden="true">{item.state === 'done' ? '✓' : item.state === 'failed' ? '✗' : '–'}</span>
    );
  const { kiosk } = usePolicyView();
  const hasDetails = !kiosk && (item.args !== undefined || item.argsNote !== undefined || item.result !== undefined || (item.media?.length ?? 0) > 0);
  const line = (
    <>
      <span className="tool-line__icon">{icon}</span>
      <span className="tool-line__label">{toolLine(item, i18n, { named: !kiosk })}</span>
      {item.state === 'failed' && item.error !== undefined && item.error !== '' && !kiosk ? (
        <span className="tool-line__error"> {t('chat.tool.failedWith', { error: item.error })}</span>
      ) : null}
    </>
  );
  if (!hasDetails) return <p className={`tool-line tool-line--${item.state}`}>{line}</p>;
  return (
    <details className={`tool-line tool-line--details tool-line--${item.state}`}>
      <summary className="tool-line__summary">{line}</summary>
      <div className="agui-tool__body">
        {item.args !== undefined ? (
          <>
            <p className="agui-tool__label">{t('agui.tool.arguments')}</p>
            <pre className="agui-pre">{item.args}</pre>
          </>
        ) : null}
        {item.argsNote === 'empty' ? <p className="muted">{t('agui.tool.argumentsEmpty')}</p> : null}
        {item.argsNote === 'invalid' ? <p className="message__state">{t('agui.tool.argumentsInvalid')}</p> : null}
        {item.argsNote === 'truncated' ? <p className="message__state">{t('agui.tool.argumentsTruncated')}</p> : null}
        {item.result !== undefined ? (
          <>
            <p className="agui-tool__label">{t('agui.tool.result')}</p>
            <pre className="agui-pre">{item.result}</pre>
          </>
        ) : null}
        {item.resultTruncated ? <p className="message__state">{t('agui.truncated')}</p> : null}
        {item.media && item.media.length > 0 ? (
          <ul className="agui-tool__media">
            {item.media.map((media, index) => (
              <li key={index}>
                {media.mimeType !== undefined
                  ? t('agui.tool.mediaMime', { type: media.type, mime: media.mimeType })
                  : t('agui.tool.media', { type: media.type })}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </details>
  );
});
