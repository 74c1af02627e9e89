import { useId, useState, type FormEvent, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { AgentEntry } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

/** "Add an agent": main normalizes and checks the address; its error is shown under the field. */
export function AddAgentForm({
  api,
  inputRef,
  onAdded,
}: {
  api: AgentDeskApi;
  inputRef: RefObject<HTMLInputElement | null>;
  onAdded: (agent: AgentEntry) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const headingId = `${id}-heading`;
  const inputId = `${id}-address`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const aguiId = `${id}-agui`;
  const [address, setAddress] = useState('');
  const [agui, setAgui] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);
  const [added, setAdded] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setAdded(null);
    // A plain AG-UI endpoint has no manifest or card to read: main is told what it is.
    const result = await call(() => api.agents.add(agui ? { address, kind: 'agui' } : { address }));
    setBusy(false);
    if (result.ok) {
      setAddress('');
      setAgui(false);
      setAdded(result.value.agent.display);
      onAdded(result.value.agent);
    } else {
      setError(result.error);
    }
    // The Add button was disabled while the call ran; give focus back to the field either way.
    inputRef.current?.focus();
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('add.title')}
      </h2>
      <form className="add-form" noValidate onSubmit={(event) => void submit(event)} aria-busy={busy || undefined}>
        <div className="field">
          <label htmlFor={inputId} className="field__label">
            {t('add.label')}
          </label>
          <p id={hintId} className="field__hint">
            {t('add.hint')}
          </p>
          <div className="add-form__row">
            <input
              ref={inputRef}
              id={inputId}
              name="address"
              type="text"
              inputMode="url"
              autoComplete="off"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              className="input"
              placeholder={t('add.placeholder')}
              value={address}
              readOnly={busy}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${errorId} ${hintId}` : hintId}
              onChange={(event) => setAddress(event.target.value)}
            />
            <button type="submit" className="button button--primary" disabled={busy}>
              {busy ? t('add.busy') : t('add.submit')}
            </button>
          </div>
          {error ? (
            <p id={errorId} className="field__error" role="alert">
              <ErrorText error={error} />
            </p>
          ) : null}
        </div>
        <div className="checkbox-field">
          <label className="choice">
            <input
              id={aguiId}
              type="checkbox"
              className="choice__input"
              checked={agui}
              disabled={busy}
              aria-describedby={`${aguiId}-hint`}
              onChange={(event) => setAgui(event.target.checked)}
            />
            <span>{t('add.agui')}</span>
          </label>
          <p id={`${aguiId}-hint`} className="field__hint checkbox-field__hint">
            {t('add.aguiHint')}
          </p>
        </div>
        <div role="status" className="feedback">
          {added !== null ? <p className="success-text">{t('add.added', { name: added })}</p> : null}
        </div>
      </form>
    </section>
  );
}
