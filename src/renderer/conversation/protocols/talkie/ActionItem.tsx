import { useEffect, useId, useRef, useState, type FocusEvent } from 'react';
import type { Action } from '../../../../shared/talkie/content';
import { ErrorText, type ShownError } from '../../../components/ErrorText';
import { useI18n, type I18n } from '../../../i18n/I18nProvider';
import type { MessageKey } from '../../../i18n/strings';
import { formatCountdown, parseTime } from '../../../components/format';
import { useNow } from '../../../hooks/useNow';
import { VoiceConfirmationLine } from './voice/VoiceLine';

export type Decision = 'confirm' | 'cancel';
export interface DecisionOutcome {
  note?: string;
  error?: ShownError;
}

export interface ActionHandlers {
  /** Sends the user's decision; called only from a button's click handler (Talkie 1 §8). */
  decide: (actionId: string, decision: Decision) => Promise<DecisionOutcome>;
  /** GET action: the authoritative state after a countdown ran out. */
  refresh: (actionId: string) => Promise<void>;
  /** Says something once in the chat's polite announcer (countdowns announce only start and end). */
  announce: (text: string) => void;
}

/** Each action status in words (the action's status line and the chat's announcements), never the raw state. */
export const actionStatusKeys: Record<Action['status'], MessageKey> = {
  pending: 'chat.action.state.pending',
  running: 'chat.action.state.running',
  done: 'chat.action.state.done',
  failed: 'chat.action.state.failed',
  cancelled: 'chat.action.state.cancelled',
  expired: 'chat.action.state.expired',
};

/**
 * Undo with the time left in the words the server's own text uses ("about 10 s"): whole seconds,
 * rounded up so that it says 1 s until the window closes; minutes from 2 minutes on.
 */
export function undoLabel(ms: number, t: I18n['t']): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds >= 120 ? t('chat.action.undoMinutes', { minutes: Math.ceil(seconds / 60) }) : t('chat.action.undoSeconds', { seconds });
}

const riskKeys: Record<Action['riskLevel'], MessageKey> = {
  low: 'chat.action.risk.low',
  medium: 'chat.action.risk.medium',
  high: 'chat.action.risk.high',
  unknown: 'chat.action.risk.unknown',
};

const riskTones: Record<Action['riskLevel'], string> = { low: 'neutral', medium: 'warning', high: 'negative', unknown: 'neutral' };

/**
 * A proposed action (Talkie 1 §8): summary, risk, status and a countdown. Confirm/Cancel appear only
 * when the server's policy allows buttons and the action is pending; a running action with
 * `undoUntil` offers Undo (a `cancel` decision) until then. When a countdown ends the buttons are
 * disabled and the action is fetched once again, so the server's state is what stays on screen.
 */
