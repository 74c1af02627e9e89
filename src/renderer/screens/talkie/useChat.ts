import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/ipc/errors';
import type { Action, UsageMeter } from '../../../shared/talkie/content';
import type { Conversation, RunUpdate } from '../../../shared/talkie/conversation';
import type { ShownError } from '../../components/ErrorText';
import { useFrameState } from '../../hooks/useFrameState';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import { actionStatusKeys, type Decision, type DecisionOutcome } from './ActionItem';
import { chatReducer, initialChatState, lastUserMessage, type ChatEvent, type ChatState, type Editing, type RunEvent, type RunNote } from '../../../shared/talkie/chat-state';

export type { RunNote } from '../../../shared/talkie/chat-state';

export interface Chat {
  conversation: Conversation;
  /** A message is on its way or a run streams: one run at a time. */
  busy: boolean;
  /** The run that can be cancelled (known once talkie.send answered). */
  runKey: string | undefined;
  note: RunNote | undefined;
  /** Why a user message was not sent, by message id. */
  failures: ReadonlyMap<string, ShownError>;
  usage: UsageMeter[] | undefined;
  /** A thread is loading (its id), or failed to load. */
  loading: string | undefined;
  loadError: { threadId: string; error: ShownError } | undefined;
  cancelling: boolean;
  cancelError: ShownError | undefined;
  announcement: string;
  /** The user's last message is being edited in the composer. */
  editing: Editing | undefined;
  send: (text: string) => void;
  retryMessage: (messageId: string) => void;
  retryAfterError: (errorItemId: string) => void;
  /**
   * Starts editing the user's last message (not while a run is going): answers its text, for the
   * composer, or undefined when there is nothing to edit. `draft`: what the composer holds now.
   */
  startEdit: (draft: string) => string | undefined;
  /**
   * Ends the edit without sending: answers the draft the composer held before it began, or nothing
   * when no edit is going on (read from the newest state: the one shown may lag a frame behind).
   */
  stopEdit: () => { previousDraft: string } | undefined;
  cancel: () => void;
  newChat: () => void;
  openThread: (threadId: string) => void;
  /** "Show earlier": asks main for the items before the thread's window (`conversation.earlierItems`) and puts them before it. */
  showEarlier: () => Promise<IpcError | undefined>;
  decide: (actionId: string, decision: Decision) => Promise<DecisionOutcome>;
  refreshAction: (actionId: string) => Promise<void>;
  announce: (text: string) => void;
  /** A voice call's tool lines, cards and actions (they never change the run this screen follows). */
  applyVoiceUpdates: (updates: RunUpdate[]) => void;
  /** A voice call's transcript line, added once and then updated in place. */
  addSpokenLine: (line: { id: string; role: 'user' | 'assistant'; text: string; state: 'hearing' | 'final' | 'unavailable' }) => void;
  /** A decision spoken in a voice call came back (`talkie.voiceDecide`): shown like a button's. */
  applyVoiceDecision: (result: { action: Action; updates: RunUpdate[] }) => void;
  /** The voice session's thread (§10.1): the conversation is that thread from now on. */
  adoptThread: (threadId: string) => void;
}

/**
 * One agent's conversation: sends user text (`talkie.send`), follows the run it started through
 * `talkie.update` / `talkie.runEnded` (filtered by agent here, by runKey in the reducer), loads
 * threads, and sends the user's decisions on actions. Every state change is an event of the pure
 * reducer in chat-state.ts; this hook only calls the API and dispatches what it answered.
 *
 * The newest state lives in a ref as well (useFrameState): event listeners and async answers read
 * it without waiting for a render, and React renders it at most once per animation frame, so a
 * reply streaming 200 deltas a second costs one render per frame.
 */
