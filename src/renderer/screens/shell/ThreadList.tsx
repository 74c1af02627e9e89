import { useEffect, useId, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError, IpcResult } from '../../../shared/base/errors';
import type { ThreadSearchResult } from '../../../shared/threads/thread-search';
import { ErrorAlert, ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import { useSidebarPlace } from './SidebarPlace';

/** One thread as the list shows it. */
export interface ThreadEntry {
  id: string;
  /** Shown as is: the caller already chose the server's title, the first message or "Untitled chat". */
  title: string;
  /** A short second line (channel, time). */
  meta?: string | undefined;
}

/** How long typing pauses before the search runs (ms). */
export const searchDelayMs = 250;

/**
 * The open agent's chats, under its entry in the shell's sidebar (Talkie threads; a plain AG-UI
 * agent's thread): New chat, a search box (titles and text, searched in main: `agents.searchThreads`),
 * the list with the open chat marked (aria-current), and Delete with a confirmation step where the
 * agent can delete threads.
 */
export function ThreadList({
  api,
  agentId,
  entries,
  loadError,
  onRetry,
  currentId,
  newChatRef,
  newChat,
  failure,
  onOpen,
  onDelete,
  onDeleted,
}: {
  api: AgentDeskApi;
  agentId: string;
  /** Newest first; undefined while loading. */
  entries: ThreadEntry[] | undefined;
  loadError?: IpcError | undefined;
  onRetry?: () => void;
  currentId: string | undefined;
  newChatRef?: RefObject<HTMLButtonElement | null>;
  newChat: { onClick: () => void; busy?: boolean; disabled?: boolean };
  /** Why New chat or opening a chat failed, where the screen reports it here. */
  failure?: { summary: string; error: IpcError } | undefined;
  onOpen: (threadId: string) => void;
  /** Where threads can be deleted. */
  onDelete?: (threadId: string) => Promise<IpcResult<unknown>>;
  onDeleted?: (threadId: string) => void;
}) {
  const { t } = useI18n();
  const place = useSidebarPlace();
  const headingId = `${useId()}-threads`;
  const ownNewChatRef = useRef<HTMLButtonElement>(null);
  const newChatButton = newChatRef ?? ownNewChatRef;
  const [query, setQuery] = useState('');
  const search = useThreadSearch(api, agentId, query, entries);

  const open = (threadId: string) => {
    place.onPicked();
    onOpen(threadId);
  };

  let body;
  if (search.active) {
    body =
      search.results === undefined ? null : search.results.length === 0 ? null : (
        <ul className="threads__list">
          {search.results.map((result) => {
            const title = result.title.trim() !== '' ? result.title : t('chat.threads.untitled');
            return (
              <li key={result.threadId} className={`thread${result.threadId === currentId ? ' thread--current' : ''}`}>
                <button
                  type="button"
                  className="thread__open"
                  aria-current={result.threadId === currentId ? 'true' : undefined}
                  onClick={() => open(result.threadId)}
                >
                  <span className="thread__title">{title}</span>
                  {/* The text around the match, unless it says what the title says (the first message is the title). */}
                  {result.snippet !== '' && result.snippet !== title ? <span className="thread__snippet">{result.snippet}</span> : null}
                </button>
              </li>
            );
          })}
        </ul>
      );
  } else if (entries === undefined && !loadError) body = <p className="muted">{t('chat.threads.loading')}</p>;
  else if (entries === undefined || (loadError && entries.length === 0)) {
    body = (
      <div className="inline-error">
        <p className="error-text">
          {t('chat.threads.loadFailed')} {loadError ? <ErrorText error={loadError} /> : null}
        </p>
        {onRetry ? (
          <button type="button" className="button button--secondary" onClick={onRetry}>
            {t('chat.retry')}
          </button>
        ) : null}
      </div>
    );
  } else if (entries.length === 0) body = <p className="muted">{t('chat.threads.empty')}</p>;
  else {
    body = (
      <ul className="threads__list">
        {entries.map((entry) => (
          <ThreadRow
            key={entry.id}
            entry={entry}
            current={entry.id === currentId}
            onOpen={() => open(entry.id)}
            onDelete={onDelete ? () => onDelete(entry.id) : undefined}
            onDeleted={() => {
              onDeleted?.(entry.id);
              newChatButton.current?.focus();
            }}
          />
        ))}
      </ul>
    );
  }

  const onSearchKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Escape' || query === '') return;
    // Escape clears the search (and does nothing else: the drawer and the screen keep it).
    event.preventDefault();
    setQuery('');
  };

  return (
    <nav className="threads" aria-labelledby={headingId}>
      <div className="threads__header">
        <h2 id={headingId} className="threads__title">
          {t('chat.threads.title')}
        </h2>
        <button
          ref={newChatButton}
          type="button"
          className="button button--secondary threads__new"
          aria-busy={newChat.busy || undefined}
          disabled={newChat.disabled || newChat.busy}
          onClick={() => {
            place.onPicked();
            newChat.onClick();
          }}
        >
          {t('chat.threads.new')}
        </button>
      </div>
      <ErrorAlert summary={failure?.summary ?? ''} error={failure?.error} />
      <input
        type="search"
        className="input threads__search"
        aria-label={t('chat.threads.search')}
        placeholder={t('chat.threads.search')}
        maxLength={200}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onSearchKeyDown}
      />
      <div role="status" className="threads__search-status">
        {search.active && search.results?.length === 0 ? <p className="muted">{t('chat.threads.noMatch')}</p> : null}
        {search.waiting ? <p className="muted">{t('chat.threads.searching')}</p> : null}
        {search.error ? (
          <p className="error-text">
            {t('chat.threads.searchFailed')} <ErrorText error={search.error} />
          </p>
        ) : null}
      </div>
      {body}
    </nav>
  );
}

