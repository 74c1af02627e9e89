import { usePolicyView } from '../../kiosk/policy-context';
import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { agentLabelMaxLength, agentTitle } from '../../../shared/agents/label';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { AgentEntry } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorText } from '../../components/ErrorText';
import { call, type LiveResource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

type Feedback =
  | { kind: 'removed'; name: string; agent: AgentEntry; index: number }
  | { kind: 'failed'; name: string; error: IpcError }
  | { kind: 'restoreFailed'; name: string; error: IpcError }
  | { kind: 'renamed'; name: string }
  | null;

/** How long "Removed X — Undo" stays offered. */
const UNDO_MS = 10_000;

/** The agents the user added, each with Open, Rename and Remove buttons; kept live by agents.changed. */
export function AgentList({
  api,
  agents,
  addInputRef,
  onOpen,
}: {
  api: AgentDeskApi;
  agents: LiveResource<AgentEntry[]>;
  addInputRef: RefObject<HTMLInputElement | null>;
  onOpen: (agent: AgentEntry) => void;
}) {
  const { t } = useI18n();
  // The device policy's agent list: no rename or remove (main refuses them).
  const locked = usePolicyView().agentsLocked;
  const [feedback, setFeedback] = useState<Feedback>(null);
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());
  const removeButtons = useRef(new Map<string, HTMLButtonElement>());
  const renameButtons = useRef(new Map<string, HTMLButtonElement>());
  /** The agent whose name is being edited (one at a time). */
  const [renaming, setRenaming] = useState<string | null>(null);
  const focusAfterRename = useRef<string | null>(null);
  /** Where focus goes once the removed row is gone: the next row's button, or the address field. */
  const focusAfterRemoval = useRef<string | 'add' | null>(null);
  const { state, set } = agents;

  // The Undo offer goes away by itself after a while.
  useEffect(() => {
    if (feedback?.kind !== 'removed') return;
    const timer = setTimeout(() => setFeedback((current) => (current === feedback ? null : current)), UNDO_MS);
    return () => clearTimeout(timer);
  }, [feedback]);

  async function undo(removed: AgentEntry, index: number) {
    setFeedback(null);
    const result = await call(() => api.agents.restore({ agent: removed, index }));
    if (result.ok) {
      // The Undo button is gone: focus goes back to the restored row's Remove button, where it was.
      focusAfterRemoval.current = removed.id;
      set(result.value.agents);
    } else {
      setFeedback({ kind: 'restoreFailed', name: agentTitle(removed), error: result.error });
      addInputRef.current?.focus();
    }
  }

  useEffect(() => {
    const target = focusAfterRemoval.current;
    if (target === null || state.status !== 'ready') return;
    focusAfterRemoval.current = null;
    const button = target === 'add' ? undefined : removeButtons.current.get(target);
    (button ?? addInputRef.current)?.focus();
  }, [state, addInputRef]);

  /** Editing ended (saved or cancelled): the focus goes back to the row's Rename button. */
  function endRename(id: string, renamed?: AgentEntry) {
    focusAfterRename.current = id;
    setRenaming(null);
    if (renamed) {
      // agents.changed normally arrives first; this covers a transport that does not deliver events.
      agents.update((list) => list.map((entry) => (entry.id === renamed.id ? renamed : entry)));
      setFeedback({ kind: 'renamed', name: agentTitle(renamed) });
    }
  }

  useEffect(() => {
    const id = focusAfterRename.current;
    if (id === null || renaming !== null) return;
    focusAfterRename.current = null;
    renameButtons.current.get(id)?.focus();
  }, [renaming]);

  async function remove(agent: AgentEntry, list: AgentEntry[]) {
    if (removing.has(agent.id)) return;
    setRemoving((current) => new Set(current).add(agent.id));
    setFeedback(null);
    const index = list.findIndex((entry) => entry.id === agent.id);
    const neighbour = list[index + 1] ?? list[index - 1];
    const result = await call(() => api.agents.remove({ id: agent.id }));
    setRemoving((current) => {
      const next = new Set(current);
      next.delete(agent.id);
      return next;
    });
    if (result.ok) {
      focusAfterRemoval.current = neighbour ? neighbour.id : 'add';
      set(result.value.agents);
      // Named as the list showed it: the user's own name when they gave one.
      setFeedback({ kind: 'removed', name: agentTitle(agent), agent, index });
    } else {
      setFeedback({ kind: 'failed', name: agentTitle(agent), error: result.error });
    }
  }

  let body;
  if (state.status === 'loading') {
    body = <p className="muted">{t('home.loading')}</p>;
  } else if (state.status === 'error') {
    body = (
      <div className="inline-error">
        <p className="error-text">
          {t('home.loadFailed')} <ErrorText error={state.error} />
        </p>
        <button type="button" className="button button--secondary" onClick={agents.reload}>
          {t('home.retry')}
        </button>
      </div>
    );
  } else if (state.value.length === 0) {
    body = <p className="empty-state">{t('home.empty')}</p>;
  } else {
    const list = state.value;
    body = (
      <ul className="agent-list" aria-label={t('home.listLabel')}>
        {list.map((agent) => {
          const title = agentTitle(agent);
          if (renaming === agent.id) {
            return (
              <li key={agent.id} className="agent-list__item">
                <RenameForm api={api} agent={agent} onDone={(renamed) => endRename(agent.id, renamed)} />
              </li>
            );
          }
          return (
            <li key={agent.id} className="agent-list__item">
              <span className="agent-list__name">
                {/* Named by the user or by its card: listed by that name, with the address it lives at. */}
                {title}
                {title !== agent.display ? <span className="agent-list__address muted"> {agent.display}</span> : null}
              </span>
              <span className="agent-list__actions">
                <button type="button" className="button button--primary" aria-label={t('home.openNamed', { name: title })} onClick={() => onOpen(agent)}>
                  {t('home.open')}
                </button>
                {locked ? null : (
                  <>
                    <button
                      type="button"
                      className="button button--secondary"
                      aria-label={t('home.renameNamed', { name: title })}
                      ref={(element) => {
                        if (element) renameButtons.current.set(agent.id, element);
                        else renameButtons.current.delete(agent.id);
                      }}
                      onClick={() => {
                        setFeedback(null);
                        setRenaming(agent.id);
                      }}
                    >
                      {t('home.rename')}
                    </button>
                    <button
                      type="button"
                      className="button button--secondary button--danger"
                      aria-label={t('home.removeNamed', { name: title })}
                      aria-busy={removing.has(agent.id) || undefined}
                      ref={(element) => {
                        if (element) removeButtons.current.set(agent.id, element);
                        else removeButtons.current.delete(agent.id);
                      }}
                      onClick={() => void remove(agent, list)}
                    >
                      {t('home.remove')}
                    </button>
                  </>
                )}
              </span>
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    <div className="agent-list-area">
      {body}
      <div role="status" className="feedback">
        {feedback?.kind === 'removed' ? (
          <p className="success-text">
            {t('home.removed', { name: feedback.name })}{' '}
            <button
              type="button"
              className="button button--secondary"
              aria-label={t('home.undoNamed', { name: feedback.name })}
              onClick={() => void undo(feedback.agent, feedback.index)}
            >
              {t('home.undo')}
            </button>
          </p>
        ) : null}
        {feedback?.kind === 'renamed' ? <p className="success-text">{t('home.renamed', { name: feedback.name })}</p> : null}
        {feedback?.kind === 'restoreFailed' ? (
          <p className="error-text">
            {t('home.restoreFailed', { name: feedback.name })} <ErrorText error={feedback.error} />
          </p>
        ) : null}
        {feedback?.kind === 'failed' ? (
          <p className="error-text">
            {t('home.removeFailed', { name: feedback.name })} <ErrorText error={feedback.error} />
          </p>
        ) : null}
      </div>
    </div>
  );
}

/**
 * The row's name as a field: Enter (or Save) saves it through main, Escape (or Cancel) leaves it as it
 * was. Saved the same, nothing is sent. Empty is refused here; main refuses what is too long.
 */
function RenameForm({ api, agent, onDone }: { api: AgentDeskApi; agent: AgentEntry; onDone: (renamed?: AgentEntry) => void }) {
  const { t } = useI18n();
  const id = useId();
  const title = agentTitle(agent);
  const [name, setName] = useState(title);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<IpcError | 'empty' | null>(null);
  const field = useRef<HTMLInputElement>(null);

  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving) return;
    const wanted = name.replace(/\s+/g, ' ').trim();
    if (wanted === '') {
      setError('empty');
      field.current?.focus();
      return;
    }
    if (wanted === title) return onDone();
    setSaving(true);
    setError(null);
    const result = await call(() => api.agents.rename({ id: agent.id, name: wanted }));
    setSaving(false);
    if (result.ok) onDone(result.value.agent);
    else {
      setError(result.error);
      field.current?.focus();
    }
  }

  return (
    <form
      className="agent-rename"
      noValidate
      aria-busy={saving || undefined}
      onSubmit={(event) => void save(event)}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        // Escape leaves the name as it was, and goes no further.
        event.preventDefault();
        event.stopPropagation();
        onDone();
      }}
    >
      <label htmlFor={`${id}-name`} className="visually-hidden">
        {t('home.renameLabel', { name: agent.display })}
      </label>
      <input
        ref={field}
        id={`${id}-name`}
        type="text"
        className="input agent-rename__input"
        autoComplete="off"
        maxLength={agentLabelMaxLength}
        value={name}
        readOnly={saving}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => {
          setName(event.target.value);
          setError(null);
        }}
      />
      <span className="agent-list__actions">
        <button type="submit" className="button button--primary" disabled={saving}>
          {saving ? t('home.renameSaving') : t('home.renameSave')}
        </button>
        <button type="button" className="button button--secondary" disabled={saving} onClick={() => onDone()}>
          {t('home.renameCancel')}
        </button>
      </span>
      {error ? (
        <p id={`${id}-error`} className="field__error agent-rename__error" role="alert">
          {error === 'empty' ? t('home.renameEmpty') : <ErrorText error={error} />}
        </p>
      ) : null}
    </form>
  );
}
