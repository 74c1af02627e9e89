import { useId, type MutableRefObject, type ReactNode, type RefObject } from 'react';
import type { IpcError } from '../../../shared/ipc/errors';
import { Composer, type ComposerHandle } from '../../components/Composer';
import { useI18n } from '../../i18n/I18nProvider';

/** agui.send takes at most this much text. */
export const maxMessageChars = 100_000;

/**
 * The message field: Enter sends (`agui.send`, a new run on the same thread). The text stays until
 * main took it. While a run is going, Cancel (`agui.cancel`) replaces Send; while the agent waits
 * for answers to its requests, the whole field is disabled with a hint (answer them first).
 */
export function AguiComposer({
  textareaRef,
  draftKey,
  ready,
  running,
  blocked,
  onSend,
  onCancel,
  handleRef,
  notice,
  onEditLast,
  onEscape,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  draftKey: string;
  ready: boolean;
  running: boolean;
  /** Interrupts are open. */
  blocked: boolean;
  onSend: (text: string) => Promise<IpcError | undefined>;
  onCancel: () => Promise<IpcError | undefined>;
  /** Editing the last message: see Composer. */
  handleRef?: MutableRefObject<ComposerHandle | null>;
  notice?: ReactNode;
  onEditLast?: () => void;
  onEscape?: () => boolean;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    // A disabled fieldset disables the field and its buttons together while interrupts are open.
    <fieldset className="agui-composer" disabled={blocked} aria-describedby={blocked ? `${id}-blocked` : undefined}>
      <legend className="visually-hidden">{t('chat.composer.label')}</legend>
      {blocked ? (
        <p id={`${id}-blocked`} className="field__hint agui-composer__blocked">
          {t('agui.composer.blocked')}
        </p>
      ) : null}
      <Composer
        textareaRef={textareaRef}
        draftKey={draftKey}
        ready={ready && !blocked}
        running={running}
        max={maxMessageChars}
        counterFrom={maxMessageChars - 1_000}
        tooLongMessage={t('agui.composer.tooLong', { max: maxMessageChars })}
        notSentText={t('agui.notSent')}
        onSend={onSend}
        onCancel={onCancel}
        handleRef={handleRef}
        notice={notice}
        onEditLast={onEditLast}
        onEscape={onEscape}
      />
    </fieldset>
  );
}
