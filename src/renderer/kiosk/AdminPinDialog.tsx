import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/base/errors';
import { ErrorText } from '../components/ErrorText';
import { useDialogFocus } from '../hooks/useDialogFocus';
import { call } from '../hooks/useLiveResource';
import { useNow } from '../hooks/useNow';
import { useI18n } from '../i18n/I18nProvider';

type Outcome =
  | { kind: 'none' }
  | { kind: 'checking' }
  | { kind: 'wrong'; freeTriesLeft: number; lockedUntil: number }
  | { kind: 'locked'; lockedUntil: number }
  | { kind: 'error'; error: IpcError };

/**
 * The admin PIN (device policy): Settings opens only after main accepted it (`policy.unlockAdmin`,
 * checked in main, in constant time, with its saved lockout). After wrong tries the dialog shows
 * how long main makes the next one wait, counting down; Unlock waits with it.
 */
export function AdminPinDialog({ api, onUnlocked, onCancel }: { api: AgentDeskApi; onUnlocked: (until: string) => void; onCancel: () => void }) {
  const { t } = useI18n();
  const titleId = useId();
  const bodyId = useId();
  const inputId = useId();
  const messageId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [pin, setPin] = useState('');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'none' });
  useDialogFocus(panel);
  const lockedUntil = outcome.kind === 'wrong' || outcome.kind === 'locked' ? outcome.lockedUntil : 0;
  const now = useNow(lockedUntil > 0);
  const waitSeconds = Math.max(0, Math.ceil((lockedUntil - now) / 1000));
  const waiting = waitSeconds > 0;

  useEffect(() => {
    if (!waiting && outcome.kind !== 'checking') input.current?.focus();
  }, [waiting, outcome.kind]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pin === '' || waiting || outcome.kind === 'checking') return;
    setOutcome({ kind: 'checking' });
    // No await before this call: main takes the PIN only within the user's own key press or click.
    void call(() => api.policy.unlockAdmin({ pin })).then((result) => {
      setPin('');
      if (!result.ok) return setOutcome({ kind: 'error', error: result.error });
      const answer = result.value;
      if (answer.unlocked) return onUnlocked(answer.until);
      const until = Date.now() + answer.retryAfterSeconds * 1000;
      if (answer.reason === 'locked') setOutcome({ kind: 'locked', lockedUntil: until });
      else setOutcome({ kind: 'wrong', freeTriesLeft: answer.freeTriesLeft, lockedUntil: until });
    });
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    onCancel();
  };

  const wait = waitSeconds >= 120 ? t('kiosk.waitMinutes', { minutes: Math.ceil(waitSeconds / 60) }) : t('kiosk.waitSeconds', { seconds: waitSeconds });
  let message = null;
  if (outcome.kind === 'wrong') {
    message = (
      <p className="error-text">
        {t('kiosk.pinWrong')}{' '}
        {waiting
          ? t('kiosk.pinWait', { wait })
          : outcome.freeTriesLeft > 0
            ? t('kiosk.pinTriesLeft', { tries: outcome.freeTriesLeft })
            : t('kiosk.pinNextLocks')}
      </p>
    );
  } else if (outcome.kind === 'locked') {
    message = <p className="error-text">{waiting ? t('kiosk.pinLocked', { wait }) : t('kiosk.pinTryAgain')}</p>;
  } else if (outcome.kind === 'error') {
    message = (
      <p className="error-text">
        <ErrorText error={outcome.error} />
      </p>
    );
  } else if (outcome.kind === 'checking') {
    message = <p>{t('kiosk.pinChecking')}</p>;
  }

  return (
    <div className="modal" onMouseDown={(event) => event.target === event.currentTarget && onCancel()}>
      <div ref={panel} className="modal__panel" role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId} onKeyDown={onKeyDown}>
        <h2 id={titleId} className="card__title">
          {t('kiosk.pinTitle')}
        </h2>
        <p id={bodyId}>{t('kiosk.pinBody')}</p>
        <form className="kiosk-pin" onSubmit={submit}>
          <label htmlFor={inputId}>{t('kiosk.pinLabel')}</label>
          <input
            ref={input}
            id={inputId}
            className="input"
            type="password"
            inputMode="numeric"
            autoComplete="off"
            maxLength={64}
            value={pin}
            aria-describedby={messageId}
            disabled={waiting || outcome.kind === 'checking'}
            onChange={(event) => setPin(event.target.value)}
          />
          <div id={messageId} role="status" className="kiosk-pin__message">
            {message}
          </div>
          <div className="voice-dialog__buttons">
            <button type="submit" className="button button--primary" disabled={pin === '' || waiting || outcome.kind === 'checking'}>
              {t('kiosk.pinUnlock')}
            </button>
            <button type="button" className="button button--secondary" onClick={onCancel}>
              {t('kiosk.pinCancel')}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
