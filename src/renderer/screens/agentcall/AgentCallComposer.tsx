import type { RefObject } from 'react';
import { limits } from '../../../shared/agentcall/protocol';
import type { IpcError } from '../../../shared/ipc/errors';
import { SessionComposer } from '../../components/SessionComposer';
import { useI18n } from '../../i18n/I18nProvider';

/**
 * The message field of a session: Enter sends (`agentcall.sendText`), Shift+Enter starts a new
 * line. The text stays in the field until main took it, so a refused message is not lost. While
 * the agent answers, Cancel (`agentcall.cancel`) replaces Send: one run at a time.
 */
export function AgentCallComposer({
  textareaRef,
  draftKey,
  ready,
  runActive,
  cancelling,
  onSend,
  onCancel,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  draftKey: string;
  /** The session is established and has not ended. */
  ready: boolean;
  runActive: boolean;
  /** `response.cancel` was sent; the run has not ended yet. */
  cancelling: boolean;
  onSend: (text: string) => Promise<IpcError | undefined>;
  onCancel: () => Promise<IpcError | undefined>;
}) {
  const { t } = useI18n();
  return (
    <SessionComposer
      textareaRef={textareaRef}
      draftKey={draftKey}
      ready={ready}
      running={runActive}
      cancelling={cancelling}
      max={limits.textChars}
      tooLongMessage={t('agentcall.composer.tooLong', { max: limits.textChars })}
      notSentText={t('agentcall.notSent')}
      onSend={onSend}
      onCancel={onCancel}
    />
  );
}
