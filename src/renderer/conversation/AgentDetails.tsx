import { useRef, type ReactNode } from 'react';
import { useDialogFocus } from '../hooks/useDialogFocus';
import { useI18n } from '../i18n/I18nProvider';

/**
 * The agent's details, behind the header's info button: everything about the agent that is not the
 * conversation (what it is, its version and address, what it accepts, its web pages, connection
 * settings). A modal dialog: Tab stays in it, Escape or Close closes it and gives the focus back.
 */
export function AgentDetails({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const { t } = useI18n();
  const panel = useRef<HTMLDivElement>(null);
  useDialogFocus(panel);
  return (
    <div className="modal" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        ref={panel}
        className="modal__panel agent-details"
        role="dialog"
        aria-modal="true"
        aria-labelledby="agent-details-title"
        onKeyDown={(event) => {
          if (event.key !== 'Escape' || event.defaultPrevented) return;
          event.preventDefault();
          onClose();
        }}
      >
        <div className="agent-details__head">
          <h2 id="agent-details-title" className="agent-details__title">
            {t('conversation.details.title', { name: title })}
          </h2>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('conversation.details.close')}
          </button>
        </div>
        <div className="agent-details__body">{children}</div>
      </div>
    </div>
  );
}
