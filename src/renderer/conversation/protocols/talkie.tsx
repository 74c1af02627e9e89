import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { sourceIdOf, type ConversationItem, type ItemOfKind } from '../../../shared/conversation/items';
import type { ConversationView } from '../../../shared/conversation/view';
import { builtInDemoAgentId } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/base/errors';
import type { Action, UsageMeter } from '../../../shared/talkie/content';
import type { RunUpdate } from '../../../shared/talkie/conversation';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import { threadTitleFromMessage } from '../../../shared/talkie/thread-title';
import type { ConfirmationLine } from '../../../shared/talkie/voice/voice-call';
import type { ChatEnvironment } from '../../components/ChatContext';
import { ErrorAlert, ErrorText, type ShownError } from '../../components/ErrorText';
import { formatCountdown, formatDateTime, hostOf } from '../../components/format';
import { LinkOpenError } from '../../components/LinkOpenError';
import type { AgentStatus } from '../../hooks/useAgentStatus';
import { call, useLiveResource } from '../../hooks/useLiveResource';
import { useOpenLink } from '../../hooks/useOpenLink';
import { useI18n, type I18n } from '../../i18n/I18nProvider';
import { WebPagesPanel } from '../../screens/webpages/WebPagesPanel';
import { ThreadList, type ThreadEntry } from '../../screens/shell/ThreadList';
import { modeKeys } from '../../voice/CallBar';
import { NoticeItem } from '../items/NoticeItem';
import type { ProfileInput, ProtocolProfile } from '../profile';
import { AccountPanel, type TalkieStatus } from './talkie/AccountPanel';
import { ActionItem, actionStatusKeys, type ActionHandlers } from './talkie/ActionItem';
import { CardView } from './talkie/CardView';
import { EndpointsPanel } from './talkie/EndpointsPanel';
import { ManifestNotes } from './talkie/ManifestNotes';
import { SignInPanel } from './talkie/SignInPanel';
import { useThreads, type ThreadSummary } from './talkie/useThreads';
import { endedKeys, useCallControls } from './talkie/voice/CallControl';
import { useVoiceCall, type VoiceCallHandlers } from './talkie/voice/useVoiceCall';
import { useConfirmPhrase, VoiceLineContext } from './talkie/voice/VoiceLine';
import './talkie/talkie.css';

type Connection =
  | { status: 'connecting' }
  | { status: 'failed'; error: IpcError }
  /** `reason`: why sign-in is shown again (a call answered sign_in_required). */
  | { status: 'ready'; view: ServerView; reason?: ShownError };

/** Which step before the conversation the user is at. */
function stepOf(view: ServerView): 'endpoints' | 'signIn' | 'chat' {
  if (!view.endpointsAccepted) return 'endpoints';
  if (!view.signedIn) return 'signIn';
  return 'chat';
}

/** Failures that send the user back to a step before the conversation. */
const isGateProblem = (code: string) => code === 'sign_in_required' || code === 'endpoints_not_accepted';

/** The key of a Talkie agent's composer draft in the UI memory. */
function talkieDraftKey(agentId: string): string {
  return `talkie:${agentId}`;
}

/** One Talkie thread as the list shows it: the server's title, else its first message, else "Untitled chat"; voice and its time below. */
function threadEntry(thread: ThreadSummary, { t, language }: Pick<I18n, 't' | 'language'>): ThreadEntry {
  const title = thread.title.trim() !== '' ? thread.title : threadTitleFromMessage(thread.firstMessage ?? '') || t('chat.threads.untitled');
  const when = formatDateTime(thread.updatedAt ?? thread.createdAt, language);
  const meta = [thread.channel === 'voice' ? t('chat.threads.voice') : undefined, when].filter((part) => part !== undefined).join(' · ');
  return { id: thread.id, title, meta };
}

/** The newest usage meters among a run's (or a decision's, or a call's) updates, if any. */
function usageOf(updates: readonly RunUpdate[]): UsageMeter[] | undefined {
  return updates.findLast((update) => update.type === 'usage')?.usage;
}

/** The live call's confirmation line, for the action cards in the transcript (read outside React's tree of the screen). */
class LineStore {
  private line: ConfirmationLine = { line: 'none' };
  private readonly listeners = new Set<() => void>();
  readonly get = (): ConfirmationLine => this.line;
  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
  set(line: ConfirmationLine): void {
    if (line === this.line) return;
    this.line = line;
    for (const listener of this.listeners) listener();
  }
}

