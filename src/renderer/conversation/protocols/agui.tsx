import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AguiInterrupt, InterruptAnswer } from '../../../shared/agui/interrupts';
import type { AguiServerView } from '../../../shared/agui/ipc-schemas';
import { isJsonObject, type JsonObject } from '../../../shared/agui/json-values';
import { sourceIdOf, type ConversationItem, type ItemOfKind } from '../../../shared/conversation/items';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorAlert } from '../../components/ErrorText';
import { formatDateTime, hostOf, originOf } from '../../components/format';
import { LinkOpenError } from '../../components/LinkOpenError';
import { call } from '../../hooks/useLiveResource';
import { useOpenLink } from '../../hooks/useOpenLink';
import { useI18n } from '../../i18n/I18nProvider';
import { AguiInspect, AguiSteps } from '../../screens/agui/AguiRunDetails';
import { AguiSettings } from '../../screens/agui/AguiSettings';
import { InterruptForms } from '../../screens/agui/InterruptForms';
import { useAguiThreadList } from '../../screens/agui/useAguiThreadList';
import { ThreadList } from '../../screens/shell/ThreadList';
import type { ProfileInput, ProtocolProfile } from '../profile';
import '../../styles/agui.css';

/**
 * The plain AG-UI agent's share of the conversation screen: its questions (interrupts) as forms in
 * the transcript — the usual approval shape as Allow and Deny — Retry after a failed or dropped run,
 * Edit on the last message (sent as a new message: the server may keep its own session), its threads
 * in the sidebar, and its connection settings and state in the details.
 */