export function ActionItem({ action, handlers }: { action: Action; handlers: ActionHandlers }) {
  const { t } = useI18n();
  const id = useId();
  const summaryId = `${id}-summary`;
  const expiresAt = parseTime(action.expiresAt);
  const undoUntil = parseTime(action.undoUntil);
  const pending = action.status === 'pending';
  const undoable = action.status === 'running' && undoUntil !== undefined;
  const now = useNow((pending && expiresAt !== undefined) || undoable);
  const [busy, setBusy] = useState<Decision | null>(null);
  const [note, setNote] = useState<string | undefined>();
  const [failure, setFailure] = useState<{ decision: Decision; error: ShownError } | undefined>();

  const remaining = pending && expiresAt !== undefined ? expiresAt - now : undefined;
  const expired = remaining !== undefined && remaining <= 0;
  const undoLeft = undoable ? undoUntil - now : undefined;
  const undoOver = undoLeft !== undefined && undoLeft <= 0;

  const { refresh, announce, decide: sendDecision } = handlers;
  const refreshedFor = useRef<string | null>(null);
  useEffect(() => {
    const reason = expired ? `expired:${action.expiresAt ?? ''}` : undoOver ? `undo:${action.undoUntil ?? ''}` : null;
    if (reason === null || refreshedFor.current === reason) return;
    refreshedFor.current = reason;
    if (expired) announce(t('chat.action.expiredAnnounce', { summary: action.summary }));
    void refresh(action.id);
  }, [expired, undoOver, action.id, action.expiresAt, action.undoUntil, action.summary, refresh, announce, t]);

  // Confirm, Cancel and Undo are disabled while a decision is sent, then gone: focus stays on this
  // action, at its status line (which says what happened next), never on <body>.
  const statusRef = useRef<HTMLSpanElement>(null);
  const buttonHadFocus = useRef(false);
  const articleRef = useRef<HTMLElement>(null);
  const buttonsShown = (pending && action.buttons && !expired) || (undoable && !undoOver) || failure?.error.retryable === true;
  useEffect(() => {
    if (!buttonHadFocus.current) return;
    const active = document.activeElement;
    if (active === null || active === document.body) {
      buttonHadFocus.current = false;
      statusRef.current?.focus();
    }
  }, [busy, buttonsShown, failure]);
  const onButtonFocus = () => {
    buttonHadFocus.current = true;
  };
  const onButtonBlur = (event: FocusEvent<HTMLButtonElement>) => {
    // Focus moved somewhere on purpose (Tab, a click on another control): nothing to restore.
    if (event.relatedTarget !== null) buttonHadFocus.current = false;
  };

  async function decide(decision: Decision) {
    if (busy !== null) return;
    const active = document.activeElement;
    if (active instanceof HTMLButtonElement && articleRef.current?.contains(active)) statusRef.current?.focus();
    setBusy(decision);
    setNote(undefined);
    setFailure(undefined);
    const outcome = await sendDecision(action.id, decision);
    setBusy(null);
    if (outcome.note !== undefined) setNote(outcome.note);
    if (outcome.error !== undefined) setFailure({ decision, error: outcome.error });
  }

  const showButtons = pending && action.buttons;
  return (
    <article ref={articleRef} className={`action action--${action.riskLevel}`} aria-labelledby={summaryId}>
      <p className="action__kicker">{t('chat.action.kicker')}</p>
      <p id={summaryId} className="action__summary">
        {action.summary}
      </p>
      <div className="action__meta">
        <span className={`badge badge--${riskTones[action.riskLevel]}`}>{t(riskKeys[action.riskLevel])}</span>
        <span ref={statusRef} tabIndex={-1} className="action__status">
          {t(expired ? 'chat.action.state.expired' : actionStatusKeys[action.status])}
        </span>
        {remaining !== undefined && !expired ? (
          <span className="action__countdown">{t('chat.action.expiresIn', { time: formatCountdown(remaining) })}</span>
        ) : null}
      </div>
      {showButtons ? (
        <div className="action__buttons">
          <button
            type="button"
            className="button button--primary"
            aria-label={t('chat.action.confirmNamed', { summary: action.summary })}
            disabled={expired || busy !== null}
            aria-busy={busy === 'confirm' || undefined}
            onFocus={onButtonFocus}
            onBlur={onButtonBlur}
            onClick={() => void decide('confirm')}
          >
            {t('chat.action.confirm')}
          </button>
          <button
            type="button"
            className="button button--secondary"
            aria-label={t('chat.action.cancelNamed', { summary: action.summary })}
            disabled={expired || busy !== null}
            aria-busy={busy === 'cancel' || undefined}
            onFocus={onButtonFocus}
            onBlur={onButtonBlur}
            onClick={() => void decide('cancel')}
          >
            {t('chat.action.cancel')}
          </button>
        </div>
      ) : null}
      {pending && !action.buttons && !expired ? <p className="muted">{t('chat.action.noButtons')}</p> : null}
      {pending && !expired ? <VoiceConfirmationLine actionId={action.id} /> : null}
      {undoable && !undoOver ? (
        <div className="action__buttons">
          <button
            type="button"
            className="button button--secondary"
            aria-label={t('chat.action.undoNamed', { summary: action.summary })}
            disabled={busy !== null}
            onFocus={onButtonFocus}
            onBlur={onButtonBlur}
            onClick={() => void decide('cancel')}
          >
            {undoLabel(undoLeft ?? 0, t)}
          </button>
        </div>
      ) : null}
      <div role="status" className="feedback">
        {note !== undefined ? <p className="action__note">{note}</p> : null}
        {failure ? (
          <p className="error-text">
            <ErrorText error={failure.error} />
          </p>
        ) : null}
      </div>
      {failure?.error.retryable ? (
        <button
          type="button"
          className="button button--secondary action__retry"
          onFocus={onButtonFocus}
          onBlur={onButtonBlur}
          onClick={() => void decide(failure.decision)}
        >
          {t('chat.retry')}
        </button>
      ) : null}
    </article>
  );
}
