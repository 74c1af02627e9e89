import type { ReactNode, RefObject } from 'react';
import type { IpcError } from '../../shared/base/errors';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorAlert } from './ErrorText';

/**
 * An agent screen's header (Talkie, AgentCall, plain AG-UI): the band with Back, an optional logo,
 * the screen's heading (where the focus lands on arrival) with lines under it, and at most one
 * action; then anything the screen adds below the band, and the action's failure as an alert.
 */
export function AgentHeader({
  className,
  headingRef,
  title,
  onBack,
  logo,
  subtitle,
  action,
  failure,
  children,
}: {
  className?: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
  title: string;
  onBack: () => void;
  logo?: ReactNode;
  /** Lines under the heading (description, version, endpoint). */
  subtitle?: ReactNode;
  /** The band's button (Sign out, End session, New thread); busy while it runs. */
  action?: { label: string; busy: boolean; disabled?: boolean; onClick: () => void } | undefined;
  /** Why the action failed: its summary and main's error. */
  failure?: { summary: string; error: IpcError } | undefined;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <header className={className === undefined ? 'chat-header' : `chat-header ${className}`}>
      <div className="chat-header__band">
        <button type="button" className="button chat-header__back" onClick={onBack}>
          {t('chat.back')}
        </button>
        {logo}
        <div className="chat-header__text">
          <h1 ref={headingRef} tabIndex={-1} className="chat-header__title">
            {title}
          </h1>
          {subtitle}
        </div>
        {action ? (
          <button
            type="button"
            className="button chat-header__action"
            disabled={action.busy || action.disabled}
            aria-busy={action.busy || undefined}
            onClick={action.onClick}
          >
            {action.label}
          </button>
        ) : null}
      </div>
      {children}
      <ErrorAlert summary={failure?.summary} error={failure?.error} className="chat-header__error" />
    </header>
  );
}
