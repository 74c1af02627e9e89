import { useCallback, useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { NfcFailureReason, NfcStatus } from '../../../shared/nfc/ipc-schemas';
import { ErrorText } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { formatCountdown } from '../../components/format';
import { useNow } from '../../hooks/useNow';
import { useKioskReporting, useKioskSetting } from './useKioskScan';
import { localExpiryGraceMs, useNfcScan, useNfcStatus, type NfcObservationResult, type ScanFeedback } from './useNfcScan';
import './nfc.css';

export type { NfcObservationResult } from './useNfcScan';

export interface ScanControlProps {
  /** `window.agentdesk`. */
  api: AgentDeskApi;
  /** A tag was read: the observation object (never a UID) and the reader's name. */
  onObservation?: (result: NfcObservationResult) => void;
  /** The host does not want a scan now (the control explains nothing: the host says why). */
  disabled?: boolean;
  /** The button's text; default "Scan object". */
  label?: string;
  /** Shown above the button, for example an agent's request ("Scan the parcel's tag"). Plain text. */
  prompt?: string;
  /**
   * Arm as soon as the control appears (when the reader is ready). Main arms only right after a
   * user gesture; without one the control stays idle, quietly, with its button ready.
   */
  autoArm?: boolean;
  /**
   * The reader status when the host already follows `hardware.changed` (the hardware strip):
   * `null` while the host is still loading it. Left out, the control loads and follows it itself.
   */
  nfcStatus?: NfcStatus | null;
  /**
   * One line, for a composer's row: why it cannot scan is the button's tooltip and description (not a
   * line of its own), and a read is announced but not shown (the host shows what was read).
   */
  compact?: boolean;
  /** Why the host does not want a scan now, while `disabled` (said as the reason is). */
  disabledReason?: string;
}

const failureKeys: Record<NfcFailureReason, MessageKey> = {
  removed: 'nfcScan.failed.removed',
  unsupported: 'nfcScan.failed.unsupported',
  readError: 'nfcScan.failed.readError',
  noDeviceKey: 'nfcScan.failed.noDeviceKey',
  unavailable: 'nfcScan.failed.unavailable',
};
/** Reasons where main's own sentence adds something (which reader, why the key is missing). */
const failureDetailShown: ReadonlySet<NfcFailureReason> = new Set(['readError', 'noDeviceKey', 'unavailable']);

/** Why the control cannot scan now, or undefined when it can. */
function unavailableReason(status: NfcStatus | undefined): MessageKey | undefined {
  if (!status) return 'nfcScan.reason.checking';
  if (status.state !== 'ready') {
    switch (status.service) {
      case 'starting':
        return 'nfcScan.reason.starting';
      case 'restarting':
        return 'nfcScan.reason.restarting';
      case 'missing':
        return 'nfcScan.reason.missing';
      default:
        return 'nfcScan.reason.unavailable';
    }
  }
  if (!status.readers.some((reader) => reader.connected)) return 'nfcScan.reason.noReader';
  return undefined;
}

/**
 * "Scan object": a visible control that arms one NFC scan (a user gesture), shows "Hold the tag
 * to the reader" with the time left and Cancel (or Escape), and says, shows and sounds what
 * happened: a read (a rising chirp, a check mark) or a failure (a low buzz; a tag lifted too soon
 * leaves the scan armed). With the kiosk scanning setting on, it shows a persistent "Scanning…"
 * indicator instead and keeps scanning armed while the window has the focus and the indicator is
 * on screen. Disabled, with the reason, while NFC is unavailable or no reader is connected.
 */
export function ScanControl({
  api,
  onObservation,
  disabled = false,
  label,
  prompt,
  autoArm = false,
  nfcStatus,
  compact = false,
  disabledReason,
}: ScanControlProps) {
  const { t, language } = useI18n();
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const scanButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const indicator = useRef<HTMLParagraphElement>(null);
  /** Whether the focus was in the control when the phase changed (then it follows to the new button). */
  const focusWasInside = useRef(false);

  const status = useNfcStatus(api, nfcStatus);
  const kioskSetting = useKioskSetting(api);
  const reason = unavailableReason(status);
  const kiosk = kioskSetting === true;
  const kioskActive = useKioskReporting(api, kiosk && !disabled && reason === undefined, indicator);
  const kioskScanId = status?.scan?.kiosk ? status.scan.scanId : undefined;

  const beforePhaseChange = useCallback(() => {
    const active = document.activeElement;
    focusWasInside.current = active !== null && active !== document.body && (root.current?.contains(active) ?? false);
  }, []);
  const { scan, feedback, arm, cancel, expire } = useNfcScan(api, { kioskScanId, onObservation, beforePhaseChange });
  const armed = scan.phase === 'armed';
  const now = useNow(armed);
  // The clock ticks only while armed: its first value may be from before the scan was armed.
  const remaining = armed ? scan.expiresAt - Math.max(now, scan.armedAt) : 0;

  useEffect(() => {
    if (armed && remaining < -localExpiryGraceMs) expire();
  }, [armed, remaining, expire]);

  // The button that was used disappears: the focus moves to the one that replaces it.
  useEffect(() => {
    if (!focusWasInside.current) return;
    if (scan.phase === 'armed') {
      focusWasInside.current = false;
      cancelButton.current?.focus();
    } else if (scan.phase === 'idle') {
      focusWasInside.current = false;
      scanButton.current?.focus();
    }
  }, [scan.phase]);

  const canArm = !disabled && reason === undefined && !kiosk;
  const autoArmed = useRef(false);
  useEffect(() => {
    if (!autoArm || autoArmed.current || kioskSetting === undefined || !canArm) return;
    autoArmed.current = true;
    void arm({ quietRefusal: true });
  }, [autoArm, kioskSetting, canArm, arm]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape' || !armed || event.nativeEvent.isComposing) return;
    // Handled here: the screen's own Escape (leave Settings, close a dialog) must not fire as well.
    event.preventDefault();
    event.stopPropagation();
    void cancel();
  };

  const message = feedbackMessage(feedback?.value, armed, t, language);
  const tone =
    feedback?.value.kind === 'read' ? 'success' : feedback && feedback.value.kind !== 'cancelled' && feedback.value.kind !== 'timeout' ? 'failure' : 'neutral';
  const reasonId = `${id}-reason`;
  const promptId = `${id}-prompt`;

  let controls: ReactNode;
  if (kiosk) {
    controls = (
      <p ref={indicator} className={`nfc-scan__kiosk${kioskActive ? ' nfc-scan__kiosk--active' : ''}`}>
        <span className="nfc-scan__pulse" aria-hidden="true" />
        {t(kioskActive ? 'nfcScan.kiosk.scanning' : disabled || reason ? 'nfcScan.kiosk.stopped' : 'nfcScan.kiosk.paused')}
      </p>
    );
  } else if (armed) {
    controls = (
      <div className="nfc-scan__row">
        <span role="timer" className="nfc-scan__countdown">
          {t('nfcScan.timeLeft', { time: formatCountdown(remaining) })}
        </span>
        <button ref={cancelButton} type="button" className="button button--secondary" onClick={() => void cancel()}>
          {t('nfcScan.cancel')}
        </button>
      </div>
    );
  } else {
    const arming = scan.phase === 'arming';
    const shownReason = disabled ? disabledReason : reason ? t(reason) : undefined;
    const describedBy = [prompt ? promptId : '', shownReason !== undefined && (compact || !disabled) ? reasonId : ''].filter(Boolean).join(' ');
    controls = (
      <div className="nfc-scan__row">
        <button
          ref={scanButton}
          type="button"
          className="button button--primary"
          disabled={!canArm}
          // Stays focusable while main arms the scan (a disabled button would drop the focus).
          aria-disabled={arming ? true : undefined}
          aria-describedby={describedBy || undefined}
          title={compact ? (shownReason ?? label ?? t('nfcScan.scan')) : undefined}
          onClick={() => {
            if (!arming) void arm();
          }}
        >
          {arming ? t('nfcScan.arming') : (label ?? t('nfcScan.scan'))}
        </button>
      </div>
    );
  }

  return (
    <div ref={root} className={`nfc-scan nfc-scan--${armed || kioskActive ? 'armed' : 'idle'}${compact ? ' nfc-scan--compact' : ''}`} onKeyDown={onKeyDown}>
      {prompt ? (
        <p id={promptId} className="nfc-scan__prompt">
          {prompt}
        </p>
      ) : null}
      {controls}
      {reason && !disabled && !compact ? (
        <p id={reasonId} className="muted nfc-scan__reason">
          {t(reason)}
        </p>
      ) : null}
      {compact && !kiosk && !armed && (disabled ? disabledReason : reason) !== undefined ? (
        <span id={reasonId} className="visually-hidden">
          {disabled ? disabledReason : reason ? t(reason) : null}
        </span>
      ) : null}
      <div role="status" className="feedback nfc-scan__status">
        {message ? (
          <p
            key={feedback?.seq ?? 0}
            className={`nfc-scan__message nfc-scan__message--${tone}${compact && feedback?.value.kind === 'read' ? ' visually-hidden' : ''}`}
          >
            {tone === 'success' ? (
              <span className="nfc-scan__icon" aria-hidden="true">
                ✓
              </span>
            ) : tone === 'failure' ? (
              <span className="nfc-scan__icon" aria-hidden="true">
                !
              </span>
            ) : null}
            <span>{message}</span>
          </p>
        ) : null}
      </div>
    </div>
  );
}

function feedbackMessage(
  feedback: ScanFeedback | undefined,
  armed: boolean,
  t: ReturnType<typeof useI18n>['t'],
  language: ReturnType<typeof useI18n>['language'],
): ReactNode {
  if (!feedback) return armed ? t('nfcScan.hold') : null;
  const failure = (reason: NfcFailureReason, detail: string): ReactNode => (
    <>
      {t(failureKeys[reason])}
      {failureDetailShown.has(reason) && detail.trim() !== '' ? (
        <>
          {' '}
          <span lang={language === 'en' ? undefined : 'en'}>{detail}</span>
        </>
      ) : null}
    </>
  );
  switch (feedback.kind) {
    case 'read':
      return t('nfcScan.read');
    case 'retry':
      return (
        <>
          {failure(feedback.reason, feedback.message)} {t('nfcScan.holdAgain')}
        </>
      );
    case 'failed':
      return failure(feedback.reason, feedback.message);
    case 'timeout':
      return t('nfcScan.timeout');
    case 'cancelled':
      return t('nfcScan.cancelled');
    case 'error':
      return <ErrorText error={feedback.error} />;
  }
}