/**
 * The search as the user types: it runs once typing pauses (searchDelayMs), again when the list
 * changed (a run ended: new text), and an answer to an older query is dropped.
 */
function useThreadSearch(api: AgentDeskApi, agentId: string, query: string, entries: unknown) {
  const [answer, setAnswer] = useState<{ query: string; results?: ThreadSearchResult[]; error?: IpcError } | undefined>();
  const trimmed = query.trim();
  useEffect(() => {
    if (trimmed === '') return undefined;
    let current = true;
    const timer = setTimeout(() => {
      void call(() => api.agents.searchThreads({ agentId, query: trimmed })).then((result) => {
        if (!current) return;
        setAnswer(result.ok ? { query: trimmed, results: result.value.results } : { query: trimmed, error: result.error });
      });
    }, searchDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, agentId, trimmed, entries]);
  const shown = trimmed !== '' && answer?.query === trimmed ? answer : undefined;
  // The first search may wait while main reads the agent's threads: say so.
  return { active: trimmed !== '', waiting: trimmed !== '' && shown === undefined, results: shown?.results, error: shown?.error };
}

function ThreadRow({
  entry,
  current,
  onOpen,
  onDelete,
  onDeleted,
}: {
  entry: ThreadEntry;
  current: boolean;
  onOpen: () => void;
  onDelete: (() => Promise<IpcResult<unknown>>) | undefined;
  onDeleted: () => void;
}) {
  const { t } = useI18n();
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const deleteButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  /** Where focus goes once the row re-rendered: into the question, or back to its Delete button. */
  const focusAfter = useRef<'keep' | 'delete' | null>(null);
  const { title } = entry;

  useEffect(() => {
    const target = focusAfter.current;
    focusAfter.current = null;
    if (target === 'keep') keepButton.current?.focus();
    if (target === 'delete') deleteButton.current?.focus();
  }, [confirming]);

  function ask() {
    focusAfter.current = 'keep';
    setError(undefined);
    setConfirming(true);
  }

  function keep() {
    focusAfter.current = 'delete';
    setConfirming(false);
  }

  async function confirmDelete() {
    if (deleting || !onDelete) return;
    setDeleting(true);
    setError(undefined);
    const result = await onDelete();
    setDeleting(false);
    if (result.ok) onDeleted();
    else setError(result.error);
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape') return;
    // Escape closes the question, not the chat screen or the drawer.
    event.preventDefault();
    keep();
  };

  return (
    <li className={`thread${current ? ' thread--current' : ''}`}>
      {confirming ? (
        <div className="thread__confirm" role="group" aria-label={t('chat.threads.confirmLabel', { title })} onKeyDown={onKeyDown}>
          <p className="thread__question">{t('chat.threads.confirmQuestion', { title })}</p>
          <div className="thread__buttons">
            <button
              type="button"
              className="button button--secondary button--danger"
              aria-label={t('chat.threads.confirmDeleteNamed', { title })}
              aria-busy={deleting || undefined}
              disabled={deleting}
              onClick={() => void confirmDelete()}
            >
              {t('chat.threads.confirmDelete')}
            </button>
            <button type="button" className="button button--secondary" ref={keepButton} onClick={keep}>
              {t('chat.threads.keep')}
            </button>
          </div>
          <ErrorAlert summary={t('chat.threads.deleteFailed')} error={error} />
        </div>
      ) : (
        <div className="thread__row">
          <button type="button" className="thread__open" aria-current={current ? 'true' : undefined} onClick={onOpen}>
            <span className="thread__title">{title}</span>
            {entry.meta ? <span className="thread__meta">{entry.meta}</span> : null}
          </button>
          {onDelete ? (
            <button
              ref={deleteButton}
              type="button"
              className="thread__delete"
              aria-label={t('chat.threads.deleteNamed', { title })}
              title={t('chat.threads.deleteNamed', { title })}
              onClick={ask}
            >
              <span aria-hidden="true">×</span>
            </button>
          ) : null}
        </div>
      )}
    </li>
  );
}
