import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import type { ShownError } from '../../components/ErrorText';
import { call, useLiveResource } from '../../hooks/useLiveResource';
import { useI18n, type I18n } from '../../i18n/I18nProvider';
import { AccountPanel, type TalkieStatus } from './AccountPanel';
import { ChatEnvironmentContext, type ChatEnvironment } from '../../components/ChatContext';
import { RunStatus } from './RunStatus';
import { Transcript } from './Transcript';
import type { ItemHandlers } from './TranscriptItems';
import { useChat } from './useChat';
import { useThreads, type ThreadSummary } from './useThreads';
import { threadTitleFromMessage } from '../../../shared/talkie/thread-title';
import { InSidebar } from '../shell/SidebarPlace';
import { ThreadList, type ThreadEntry } from '../shell/ThreadList';
import { formatDateTime } from '../../components/format';
import { useOpenLink } from '../../hooks/useOpenLink';
import { useUiMemory } from '../../hooks/useUiMemory';
import { LinkOpenError } from '../../components/LinkOpenError';
import { Composer, type ComposerHandle } from '../../components/Composer';
import { lastUserMessage } from '../../../shared/talkie/chat-state';
import { formatCountdown } from '../../components/format';
import { CallControl, endedKeys } from './voice/CallControl';
import { modeKeys } from '../../voice/CallBar';
import { useVoiceCall, type VoiceCallHandlers } from './voice/useVoiceCall';
import { useConfirmPhrase, VoiceLineContext } from './voice/VoiceLine';

const noLine = { line: 'none' } as const;

/** The key of a Talkie agent's composer draft in the UI memory. */
export function talkieDraftKey(agentId: string): string {
  return `talkie:${agentId}`;
}

/** One Talkie thread as the list shows it: the server's title, else its first message, else "Untitled chat"; voice and its time below. */
function threadEntry(thread: ThreadSummary, { t, language }: I18n): ThreadEntry {
  const title = thread.title.trim() !== '' ? thread.title : threadTitleFromMessage(thread.firstMessage ?? '') || t('chat.threads.untitled');
  const when = formatDateTime(thread.updatedAt ?? thread.createdAt, language);
  const meta = [thread.channel === 'voice' ? t('chat.threads.voice') : undefined, when].filter((part) => part !== undefined).join(' · ');
  return { id: thread.id, title, meta };
}

/**
 * The signed-in chat: the conversation, its status and the composer; its threads (with search) and
 * the account go under the agent's entry in the shell's sidebar.
 */