export function useAguiProfile({ api, agentId, label, view, store, composer }: ProfileInput): ProtocolProfile {
  const { t, language } = useI18n();
  const { openLink, linkError } = useOpenLink(api);
  const [server, setServer] = useState<AguiServerView | undefined>();
  const threadId = view?.status.threadId;
  // The server's settings and state, for the details (the thread itself arrives as the conversation).
  useEffect(() => {
    let active = true;
    void call(() => api.agui.open({ agentId })).then((result) => {
      if (active && result.ok) setServer(result.value);
    });
    return () => {
      active = false;
    };
  }, [api, agentId, threadId, view?.status.run]);

  const running = view !== undefined && view.status.run !== 'idle';
  const asking = view?.items.at(-1)?.kind === 'interrupt';
  // The questions went (answered) with the focus in them: it moves to the message field instead of the page.
  const wasAsking = useRef(asking);
  useEffect(() => {
    const answered = wasAsking.current && !asking;
    wasAsking.current = asking;
    if (!answered) return;
    const active = document.activeElement;
    if (active === null || active === document.body) composer.field()?.focus();
  }, [asking, composer]);

  const [retrying, setRetrying] = useState(false);
  const [retryError, setRetryError] = useState<IpcError | undefined>();
  const retry = useCallback(async () => {
    if (retrying) return;
    setRetrying(true);
    setRetryError(undefined);
    const result = await call(() => api.agui.retry({ agentId }));
    setRetrying(false);
    if (!result.ok) setRetryError(result.error);
  }, [api, agentId, retrying]);

  // Edit on the user's last message: its text back in the composer, sent as a new message.
  const lastUser = view?.items.findLast((item) => item.kind === 'message' && item.role === 'user' && item.state !== 'queued');
  const editable = !running && !asking && lastUser?.kind === 'message' ? lastUser : undefined;
  const [editing, setEditing] = useState<{ previousDraft: string } | undefined>();
  const edit = useCallback(() => {
    if (!editable) return;
    const handle = composer.handle();
    setEditing((current) => current ?? { previousDraft: handle?.text() ?? '' });
    handle?.fill(editable.text);
  }, [editable, composer]);
  const stopEditing = useCallback(() => {
    composer.handle()?.fill(editing?.previousDraft ?? '');
    setEditing(undefined);
  }, [composer, editing]);

  const threads = useAguiThreadList(api, agentId, threadId, running);
  const [threadFailure, setThreadFailure] = useState<{ summary: string; error: IpcError } | undefined>();
  const [newBusy, setNewBusy] = useState(false);

  const environment = useMemo(
    () => ({
      issuer: server ? originOf(server.endpoint) : '',
      serverName: label,
      openLink,
      downloadFile: async () => ({ ok: false as const, error: { code: 'not_allowed' as const, message: 'Plain AG-UI servers do not offer downloads.' } }),
    }),
    [server, label, openLink],
  );

  const views = useMemo(
    () => ({ interrupt: (props: { item: ItemOfKind<'interrupt'> }) => <QuestionsItem api={api} agentId={agentId} {...props} /> }),
    [api, agentId],
  );

  return {
    environment,
    views,
    actions: {
      ...(editable ? { editableId: editable.id, edit } : {}),
      retry: () => void retry(),
      canRetry: !running && !retrying,
    },
    composer: {
      draftKey: `agui:${agentId}`,
      max: 100_000,
      ...(asking ? { blocked: 'agui.composer.blocked' as const } : {}),
      onEditLast: edit,
      onEscape: () => {
        if (!editing) return false;
        stopEditing();
        return true;
      },
      send: async (text) => {
        const failure = await store.send(text);
        if (!failure) setEditing(undefined);
        return failure;
      },
      notice: editing ? (
        <>
          <p className="composer__notice-text">{t('agui.edit.notice')}</p>
          <button type="button" className="button button--secondary" onClick={stopEditing}>
            {t('chat.edit.stop')}
          </button>
        </>
      ) : undefined,
    },
    waitingText: t('agui.status.awaiting'),
    statusExtra: (
      <>
        {view?.status.outcome === 'failed' || view?.status.outcome === 'interrupted' ? (
          <button
            type="button"
            className="button button--secondary"
            disabled={retrying || running}
            aria-busy={retrying || undefined}
            onClick={() => void retry()}
          >
            {t('chat.retry')}
          </button>
        ) : null}
        <ErrorAlert summary={t('agui.retryFailed')} error={retryError} />
        <LinkOpenError error={linkError} />
      </>
    ),
    sidebar: (
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
        currentId={threadId}
        newChat={{
          busy: newBusy,
          disabled: running,
          onClick: () => {
            setNewBusy(true);
            setThreadFailure(undefined);
            void call(() => api.agui.newThread({ agentId })).then((result) => {
              setNewBusy(false);
              if (!result.ok) setThreadFailure({ summary: t('chat.threads.newFailed'), error: result.error });
              else composer.field()?.focus();
            });
          },
        }}
        failure={threadFailure}
        onOpen={(id) => {
          if (id === threadId) return;
          setThreadFailure(undefined);
          void call(() => api.agui.openThread({ agentId, threadId: id })).then((result) => {
            if (!result.ok) setThreadFailure({ summary: t('chat.threads.openFailed'), error: result.error });
          });
        }}
        onDelete={(id) => threads.remove(id)}
      />
    ),
    details: server ? (
      <>
        <p className="agent-details__line">{t('agui.endpoint', { host: hostOf(server.endpoint) })}</p>
        <AguiSettings
          api={api}
          agentId={agentId}
          server={server}
          onChanged={(settings) => setServer((current) => (current ? { ...current, ...settings } : current))}
        />
        <AguiSteps thread={server.thread} />
        <AguiInspect thread={server.thread} />
      </>
    ) : (
      <p className="muted">{t('agui.opening', { name: label })}</p>
    ),
  };
}

