import { useEffect, useId, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { IpcError, IpcResult } from '../../../shared/ipc/errors';
import { threadTitleFromMessage } from '../../../shared/talkie/thread-title';
import { ErrorAlert, ErrorText } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { formatDateTime } from '../../components/format';
import type { Threads, ThreadSummary } from './useThreads';

/** The agent's chats: New chat, open one, delete one after a confirmation step. */
export function ThreadsSidebar({
  threads,
  currentThreadId,
  newChatRef,
  onNewChat,
  onOpen,
  onDeleted,
}: {
  threads: Threads;
  currentThreadId: string | undefined;
  newChatRef: RefObject<HTMLButtonElement | null>;
  onNewChat: () => void;
  onOpen: (threadId: string) => void;
  onDeleted: (threadId: string) => void;
}) {
  const { t } = useI18n();
  const headingId = `${useId()}-threads`;
  const { threads: list, error } = threads;

  let body;
  if (list === undefined && !error) body = <p className="muted">{t('chat.threads.loading')}</p>;
  else if (list === undefined || (error && list.length === 0)) {
    body = (
      <div className="inline-error">
        <p className="error-text">
          {t('chat.threads.loadFailed')} {error ? <ErrorText error={error} /> : null}
        </p>
        <button type="button" className="button button--secondary" onClick={threads.refresh}>
          {t('chat.retry')}
        </button>
      </div>
    );
  } else if (list.length === 0) body = <p className="muted">{t('chat.threads.empty')}</p>;
  else {
    body = (
      <ul className="threads__list">
        {list.map((thread) => (
          <ThreadRow
            key={thread.id}
            thread={thread}
            current={thread.id === currentThreadId}
            onOpen={() => onOpen(thread.id)}
            onDelete={() => threads.remove(thread.id)}
            onDeleted={() => {
              onDeleted(thread.id);
              newChatRef.current?.focus();
            }}
          />
        ))}
      </ul>
    );
  }

  return (
    <nav className="threads" aria-labelledby={headingId}>
      <div className="threads__header">
        <h2 id={headingId} className="threads__title">
          {t('chat.threads.title')}
        </h2>
        <button ref={newChatRef} type="button" className="button button--secondary" onClick={onNewChat}>
          {t('chat.threads.new')}
        </button>
      </div>
      {body}
    </nav>
  );
}

function ThreadRow({
  thread,
  current,
  onOpen,
  onDelete,
  onDeleted,
}: {
  thread: ThreadSummary;
  current: boolean;
  onOpen: () => void;
  onDelete: () => Promise<IpcResult<unknown>>;
  onDeleted: () => void;
}) {
  const { t, language } = useI18n();
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const deleteButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  /** Where focus goes once the row re-rendered: into the question, or back to its Delete button. */
  const focusAfter = useRef<'keep' | 'delete' | null>(null);

  useEffect(() => {
    const target = focusAfter.current;
    focusAfter.current = null;
    if (target === 'keep') keepButton.current?.focus();
    if (target === 'delete') deleteButton.current?.focus();
  }, [confirming]);
  // The server's title wins; else the first message (one line, at most 60 characters); else "Untitled chat".
  const title = thread.title.trim() !== '' ? thread.title : threadTitleFromMessage(thread.firstMessage ?? '') || t('chat.threads.untitled');
  const when = formatDateTime(thread.updatedAt ?? thread.createdAt, language);

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
    if (deleting) return;
    setDeleting(true);
    setError(undefined);
    const result = await onDelete();
    setDeleting(false);
    if (result.ok) onDeleted();
    else setError(result.error);
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape') return;
    // Escape closes the question, not the chat screen.
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
            <button
              type="button"
              className="button button--secondary"
              ref={keepButton}
              onClick={keep}
            >
              {t('chat.threads.keep')}
            </button>
          </div>
          <ErrorAlert summary={t('chat.threads.deleteFailed')} error={error} />
        </div>
      ) : (
        <div className="thread__row">
          <button type="button" className="thread__open" aria-current={current ? 'true' : undefined} onClick={onOpen}>
            <span className="thread__title">{title}</span>
            {thread.channel === 'voice' ? <span className="thread__meta">{t('chat.threads.voice')}</span> : null}
            {when !== undefined ? <span className="thread__meta">{when}</span> : null}
          </button>
          <button
            ref={deleteButton}
            type="button"
            className="button button--secondary button--danger thread__delete"
            aria-label={t('chat.threads.deleteNamed', { title })}
            onClick={ask}
          >
            {t('chat.threads.delete')}
          </button>
        </div>
      )}
    </li>
  );
}
