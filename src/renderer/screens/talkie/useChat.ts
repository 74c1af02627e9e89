import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { EventPayload } from '../../../shared/ipc/contract';
import type { Action, UsageMeter } from '../../../shared/talkie/content';
import {
  addSpoken,
  addUserMessage,
  applyUpdate,
  emptyConversation,
  markCancelled,
  markUserMessage,
  type Conversation,
  type RunUpdate,
} from '../../../shared/talkie/conversation';
import type { ShownError } from '../../components/ErrorText';
import { useFrameState } from '../../hooks/useFrameState';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import { actionStatusKeys, type Decision, type DecisionOutcome } from './ActionItem';

/** What the status line says about the run that ended last (beyond the conversation's runState). */
export type RunNote = 'recovered' | 'interrupted' | 'cancelled';

type RunEvent = { kind: 'update'; payload: EventPayload<'talkie.update'> } | { kind: 'ended'; payload: EventPayload<'talkie.runEnded'> };

interface FollowedRun {
  messageId: string;
  /** Known once talkie.send answered; until then events of this agent are buffered. */
  runKey?: string;
  buffer: RunEvent[];
}

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
  send: (text: string) => void;
  retryMessage: (messageId: string) => void;
  retryAfterError: (errorItemId: string) => void;
  cancel: () => void;
  newChat: () => void;
  openThread: (threadId: string) => void;
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
 * `talkie.update` / `talkie.runEnded` (filtered by agent and runKey), loads threads, and sends the
 * user's decisions on actions. The pure reducer in src/shared/talkie/conversation.ts does the folding.
 *
 * The latest conversation lives in a ref as well as in state: event listeners and async answers
 * read it without waiting for a render, and every change goes through `change()`.
 */
