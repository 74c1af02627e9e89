import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ComposerHandle } from '../../components/Composer';
import type { InterruptAnswer } from '../../../shared/agui/interrupts';
import { stampNewItems } from '../../../shared/agui/item-times';
import { addUserMessage, openInterrupts, toolCallArgs, type AguiThreadView } from '../../../shared/agui/run-model';
import type { IpcError } from '../../../shared/ipc/errors';
import { AgentHeader } from '../../components/AgentHeader';
import { ConnectionFeedback } from '../../components/ConnectionFeedback';
import { ErrorAlert } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useReportAgentStatus } from '../../hooks/useAgentStatus';
import { useConnectionLost } from '../../hooks/useConnection';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { ChatEnvironmentContext, type ChatEnvironment } from '../../components/ChatContext';
import { AguiComposer } from './AguiComposer';
import { AguiInspect, AguiSteps } from './AguiRunDetails';
import { AguiSettings } from './AguiSettings';
import { AguiTranscript } from './AguiTranscript';
import { InterruptForms, type SendAnswers } from './InterruptForms';
import { useAguiThread } from './useAguiThread';
import '../../styles/agui.css';
import type { AgentScreenProps } from '../../navigation';
import { InSidebar } from '../shell/SidebarPlace';
import { ThreadList } from '../shell/ThreadList';
import { useOpenLink } from '../../hooks/useOpenLink';
import { LinkOpenError } from '../../components/LinkOpenError';
import { formatDateTime, hostOf, originOf } from '../../components/format';
import { useAguiThreadList } from './useAguiThreadList';

function newMessageId(): string {
  return `msg-${crypto.randomUUID()}`;
}

/** The one polite status line: how the run goes, never the streamed text. */
function RunStatusLine({ thread, waiting, onRetry, retrying, retryError }: { thread: AguiThreadView; waiting: boolean; onRetry: () => void; retrying: boolean; retryError: IpcError | undefined }) {
  const { t } = useI18n();
  const lost = useConnectionLost();
  const running = (thread.runState === 'running' || thread.runState === 'starting') && !lost;
  let text: string | undefined;
  const simple: Partial<Record<AguiThreadView['runState'], MessageKey>> = {
    starting: 'chat.status.answering',
    running: 'chat.status.answering',
    finished: 'agui.status.finished',
    cancelled: 'chat.status.cancelled',
    dropped: 'agui.status.dropped',
  };
  if (lost && (thread.runState === 'running' || thread.runState === 'starting')) text = t('chat.status.connectionLost');
  else if (thread.runState === 'awaitingInput') text = t(waiting ? 'agui.status.awaiting' : 'agui.status.finished');
  else if (thread.runState === 'error') text = t('agui.status.failed', { message: thread.error?.message ?? '' });
  else {
    const key = simple[thread.runState];
    if (key !== undefined) text = t(key);
  }
  const canRetry = thread.runState === 'dropped' || thread.runState === 'error';
  return (
    <div className="run-status">
      <p className="run-status__text" role="status" aria-live="polite">
        {running ? <span className="spinner" aria-hidden="true" /> : null}
        {text}
      </p>
      {canRetry ? (
        <button type="button" className="button button--secondary" disabled={retrying} aria-busy={retrying || undefined} onClick={onRetry}>
          {t('chat.retry')}
        </button>
      ) : null}
      <ErrorAlert summary={t('agui.retryFailed')} error={retryError} />
    </div>
  );
}

/**
 * A plain AG-UI server (an endpoint that takes a POST and answers with an SSE stream of AG-UI 1.0
 * events): the thread main keeps (restored from disk, so open requests survive a restart), each
 * run rendered as it streams (text, reasoning, tool calls, activity, steps, subagents, state), the
 * agent's requests as forms answered all at once, Retry after a dropped stream, and the
 * connection settings (bearer token, forwardedProps).
 */
