import { useState } from 'react';
import type { IpcError } from '../../shared/base/errors';
import { conversationBounds } from '../../shared/conversation/bounds';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorText } from './ErrorText';

/**
 * The top of a transcript that shows a window of its conversation (src/shared/conversation/bounds.ts):
 * that earlier messages were removed to keep the chat small (the conversation's budget), and
 * "Show earlier" while there are earlier items to ask for (`earlier`, at most `earlierItems` a time).
 */
export function EarlierMessages({
  removed,
  earlier,
  onShowEarlier,
}: {
  removed: boolean;
  earlier: number;
  onShowEarlier?: (() => Promise<IpcError | undefined>) | (() => void);
}) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  async function show() {
    if (!onShowEarlier || busy) return;
    setBusy(true);
    setError(undefined);
    const failed = await onShowEarlier();
    setBusy(false);
    setError(failed ?? undefined);
  }
  return (
    <>
      {removed ? <p className="muted transcript__earlier transcript__removed">{t('conversation.removed')}</p> : null}
      {earlier > 0 && onShowEarlier ? (
        <p className="transcript__earlier">
          <button type="button" className="button button--secondary" aria-disabled={busy} onClick={() => void show()}>
            {t('chat.showEarlier', { count: Math.min(earlier, conversationBounds.earlierItems) })}
          </button>
        </p>
      ) : null}
      {error ? (
        <p className="error-text transcript__earlier">
          <ErrorText error={error} />
        </p>
      ) : null}
    </>
  );
}