/** The args of a tool a question is about, as JSON (what an approval's edited arguments start from). */
function argsOf(item: ItemOfKind<'interrupt'>, toolCallId: string): JsonObject | undefined {
  const args = item.tools[toolCallId]?.args;
  if (args === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A question of the usual approval shape: an object whose one required field is a boolean `approved`
 * (a tool approval) or `approve` (a confirmation), with at most edited arguments or a note beside it.
 * Answered with Allow or Deny; the full form is behind Edit. The boolean's name, or undefined.
 */
export function approvalField(interrupt: AguiInterrupt): 'approved' | 'approve' | undefined {
  const schema = interrupt.responseSchema;
  if (schema === undefined || schema.type !== 'object' || !isJsonObject(schema.properties)) return undefined;
  const properties = schema.properties;
  const field = (['approved', 'approve'] as const).find((key) => isJsonObject(properties[key]) && (properties[key] as JsonObject).type === 'boolean');
  if (field === undefined) return undefined;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (required.some((key) => key !== field)) return undefined;
  const others = Object.keys(properties).filter((key) => key !== field);
  return others.every((key) => ['editedArgs', 'editedArguments', 'arguments', 'args', 'reason', 'comment', 'note'].includes(key)) ? field : undefined;
}

/** The agent's open questions, in the transcript: Allow/Deny for one approval, else the forms answered together. */
function QuestionsItem({ api, agentId, item }: { api: AgentDeskApi; agentId: string; item: ItemOfKind<'interrupt'> }) {
  const { t } = useI18n();
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState<'allow' | 'deny' | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const send = useCallback(
    async (answers: Record<string, InterruptAnswer>) => {
      const result = await call(() => api.agui.resume({ agentId, answers }));
      return result.ok ? undefined : result.error;
    },
    [api, agentId],
  );
  const only = item.interrupts.length === 1 ? item.interrupts[0] : undefined;
  const field = only === undefined ? undefined : approvalField(only);
  if (only !== undefined && field !== undefined && !editing) {
    const tool = only.toolCallId === undefined ? undefined : item.tools[only.toolCallId];
    const toolName = tool?.name ?? only.toolName;
    const decide = async (approved: boolean) => {
      setBusy(approved ? 'allow' : 'deny');
      setError(undefined);
      const failure = await send({ [only.id]: { status: 'resolved', payload: { [field]: approved } } });
      setBusy(undefined);
      setError(failure);
    };
    return (
      <section className="agui-interrupts agui-approval card" aria-label={t('conversation.approval.title')}>
        <p className="card__title">
          {only.message ?? only.detail ?? (toolName ? t('conversation.approval.question', { name: toolName }) : t('conversation.approval.questionUnnamed'))}
        </p>
        {tool?.args !== undefined ? (
          <details className="agui-approval__args">
            <summary>{t('conversation.approval.arguments')}</summary>
            <pre className="agui-pre">{tool.args}</pre>
          </details>
        ) : null}
        <div className="button-row">
          <button
            type="button"
            className="button button--primary"
            disabled={busy !== undefined}
            aria-busy={busy === 'allow' || undefined}
            onClick={() => void decide(true)}
          >
            {t('conversation.approval.allow')}
          </button>
          <button
            type="button"
            className="button button--secondary"
            disabled={busy !== undefined}
            aria-busy={busy === 'deny' || undefined}
            onClick={() => void decide(false)}
          >
            {t('conversation.approval.deny')}
          </button>
          <button type="button" className="button button--secondary" disabled={busy !== undefined} onClick={() => setEditing(true)}>
            {t('conversation.approval.edit')}
          </button>
        </div>
        <ErrorAlert summary={t('agui.answers.notSent')} error={error} />
      </section>
    );
  }
  return (
    <InterruptForms
      key={item.id}
      interrupts={item.interrupts}
      toolName={(toolCallId) => item.tools[toolCallId]?.name}
      toolArgs={(toolCallId) => argsOf(item, toolCallId)}
      onSend={(answers) => send(answers)}
    />
  );
}

/** The item a protocol action acts on, by the protocol's own id. */
export function nativeId(item: ConversationItem): string {
  return sourceIdOf(item);
}