export function ChatBody({
  api,
  view,
  composerRef,
  newChatRef,
  onAuthProblem,
}: {
  api: AgentDeskApi;
  view: ServerView;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  newChatRef: RefObject<HTMLButtonElement | null>;
  onAuthProblem: (error: ShownError) => void;
}) {
  const { t, language } = useI18n();
  const { agentId } = view;
  const memory = useUiMemory();
  const [reopenThread] = useState(() => memory.threadOf(agentId));
  const chat = useChat(api, agentId, onAuthProblem, reopenThread);
  const reportThreadsError = useCallback(
    (error: IpcError) => {
      if (error.code === 'sign_in_required' || error.code === 'endpoints_not_accepted') onAuthProblem(error);
    },
    [onAuthProblem],
  );
  const threads = useThreads(api, agentId, reportThreadsError);
  const refreshThreads = threads.refresh;
  const loadStatus = useCallback(() => call(() => api.talkie.status({ agentId })), [api, agentId]);
  // Usage changes with every run: reload the status when one of this agent's runs ends.
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

  const { openLink, linkError } = useOpenLink(api);
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
    () => ({ issuer: view.issuer, serverName: view.name, openLink, downloadFile }),
    [view.issuer, view.name, openLink, downloadFile],
  );

  const { conversation, failures, busy, retryMessage, retryAfterError, decide, refreshAction, announce, newChat, openThread } = chat;
  const { applyVoiceUpdates, addSpokenLine, applyVoiceDecision, adoptThread } = chat;

  // Talkie §10: a voice call in this conversation; what it says and does lands in the thread.
  const phrase = useConfirmPhrase();
  const voiceHandlers = useMemo<VoiceCallHandlers>(
    () => ({
      onUpdates: applyVoiceUpdates,
      onSpoken: (line) => addSpokenLine({ id: line.itemId, role: line.role, text: line.text, state: line.state }),
      onDecided: applyVoiceDecision,
      // The call's thread (new, or this one) shows in the list now, and again when the call ends.
      onThread: (threadId) => {
        adoptThread(threadId);
        refreshThreads();
      },
      reloadAction: (actionId) => void refreshAction(actionId),
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
    [applyVoiceUpdates, addSpokenLine, applyVoiceDecision, adoptThread, refreshThreads, refreshAction, loadStatus, setStatus, announce, t, phrase],
  );
  const voice = useVoiceCall(api, agentId, language, voiceHandlers);
  const { settled, hangUp } = voice;

  // A button's decision wins over a voice window that is open for the same action (it closes first).
  const decideByButton = useCallback<ItemHandlers['decide']>(
    (actionId, decision) => {
      settled(actionId);
      return decide(actionId, decision);
    },
    [decide, settled],
  );
  // Edit on the user's last message (and ArrowUp in the empty composer) puts its text back in the
  // composer. Talkie servers keep every message of a thread and have no way to drop one (§5, §9),
  // so the edited text goes as a new message and the composer says so; Stop editing (or Escape)
  // puts back what the composer held before.
  const composerHandle = useRef<ComposerHandle | null>(null);
  const { startEdit, stopEdit, editing } = chat;
  const editLast = useCallback(() => {
    const text = startEdit(composerHandle.current?.text() ?? '');
    if (text !== undefined) composerHandle.current?.fill(text);
  }, [startEdit]);
  /** Answers whether an edit was going on (Escape is the composer's only then). */
  const stopEditing = useCallback((): boolean => {
    const stopped = stopEdit();
    if (stopped) composerHandle.current?.fill(stopped.previousDraft);
    return stopped !== undefined;
  }, [stopEdit]);
  const editableId = busy ? undefined : lastUserMessage(conversation)?.id;

  const handlers = useMemo<ItemHandlers>(
    () => ({ failures, canRetry: !busy, retryMessage, retryAfterError, decide: decideByButton, refresh: refreshAction, announce, editableId, editLast }),
    [failures, busy, retryMessage, retryAfterError, decideByButton, refreshAction, announce, editableId, editLast],
  );

  // Another conversation ends the call: its lines and cards belong to the thread it was made in.
  const startNewChat = useCallback(() => {
    hangUp();
    newChat();
    composerRef.current?.focus();
  }, [hangUp, newChat, composerRef]);
  const openOtherThread = useCallback(
    (id: string) => {
      if (id !== conversation.threadId) hangUp();
      openThread(id);
    },
    [hangUp, openThread, conversation.threadId],
  );

  const threadId = conversation.threadId;
  const entries = useMemo(() => threads.threads?.map((thread) => threadEntry(thread, { t, language })), [threads.threads, t, language]);
  // Main remembers which thread is open, so that a reload or a renderer crash opens it again.
  useEffect(() => memory.saveThread(agentId, threadId), [memory, agentId, threadId]);
  return (
    <ChatEnvironmentContext.Provider value={environment}>
      <div className="chat-layout">
        <InSidebar agentId={agentId}>
          <ThreadList
            api={api}
            agentId={agentId}
            entries={entries}
            loadError={threads.error}
            onRetry={threads.refresh}
            currentId={threadId}
            newChatRef={newChatRef}
            newChat={{ onClick: startNewChat }}
            onOpen={openOtherThread}
            onDelete={threads.remove}
            onDeleted={(deleted) => {
              if (deleted !== threadId) return;
              hangUp();
              newChat();
            }}
          />
          <AccountPanel status={status.state} usage={chat.usage} onRetry={status.reload} />
        </InSidebar>
        <section className="chat-main" aria-label={t('chat.conversationLabel')}>
          <LinkOpenError error={linkError} />
          <VoiceLineContext.Provider value={voice.view?.confirmation ?? noLine}>
            <Transcript
              items={conversation.items}
              earlier={conversation.earlierItems ?? 0}
              removed={(conversation.removedItems ?? 0) > 0}
              onShowEarlier={chat.showEarlier}
              loading={chat.loading !== undefined}
              loadError={chat.loadError?.error}
              onRetryLoad={() => {
                if (chat.loadError) openThread(chat.loadError.threadId);
              }}
              handlers={handlers}
            />
          </VoiceLineContext.Provider>
          <RunStatus
            busy={busy}
            runState={conversation.runState}
            note={chat.note}
            canReload={threadId !== undefined}
            onReload={() => {
              if (threadId !== undefined) openThread(threadId);
            }}
          />
          {view.voice.offered ? (
            <CallControl api={api} view={view} switchedOff={status.state.status === 'ready' && status.state.value.voice === false} voice={voice} threadId={threadId} />
          ) : null}
          <Composer
            textareaRef={composerRef}
            draftKey={talkieDraftKey(agentId)}
            max={view.maxMessageChars}
            tooLongMessage={t('chat.composer.tooLong', { max: view.maxMessageChars ?? 0 })}
            running={busy}
            whileRunning="cancel-beside-send"
            canCancel={chat.runKey !== undefined}
            cancelling={chat.cancelling}
            cancelError={chat.cancelError}
            onSend={chat.send}
            onCancel={chat.cancel}
            handleRef={composerHandle}
            onEditLast={editLast}
            // The newest state decides, not the one shown: Escape right after Edit (within a frame) still stops it.
            onEscape={stopEditing}
            notice={
              editing ? (
                <>
                  <p className="composer__notice-text">{t('chat.edit.notice')}</p>
                  <button type="button" className="button button--secondary" onClick={() => void stopEditing()}>
                    {t('chat.edit.stop')}
                  </button>
                </>
              ) : undefined
            }
          />
        </section>
        <div role="status" className="visually-hidden">
          {chat.announcement}
        </div>
      </div>
    </ChatEnvironmentContext.Provider>
  );
}