/**
 * A Talkie agent's share of the conversation screen (Talkie 1): the steps before the conversation
 * (the connection, endpoints on other sites to accept, signing in), the server's name, logo and accent
 * in the header; cards and proposed actions in the transcript (Confirm, Cancel, Undo, the voice
 * window's line); Retry of a message not sent (the same message id, Talkie 1 §5) and after a failed answer;
 * Edit on the last message (sent as a new one: the server keeps every message, Talkie 1 §5, §9); the threads
 * with their search in the sidebar; the Talkie 1 §10 voice call (Call in the composer's row, its bar above);
 * and in the details the server's description and address, the account and its usage meters, Sign
 * out, the manifest's notes and the agent's web pages. Main holds the conversation (talkie-source.ts):
 * this only asks.
 */
export function useTalkieProfile({ api, agentId, label, store, state, view, composer, closeDetails }: ProfileInput): ProtocolProfile {
  const { t, language } = useI18n();
  const { openLink, linkError } = useOpenLink(api);

  // The server: its manifest (name, brand, voice), and the steps it needs before the conversation.
  const [connection, setConnection] = useState<Connection>({ status: 'connecting' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let active = true;
    void call(() => api.talkie.connect({ agentId })).then((result) => {
      if (active) setConnection(result.ok ? { status: 'ready', view: result.value } : { status: 'failed', error: result.error });
    });
    return () => {
      active = false;
    };
  }, [api, agentId, attempt]);
  const server = connection.status === 'ready' ? connection.view : undefined;
  const step = server ? stepOf(server) : undefined;
  const chatReady = step === 'chat';

  /** Set when the user finished a step: the focus goes to what replaced it once it is there. */
  const focusNextStep = useRef(false);
  const gateHeadingRef = useRef<HTMLHeadingElement>(null);
  const onView = useCallback((next: ServerView) => {
    focusNextStep.current = true;
    setConnection({ status: 'ready', view: next });
  }, []);
  useEffect(() => {
    if (!focusNextStep.current || step === undefined) return;
    if (step !== 'chat') {
      focusNextStep.current = false;
      gateHeadingRef.current?.focus();
      return;
    }
    const field = composer.field();
    if (field) {
      focusNextStep.current = false;
      field.focus();
    }
  }, [step, state.status, composer]);
  // Main opens no conversation before the steps are done: once they are (or the server answers again), it is asked again.
  useEffect(() => {
    if (chatReady && store.current().status === 'failed') void store.open();
  }, [server, chatReady, store]);

  const onAuthProblem = useCallback((error: ShownError) => {
    setConnection((current) => {
      if (current.status !== 'ready') return current;
      if (error.code === 'sign_in_required') return { status: 'ready', view: { ...current.view, signedIn: false }, reason: error };
      if (error.code === 'endpoints_not_accepted') return { status: 'ready', view: { ...current.view, endpointsAccepted: false } };
      return current;
    });
  }, []);
  useGateProblems(view, onAuthProblem);

  // The account (Talkie 1 §4) and its usage meters, which runs, decisions and calls move.
  const loadStatus = useCallback(
    // Before the steps are done the server has nothing to say about the account.
    () => (chatReady ? call(() => api.talkie.status({ agentId })) : new Promise<never>(() => undefined)),
    [api, agentId, chatReady],
  );
  const subscribeStatus = useCallback(
    (listener: (value: TalkieStatus) => void) =>
      api.talkie.onRunEnded((payload) => {
        if (payload.agentId !== agentId) return;
        void loadStatus().then((result) => {
          if (result.ok) listener(result.value);
        });
      }),
    [api, agentId, loadStatus],
  );
  const status = useLiveResource(loadStatus, subscribeStatus);
  const setStatus = status.set;
  const [usage, setUsage] = useState<UsageMeter[] | undefined>();
  const meter = useCallback((updates: readonly RunUpdate[]) => {
    const meters = usageOf(updates);
    if (meters !== undefined) setUsage(meters);
  }, []);
  useEffect(
    () =>
      api.talkie.onUpdate((payload) => {
        if (payload.agentId === agentId) meter([payload.update]);
      }),
    [api, agentId, meter],
  );

  // What the polite announcer says (new proposals, their outcome, the call).
  const [announcement, setAnnouncement] = useState('');
  const announce = useCallback((text: string) => setAnnouncement(text), []);
  useActionAnnouncements(view, announce);

  const threads = useThreads(
    api,
    agentId,
    chatReady,
    useCallback((error: IpcError) => (isGateProblem(error.code) ? onAuthProblem(error) : undefined), [onAuthProblem]),
  );
  const refreshThreads = threads.refresh;

  // Talkie 1 §10: a voice call in this conversation; main shows what it says and does in the thread.
  const phrase = useConfirmPhrase();
  const voiceHandlers = useMemo<VoiceCallHandlers>(
    () => ({
      onUpdates: meter,
      // The call's thread (new, or this one) shows in the list now, and again when the call ends.
      onThread: refreshThreads,
      // The account's voice meter follows the call (without a loading state in between).
      onUsageCounted: () =>
        void loadStatus().then((result) => {
          if (result.ok) setStatus(result.value);
        }),
      onAnnounce: (said) => {
        switch (said.kind) {
          case 'connected':
            return announce(t('voice.announce.connected'));
          case 'muted':
            return announce(t('voice.announce.muted'));
          case 'unmuted':
            return announce(t('voice.announce.unmuted'));
          case 'mode':
            return announce(t('voice.announce.mode', { mode: t(modeKeys[said.mode]) }));
          case 'warning':
            return announce(t('voice.announce.warning', { time: formatCountdown(said.remainingSeconds * 1000) }));
          case 'confirm-open':
            return announce(t('voice.announce.confirmOpen', { phrase: phrase(said.keyword) }));
          case 'confirm-closed':
            return announce(t('voice.announce.confirmClosed'));
          case 'ended':
            refreshThreads();
            return announce(t(endedKeys[said.reason]));
        }
      },
    }),
    [meter, refreshThreads, loadStatus, setStatus, announce, t, phrase],
  );
  const voice = useVoiceCall(api, agentId, language, voiceHandlers);
  const { hangUp, settled } = voice;
  const threadId = view?.status.threadId;
  const controls = useCallControls({ api, view: server, switchedOff: status.state.status === 'ready' && status.state.value.voice === false, voice, threadId });
  const [lines] = useState(() => new LineStore());
  useEffect(() => lines.set(voice.view?.confirmation ?? { line: 'none' }), [lines, voice.view?.confirmation]);

  // What the action cards do: decide (a button's decision wins over a voice window open for it), read it again, announce.
  const decide = useCallback<ActionHandlers['decide']>(
    async (actionId, decision) => {
      settled(actionId);
      const result = await call(() => api.talkie.decide({ agentId, actionId, decision }));
      if (!result.ok) {
        if (isGateProblem(result.error.code)) onAuthProblem(result.error);
        return { error: result.error };
      }
      meter(result.value.updates);
      return result.value.note === undefined ? {} : { note: result.value.note };
    },
    [api, agentId, settled, onAuthProblem, meter],
  );
  const refresh = useCallback<ActionHandlers['refresh']>(
    async (actionId) => {
      await call(() => api.talkie.action({ agentId, actionId }));
    },
    [api, agentId],
  );
  const actionHandlers = useRef<ActionHandlers>({ decide, refresh, announce });
  useEffect(() => {
    actionHandlers.current = { decide, refresh, announce };
  }, [decide, refresh, announce]);

  // Retry: a message not sent goes again with its own id (Talkie 1 §5); after a failed answer, the last message does.
  const running = view !== undefined && view.status.run !== 'idle';
  const [retryError, setRetryError] = useState<IpcError | undefined>();
  const sendAgain = useCallback(
    (message: ItemOfKind<'message'>) => {
      const current = store.view();
      if (current === undefined) return;
      setRetryError(undefined);
      void call(() => api.conversation.send({ agentId, conversationId: current.conversationId, messageId: sourceIdOf(message), text: message.text })).then(
        (result) => {
          if (!result.ok) setRetryError(result.error);
        },
      );
    },
    [api, agentId, store],
  );
  const retry = useCallback(
    (item: ConversationItem) => {
      if (item.kind === 'message' && item.role === 'user') return sendAgain(item);
      const last = lastTyped(store.view());
      if (last !== undefined) sendAgain(last);
    },
    [sendAgain, store],
  );
  /** Opens a thread again from the server (after it could not be read, or a stream dropped). */
  const reread = useCallback(
    async (id: string) => {
      await store.close();
      await store.open(id);
    },
    [store],
  );

  // Edit on the user's last message (and ArrowUp in the empty composer) puts its text back in the
  // composer. Talkie servers keep every message of a thread and have no way to drop one (Talkie 1 §5, §9), so
  // the edited text goes as a new message and the composer says so; Stop editing (or Escape) puts
  // back what the composer held before.
  const lastUser = lastTyped(view);
  const editable = !running ? lastUser : undefined;
  const [editing, setEditing] = useState<{ previousDraft: string } | undefined>();
  const editingRef = useRef(editing);
  const edit = useCallback(() => {
    if (!editable) return;
    const handle = composer.handle();
    const started = editingRef.current ?? { previousDraft: handle?.text() ?? '' };
    editingRef.current = started;
    setEditing(started);
    handle?.fill(editable.text);
  }, [editable, composer]);
  // The newest state decides, not the one shown: Escape right after Edit (within a frame) still stops it.
  const stopEditing = useCallback((): boolean => {
    const was = editingRef.current;
    if (!was) return false;
    editingRef.current = undefined;
    setEditing(undefined);
    composer.handle()?.fill(was.previousDraft);
    return true;
  }, [composer]);

  // Threads: New chat and another thread are new conversations in main; a call ends with them.
  const [threadFailure, setThreadFailure] = useState<{ summary: string; error: IpcError } | undefined>();
  const startNewChat = useCallback(
    async (focus: boolean) => {
      hangUp();
      setThreadFailure(undefined);
      if (focus) composer.field()?.focus();
      const result = await call(() => api.talkie.newChat({ agentId }));
      if (!result.ok) return setThreadFailure({ summary: t('chat.threads.newFailed'), error: result.error });
      await store.open();
    },
    [hangUp, composer, api, agentId, store, t],
  );

  const downloadFile = useCallback<ChatEnvironment['downloadFile']>(
    async (file, onProgress) => {
      const downloadId = crypto.randomUUID();
      const off = api.talkie.onDownloadProgress((payload) => {
        if (payload.agentId === agentId && payload.downloadId === downloadId) onProgress(payload.received, payload.total);
      });
      try {
        return await call(() => api.talkie.download({ agentId, downloadId, url: file.url, name: file.name }));
      } finally {
        off();
      }
    },
    [api, agentId],
  );
  const environment = useMemo<ChatEnvironment>(
    () => ({ issuer: server?.issuer ?? '', serverName: server?.name ?? label, openLink, downloadFile }),
    [server?.issuer, server?.name, label, openLink, downloadFile],
  );

  // The views of Talkie's own items, made once: what they do is read from refs at the time.
  const rereadRef = useRef(reread);
  useEffect(() => {
    rereadRef.current = reread;
  }, [reread]);
  const views = useMemo(() => {
    const handlers: ActionHandlers = {
      decide: (actionId, decision) => actionHandlers.current.decide(actionId, decision),
      refresh: (actionId) => actionHandlers.current.refresh(actionId),
      announce: (text) => actionHandlers.current.announce(text),
    };
    return {
      card: ({ item }: { item: ItemOfKind<'card'> }) => <CardView card={item.card} />,
      action: function TalkieAction({ item }: { item: ItemOfKind<'action'> }) {
        const line = useSyncExternalStore(lines.subscribe, lines.get);
        return (
          <VoiceLineContext.Provider value={line}>
            <ActionItem action={item.action} handlers={handlers} />
          </VoiceLineContext.Provider>
        );
      },
      notice: function TalkieNotice({ item }: { item: ItemOfKind<'notice'> }) {
        return <Notice item={item} onReread={(id) => void rereadRef.current(id)} />;
      },
    };
  }, [lines]);

  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<IpcError | undefined>();
  const signOut = async () => {
    if (signingOut) return;
    setSigningOut(true);
    setSignOutError(undefined);
    const result = await call(() => api.talkie.signOut({ agentId }));
    setSigningOut(false);
    if (!result.ok) return setSignOutError(result.error);
    hangUp();
    closeDetails();
    onView(result.value);
  };

  const entries = useMemo(() => threads.threads?.map((thread) => threadEntry(thread, { t, language })), [threads.threads, t, language]);

  let gate;
  if (connection.status === 'connecting') {
    gate = (
      <div role="status" className="feedback talkie-gate">
        <p className="connecting">
          <span className="spinner" aria-hidden="true" /> {t('chat.connecting', { name: label })}
        </p>
      </div>
    );
  } else if (connection.status === 'failed') {
    gate = (
      <div className="inline-error card talkie-gate">
        <ErrorAlert summary={t('chat.connectFailed', { name: label })} error={connection.error} />
        <div className="button-row">
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              setConnection({ status: 'connecting' });
              setAttempt((n) => n + 1);
            }}
          >
            {t('chat.retry')}
          </button>
        </div>
      </div>
    );
  } else if (step === 'endpoints') gate = <EndpointsPanel api={api} view={connection.view} headingRef={gateHeadingRef} onView={onView} />;
  else if (step === 'signIn') gate = <SignInPanel api={api} view={connection.view} reason={connection.reason} headingRef={gateHeadingRef} onView={onView} />;
  const gateStatus: AgentStatus =
    connection.status === 'connecting' ? 'connecting' : connection.status === 'failed' ? 'unreachable' : step === 'signIn' ? 'signInNeeded' : 'approvalNeeded';

  // Main re-encodes the logo as a PNG data URL; anything else is not shown.
  const logo = server?.logo !== undefined && server.logo.startsWith('data:image/png;base64,') ? server.logo : undefined;
  const interrupted = view?.status.outcome === 'interrupted' && !running;

  return {
    title: server?.name ?? label,
    ...(server ? { accent: server.accent } : {}),
    ...(logo !== undefined ? { logo: <img className="conversation-header__logo" src={logo} alt="" width={32} height={32} /> } : {}),
    ...(gate !== undefined ? { gate, status: gateStatus } : {}),
    views,
    actions: {
      retry,
      canRetry: !running,
      unqueue: (itemId) => void store.unqueue(itemId),
      ...(editable ? { editableId: editable.id, edit } : {}),
    },
    environment,
    tools: controls.tool,
    callBar: controls.bar,
    composer: {
      draftKey: talkieDraftKey(agentId),
      ...(server?.maxMessageChars === undefined ? {} : { max: server.maxMessageChars }),
      onEditLast: edit,
      onEscape: stopEditing,
      send: async (text) => {
        const failure = await store.send(text);
        if (!failure) {
          editingRef.current = undefined;
          setEditing(undefined);
        }
        return failure;
      },
      notice: editing ? (
        <>
          <p className="composer__notice-text">{t('chat.edit.notice')}</p>
          <button type="button" className="button button--secondary" onClick={() => void stopEditing()}>
            {t('chat.edit.stop')}
          </button>
        </>
      ) : undefined,
    },
    statusExtra: (
      <>
        {interrupted && threadId !== undefined ? (
          <button type="button" className="button button--secondary" onClick={() => void reread(threadId)}>
            {t('chat.status.reload')}
          </button>
        ) : null}
        <ErrorAlert summary={t('chat.message.notSent')} error={retryError} />
        <LinkOpenError error={linkError} />
        <div role="status" className="visually-hidden talkie-announcer">
          {announcement}
        </div>
      </>
    ),
    ...(view?.status.phase === 'connecting' ? { empty: t('chat.loadingThread') } : {}),
    sidebar: chatReady ? (
      <ThreadList
        api={api}
        agentId={agentId}
        entries={entries}
        loadError={threads.error}
        onRetry={threads.refresh}
        currentId={threadId}
        newChat={{ onClick: () => void startNewChat(true) }}
        failure={threadFailure}
        onOpen={(id) => {
          if (id === threadId) return;
          hangUp();
          setThreadFailure(undefined);
          void store.open(id);
        }}
        onDelete={threads.remove}
        onDeleted={(deleted) => {
          if (deleted === threadId) void startNewChat(false);
        }}
      />
    ) : undefined,
    details: (
      <>
        {server?.description !== undefined ? <p className="talkie-details__description">{server.description}</p> : null}
        {server ? <p className="agent-details__line">{t('talkie.details.server', { host: hostOf(server.issuer) })}</p> : null}
        {chatReady ? <AccountPanel status={status.state} usage={usage} onRetry={status.reload} /> : null}
        {server?.signedIn && agentId !== builtInDemoAgentId ? (
          <div className="talkie-details__sign-out">
            <button type="button" className="button button--secondary" disabled={signingOut} aria-busy={signingOut || undefined} onClick={() => void signOut()}>
              {t('chat.signOut')}
            </button>
            <ErrorAlert summary={t('chat.signOutFailed')} error={signOutError} />
          </div>
        ) : null}
        {server ? <ManifestNotes problems={server.problems} /> : null}
        <WebPagesPanel api={api} agentId={agentId} />
      </>
    ),
  };
}