export function AguiScreen({
  api,
  headingRef,
  agentId,
  label,
  onBack,
}: AgentScreenProps) {
  const { t, language } = useI18n();
  const { connection, thread, reopen, replaceServer, changeThread, requestStarting, runStarted, requestSettled, showEarlier } = useAguiThread(api, agentId);
  const server = connection.status === 'open' ? connection.server : undefined;
  useReportAgentStatus(agentId, connection.status === 'open' ? 'connected' : connection.status === 'failed' ? 'unreachable' : 'connecting');
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const [retrying, setRetrying] = useState(false);
  const [retryError, setRetryError] = useState<IpcError | undefined>();
  const [newThreadBusy, setNewThreadBusy] = useState(false);
  const [threadFailure, setThreadFailure] = useState<{ summary: string; error: IpcError } | undefined>();
  const threads = useAguiThreadList(api, agentId, thread?.threadId);
  const latestThreadId = useRef(thread?.threadId);
  useEffect(() => {
    latestThreadId.current = thread?.threadId;
  }, [thread?.threadId]);

  // Answers on their way (pendingResume) close the forms; a refused request opens them again.
  const interrupts = useMemo(() => (thread && thread.pendingResume === undefined ? openInterrupts(thread) : []), [thread]);
  const running = thread?.runState === 'running' || thread?.runState === 'starting';
  const asking = interrupts.length > 0;

  // The forms went (answers sent) with the focus in them: it moves to the message field, which
  // is usable again, instead of dropping on the page.
  useEffect(() => {
    if (asking) return;
    const active = document.activeElement;
    if (active === null || active === document.body) composerRef.current?.focus();
  }, [asking]);
  const toolName = useCallback((toolCallId: string) => {
    const found = thread?.items.find((item) => item.kind === 'toolCall' && item.id === toolCallId);
    return found?.kind === 'toolCall' ? found.name : undefined;
  }, [thread]);
  const toolArgs = useCallback((toolCallId: string) => (thread === undefined ? undefined : toolCallArgs(thread, toolCallId)), [thread]);

  // Edit on the user's last message (and ArrowUp in the empty composer) puts its text back in the
  // composer. The server may keep its own session for the thread (iac-code's adapter binds the
  // thread to one), so nothing is taken back: the edited text goes as a new message, and the
  // composer says so. Stop editing (or Escape) gives back the draft typed before.
  const composerHandle = useRef<ComposerHandle | null>(null);
  const [editing, setEditing] = useState<{ messageId: string; previousDraft: string } | undefined>();
  const lastUser = thread?.items.findLast((item) => item.kind === 'user');
  const editable = !running && !asking && !retrying && lastUser?.kind === 'user' ? lastUser : undefined;
  const editLast = useCallback(() => {
    if (!editable) return;
    const draft = composerHandle.current?.text() ?? '';
    setEditing((current) => ({ messageId: editable.id, previousDraft: current ? current.previousDraft : draft }));
    composerHandle.current?.fill(editable.text);
  }, [editable]);
  const stopEditing = useCallback(() => {
    composerHandle.current?.fill(editing?.previousDraft ?? '');
    setEditing(undefined);
  }, [editing]);

  const send = useCallback(
    async (text: string) => {
      const messageId = newMessageId();
      requestStarting();
      const result = await call(() => api.agui.send({ agentId, messageId, text }));
      if (!result.ok) {
        requestSettled();
        return result.error;
      }
      setEditing(undefined);
      changeThread((current) => (current.items.some((item) => item.kind === 'user' && item.id === messageId) ? current : stampNewItems(current, addUserMessage(current, { id: messageId, text }), Date.now())));
      runStarted(result.value.runId);
      return undefined;
    },
    [api, agentId, changeThread, requestStarting, requestSettled, runStarted],
  );

  const cancel = useCallback(async () => {
    const result = await call(() => api.agui.cancel({ agentId }));
    return result.ok ? undefined : result.error;
  }, [api, agentId]);

  const resume = useCallback<SendAnswers>(
    async (answers: Record<string, InterruptAnswer>) => {
      requestStarting();
      const result = await call(() => api.agui.resume({ agentId, answers }));
      if (!result.ok) {
        requestSettled();
        return result.error;
      }
      runStarted(
        result.value.runId,
        Object.entries(answers).map(([interruptId, answer]) => (answer.status === 'resolved' ? { interruptId, status: answer.status, payload: answer.payload } : { interruptId, status: answer.status })),
      );
      return undefined;
    },
    [api, agentId, requestStarting, requestSettled, runStarted],
  );

  async function retry() {
    if (retrying) return;
    setRetrying(true);
    setRetryError(undefined);
    requestStarting();
    const result = await call(() => api.agui.retry({ agentId }));
    setRetrying(false);
    if (!result.ok) {
      requestSettled();
      setRetryError(result.error);
      return;
    }
    runStarted(result.value.runId);
  }

  async function newThread() {
    if (newThreadBusy) return;
    setNewThreadBusy(true);
    setThreadFailure(undefined);
    const result = await call(() => api.agui.newThread({ agentId }));
    setNewThreadBusy(false);
    if (!result.ok) return setThreadFailure({ summary: t('chat.threads.newFailed'), error: result.error });
    setRetryError(undefined);
    setEditing(undefined);
    replaceServer(result.value);
    composerRef.current?.focus();
  }

  /** An earlier thread becomes the open one (main keeps one open thread per agent; runs continue it). */
  async function openThread(threadId: string) {
    if (threadId === thread?.threadId) return;
    setThreadFailure(undefined);
    const result = await call(() => api.agui.openThread({ agentId, threadId }));
    if (!result.ok) return setThreadFailure({ summary: t('chat.threads.openFailed'), error: result.error });
    setRetryError(undefined);
    replaceServer(result.value);
  }

  const deleteThread = useCallback(
    async (threadId: string) => {
      const result = await threads.remove(threadId);
      // The open thread was emptied: show the fresh one main put in its place.
      if (result.ok && result.value.currentThreadId !== latestThreadId.current) {
        const opened = await call(() => api.agui.open({ agentId }));
        if (opened.ok) replaceServer(opened.value);
      }
      return result;
    },
    [threads, api, agentId, replaceServer],
  );

  const { openLink, linkError } = useOpenLink(api);
  const issuer = server ? originOf(server.endpoint) : '';
  const environment = useMemo<ChatEnvironment>(
    () => ({ issuer, serverName: label, openLink, downloadFile: async () => ({ ok: false, error: { code: 'not_allowed', message: 'Plain AG-UI servers do not offer downloads.' } }) }),
    [issuer, label, openLink],
  );

  return (
    <div className="screen chat agui">
      <AgentHeader
        className="agui-header"
        headingRef={headingRef}
        title={label}
        onBack={onBack}
        subtitle={server ? <p className="agui-header__endpoint">{t('agui.endpoint', { host: hostOf(server.endpoint) })}</p> : null}
      />
      {server && thread ? (
        <InSidebar agentId={agentId}>
          <ThreadList
            api={api}
            agentId={agentId}
            entries={threads.list?.threads.map((entry) => ({
              id: entry.threadId,
              title: entry.title || t('chat.threads.untitled'),
              meta: entry.updatedAt === undefined ? undefined : formatDateTime(new Date(entry.updatedAt).toISOString(), language),
            }))}
            loadError={threads.error}
            onRetry={threads.refresh}
            currentId={thread.threadId}
            newChat={{ onClick: () => void newThread(), busy: newThreadBusy, disabled: running }}
            failure={threadFailure}
            onOpen={(threadId) => void openThread(threadId)}
            onDelete={deleteThread}
          />
        </InSidebar>
      ) : null}
      <ConnectionFeedback
        connectingText={connection.status === 'opening' ? t('agui.opening', { name: label }) : undefined}
        failure={connection.status === 'failed' ? { summary: t('agui.openFailed', { name: label }), error: connection.error } : undefined}
        onRetry={reopen}
        onBack={onBack}
      />
      {server ? <AguiSettings api={api} agentId={agentId} server={server} onChanged={replaceServer} /> : null}
      {server && thread ? (
        <ChatEnvironmentContext.Provider value={environment}>
          <section className="chat-main agui-main" aria-label={t('chat.conversationLabel')}>
            <LinkOpenError error={linkError} />
            <AguiTranscript thread={thread} edit={editable ? { messageId: editable.id, onEdit: editLast } : undefined} onShowEarlier={showEarlier} />
            <AguiInspect thread={thread} />
            <AguiSteps thread={thread} />
            <RunStatusLine thread={thread} waiting={asking} onRetry={() => void retry()} retrying={retrying} retryError={retryError} />
            {asking ? <InterruptForms key={interrupts.map((interrupt) => interrupt.id).join('\n')} interrupts={interrupts} toolName={toolName} toolArgs={toolArgs} onSend={resume} /> : null}
            <AguiComposer
              textareaRef={composerRef}
              draftKey={`agui:${agentId}`}
              ready={!retrying}
              running={running}
              blocked={asking}
              onSend={send}
              onCancel={cancel}
              handleRef={composerHandle}
              onEditLast={editLast}
              onEscape={() => {
                if (!editing) return false;
                stopEditing();
                return true;
              }}
              notice={
                editing ? (
                  <>
                    <p className="composer__notice-text">{t('agui.edit.notice')}</p>
                    <button type="button" className="button button--secondary" onClick={stopEditing}>
                      {t('chat.edit.stop')}
                    </button>
                  </>
                ) : undefined
              }
            />
          </section>
        </ChatEnvironmentContext.Provider>
      ) : null}
    </div>
  );
}
