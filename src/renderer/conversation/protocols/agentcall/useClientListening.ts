import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import { recognizerInUse, type RecognizerInUse } from '../../../../shared/speech/ipc-schemas';
import type { CallMode } from '../../../../shared/talkie/voice/voice-call';
import { call } from '../../../hooks/useLiveResource';
import type { BargeInSetting } from '../../../../shared/settings/settings';
import { useBargeIn, type BargeInState } from '../../../voice/barge-in';
import { classify, mediaDevices, openMicrophone, stopTracks, type MicrophoneProblem } from '../../../voice/call-media';
import { microphoneStorageKey, remember, remembered } from '../../../voice/microphone-choice';
import { preRollMs, startVad, toPcm16, vadSampleRate, type Vad } from '../../../voice/vad';

export type ListeningProblem = { kind: 'microphone'; problem: MicrophoneProblem } | { kind: 'noRecognizer' } | { kind: 'transcribe'; error: IpcError };

export interface ClientListening {
  state: 'off' | 'starting' | 'on';
  mode: CallMode;
  muted: boolean;
  /** The detector hears speech now (hands-free), or push to talk is held. */
  hearing: boolean;
  talking: boolean;
  /** An utterance is being recognised, or waits for the agent's run to end. */
  working: boolean;
  level: number;
  deviceId: string | undefined;
  /** Which recognizer main listens with (known once Talk by voice asked): basic English is said on the bar. */
  recognizer?: RecognizerInUse | undefined;
  problem: ListeningProblem | undefined;
  /** Barge-in now: the setting resolved for this page's devices. */
  bargeIn: BargeInState;
  start(): void;
  stop(): void;
  setMuted(muted: boolean): void;
  setMode(mode: CallMode): void;
  talk(down: boolean): void;
  cancelTalk(): void;
  selectMicrophone(deviceId: string): void;
}

export interface ListeningDeps {
  api: AgentDeskApi;
  sessionKey: string | undefined;
  runActive: boolean;
  locale: string;
  /** The barge-in setting (Settings → Speech); the rule that resolves Automatic is src/renderer/voice/barge-in.ts. */
  bargeIn: BargeInSetting;
  /** The agent's voice is playing: speech now is a barge-in. */
  agentSpeaking(): boolean;
  /** Stops the agent's voice at once. */
  silenceAgent(): void;
  /** Sends the recognised words as one user.turn (the session's shared turn counter). */
  sendText(text: string): Promise<IpcError | undefined>;
}

const modeKey = 'agentdesk.agentcall.listenMode';
/** Frames kept before push to talk is pressed (the first word often starts with the press). */
const preRollFrames = Math.ceil((preRollMs * vadSampleRate) / 1000 / 512);

function joined(frames: Float32Array[]): Float32Array {
  const out = new Float32Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let at = 0;
  for (const frame of frames) {
    out.set(frame, at);
    at += frame.length;
  }
  return out;
}

/**
 * Client-owned voice, the listening half (AgentCall `voice.owner: "client"`): the microphone (echo
 * cancellation on), vad-web's detector on it, and each utterance — hands-free as the detector cuts it,
 * or push to talk from press to release with a short pre-roll — as 16 kHz PCM16 to main's
 * `speech.transcribe`; the words go out as one user.turn. Mute really stops listening: the detector is
 * paused and what was half heard is dropped. Barge-in (when on): speech while the agent speaks silences
 * it at once, sends response.cancel if its run is still going, and the new turn goes once the run ended.
 * Without a recognizer it says so (import a speech model) and the keyboard stays: listening stops, also
 * when the recognizer went away meanwhile (main's status says none after a `speech_unavailable`).
 */