/** The user's last typed message (spoken lines are not editable), not one that waits in the queue. */
function lastTyped(view: ConversationView | undefined): ItemOfKind<'message'> | undefined {
  const last = view?.items.findLast((item) => item.kind === 'message' && item.role === 'user' && item.state !== 'queued');
  return last?.kind === 'message' ? last : undefined;
}

/**
 * Talkie's notes in the transcript: a thread that could not be read (with Retry), the stored answer
 * after a dropped stream, else a run's error or notice as every protocol shows it.
 */
function Notice({ item, onReread }: { item: ItemOfKind<'notice'>; onReread: (threadId: string) => void }) {
  const { t } = useI18n();
  const [kind, id] = [item.id.slice(0, item.id.indexOf(':')), sourceIdOf(item)];
  if (kind === 'load') {
    return (
      <div className="inline-error">
        <p className="error-text">
          {t('chat.threadLoadFailed')} <ErrorText error={{ code: item.code, message: item.message }} />
        </p>
        <button type="button" className="button button--secondary" onClick={() => onReread(id)}>
          {t('chat.retry')}
        </button>
      </div>
    );
  }
  if (kind === 'note' && item.code === 'recovered') return <p className="conversation-notice conversation-notice--info">{t('chat.status.recovered')}</p>;
  return <NoticeItem item={item} />;
}