export function useChat(api: AgentDeskApi, agentId: string, onAuthProblem: (error: ShownError) => void, initialThreadId?: string): Chat {
  const { t } = useI18n();
  // A thread that was open before a reload opens again (loaded below); its id is known from the start.
  const [initial] = useState<Conversation>(() => (initialThreadId === undefined ? emptyConversation : { ...emptyConversation, threadId: initialThreadId }));
  // The logic always sees the newest conversation (latestRef.current); React renders it at most once
  // per animation frame, so a reply streaming 200 deltas a second costs one render per frame.
  const { shown: conversation, latestRef, change } = useFrameState<Conversation>(initial);
  const [runKey, setRunKey] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<RunNote | undefined>();
  const [failures, setFailures] = useState<ReadonlyMap<string, ShownError>>(new Map());
  const [usage, setUsage] = useState<UsageMeter[] | undefined>();
  const [loading, setLoading] = useState<string | undefined>();
  const [loadError, setLoadError] = useState<{ threadId: string; error: ShownError } | undefined>();
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<ShownError | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const run = useRef<FollowedRun | null>(null);
  /** Bumped when the user leaves the conversation (new chat, another thread): late answers are dropped. */
  const generation = useRef(0);
  const authProblem = useRef(onAuthProblem);
  useEffect(() => {
    authProblem.current = onAuthProblem;
  }, [onAuthProblem]);

  const setFailure = useCallback((messageId: string, error: ShownError | undefined) => {
    setFailures((current) => {
      const next = new Map(current);
      if (error) next.set(messageId, error);
      else next.delete(messageId);
      return next;
    });
  }, []);

  const reportAuth = useCallback((error: ShownError) => {
    if (error.code === 'sign_in_required' || error.code === 'endpoints_not_accepted') authProblem.current(error);
  }, []);

  const stopFollowing = useCallback(() => {
    run.current = null;
    setRunKey(undefined);
    setBusy(false);
    setCancelling(false);
  }, []);

  const onUpdate = useCallback(
    (update: RunUpdate) => {
      if (update.type === 'usage') setUsage(update.usage);
      if (update.type === 'action' && update.action.status === 'pending') {
        const known = latestRef.current.items.some((item) => item.kind === 'action' && item.id === update.action.id);
        if (!known) setAnnouncement(t('chat.action.newAnnounce', { summary: update.action.summary }));
      }
      change((current) => applyUpdate(current, update, receivedNow()));
    },
    [change, t, latestRef],
  );

  const onEnded = useCallback(
    (payload: EventPayload<'talkie.runEnded'>, followed: FollowedRun) => {
      stopFollowing();
      const { outcome } = payload;
      if (payload.threadId !== undefined) {
        const threadId = payload.threadId;
        change((current) => ({ ...current, threadId }));
      }
      switch (outcome.kind) {
        case 'finished':
          change((current) => (current.runState === 'running' ? applyUpdate(current, { type: 'run.finished' }) : current));
          break;
        case 'error':
          change((current) =>
            current.runState === 'error'
              ? current
              : applyUpdate(current, { type: 'run.error', code: outcome.code ?? 'internal', message: outcome.message ?? '', retryable: outcome.retryable ?? false }, receivedNow()),
          );
          break;
        case 'not_sent': {
          change((current) => ({ ...markUserMessage(current, followed.messageId, 'failed'), runState: 'idle' }));
          const error: ShownError = {
            code: outcome.code === 'unauthorized' ? 'sign_in_required' : 'server_error',
            message: outcome.message ?? '',
            ...(outcome.retryable === undefined ? {} : { retryable: outcome.retryable }),
          };
          setFailure(followed.messageId, error);
          reportAuth(error);
          break;
        }
        case 'interrupted':
          if (payload.items) {
            const items = payload.items;
            change((current) => ({ ...current, items, runState: 'finished' }));
            setNote('recovered');
          } else {
            change((current) => applyUpdate(current, { type: 'run.interrupted', message: outcome.message ?? '' }));
            setNote('interrupted');
          }
          break;
        case 'cancelled':
          change(markCancelled);
          setNote('cancelled');
          break;
      }
    },
    [change, reportAuth, setFailure, stopFollowing],
  );

  const dispatch = useCallback(
    (event: RunEvent, followed: FollowedRun) => {
      if (event.kind === 'update') onUpdate(event.payload.update);
      else onEnded(event.payload, followed);
    },
    [onUpdate, onEnded],
  );

  const reloadThread = useRef<(threadId: string) => void>(() => undefined);
  const receive = useCallback(
    (event: RunEvent) => {
      if (event.payload.agentId !== agentId) return;
      const followed = run.current;
      if (!followed) {
        // A run of the open thread that this page does not follow (it began before a reload or a
        // renderer crash) ended: the thread is loaded again, so its end shows.
        const threadId = latestRef.current.threadId;
        if (event.kind === 'ended' && threadId !== undefined && event.payload.threadId === threadId) reloadThread.current(threadId);
        return;
      }
      if (followed.runKey === undefined) {
        // talkie.send has not answered yet: keep the events until its runKey is known.
        if (followed.buffer.length < 5000) followed.buffer.push(event);
        return;
      }
      if (event.payload.runKey === followed.runKey) dispatch(event, followed);
    },
    [agentId, dispatch, latestRef],
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
    async (messageId: string, text: string) => {
      if (run.current) return;
      const followed: FollowedRun = { messageId, buffer: [] };
      run.current = followed;
      const threadId = latestRef.current.threadId;
      setBusy(true);
      setNote(undefined);
      setCancelError(undefined);
      setFailure(messageId, undefined);
      change((current) => addUserMessage(current, messageId, text, receivedNow()));
      const result = await call(() => api.talkie.send({ agentId, messageId, text, ...(threadId === undefined ? {} : { threadId }) }));
      if (run.current !== followed) return; // the user moved to another conversation meanwhile
      if (!result.ok) {
        stopFollowing();
        change((current) => ({ ...markUserMessage(current, messageId, 'failed'), runState: 'idle' }));
        setFailure(messageId, result.error);
        reportAuth(result.error);
        return;
      }
      const { runKey: key, threadId: assigned } = result.value;
      followed.runKey = key;
      setRunKey(key);
      change((current) => (current.threadId === undefined ? { ...current, threadId: assigned } : current));
      for (const event of followed.buffer.splice(0)) {
        if (run.current !== followed) break;
        if (event.payload.runKey === key) dispatch(event, followed);
      }
    },
    [agentId, api, change, dispatch, reportAuth, setFailure, stopFollowing, latestRef],
  );

  const send = useCallback((text: string) => void deliver(crypto.randomUUID(), text), [deliver]);

  const retryMessage = useCallback(
    (messageId: string) => {
      const item = latestRef.current.items.find((entry) => entry.kind === 'user' && entry.id === messageId);
      if (item?.kind === 'user') void deliver(item.id, item.text);
    },
    [deliver, latestRef],
  );

  const retryAfterError = useCallback(
    (errorItemId: string) => {
      if (run.current) return;
      const last = latestRef.current.items.findLast((entry) => entry.kind === 'user');
      if (last?.kind !== 'user') return;
      change((current) => ({ ...current, items: current.items.filter((entry) => !(entry.kind === 'error' && entry.id === errorItemId)) }));
      void deliver(last.id, last.text);
    },
    [change, deliver, latestRef],
  );

  const cancel = useCallback(() => {
    const followed = run.current;
    const key = followed?.runKey;
    if (!followed || key === undefined) return;
    setCancelling(true);
    setCancelError(undefined);
    void call(() => api.talkie.cancel({ agentId, runKey: key })).then((result) => {
      if (run.current !== followed) return;
      setCancelling(false);
      if (!result.ok) {
        setCancelError(result.error);
        reportAuth(result.error);
      }
    });
  }, [agentId, api, reportAuth]);

  const leave = useCallback(() => {
    generation.current += 1;
    stopFollowing();
    setNote(undefined);
    setFailures(new Map());
    setCancelError(undefined);
    setLoadError(undefined);
    return generation.current;
  }, [stopFollowing]);

  const newChat = useCallback(() => {
    leave();
    setLoading(undefined);
    change(() => emptyConversation);
  }, [change, leave]);

  const openThread = useCallback(
    (threadId: string) => {
      const mine = leave();
      setLoading(threadId);
      change(() => ({ ...emptyConversation, threadId }));
      void call(() => api.talkie.thread({ agentId, threadId })).then((result) => {
        if (generation.current !== mine) return;
        setLoading(undefined);
        if (result.ok) {
          change(() => ({ ...emptyConversation, threadId: result.value.threadId, items: result.value.items }));
        } else {
          setLoadError({ threadId, error: result.error });
          reportAuth(result.error);
        }
      });
    },
    [agentId, api, change, leave, reportAuth],
  );

  useEffect(() => {
    reloadThread.current = openThread;
  }, [openThread]);

  const reopened = useRef(false);
  useEffect(() => {
    if (reopened.current || initial.threadId === undefined) return;
    reopened.current = true;
    openThread(initial.threadId);
  }, [initial, openThread]);

  const replaceAction = useCallback(
    (updates: RunUpdate[], action: Extract<RunUpdate, { type: 'action' }>) => {
      change((current) => {
        const at = receivedNow();
        let next = updates.reduce((folded, update) => applyUpdate(folded, update, at), current);
        next = applyUpdate(next, action, at);
        // A decision's events add items; they never change the run this screen follows.
        return { ...next, runState: current.runState, runId: current.runId, threadId: current.threadId };
      });
    },
    [change],
  );

  const showDecision = useCallback(
    ({ action, updates }: { action: Action; updates: RunUpdate[] }) => {
      replaceAction(updates, { type: 'action', action });
      for (const update of updates) if (update.type === 'usage') setUsage(update.usage);
      setAnnouncement(t('chat.action.statusAnnounce', { summary: action.summary, status: t(actionStatusKeys[action.status]) }));
    },
    [replaceAction, t],
  );

  const decide = useCallback(
    async (actionId: string, decision: Decision): Promise<DecisionOutcome> => {
      const mine = generation.current;
      const result = await call(() => api.talkie.decide({ agentId, actionId, decision }));
      if (!result.ok) {
        reportAuth(result.error);
        return { error: result.error };
      }
      if (generation.current !== mine) return {};
      showDecision(result.value);
      return result.value.note === undefined ? {} : { note: result.value.note };
    },
    [agentId, api, showDecision, reportAuth],
  );

  const applyVoiceUpdates = useCallback(
    (updates: RunUpdate[]) => {
      for (const update of updates) {
        if (update.type === 'usage') setUsage(update.usage);
        if (update.type === 'action' && update.action.status === 'pending' && !latestRef.current.items.some((item) => item.kind === 'action' && item.id === update.action.id)) {
          setAnnouncement(t('chat.action.newAnnounce', { summary: update.action.summary }));
        }
      }
      change((current) => {
        const at = receivedNow();
        const next = updates.reduce((folded, update) => applyUpdate(folded, update, at), current);
        return { ...next, runState: current.runState, runId: current.runId, threadId: current.threadId };
      });
    },
    [change, latestRef, t],
  );

  const addSpokenLine = useCallback((line: Parameters<Chat['addSpokenLine']>[0]) => change((current) => addSpoken(current, { ...line, at: receivedNow() })), [change]);

  const adoptThread = useCallback(
    (threadId: string) => {
      change((current) => (current.threadId === threadId ? current : { ...current, threadId }));
    },
    [change],
  );

  /**
   * An action changed status on its own (an undo window closed): the cards already shown may have a
   * newer version in the thread (Talkie replaces a card with the same id), e.g. "Sending… you can
   * still cancel it" became "Sent". Only cards on screen are replaced; nothing is added.
   */
  const refreshShownCards = useCallback(
    async (mine: number) => {
      const threadId = latestRef.current.threadId;
      if (threadId === undefined) return;
      const result = await call(() => api.talkie.thread({ agentId, threadId }));
      if (!result.ok || generation.current !== mine) return;
      change((current) => {
        const shown = new Set(current.items.filter((item) => item.kind === 'card').map((item) => item.id));
        const updates: RunUpdate[] = [];
        for (const item of result.value.items) if (item.kind === 'card' && shown.has(item.id)) updates.push({ type: 'card', card: item.card });
        return updates.reduce((folded, update) => applyUpdate(folded, update), current);
      });
    },
    [agentId, api, change, latestRef],
  );

  const refreshAction = useCallback(
    async (actionId: string) => {
      const mine = generation.current;
      const result = await call(() => api.talkie.action({ agentId, actionId }));
      if (!result.ok || generation.current !== mine) return;
      const { action } = result.value;
      const before = latestRef.current.items.find((item) => item.kind === 'action' && item.id === actionId);
      replaceAction([], { type: 'action', action });
      if (before?.kind === 'action' && before.action.status !== action.status) {
        setAnnouncement(t('chat.action.statusAnnounce', { summary: action.summary, status: t(actionStatusKeys[action.status]) }));
        void refreshShownCards(mine);
      }
    },
    [agentId, api, replaceAction, t, latestRef, refreshShownCards],
  );

  return {
    conversation,
    busy,
    runKey,
    note,
    failures,
    usage,
    loading,
    loadError,
    cancelling,
    cancelError,
    announcement,
    send,
    retryMessage,
    retryAfterError,
    cancel,
    newChat,
    openThread,
    decide,
    refreshAction,
    announce: setAnnouncement,
    applyVoiceUpdates,
    addSpokenLine,
    applyVoiceDecision: showDecision,
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
