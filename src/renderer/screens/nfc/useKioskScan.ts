import { useEffect, useRef, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import { nfcSettingsOf } from '../../../shared/settings/settings';
import { call } from '../../hooks/useLiveResource';

/**
 * The kiosk scanning setting: undefined until loaded. Read when the control appears and again
 * whenever the window gains focus: the setting changes only in Settings (which replaces the screen
 * that holds the control) or in another window (which takes the focus away first), and kiosk
 * scanning only matters while this window has the focus.
 */
export function useKioskSetting(api: AgentDeskApi): boolean | undefined {
  const [kioskScan, setKioskScan] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    let active = true;
    const load = () => {
      void call(() => api.settings.get()).then((result) => {
        if (active && result.ok) setKioskScan(nfcSettingsOf(result.value).kioskScan);
      });
    };
    load();
    window.addEventListener('focus', load);
    return () => {
      active = false;
      window.removeEventListener('focus', load);
    };
  }, [api]);
  return kioskScan;
}

/**
 * Kiosk policy: reports to main (`nfc.kiosk`) that scanning may stay armed while `enabled`, the
 * window has the focus, the page is visible and the scan indicator is on screen (an
 * IntersectionObserver where there is one), and that it may not as soon as any of that stops or
 * the control goes away. Returns what it reported.
 */
export function useKioskReporting(api: AgentDeskApi, enabled: boolean, indicator: RefObject<HTMLElement | null>): boolean {
  const [focused, setFocused] = useState(() => document.hasFocus());
  const [pageVisible, setPageVisible] = useState(() => document.visibilityState !== 'hidden');
  const [onScreen, setOnScreen] = useState(true);

  useEffect(() => {
    const onFocus = () => setFocused(true);
    const onBlur = () => setFocused(false);
    const onVisibility = () => setPageVisible(document.visibilityState !== 'hidden');
    window.addEventListener('focus', onFocus);
    window.addEventListener('blur', onBlur);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.removeEventListener('focus', onFocus);
      window.removeEventListener('blur', onBlur);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, []);

  useEffect(() => {
    const element = indicator.current;
    if (!enabled || !element || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver((entries) => {
      const last = entries[entries.length - 1];
      if (last) setOnScreen(last.isIntersecting);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      setOnScreen(true);
    };
  }, [enabled, indicator]);

  const wanted = enabled && focused && pageVisible && onScreen;
  const reported = useRef(false);
  useEffect(() => {
    if (wanted === reported.current) return;
    reported.current = wanted;
    void call(() => api.nfc.kiosk({ active: wanted }));
  }, [api, wanted]);
  useEffect(
    () => () => {
      if (!reported.current) return;
      reported.current = false;
      void call(() => api.nfc.kiosk({ active: false }));
    },
    [api],
  );
  return wanted;
}