/**
 * A failure in the conversation that needs a step before it (a message refused because the sign-in
 * ran out, a thread that could not be read for it): reported once, when it appears. What a
 * conversation already showed when it opened is not reported again.
 */
function useGateProblems(view: ConversationView | undefined, report: (error: ShownError) => void): void {
  const seen = useRef<{ conversationId: string; keys: Set<string> } | undefined>(undefined);
  useEffect(() => {
    if (view === undefined) return;
    const problems: { key: string; error: ShownError }[] = [];
    for (const item of view.items) {
      if (item.kind === 'message' && item.state === 'failed' && item.error !== undefined && isGateProblem(item.error.code))
        problems.push({ key: `${item.id}:${item.error.code}`, error: item.error });
      if (item.kind === 'notice' && item.tone === 'error' && isGateProblem(item.code))
        problems.push({ key: `${item.id}:${item.code}`, error: { code: item.code, message: item.message } });
    }
    const known = seen.current;
    if (known === undefined || known.conversationId !== view.conversationId) {
      seen.current = { conversationId: view.conversationId, keys: new Set(problems.map((problem) => problem.key)) };
      return;
    }
    for (const problem of problems) {
      if (known.keys.has(problem.key)) continue;
      known.keys.add(problem.key);
      report(problem.error);
    }
  }, [view, report]);
}

