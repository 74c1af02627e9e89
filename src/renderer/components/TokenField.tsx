import { useId, useState, type ReactNode } from 'react';
import { ErrorText, type ShownError } from './ErrorText';

/**
 * The one field for pasting a bearer/access token (Talkie sign-in, AgentCall's token gate, AG-UI
 * settings): a password input that is never spell-checked or autocompleted, a submit button that
 * waits for a non-blank token, and the field's own error. The token is trimmed before `onSave`, and
 * the field is emptied when `onSave` reports it was saved; main keeps the token (the keychain),
 * the renderer never shows it again.
 */
export function TokenField({
  label,
  hint,
  saveLabel,
  onSave,
  busy,
  disabled = false,
  primary = true,
  className = 'field',
  state,
  actions,
  error,
}: {
  label: string;
  hint: string;
  saveLabel: string;
  /** Saves the (trimmed, non-empty) token; resolves true when it was saved (the field is then emptied). */
  onSave: (token: string) => Promise<boolean>;
  /** This field's save is running: the input is read-only and the button says it is busy. */
  busy: boolean;
  /** Something else on the panel is running: the button waits. */
  disabled?: boolean;
  primary?: boolean;
  className?: string;
  /** A line under the hint, e.g. whether a token is saved. */
  state?: ReactNode;
  /** More buttons beside Save, e.g. Remove; `clear` empties the field. */
  actions?: (clear: () => void) => ReactNode;
  error?: ShownError;
}) {
  const id = useId();
  const [token, setToken] = useState('');
  const inputId = `${id}-token`;
  const blank = token.trim() === '';

  async function save() {
    if (busy || disabled || blank) return;
    if (await onSave(token.trim())) setToken('');
  }

  return (
    <form
      className={className}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <label htmlFor={inputId} className="field__label">
        {label}
      </label>
      <p id={`${inputId}-hint`} className="field__hint">
        {hint}
      </p>
      {state}
      <div className="add-form__row">
        <input
          id={inputId}
          type="password"
          className="input"
          autoComplete="off"
          spellCheck={false}
          value={token}
          readOnly={busy}
          aria-describedby={`${inputId}-hint${error ? ` ${inputId}-error` : ''}`}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setToken(event.target.value)}
        />
        <button
          type="submit"
          className={`button ${primary ? 'button--primary' : 'button--secondary'}`}
          disabled={busy || disabled || blank}
          aria-busy={busy || undefined}
        >
          {saveLabel}
        </button>
        {actions?.(() => setToken(''))}
      </div>
      {error ? (
        <p id={`${inputId}-error`} className="field__error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
    </form>
  );
}