export function useClientListening(deps: ListeningDeps): ClientListening {
  const [state, setState] = useState<ClientListening['state']>('off');
  const [mode, setModeState] = useState<CallMode>(() => (remembered(modeKey) === 'push-to-talk' ? 'push-to-talk' : 'hands-free'));
  const [muted, setMutedState] = useState(false);
  const [hearing, setHearing] = useState(false);
  const [talking, setTalking] = useState(false);
  const [working, setWorking] = useState(0);
  const [level, setLevel] = useState(0);
  const [deviceId, setDeviceId] = useState<string | undefined>(() => remembered(microphoneStorageKey));
  const [problem, setProblem] = useState<ListeningProblem | undefined>();
  const [recognizer, setRecognizer] = useState<RecognizerInUse | undefined>();
  // Device names appear once the microphone was allowed: the rule looks again when listening starts.
  const bargeIn = useBargeIn(deps.bargeIn, state);
  const bargeRef = useRef(bargeIn.on);
  useEffect(() => {
    bargeRef.current = bargeIn.on;
  }, [bargeIn.on]);
  const depsRef = useRef(deps);
  useEffect(() => {
    depsRef.current = deps;
  }, [deps]);
  const live = useRef<{ stream: MediaStream; vad?: Vad; closed: boolean } | undefined>(undefined);
  const modeRef = useRef(mode);
  const mutedRef = useRef(muted);
  const ptt = useRef<{ held: boolean; frames: Float32Array[]; ring: Float32Array[] }>({ held: false, frames: [], ring: [] });
  /** Words waiting for the agent's run to end (barge-in), in order. */
  const waiting = useRef<string[]>([]);
  /**
   * Each start and each stop takes the next number: a start whose number is no longer the newest was
   * stopped while it waited (Hang up, leaving the screen, a kiosk's reset) and closes what it opened
   * instead of going on; words recognised for an older number are dropped.
   */
  const attempt = useRef(0);
  const starting = useRef(false);

  const flushWaiting = useCallback(() => {
    if (depsRef.current.runActive) return;
    const next = waiting.current.shift();
    if (next === undefined) return;
    void depsRef.current.sendText(next);
  }, []);
  useEffect(() => {
    if (!deps.runActive) flushWaiting();
  }, [deps.runActive, flushWaiting]);

  /** Set below: the ref lets `utterance` stop listening without depending on `stop`. */
  const stopRef = useRef<() => void>(() => undefined);

  const utterance = useCallback(
    async (audio: Float32Array) => {
      if (mutedRef.current || audio.length < vadSampleRate / 10) return;
      const mine = attempt.current;
      const { api, locale } = depsRef.current;
      setWorking((count) => count + 1);
      const result = await call(() => api.speech.transcribe({ pcm: toPcm16(audio.subarray(0, vadSampleRate * 30)), sampleRate: vadSampleRate, locale }));
      setWorking((count) => count - 1);
      if (!result.ok) {
        // No recognizer any more (the model was removed): listening stops and the keyboard is what is left.
        // A recognizer that failed once (a timeout, an engine error) says what went wrong instead.
        const status = result.error.code === 'speech_unavailable' ? await call(() => api.speech.status({})) : undefined;
        const none = status?.ok === true && recognizerInUse(status.value.recognition) === 'none';
        if (attempt.current !== mine) return;
        if (none) stopRef.current();
        setProblem(none ? { kind: 'noRecognizer' } : { kind: 'transcribe', error: result.error });
        return;
      }
      const text = result.value.text.trim();
      // Stopped meanwhile (or another session began): these words are for no one now.
      if (text === '' || mutedRef.current || attempt.current !== mine) return;
      waiting.current.push(text);
      flushWaiting();
    },
    [flushWaiting],
  );

  const bargeInNow = useCallback(() => {
    const current = depsRef.current;
    if (!bargeRef.current || !current.agentSpeaking()) return;
    current.silenceAgent();
    if (current.runActive && current.sessionKey !== undefined) {
      const sessionKey = current.sessionKey;
      void call(() => current.api.agentcall.cancel({ sessionKey }));
    }
  }, []);

  const stop = useCallback(() => {
    attempt.current += 1;
    starting.current = false;
    waiting.current = [];
    const current = live.current;
    live.current = undefined;
    ptt.current = { held: false, frames: [], ring: [] };
    setState('off');
    setHearing(false);
    setTalking(false);
    setLevel(0);
    if (!current) return;
    current.closed = true;
    void current.vad?.destroy().catch(() => undefined);
    stopTracks(current.stream);
    void call(() => depsRef.current.api.media.disarm({ kinds: ['microphone'] }));
  }, []);

  useEffect(() => {
    stopRef.current = stop;
  }, [stop]);

  const start = useCallback(() => {
    if (live.current || starting.current) return;
    attempt.current += 1;
    const mine = attempt.current;
    starting.current = true;
    setProblem(undefined);
    setState('starting');
    const { api } = depsRef.current;
    const stale = () => attempt.current !== mine;
    void (async () => {
      const status = await call(() => api.speech.status({}));
      if (stale()) return;
      if (status.ok) setRecognizer(recognizerInUse(status.value.recognition));
      if (status.ok && recognizerInUse(status.value.recognition) === 'none') {
        starting.current = false;
        setProblem({ kind: 'noRecognizer' });
        setState('off');
        return;
      }
      const devices = mediaDevices();
      try {
        if (!devices) throw new Error('unavailable');
        const arm = await call(() => api.media.arm({ kinds: ['microphone'] }));
        if (stale()) {
          if (arm.ok) void call(() => api.media.disarm({ kinds: ['microphone'] }));
          return;
        }
        if (!arm.ok) throw Object.assign(new Error('denied'), { name: 'NotAllowedError' });
        const opened = await openMicrophone(devices, remembered(microphoneStorageKey));
        if (stale()) {
          stopTracks(opened.stream);
          void call(() => api.media.disarm({ kinds: ['microphone'] }));
          return;
        }
        starting.current = false;
        if (opened.forgotten) {
          remember(microphoneStorageKey, undefined);
          setDeviceId(undefined);
        }
        // The meter reads the detector's frames (voice/vad.ts): one audio graph while listening.
        const session = { stream: opened.stream, closed: false } as { stream: MediaStream; vad?: Vad; closed: boolean };
        live.current = session;
        session.vad = await startVad(opened.stream, {
          onSpeechStart: () => {
            if (session.closed || mutedRef.current) return;
            // For bench/voice-page.ts: when the detector heard speech begin (barge-in is measured from here).
            performance.mark('agentdesk:vad-speech-start');
            setHearing(true);
            bargeInNow();
          },
          onSpeechEnd: (audio) => {
            setHearing(false);
            if (session.closed || modeRef.current !== 'hands-free') return;
            void utterance(audio);
          },
          onFrame: (frame) => {
            if (session.closed || mutedRef.current || modeRef.current !== 'push-to-talk') return;
            const recorder = ptt.current;
            if (recorder.held) recorder.frames.push(frame.slice());
            else {
              recorder.ring.push(frame.slice());
              if (recorder.ring.length > preRollFrames) recorder.ring.shift();
            }
          },
        });
        if (session.closed) return void session.vad.destroy();
        if (mutedRef.current) await session.vad.pause();
        setState('on');
      } catch (error) {
        if (stale()) {
          void call(() => api.media.disarm({ kinds: ['microphone'] }));
          return;
        }
        stop();
        setProblem({ kind: 'microphone', problem: devices ? classify(error) : 'unavailable' });
      }
    })();
  }, [bargeInNow, stop, utterance]);

  const setMuted = useCallback((next: boolean) => {
    mutedRef.current = next;
    setMutedState(next);
    const current = live.current;
    if (next) {
      // Muted: nothing more is processed, and what was half heard or held is dropped.
      ptt.current = { held: false, frames: [], ring: [] };
      setTalking(false);
      setHearing(false);
      void current?.vad?.pause();
      for (const track of current?.stream.getAudioTracks() ?? []) track.enabled = false;
    } else {
      for (const track of current?.stream.getAudioTracks() ?? []) track.enabled = true;
      void current?.vad?.start();
    }
  }, []);

  const setMode = useCallback((next: CallMode) => {
    modeRef.current = next;
    remember(modeKey, next === 'push-to-talk' ? next : undefined);
    setModeState(next);
    ptt.current = { held: false, frames: [], ring: [] };
  }, []);

  const talk = useCallback(
    (down: boolean) => {
      if (modeRef.current !== 'push-to-talk' || !live.current || mutedRef.current) return;
      const recorder = ptt.current;
      if (down) {
        if (recorder.held) return;
        bargeInNow();
        ptt.current = { held: true, frames: [...recorder.ring], ring: [] };
        setTalking(true);
        return;
      }
      if (!recorder.held) return;
      ptt.current = { held: false, frames: [], ring: [] };
      setTalking(false);
      void utterance(joined(recorder.frames));
    },
    [bargeInNow, utterance],
  );

  const cancelTalk = useCallback(() => {
    if (!ptt.current.held) return;
    ptt.current = { held: false, frames: [], ring: [] };
    setTalking(false);
  }, []);

  const selectMicrophone = useCallback(
    (id: string) => {
      remember(microphoneStorageKey, id === '' ? undefined : id);
      setDeviceId(id === '' ? undefined : id);
      // The detector is bound to its stream: listening starts again on the new microphone.
      if (live.current) {
        stop();
        start();
      }
    },
    [start, stop],
  );

  useEffect(() => {
    if (state !== 'on') return;
    const timer = window.setInterval(() => {
      const value = mutedRef.current ? 0 : (live.current?.vad?.level() ?? 0);
      setLevel((before) => (Math.abs(before - value) < 0.02 ? before : value));
    }, 100);
    return () => clearInterval(timer);
  }, [state]);

  // A new session, or leaving the screen: listening stops.
  useEffect(() => stop, [deps.sessionKey, stop]);

  return {
    state,
    mode,
    muted,
    hearing,
    talking,
    working: working > 0,
    level: state === 'on' ? level : 0,
    deviceId,
    recognizer,
    problem,
    bargeIn,
    start,
    stop,
    setMuted,
    setMode,
    talk,
    cancelTalk,
    selectMicrophone,
  };
}
