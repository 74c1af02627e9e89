import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { NfcFailureReason, NfcScanResult, NfcStatus } from '../../../shared/nfc/ipc-schemas';
import type { ShownError } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { playTone, prepareTones } from './feedback-tones';

export type NfcObservationResult = Extract<NfcScanResult, { outcome: 'observation' }>;

export type ScanPhase =
  | { phase: 'idle' }
  | { phase: 'arming' }
  /** `armedAt`: when main answered (ms since the epoch); no countdown starts before it. */
  | { phase: 'armed'; scanId: string; expiresAt: number; armedAt: number };

/** What the control tells the user after something happened. */
export type ScanFeedback =
  | { kind: 'read'; result: NfcObservationResult }
  /** A failed read that leaves the scan armed (tag lifted, unsupported card). */
  | { kind: 'retry'; reason: NfcFailureReason; message: string }
  | { kind: 'failed'; reason: NfcFailureReason; message: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  /** `nfc.arm` or `nfc.cancel` itself failed. */
  | { kind: 'error'; error: ShownError };

export interface NfcScan {
  scan: ScanPhase;
  /** The latest feedback, with a number that changes on every one (so the same words are announced again). */
  feedback: { value: ScanFeedback; seq: number } | undefined;
  /**
   * Arms one scan (call it from the user's click: main refuses `nfc.arm` without a recent gesture).
   * With `quietRefusal`, a refusal for want of a gesture leaves the control idle without an error.
   */
  arm(options?: { quietRefusal?: boolean }): Promise<void>;
  cancel(): Promise<void>;
  /** The armed scan's time is well past and main's timeout never arrived (a lost event): end it here. */
  expire(): void;
}

/** How long after expiresAt the control stops waiting for main's timeout event. */
export const localExpiryGraceMs = 5_000;

const maxBuffered = 8;

/**
 * One scan control's scans: arms through `nfc.arm`, follows `nfc.scanResult` for its own scan id
 * (and, in kiosk mode, for the kiosk scan that main reports in the reader status), plays the tones,
 * and cancels an armed scan when the control goes away, so a scan is never armed without a
 * visible control.
 */
export function useNfcScan(
  api: AgentDeskApi,
  options: {
    kioskScanId: string | undefined;
    onObservation: ((result: NfcObservationResult) => void) | undefined;
    /** Called just before the phase changes, while the old buttons are still in the page (for focus management). */
    beforePhaseChange?: () => void;
  },
): NfcScan {
  const [scan, setScanState] = useState<ScanPhase>({ phase: 'idle' });
  const [feedback, setFeedbackState] = useState<NfcScan['feedback']>(undefined);
  const scanRef = useRef<ScanPhase>(scan);
  const seq = useRef(0);
  const mounted = useRef(true);
  /** Results that arrived while `nfc.arm` was still on its way (their scan id is not known yet). */
  const buffered = useRef<NfcScanResult[]>([]);
  const kioskScanId = useRef(options.kioskScanId);
  const onObservation = useRef(options.onObservation);
  const beforePhaseChange = useRef(options.beforePhaseChange);
  useEffect(() => {
    kioskScanId.current = options.kioskScanId;
    onObservation.current = options.onObservation;
    beforePhaseChange.current = options.beforePhaseChange;
  }, [options.kioskScanId, options.onObservation, options.beforePhaseChange]);

  const setScan = useCallback((next: ScanPhase) => {
    if (next.phase !== scanRef.current.phase) beforePhaseChange.current?.();
    scanRef.current = next;
    setScanState(next);
  }, []);
  const say = useCallback((value: ScanFeedback | undefined) => {
    seq.current += 1;
    setFeedbackState(value ? { value, seq: seq.current } : undefined);
  }, []);

  const handle = useCallback(
    (result: NfcScanResult) => {
      const current = scanRef.current;
      if (current.phase === 'arming') {
        buffered.current = [...buffered.current.slice(-(maxBuffered - 1)), result];
        return;
      }
      const own = current.phase === 'armed' && current.scanId === result.scanId;
      const kiosk = !own && kioskScanId.current !== undefined && kioskScanId.current === result.scanId;
      if (!own && !kiosk) return;
      switch (result.outcome) {
        case 'observation':
          if (own) setScan({ phase: 'idle' });
          playTone('success');
          say({ kind: 'read', result });
          onObservation.current?.(result);
          return;
        case 'failed':
          playTone('failure');
          if (result.retry) {
            say({ kind: 'retry', reason: result.reason, message: result.message });
          } else {
            // The scan ended in main (a kiosk scan too: kiosk scanning resumes on the next focus).
            if (own) setScan({ phase: 'idle' });
            say({ kind: 'failed', reason: result.reason, message: result.message });
          }
          return;
        case 'timeout':
          if (!own) return;
          setScan({ phase: 'idle' });
          say({ kind: 'timeout' });
          return;
        case 'cancelled':
          if (!own) return;
          setScan({ phase: 'idle' });
          say({ kind: 'cancelled' });
          return;
      }
    },
    [say, setScan],
  );

  useEffect(() => api.nfc.onScanResult(handle), [api, handle]);

  // Leaving with a scan armed cancels it: a scan is armed only while its control is on screen.
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      const current = scanRef.current;
      if (current.phase === 'armed') void call(() => api.nfc.cancel({ scanId: current.scanId }));
    };
  }, [api]);

  const arm = useCallback(
    async ({ quietRefusal = false }: { quietRefusal?: boolean } = {}) => {
      if (scanRef.current.phase !== 'idle') return;
      // The click is the gesture the browser wants before it lets the later tone play.
      prepareTones();
      buffered.current = [];
      setScan({ phase: 'arming' });
      say(undefined);
      const result = await call(() => api.nfc.arm({}));
      if (!mounted.current) {
        if (result.ok) void call(() => api.nfc.cancel({ scanId: result.value.scanId }));
        return;
      }
      if (!result.ok) {
        setScan({ phase: 'idle' });
        if (!(quietRefusal && result.error.code === 'no_user_gesture')) say({ kind: 'error', error: result.error });
        return;
      }
      const expiresAt = Date.parse(result.value.expiresAt);
      const armedAt = Date.now();
      setScan({ phase: 'armed', scanId: result.value.scanId, expiresAt: Number.isNaN(expiresAt) ? armedAt : expiresAt, armedAt });
      const early = buffered.current;
      buffered.current = [];
      for (const pending of early) handle(pending);
    },
    [api, handle, say, setScan],
  );

  const cancel = useCallback(async () => {
    const current = scanRef.current;
    if (current.phase !== 'armed') return;
    // Back to idle at once; main's `cancelled` result for this id is then ignored.
    setScan({ phase: 'idle' });
    say({ kind: 'cancelled' });
    const result = await call(() => api.nfc.cancel({ scanId: current.scanId }));
    if (!result.ok && mounted.current) say({ kind: 'error', error: result.error });
  }, [api, say, setScan]);

  const expire = useCallback(() => {
    if (scanRef.current.phase !== 'armed') return;
    setScan({ phase: 'idle' });
    say({ kind: 'timeout' });
  }, [say, setScan]);

  return { scan, feedback, arm, cancel, expire };
}

/**
 * The reader status: the host's when it already follows `hardware.changed` (`null` while it loads),
 * otherwise the control loads it and follows the event itself.
 */
export function useNfcStatus(api: AgentDeskApi, fromHost: NfcStatus | null | undefined): NfcStatus | undefined {
  const follow = fromHost === undefined;
  const [own, setOwn] = useState<NfcStatus | undefined>(undefined);
  useEffect(() => {
    if (!follow) return undefined;
    let active = true;
    // Subscribed before the load is sent; whichever arrives last is the freshest (as in useLiveResource).
    const unsubscribe = api.hardware.onChanged((status) => {
      if (active) setOwn(status.nfc);
    });
    void call(() => api.hardware.status()).then((result) => {
      if (active && result.ok) setOwn(result.value.nfc);
    });
    return () => {
      active = false;
      unsubscribe();
    };
  }, [api, follow]);
  return follow ? own : (fromHost ?? undefined);
}
