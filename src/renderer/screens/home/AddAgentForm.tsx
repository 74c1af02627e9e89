import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { AgentCheck, AgentEntry } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorDetails, ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';

type Found = Extract<AgentCheck, { found: true }>;
type NotFound = Extract<AgentCheck, { found: false }>;

/**
 * Where adding stands: the address is being checked (`run` tells a late answer from the current one),
 * was found (Add), was not (why; Add anyway when it could not be reached), or is being added.
 */
type Step =
  | { kind: 'idle' }
  | { kind: 'checking'; address: string; run: number }
  | { kind: 'found'; check: Found }
  | { kind: 'notFound'; check: NotFound }
  | { kind: 'adding'; from: Found | NotFound };

/** Words for why an address could not be reached, by the check's code (the raw code is behind Details). */
const unreachableWords: Record<string, MessageKey> = {
  net_dns_failed: 'error.words.nameNotFound',
  net_connect_failed: 'error.words.refused',
  net_connect_timeout: 'error.words.timeout',
  net_first_byte_timeout: 'error.words.timeout',
  net_idle_timeout: 'error.words.timeout',
  net_body_deadline: 'error.words.timeout',
  check_timeout: 'error.words.timeout',
  net_tls_failed: 'error.words.certificate',
  http_502: 'add.gateway',
  http_503: 'add.gateway',
  http_504: 'add.gateway',
};

/**
 * "Add an agent": the address is checked first (`agents.check`: main reads its Talkie manifest and
 * A2A card, or asks a plain AG-UI endpoint, within 15 s), with progress and Cancel; then what was
 * found, with Add, or why not. An address that could not be reached may still be added ("Add
 * anyway": the agent may be offline now, and the app identifies it again when it is opened); one
 * that answered without an agent AgentDesk can talk to may not. A refused address (syntax, already
 * listed) is shown under the field.
 */
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
  const [advanced, setAdvanced] = useState(false);
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [error, setError] = useState<IpcError | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const runs = useRef(0);
  const addButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const busy = step.kind === 'checking' || step.kind === 'adding';

  // Checking: the disabled Check button would lose the focus, Cancel takes it. Found: the Add button
  // takes it, so Enter adds what the user just saw.
  useEffect(() => {
    if (step.kind === 'checking') cancelButton.current?.focus();
    if (step.kind === 'found') addButton.current?.focus();
  }, [step]);

  /** A changed address or kind makes an earlier answer stale. */
  function edited() {
    if (step.kind === 'found' || step.kind === 'notFound') setStep({ kind: 'idle' });
    setError(null);
  }

  async function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const run = ++runs.current;
    setStep({ kind: 'checking', address: address.trim(), run });
    setError(null);
    setAdded(null);
    const result = await call(() => api.agents.check(agui ? { address, kind: 'agui' } : { address }));
    // Cancelled (or superseded) while main was checking: this answer is no longer wanted.
    if (runs.current !== run) return;
    if (!result.ok) {
      setStep({ kind: 'idle' });
      setError(result.error);
      inputRef.current?.focus();
    } else if (result.value.found) {
      setStep({ kind: 'found', check: result.value });
    } else {
      setStep({ kind: 'notFound', check: result.value });
      inputRef.current?.focus();
    }
  }

  function cancel() {
    runs.current += 1;
    setStep({ kind: 'idle' });
    inputRef.current?.focus();
  }

  async function add(from: Found | NotFound) {
    if (busy) return;
    setStep({ kind: 'adding', from });
    setError(null);
    // A plain AG-UI endpoint has no manifest or card to read: main is told what it is.
    const result = await call(() => api.agents.add(agui ? { address, kind: 'agui' } : { address }));
    if (result.ok) {
      setStep({ kind: 'idle' });
      setAddress('');
      setAgui(false);
      setAdded(result.value.agent.display);
      onAdded(result.value.agent);
    } else {
      setStep(from.found ? { kind: 'found', check: from } : { kind: 'notFound', check: from });
      setError(result.error);
    }
    // The buttons were disabled while the call ran; give focus back to the field either way.
    inputRef.current?.focus();
  }

  const shown = step.kind === 'adding' ? step.from : step.kind === 'found' || step.kind === 'notFound' ? step.check : undefined;

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card__title">
        {t('add.title')}
      </h2>
      <form
        className="add-form"
        noValidate
        onSubmit={(event) => void check(event)}
        aria-busy={busy || undefined}
        onKeyDown={(event) => {
          // Escape stops a check (and goes no further).
          if (event.key !== 'Escape' || step.kind !== 'checking') return;
          event.preventDefault();
          event.stopPropagation();
          cancel();
        }}
      >
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
              onChange={(event) => {
                setAddress(event.target.value);
                edited();
              }}
            />
            <button type="submit" className="button button--primary" disabled={busy}>
              {t('add.check')}
            </button>
          </div>
          {error ? (
            <p id={errorId} className="field__error" role="alert">
              <ErrorText error={error} />
            </p>
          ) : null}
        </div>
        {/* Protocol names are for who knows them: the one choice that needs one is under Advanced (open while it is ticked). */}
        <details
          className="add-form__advanced"
          open={advanced || agui}
          onToggle={(event) => {
            const details = event.currentTarget;
            // While its box is ticked, Advanced stays open: what the Check will look for stays in view.
            if (!details.open && agui) details.open = true;
            else setAdvanced(details.open);
          }}
        >
          <summary className="add-form__advanced-summary">{t('add.advanced')}</summary>
          <div className="checkbox-field">
            <label className="choice">
              <input
                id={aguiId}
                type="checkbox"
                className="choice__input"
                checked={agui}
                disabled={busy}
                aria-describedby={`${aguiId}-hint`}
                onChange={(event) => {
                  setAgui(event.target.checked);
                  edited();
                }}
              />
              <span>{t('add.agui')}</span>
            </label>
            <p id={`${aguiId}-hint`} className="field__hint checkbox-field__hint">
              {t('add.aguiHint')}
            </p>
          </div>
        </details>
        <div role="status" className="feedback">
          {step.kind === 'checking' ? (
            <p className="add-check add-check--busy">
              <span className="spinner" aria-hidden="true" /> {t('add.checking', { address: step.address })}
            </p>
          ) : null}
          {shown?.found ? <FoundText check={shown} /> : null}
          {added !== null ? <p className="success-text">{t('add.added', { name: added })}</p> : null}
        </div>
        {step.kind === 'checking' ? (
          <div className="add-check__buttons">
            <button ref={cancelButton} type="button" className="button button--secondary" onClick={cancel}>
              {t('add.cancel')}
            </button>
          </div>
        ) : null}
        {shown && !shown.found ? <NotFoundText check={shown} /> : null}
        {shown && (shown.found || shown.reason === 'unreachable') ? (
          <div className="add-check__buttons">
            <button
              ref={addButton}
              type="button"
              className={shown.found ? 'button button--primary' : 'button button--secondary'}
              disabled={step.kind === 'adding'}
              aria-busy={step.kind === 'adding' || undefined}
              onClick={() => void add(shown)}
            >
              {step.kind === 'adding' ? t('add.busy') : shown.found ? t('add.submit') : t('add.addAnyway')}
            </button>
          </div>
        ) : null}
      </form>
    </section>
  );
}

