import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';

export type CopyState = 'idle' | 'copied' | 'failed';

/** How long "Copied" (or the failure) stays on the button before it reads "Copy" again. */
const feedbackMs = 2_000;

/**
 * Copying to the clipboard (navigator.clipboard.writeText) and how it went, for a while: `copy(text)`
 * sets `state` to 'copied' or 'failed' (also when the clipboard API is missing or throws at once),
 * and after `resetAfterMs` back to 'idle' (with null it stays until the next copy). The one
 * clipboard write of the renderer.
 */
export function useCopy(resetAfterMs: number | null = feedbackMs): { state: CopyState; copy: (text: string) => void; reset: () => void } {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const show = (next: CopyState) => {
    setState(next);
    clearTimeout(timer.current);
    if (resetAfterMs !== null) timer.current = setTimeout(() => setState('idle'), resetAfterMs);
  };
  const copy = (text: string) => {
    let writing: Promise<void>;
    try {
      writing = navigator.clipboard.writeText(text);
    } catch {
      show('failed');
      return;
    }
    writing.then(
      () => show('copied'),
      () => show('failed'),
    );
  };
  const reset = () => {
    clearTimeout(timer.current);
    setState('idle');
  };
  return { state, copy, reset };
}

/**
 * A button that copies `text` and says how it went: "Copied", or that it could not copy. `label`
 * names what is copied for screen readers.
 */
export function CopyButton({ text, label, className }: { text: string; label: string; className?: string }) {
  const { t } = useI18n();
  const { state, copy: copyText } = useCopy();
  const copy = () => copyText(text);

  const shown = state === 'copied' ? t('copy.done') : state === 'failed' ? t('copy.failed') : t('copy.button');
  return (
    <button
      type="button"
      className={`copy-button${state === 'failed' ? ' copy-button--failed' : ''}${className ? ` ${className}` : ''}`}
      aria-label={state === 'idle' ? label : undefined}
      onClick={copy}
    >
      <span aria-live="polite">{shown}</span>
    </button>
  );
}