export function useChat(api: AgentDeskApi, agentId: string, onAuthProblem: (error: ShownError) => void, initialThreadId?: string): Chat {
  const { t } = useI18n();
  // A thread that was open before a reload opens again (loaded below); its id is known from the start.
  const [initial] = useState<ChatState>(() => initialChatState(initialThreadId));
  const { shown: state, latestRef, change } = useFrameState<ChatState>(initial);
  /** Numbers each delivery, so that a late answer of an earlier one is told apart. */
  const attempts = useRef(0);
  const authProblem = useRef(onAuthProblem);
  useEffect(() => {
    authProblem.current = onAuthProblem;
  }, [onAuthProblem]);

  /** Runs the reducer; a sign-in problem it recorded is reported to the screen at once. */
  const dispatch = useCallback(
    (event: ChatEvent): ChatState => {
      const before = latestRef.current.lastFailure;
      change((current) => chatReducer(current, event));
      const after = latestRef.current;
      const failure = after.lastFailure;
      if (failure !== before && failure && (failure.code === 'sign_in_required' || failure.code === 'endpoints_not_accepted')) authProblem.current(failure);
      return after;
    },
    [change, latestRef],
  );

  const openThread = useCallback(
    (threadId: string) => {
      const { generation } = dispatch({ type: 'thread.open', threadId });
      void call(() => api.talkie.thread({ agentId, threadId })).then((result) => {
        if (result.ok) dispatch({ type: 'thread.loaded', generation, ...result.value });
        else dispatch({ type: 'thread.failed', generation, threadId, error: result.error });
      });
    },
    [agentId, api, dispatch],
  );

  const showEarlier = useCallback(async () => {
    const { generation, conversation } = latestRef.current;
    const { threadId } = conversation;
    if (threadId === undefined || !conversation.earlierItems) return undefined;
    const before = (conversation.removedItems ?? 0) + conversation.earlierItems;
    const result = await call(() => api.talkie.threadEarlier({ agentId, threadId, before }));
    if (!result.ok) return result.error;
    dispatch({ type: 'thread.earlier', generation, threadId, answer: result.value });
    return undefined;
  }, [agentId, api, dispatch, latestRef]);

  const receive = useCallback(
    (event: RunEvent) => {
      if (event.payload.agentId !== agentId) return;
      const current = latestRef.current;
      if (!current.run) {
        // A run of the open thread that this page does not follow (it began before a reload or a
        // renderer crash) ended: the thread is loaded again, so its end shows.
        const threadId = current.conversation.threadId;
        if (event.kind === 'ended' && threadId !== undefined && event.payload.threadId === threadId) openThread(threadId);
        return;
      }
      dispatch({ type: 'run.event', event, at: receivedNow() });
    },
    [agentId, dispatch, latestRef, openThread],
  );

  useEffect(() => {
    const offUpdate = api.talkie.onUpdate((payload) => receive({ kind: 'update', payload }));
    const offEnded = api.talkie.onRunEnded((payload) => receive({ kind: 'ended', payload }));
    return () => {
      offUpdate();
      offEnded();
    };
  }, [api, receive]);

  const deliver = useCallback(
    async (messageId: string, text: string, extra: { dropErrorItem?: string; fromComposer?: boolean } = {}) => {
      if (latestRef.current.run) return;
      attempts.current += 1;
      const attempt = attempts.current;
      const threadId = latestRef.current.conversation.threadId;
      dispatch({ type: 'deliver', attempt, messageId, text, at: receivedNow(), ...extra });
      const result = await call(() => api.talkie.send({ agentId, messageId, text, ...(threadId === undefined ? {} : { threadId }) }));
      // The reducer drops the answer when the user moved to another conversation meanwhile.
      if (!result.ok) dispatch({ type: 'send.failed', attempt, error: result.error });
      else dispatch({ type: 'send.accepted', attempt, runKey: result.value.runKey, threadId: result.value.threadId, at: receivedNow() });
    },
    [agentId, api, dispatch, latestRef],
  );

  const send = useCallback((text: string) => void deliver(crypto.randomUUID(), text, { fromComposer: true }), [deliver]);

  const retryMessage = useCallback(
    (messageId: string) => {
      const item = latestRef.current.conversation.items.find((entry) => entry.kind === 'user' && entry.id === messageId);
      if (item?.kind === 'user') void deliver(item.id, item.text);
    },
    [deliver, latestRef],
  );

  const retryAfterError = useCallback(
    (errorItemId: string) => {
      const last = lastUserMessage(latestRef.current.conversation);
      if (last) void deliver(last.id, last.text, { dropErrorItem: errorItemId });
    },
    [deliver, latestRef],
  );

  const startEdit = useCallback(
    (draft: string) => {
      const after = dispatch({ type: 'edit.start', previousDraft: draft });
      const editing = after.editing;
      if (!editing) return undefined;
      const item = after.conversation.items.find((entry) => entry.kind === 'user' && entry.id === editing.messageId);
      return item?.kind === 'user' ? item.text : undefined;
    },
    [dispatch],
  );

  const stopEdit = useCallback(() => {
    const editing = latestRef.current.editing;
    if (!editing) return undefined;
    dispatch({ type: 'edit.stop' });
    return { previousDraft: editing.previousDraft };
  }, [dispatch, latestRef]);

  const cancel = useCallback(() => {
    const followed = latestRef.current.run;
    const key = followed?.runKey;
    if (!followed || key === undefined) return;
    dispatch({ type: 'cancel.requested' });
    void call(() => api.talkie.cancel({ agentId, runKey: key })).then((result) => {
      dispatch({ type: 'cancel.answered', attempt: followed.attempt, ...(result.ok ? {} : { error: result.error }) });
    });
  }, [agentId, api, dispatch, latestRef]);

  const newChat = useCallback(() => void dispatch({ type: 'chat.new' }), [dispatch]);

  const reopened = useRef(false);
  useEffect(() => {
    const threadId = initial.conversation.threadId;
    if (reopened.current || threadId === undefined) return;
    reopened.current = true;
    openThread(threadId);
  }, [initial, openThread]);

  const decide = useCallback(
    async (actionId: string, decision: Decision): Promise<DecisionOutcome> => {
      const { generation } = latestRef.current;
      const result = await call(() => api.talkie.decide({ agentId, actionId, decision }));
      if (!result.ok) {
        const { error } = result;
        if (error.code === 'sign_in_required' || error.code === 'endpoints_not_accepted') authProblem.current(error);
        return { error };
      }
      if (latestRef.current.generation !== generation) return {};
      dispatch({ type: 'decided', generation, action: result.value.action, updates: result.value.updates, at: receivedNow() });
      return result.value.note === undefined ? {} : { note: result.value.note };
    },
    [agentId, api, dispatch, latestRef],
  );

  const applyVoiceDecision = useCallback(
    ({ action, updates }: { action: Action; updates: RunUpdate[] }) => void dispatch({ type: 'decided', action, updates, at: receivedNow() }),
    [dispatch],
  );

  const applyVoiceUpdates = useCallback((updates: RunUpdate[]) => void dispatch({ type: 'voice.updates', updates, at: receivedNow() }), [dispatch]);

  const addSpokenLine = useCallback((line: Parameters<Chat['addSpokenLine']>[0]) => void dispatch({ type: 'voice.spoken', line, at: receivedNow() }), [dispatch]);

  const adoptThread = useCallback((threadId: string) => void dispatch({ type: 'thread.adopt', threadId }), [dispatch]);

  const announce = useCallback((text: string) => void dispatch({ type: 'announce', text }), [dispatch]);

  /**
   * An action changed status on its own (an undo window closed): the cards already shown may have a
   * newer version in the thread (Talkie replaces a card with the same id), e.g. "Sending… you can
   * still cancel it" became "Sent". Only cards on screen are replaced; nothing is added.
   */
  const refreshShownCards = useCallback(
    async (generation: number) => {
      const threadId = latestRef.current.conversation.threadId;
      if (threadId === undefined) return;
      const result = await call(() => api.talkie.thread({ agentId, threadId }));
      if (result.ok) dispatch({ type: 'cards.refreshed', generation, items: result.value.items });
    },
    [agentId, api, dispatch, latestRef],
  );

  const refreshAction = useCallback(
    async (actionId: string) => {
      const { generation } = latestRef.current;
      const result = await call(() => api.talkie.action({ agentId, actionId }));
      if (!result.ok) return;
      const { action } = result.value;
      const before = latestRef.current.conversation.items.find((item) => item.kind === 'action' && item.id === actionId);
      const after = dispatch({ type: 'action.refreshed', generation, action, at: receivedNow() });
      if (after.generation === generation && before?.kind === 'action' && before.action.status !== action.status) void refreshShownCards(generation);
    },
    [agentId, api, dispatch, latestRef, refreshShownCards],
  );

  const { announcement } = state;
  const announcementText = useMemo(() => {
    if (!announcement) return '';
    switch (announcement.kind) {
      case 'text':
        return announcement.text;
      case 'newAction':
        return t('chat.action.newAnnounce', { summary: announcement.summary });
      case 'actionStatus':
        return t('chat.action.statusAnnounce', { summary: announcement.summary, status: t(actionStatusKeys[announcement.status]) });
    }
  }, [announcement, t]);

  return {
    conversation: state.conversation,
    busy: state.run !== undefined,
    runKey: state.run?.runKey,
    note: state.note,
    failures: state.failures,
    usage: state.usage,
    loading: state.loading,
    loadError: state.loadError,
    cancelling: state.cancelling,
    cancelError: state.cancelError,
    announcement: announcementText,
    editing: state.editing,
    send,
    retryMessage,
    retryAfterError,
    startEdit,
    stopEdit,
    cancel,
    newChat,
    openThread,
    showEarlier,
    decide,
    refreshAction,
    announce,
    applyVoiceUpdates,
    addSpokenLine,
    applyVoiceDecision,
    adoptThread,
  };
}

/**
 * The time a live item reached the renderer, as an ISO date: shown as the item's time (to the
 * minute) for what arrives while the screen is open; a loaded thread carries the server's own times.
 */
function receivedNow(): string {
  return new Date().toISOString();
}