function FoundText({ check }: { check: Found }) {
  const { t } = useI18n();
  const name = check.name ?? check.display;
  // What it is in words (what the user can do with it), not the protocol it speaks.
  const headline =
    check.kind === 'talkie'
      ? t('add.found.chat', { name })
      : check.kind === 'agentcall'
        ? t('add.found.objects', { name })
        : check.kind === 'a2a'
          ? t('add.found.info', { name })
          : t('add.found.tasks', { address: check.display });
  const pages = check.webPages ?? 0;
  return (
    <div className="add-check add-check--found">
      <p className="add-check__headline">{headline}</p>
      {check.kind !== 'agui' ? <p className="add-check__address muted">{check.display}</p> : null}
      {check.kind === 'a2a' ? <p className="add-check__note">{pages > 0 ? t('add.a2aNotePages', { count: pages }) : t('add.a2aNote')}</p> : null}
      {check.kind === 'agentcall' && pages > 0 ? <p className="add-check__note">{t('add.webPages', { count: pages })}</p> : null}
      {check.kind === 'agui' ? <p className="add-check__note">{t('add.tasksNote')}</p> : null}
    </div>
  );
}

function NotFoundText({ check }: { check: NotFound }) {
  const { t } = useI18n();
  const address = check.display;
  const words = check.reason === 'unreachable' ? unreachableWords[check.code] : undefined;
  const sentence =
    check.reason === 'unreachable'
      ? t('add.unreachable', { address })
      : check.reason === 'blocked'
        ? t('add.blocked', { address })
        : check.reason === 'incompatible'
          ? t('add.incompatible', { address })
          : t('add.notFoundWords', { address });
  return (
    <div className="add-check add-check--failed" role="alert">
      <p className="error-text">
        {sentence}
        {words !== undefined ? ` ${t(words)}` : ''} <ErrorDetails detail={`${check.code}: ${check.message}`} />
      </p>
      {check.reason === 'unreachable' ? <p className="field__hint">{t('add.anywayHint')}</p> : null}
    </div>
  );
}
