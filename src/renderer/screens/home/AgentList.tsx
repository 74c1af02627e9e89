import { useEffect, useRef, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { AgentEntry } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorText } from '../../components/ErrorText';
import { call, type LiveResource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

type Feedback =
  | { kind: 'removed'; name: string; agent: AgentEntry; index: number }
  | { kind: 'failed'; name: string; error: IpcError }
  | { kind: 'restoreFailed'; name: string; error: IpcError }
  | null;

/** How long "Removed X — Undo" stays offered. */
const UNDO_MS = 10_000;

/** The agents the user added, each with Open and Remove buttons; kept live by agents.changed. */
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
  const [feedback, setFeedback] = useState<Feedback>(null);
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());
  const removeButtons = useRef(new Map<string, HTMLButtonElement>());
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
    if (result.ok) set(result.value.agents);
    else setFeedback({ kind: 'restoreFailed', name: removed.display, error: result.error });
  }

  useEffect(() => {
    const target = focusAfterRemoval.current;
    if (target === null || state.status !== 'ready') return;
    focusAfterRemoval.current = null;
    const button = target === 'add' ? undefined : removeButtons.current.get(target);
    (button ?? addInputRef.current)?.focus();
  }, [state, addInputRef]);

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
      setFeedback({ kind: 'removed', name: agent.display, agent, index });
    } else {
      setFeedback({ kind: 'failed', name: agent.display, error: result.error });
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
        {list.map((agent) => (
          <li key={agent.id} className="agent-list__item">
            <span className="agent-list__name">
              {/* A plain A2A agent is listed by its card's name, with the address it lives at. */}
              {agent.name ?? agent.display}
              {agent.name !== undefined ? <span className="agent-list__address muted"> {agent.display}</span> : null}
            </span>
            <span className="agent-list__actions">
              <button
                type="button"
                className="button button--primary"
                aria-label={t('home.openNamed', { name: agent.name ?? agent.display })}
                onClick={() => onOpen(agent)}
              >
                {t('home.open')}
              </button>
              <button
                type="button"
                className="button button--secondary button--danger"
                aria-label={t('home.removeNamed', { name: agent.display })}
                aria-busy={removing.has(agent.id) || undefined}
                ref={(element) => {
                  if (element) removeButtons.current.set(agent.id, element);
                  else removeButtons.current.delete(agent.id);
                }}
                onClick={() => void remove(agent, list)}
              >
                {t('home.remove')}
              </button>
            </span>
          </li>
        ))}
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
