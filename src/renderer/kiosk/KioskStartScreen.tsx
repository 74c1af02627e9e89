import { useEffect, useRef, type MouseEvent, type Ref } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/base/errors';
import { ErrorText } from '../components/ErrorText';
import { useI18n } from '../i18n/I18nProvider';
import { useKioskReporting } from '../screens/nfc/useKioskScan';

/** A tag tapped on the start screen: main holds it under this scan id for the start agent's session. */
export interface StartTag {
  scanId: string;
  objectRef: string;
}

/** One of the policy's agents as the start screen offers it: the administrator's name for it. */
export interface KioskChoice {
  agentId: string;
  title: string;
}

/**
 * The kiosk's start screen (issue #18): "Tap a tag or touch the screen to start". A touch or click
 * anywhere (or Start, by keyboard) opens the policy's start agent; where the policy arms NFC
 * scanning, a tag tapped here opens it too and becomes its first observation. While the previous
 * session is being wiped it says so, and does not start.
 *
 * With several agents in the policy (issue #27) it offers each as a large button by the name the
 * administrator gave it ("Choose who to talk to"); a touch elsewhere does nothing, a tag still opens
 * the start agent. Where the policy has an admin PIN, a small Administrator button in the corner opens
 * the PIN prompt (Settings); a visitor sees nothing else.
 */
export function KioskStartScreen({
  api,
  headingRef,
  nfcArmed,
  busy,
  error,
  choices,
  onStart,
  onAdmin,
}: {
  api: AgentDeskApi;
  headingRef: Ref<HTMLHeadingElement>;
  /** The policy arms NFC scanning (kiosk scanning forced on). */
  nfcArmed: boolean;
  /** The reset of the previous session runs: nothing starts yet. */
  busy: boolean;
  error: IpcError | undefined;
  /** The policy's agents when there are several (else a touch starts the start agent). */
  choices?: readonly KioskChoice[] | undefined;
  onStart: (tag?: StartTag, agentId?: string) => void;
  /** The administrator's way to Settings (behind the PIN); absent without a PIN. */
  onAdmin?: (() => void) | undefined;
}) {
  const { t } = useI18n();
  const indicator = useRef<HTMLParagraphElement>(null);
  // Scanning stays armed while this screen shows (and the window has the focus).
  useKioskReporting(api, nfcArmed && !busy, indicator);
  const startRef = useRef(onStart);
  useEffect(() => {
    startRef.current = onStart;
  }, [onStart]);
  useEffect(() => {
    if (!nfcArmed || busy) return undefined;
    return api.nfc.onScanResult((result) => {
      if (result.outcome === 'observation') startRef.current({ scanId: result.scanId, objectRef: result.object.objectRef });
    });
  }, [api, nfcArmed, busy]);

  const several = choices !== undefined && choices.length > 1;
  const onClick = (event: MouseEvent<HTMLElement>) => {
    if (busy || several) return;
    // The Start button handles its own click (and keyboard); elsewhere a touch starts too.
    if (event.target instanceof Element && event.target.closest('button')) return;
    onStart();
  };

  return (
    // A touch anywhere starts (one agent): the Start button is the same action for the keyboard and screen readers.
    <section className={`kiosk-start${several ? ' kiosk-start--choices' : ''}`} aria-labelledby="kiosk-start-title" onClick={onClick}>
      <h1 id="kiosk-start-title" ref={headingRef} tabIndex={-1} className="kiosk-start__title">
        {t(several ? (nfcArmed ? 'kiosk.chooseTitleNfc' : 'kiosk.chooseTitle') : nfcArmed ? 'kiosk.startTitleNfc' : 'kiosk.startTitle')}
      </h1>
      <p ref={indicator} className="kiosk-start__hint" aria-hidden="true">
        {nfcArmed ? '⌁' : ''}
      </p>
      {several ? (
        <ul className="kiosk-start__choices" aria-label={t('kiosk.chooseLabel')}>
          {choices.map((choice) => (
            <li key={choice.agentId}>
              <button
                type="button"
                className="button button--primary kiosk-start__choice"
                disabled={busy}
                aria-busy={busy || undefined}
                onClick={() => onStart(undefined, choice.agentId)}
              >
                {choice.title}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <button type="button" className="button button--primary kiosk-start__button" disabled={busy} aria-busy={busy || undefined} onClick={() => onStart()}>
          {t('kiosk.start')}
        </button>
      )}
      <div role="status" className="kiosk-start__status">
        {busy ? <p>{t('kiosk.resetting')}</p> : null}
        {error ? (
          <p className="error-text">
            {t('kiosk.resetFailed')} <ErrorText error={error} />
          </p>
        ) : null}
      </div>
      {onAdmin ? (
        <button type="button" className="button button--secondary kiosk-start__admin" onClick={onAdmin}>
          {t('kiosk.admin')}
        </button>
      ) : null}
    </section>
  );
}
