import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';

type CopyState = 'idle' | 'copied' | 'failed';

/** How long "Copied" (or the failure) stays on the button before it reads "Copy" again. */
const feedbackMs = 2_000;

/**
 * Copies `text` to the clipboard (navigator.clipboard.writeText) on a click and says how it went:
 * "Copied", or that it could not copy. `label` names what is copied for screen readers.
 */
export function CopyButton({ text, label, className }: { text: string; label: string; className?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const show = (next: CopyState) => {
    setState(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), feedbackMs);
  };
  const copy = () => {
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
