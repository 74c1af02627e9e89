import { useCallback, useEffect, useRef, useState } from 'react';
import type { SessionUpdate } from '../../../../shared/agentcall/session-view';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import { call } from '../../../hooks/useLiveResource';
import { useActivityWhile } from '../../../kiosk/activity';
import { SpeechPlayer } from '../../../voice/speech-player';

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

/** What the voice remembers of the session it reads out (it starts empty whenever the session changes). */
interface Heard {
  sessionKey: string;
  /** Segments and prompts already queued once (`runKey:segmentId`, `prompt:id`). */
  said: Set<string>;
  /** Every run the session had, and those being cancelled. */
  runs: Set<string>;
  cancelling: Set<string>;
  /** The runs the session had when the user spoke over the agent: nothing more of them is said. */
  barged: Set<string>;
  /** Set by barge-in: no request's prompt is said until a run starts that was not among them. */
  holdPrompts: boolean;
  /** The request whose prompt is being said. */
  prompt: string | undefined;
  ended: boolean;
}

/**
 * Client-owned voice, the speaking half (AgentCall `voice.owner: "client"`): each stable
 * `speech.segment` of this session is spoken once, in the order it arrived; an agent request's
 * `spokenPrompt` too. main synthesises (`speech.synthesize`), the page plays (SpeechPlayer, Web Audio).
 * It follows the session's `agentcall.update` events as they come (what the conversation shows is
 * main's fold; this is only the voice): what was said before this screen showed is not read out again.
 * A failure, the user's response.cancel, the end of the session, the request being resolved, turning
 * speaking off and leaving the screen all flush what is queued and stop what plays.
 */
export function useAgentSpeech(api: AgentDeskApi, enabled: boolean, sessionKey: string | undefined, locale: string): AgentSpeech {
  const [speaking, setSpeaking] = useState(false);
  const player = useRef<SpeechPlayer | undefined>(undefined);
  const heard = useRef<Heard | undefined>(undefined);
  const localeRef = useRef(locale);
  useEffect(() => {
    localeRef.current = locale;
  }, [locale]);

  useEffect(() => {
    if (!enabled || sessionKey === undefined) return undefined;
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
    const state: Heard = {
      sessionKey,
      said: new Set(),
      runs: new Set(),
      cancelling: new Set(),
      barged: new Set(),
      holdPrompts: false,
      prompt: undefined,
      ended: false,
    };
    heard.current = state;
    const hear = (update: SessionUpdate) => {
      switch (update.type) {
        case 'run.started':
          state.runs.add(update.runKey);
          if (!state.barged.has(update.runKey)) state.holdPrompts = false;
          return;
        case 'speech.segment': {
          const id = `${update.runKey}:${update.segmentId}`;
          if (state.said.has(id)) return;
          state.said.add(id);
          // Nothing of a run being cancelled, after the end, or of a run the user spoke over.
          if (state.ended || state.cancelling.has(update.runKey) || state.barged.has(update.runKey)) return;
          created.enqueue(`segment:${id}`, update.text);
          return;
        }
        case 'run.cancelling':
          state.cancelling.add(update.runKey);
          created.flush();
          return;
        case 'failure':
          created.flush();
          return;
        case 'ended':
          state.ended = true;
          created.flush();
          return;
        case 'interaction.requested': {
          const { interactionId, spokenPrompt } = update.interaction;
          const id = `prompt:${interactionId}`;
          if (spokenPrompt === undefined || state.said.has(id)) return;
          state.said.add(id);
          // A request that came with the interrupted answer is not read out either.
          if (state.ended || state.holdPrompts) return;
          state.prompt = interactionId;
          created.enqueue(id, spokenPrompt);
          return;
        }
        case 'interaction.state':
          // The request was answered or withdrawn: its prompt stops.
          if (update.interactionId === state.prompt) {
            state.prompt = undefined;
            created.flush();
          }
          return;
        default:
          return;
      }
    };
    const unsubscribe = api.agentcall.onUpdate((payload) => {
      if (payload.sessionKey !== sessionKey) return;
      for (const update of payload.updates) hear(update);
    });
    return () => {
      unsubscribe();
      created.close();
      player.current = undefined;
      heard.current = undefined;
      setSpeaking(false);
    };
  }, [api, enabled, sessionKey]);

  const interrupt = useCallback(() => {
    const state = heard.current;
    if (state) {
      for (const run of state.runs) state.barged.add(run);
      state.holdPrompts = true;
    }
    player.current?.flush();
  }, []);
  // The agent speaking is someone listening (a kiosk's idle reset hears it), with or without a call.
  useActivityWhile(speaking);
  const isBusy = useCallback(() => player.current?.busy === true, []);
  return { speaking, interrupt, isBusy };
}