/**
 * What the announcer says about proposed actions (Talkie 1 §8): a new proposal waiting for a decision, and an
 * action whose status changed — once each, never for what a conversation showed when it opened or
 * a thread it loaded.
 */
function useActionAnnouncements(view: ConversationView | undefined, announce: (text: string) => void): void {
  const { t } = useI18n();
  const known = useRef<{ conversationId: string; ready: boolean; statuses: Map<string, Action['status']> } | undefined>(undefined);
  useEffect(() => {
    if (view === undefined) return;
    const statuses = new Map<string, Action['status']>();
    const actions: Action[] = [];
    for (const item of view.items) {
      if (item.kind !== 'action') continue;
      statuses.set(item.id, item.action.status);
      actions.push(item.action);
    }
    const before = known.current;
    const ready = view.status.phase === 'ready';
    known.current = { conversationId: view.conversationId, ready, statuses };
    if (before === undefined || before.conversationId !== view.conversationId || !before.ready || !ready) return;
    for (const action of actions) {
      const was = before.statuses.get(`action:${action.id}`);
      if (was === undefined && action.status === 'pending') announce(t('chat.action.newAnnounce', { summary: action.summary }));
      else if (was !== undefined && was !== action.status)
        announce(t('chat.action.statusAnnounce', { summary: action.summary, status: t(actionStatusKeys[action.status]) }));
    }
  }, [view, announce, t]);
}
