import { useCallback, useEffect, useRef, useState } from 'react';
import type { SessionView } from '../../../shared/agentcall/session-view';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import { call } from '../../hooks/useLiveResource';
import { useActivityWhile } from '../../kiosk/activity';
import { SpeechPlayer } from '../../voice/speech-player';

export interface AgentSpeech {
  /** Something is queued or sounding. */
  speaking: boolean;
  /**
   * Barge-in: stops the agent's voice at once, drops what is queued, and never says anything more of
   * the runs the session had by then — the interrupted answer's later segments can arrive before main
   * reports the run cancelling; a request's spoken prompt waits for the next run.
   */
  interrupt(): void;
  /** Now, not as of the last render: something is queued or sounding. */
  isBusy(): boolean;
}

/**
 * Client-owned voice, the speaking half (AgentCall `voice.owner: "client"`): each stable
 * `speech.segment` of this session is spoken once, in the order it arrived; an agent request's
 * `spokenPrompt` too. main synthesises (`speech.synthesize`), the page plays (SpeechPlayer, Web Audio).
 * A failure, the user's response.cancel, the end of the session, the request being resolved, turning
 * speaking off and leaving the screen all flush what is queued and stop what plays. What was already
 * in the session when the screen (re)opened is not read out again.
 */
export function useAgentSpeech(api: AgentDeskApi, enabled: boolean, sessionKey: string | undefined, view: SessionView, locale: string): AgentSpeech {
  const [speaking, setSpeaking] = useState(false);
  const player = useRef<SpeechPlayer | undefined>(undefined);
  const known = useRef<Set<string> | undefined>(undefined);
  const knownFor = useRef<string | undefined>(undefined);
  const failures = useRef(0);
  /**
   * Set by barge-in: the runs the session had then (the interrupted one among them). Nothing of them
   * is said after it — segments can still arrive before main reports the run cancelling, or late in
   * the same batch as the next run — and no prompt either until a run starts that was not among them
   * (the next turn's answer, which may start and end within one batch).
   */
  const barged = useRef<{ runsBefore: Set<string> } | undefined>(undefined);
  const itemsNow = useRef<SessionView['items']>([]);
  useEffect(() => {
    itemsNow.current = view.items;
  }, [view.items]);
  const localeRef = useRef(locale);
  useEffect(() => {
    localeRef.current = locale;
  }, [locale]);

  useEffect(() => {
    if (!enabled) return;
    const created = new SpeechPlayer({
      synthesize: async (text) => {
        const result = await call(() => api.speech.synthesize({ text: text.slice(0, 2000), locale: localeRef.current }));
        return result.ok ? result.value.wav : undefined;
      },
      onEvent: (event) => {
        if (event.type === 'started') setSpeaking(true);
        if (event.type === 'idle') setSpeaking(false);
      },
    });
    player.current = created;
    return () => {
      created.close();
      player.current = undefined;
      known.current = undefined;
      barged.current = undefined;
      setSpeaking(false);
    };
  }, [api, enabled]);

  const items = view.items;
  const failureCount = items.reduce((count, item) => count + (item.kind === 'failure' ? 1 : 0), 0);
  const pending = view.pendingInteraction;
  useEffect(() => {
    const current = player.current;
    if (!current || sessionKey === undefined) return;
    if (known.current && knownFor.current !== sessionKey) {
      // A new session: everything in it is new (its run keys may repeat an old session's).
      current.flush();
      known.current = new Set();
      knownFor.current = sessionKey;
      failures.current = 0;
      barged.current = undefined;
    }
    if (!known.current) {
      knownFor.current = sessionKey;
      // First sight of this session on this screen: what is there was said before.
      known.current = new Set(items.filter((item) => item.kind === 'speech').map((item) => item.id));
      failures.current = failureCount;
      if (pending?.spokenPrompt) known.current.add(`prompt:${pending.interactionId}`);
      return;
    }
    if (failureCount > failures.current || view.runCancelling || view.phase === 'ended') {
      failures.current = failureCount;
      current.flush();
    }
    // What arrives while the run is being cancelled, or after the end, is never said; nor is anything
    // of a run the session had when the user spoke over the agent.
    const before = barged.current?.runsBefore;
    const silent = view.runCancelling || view.phase === 'ended';
    for (const item of items) {
      if (item.kind !== 'speech' || known.current.has(item.id)) continue;
      known.current.add(item.id);
      if (!silent && !before?.has(item.runKey)) current.enqueue(`segment:${item.id}`, item.text);
    }
    // Until the next run starts, a request (one that came with the interrupted answer) is not read out either.
    const nextRunStarted = before === undefined || items.some((item) => item.kind === 'agentText' && !before.has(item.id));
    if (!nextRunStarted && pending?.spokenPrompt) known.current.add(`prompt:${pending.interactionId}`);
    if (silent) return;
    if (pending?.spokenPrompt && !known.current.has(`prompt:${pending.interactionId}`)) {
      known.current.add(`prompt:${pending.interactionId}`);
      current.enqueue(`prompt:${pending.interactionId}`, pending.spokenPrompt);
    }
  }, [items, failureCount, pending, view.runCancelling, view.phase, sessionKey, speaking]);

  // The request was answered or withdrawn: its prompt stops.
  const promptFor = useRef<string | undefined>(undefined);
  const pendingId = pending?.spokenPrompt ? pending.interactionId : undefined;
  useEffect(() => {
    if (promptFor.current !== undefined && promptFor.current !== pendingId) player.current?.flush();
    promptFor.current = pendingId;
  }, [pendingId]);

  const interrupt = useCallback(() => {
    barged.current = { runsBefore: new Set(itemsNow.current.filter((item) => item.kind === 'agentText').map((item) => item.id)) };
    player.current?.flush();
  }, []);
  // The agent speaking is someone listening (a kiosk's idle reset hears it), with or without a call.
  useActivityWhile(speaking);
  const isBusy = useCallback(() => player.current?.busy === true, []);
  return { speaking, interrupt, isBusy };
}
