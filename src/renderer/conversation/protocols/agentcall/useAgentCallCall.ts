import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import { LevelMeter, microphoneStorageKey, remember, remembered } from '../../../voice/microphone-choice';
import { AgentCallCall, type CallProblem } from './agentcall-call';

export interface AgentCallCallHandle {
  /** No call, a call connecting, or a connected one. */
  state: 'idle' | 'connecting' | 'connected';
  /** Why the last call could not be made (the microphone, or main's answer), or why the last press of push to talk opened no turn. */
  problem: CallProblem | undefined;
  /** Push to talk (the card supports explicit audio turns); otherwise the agent listens all the time. */
  pushToTalk: boolean;
  talking: boolean;
  muted: boolean;
  /** The microphone's level (0 while it sends nothing) and the agent's voice's, 0..1. */
  level: number;
  agentLevel: number;
  deviceId: string | undefined;
  /** The ref callback of the <audio> element the agent's voice plays in. */
  audioElement: (element: HTMLAudioElement | null) => void;
  /** Only from a click (`agentcall.callOffer` is a gesture method). */
  start(): void;
  hangUp(): void;
  setMuted(muted: boolean): void;
  talk(down: boolean): void;
  /** Esc, or the window lost focus, while talking: the audio turn is cancelled. */
  cancelTalk(): void;
  selectMicrophone(deviceId: string): void;
}

/**
 * An agentcall-webrtc-0.1 call on the AgentCall screen (agent-owned voice): the call itself is
 * AgentCallCall (agentcall-call.ts); this adds what the screen shows and does around it — the call's
 * state, the microphone and agent levels (Web Audio meters), Mute, the remembered microphone, and push to
 * talk: the button held, Esc or the window losing focus cancels the open turn. The session the call
 * opens is the agent's conversation in main from then on (main follows it); when the call ends the
 * session ends with it (nothing is resumed). Leaving the screen hangs up: a microphone does not stay
 * open behind another screen.
 */
export function useAgentCallCall(api: AgentDeskApi, agentId: string): AgentCallCallHandle {
  const [state, setState] = useState<AgentCallCallHandle['state']>('idle');
  const [problem, setProblem] = useState<CallProblem | undefined>();
  const [pushToTalk, setPushToTalk] = useState(false);
  const [talking, setTalking] = useState(false);
  const [muted, setMutedState] = useState(false);
  const [level, setLevel] = useState(0);
  const [agentLevel, setAgentLevel] = useState(0);
  const [deviceId, setDeviceId] = useState<string | undefined>(() => remembered(microphoneStorageKey));
  const callRef = useRef<AgentCallCall | undefined>(undefined);
  const audioRef = useRef<HTMLAudioElement | null>(null);
  const meters = useRef({ microphone: new LevelMeter(), agent: new LevelMeter() });

  const remote = useRef<MediaStream | undefined>(undefined);
  // The <audio> element may be a new one (the bar mounts again): the agent's voice follows it.
  const audioElement = useCallback((element: HTMLAudioElement | null) => {
    audioRef.current = element;
    if (!element || !remote.current || element.srcObject === remote.current) return;
    element.srcObject = remote.current;
    void Promise.resolve(element.play?.()).catch(() => undefined);
  }, []);

  const start = useCallback(() => {
    if (callRef.current) return;
    setProblem(undefined);
    setState('connecting');
    setTalking(false);
    const current: AgentCallCall = new AgentCallCall(
      api,
      agentId,
      {
        opened: () => {
          if (callRef.current !== current) return;
          setPushToTalk(current.usesPushToTalk);
          setState('connected');
        },
        ended: (why) => {
          if (callRef.current !== current) return;
          callRef.current = undefined;
          setState('idle');
          setTalking(false);
          setProblem(why);
          meters.current.microphone.close();
          meters.current.agent.close();
          remote.current = undefined;
          const audio = audioRef.current;
          if (audio) audio.srcObject = null;
        },
        remoteAudio: (stream) => {
          remote.current = stream;
          const audio = audioRef.current;
          if (audio) {
            // Played through an <audio> element: Chromium decodes a remote track only when something plays it.
            audio.srcObject = stream;
            void Promise.resolve(audio.play?.()).catch(() => undefined);
          }
          meters.current.agent.attach(stream);
        },
        microphone: (stream) => meters.current.microphone.attach(stream),
        microphoneForgotten: () => {
          remember(microphoneStorageKey, undefined);
          setDeviceId(undefined);
        },
        turnRefused: (error) => {
          if (callRef.current !== current) return;
          setTalking(false);
          setProblem({ kind: 'turn', error });
        },
      },
      remembered(microphoneStorageKey),
    );
    callRef.current = current;
    void current.setMuted(false);
    setMutedState(false);
    void current.start();
  }, [api, agentId]);

  const hangUp = useCallback(() => {
    void callRef.current?.hangUp();
  }, []);

  const setMuted = useCallback((next: boolean) => {
    setMutedState(next);
    if (next) setTalking(false);
    void callRef.current?.setMuted(next);
  }, []);

  const talk = useCallback((down: boolean) => {
    const current = callRef.current;
    if (!current?.connected || !current.usesPushToTalk) return;
    if (down) {
      if (current.isTalking) return;
      setProblem(undefined);
      current.pressTalk();
      setTalking(current.isTalking);
    } else if (current.isTalking) {
      setTalking(false);
      void current.releaseTalk();
    }
  }, []);

  const cancelTalk = useCallback(() => {
    const current = callRef.current;
    if (!current?.isTalking) return;
    setTalking(false);
    void current.cancelTalk();
  }, []);

  const selectMicrophone = useCallback((id: string) => {
    remember(microphoneStorageKey, id === '' ? undefined : id);
    setDeviceId(id === '' ? undefined : id);
    void callRef.current?.selectMicrophone(id === '' ? undefined : id).catch(() => setProblem({ kind: 'microphone', problem: 'noMicrophone' }));
  }, []);

  // Esc anywhere, or the window losing focus, drops the open audio turn.
  useEffect(() => {
    if (!talking) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') cancelTalk();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('blur', cancelTalk);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('blur', cancelTalk);
    };
  }, [talking, cancelTalk]);

  // The meters, read ten times a second while connected.
  useEffect(() => {
    if (state !== 'connected') return;
    const timer = window.setInterval(() => {
      const sending = !muted && (!pushToTalk || talking);
      const mic = sending ? meters.current.microphone.read() : 0;
      const agent = meters.current.agent.read();
      setLevel((before) => (Math.abs(before - mic) < 0.02 ? before : mic));
      setAgentLevel((before) => (Math.abs(before - agent) < 0.02 ? before : agent));
    }, 100);
    return () => clearInterval(timer);
  }, [state, muted, pushToTalk, talking]);

  // Leaving the screen hangs up.
  useEffect(
    () => () => {
      const current = callRef.current;
      callRef.current = undefined;
      void current?.hangUp();
      meters.current.microphone.close();
      meters.current.agent.close();
    },
    [],
  );

  const connected = state === 'connected';
  return {
    state,
    problem,
    pushToTalk,
    talking,
    muted,
    level: connected ? level : 0,
    agentLevel: connected ? agentLevel : 0,
    deviceId,
    audioElement,
    start,
    hangUp,
    setMuted,
    talk,
    cancelTalk,
    selectMicrophone,
  };
}
