import { usePolicyView } from '../../../../kiosk/policy-context';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../../shared/ipc/api';
import type { MethodResponse } from '../../../../../shared/ipc/contract';
import type { IpcError } from '../../../../../shared/base/errors';
import type { RunUpdate } from '../../../../../shared/talkie/conversation';
import {
  callView,
  microphoneOpen,
  startCall,
  stepCall,
  type CallAnnouncement,
  type CallEffect,
  type CallInput,
  type CallMode,
  type CallState,
  type CallView,
} from '../../../../../shared/talkie/voice/voice-call';
import { call } from '../../../../hooks/useLiveResource';
import { LevelMeter, microphoneStorageKey, remember, remembered } from '../../../../voice/microphone-choice';
import { classify, iceGathered, mediaDevices, MicrophoneError, openMicrophone, stopTracks, type MicrophoneProblem } from '../../../../voice/call-media';

/** The data channel the provider speaks `openai-realtime/1` on (Talkie 1 §10, OpenAI Realtime over WebRTC). */
export const voiceDataChannelLabel = 'oai-events';
/** How long the offer waits for ICE gathering before it goes with the candidates it has. */
export const iceGatheringMs = 3000;
const modeStorageKey = 'agentdesk.voice.mode';

export type { MicrophoneProblem };
/** Why a call could not start: main's answer, or the microphone. */
export type StartError = { kind: 'ipc'; error: IpcError } | { kind: 'microphone'; problem: MicrophoneProblem } | { kind: 'connection' };

export type CallShortcutState = MethodResponse<'talkie.voiceShortcut'>;

/**
 * What the call tells the screen around it; called only while the screen is mounted. What the call
 * changes in the conversation (its thread, tool lines, cards, actions, spoken lines and decisions)
 * main folds in itself: this hook only tells main the spoken lines it reads on the data channel.
 */
export interface VoiceCallHandlers {
  /** A tool's updates as the call shows them (the account's meters follow a usage update). */
  onUpdates(updates: RunUpdate[]): void;
  /** The voice session's thread (Talkie 1 §10.1): the conversation is that thread now (main adopted it). */
  onThread(threadId: string): void;
  onAnnounce(announcement: CallAnnouncement): void;
  /** The server counted the call's seconds (a usage report, or the final one): the account's meters moved. */
  onUsageCounted(): void;
}

export interface VoiceCall {
  /** `talkie.voiceStart` is on its way. */
  starting: boolean;
  /** The call, from voiceStart's answer until the next call starts (`phase: 'ended'` once over). */
  view: CallView | undefined;
  startError: StartError | undefined;
  /** The microphone's level, 0..1 (0 while the track is off). */
  level: number;
  /** The chosen microphone (remembered), or undefined for the system default. */
  deviceId: string | undefined;
  /** This call was set up over http:// (the development setting): the bar says so. */
  unencrypted: boolean;
  mode: CallMode;
  /** Where the provider's audio plays: the ref callback of an <audio> element the call control renders. */
  audioElement: (element: HTMLAudioElement | null) => void;
  /** Only from a click: `talkie.voiceStart` is a gesture method, and this asks for the microphone. */
  start(threadId: string | undefined): void;
  hangUp(): void;
  setMuted(muted: boolean): void;
  setMode(mode: CallMode): void;
  /** The call's global shortcut once connected: armed (with its keys), taken by another program, or unavailable in this shell. */
  shortcut: CallShortcutState | undefined;
  /** Push to talk: the key or button is held (`true`) or let go. */
  talk(down: boolean): void;
  selectMicrophone(deviceId: string): void;
  /** The action was decided by its button: the voice window gives way. */
  settled(actionId: string): void;
}

interface Session {
  callId?: string;
  state?: CallState;
  pc?: RTCPeerConnection;
  dc?: RTCDataChannel;
  stream?: MediaStream;
  sender?: RTCRtpSender;
  meter: LevelMeter;
  timers: number[];
  /** Transcripts and usage, in order: the final usage (voiceEnd) goes after every transcript. */
  queue: Promise<unknown>;
  closed: boolean;
  armed: boolean;
}

const now = () => performance.now();

/** Main refused the SDP exchange (an expired session, the provider unreachable): its answer, for the screen. */
class OfferRefused extends Error {
  constructor(readonly error: IpcError) {
    super(error.message);
  }
}

/**
 * One Talkie 1 voice call from the renderer (§10): the microphone (getUserMedia with echo cancellation),
 * an RTCPeerConnection with one sendrecv audio transceiver and the `oai-events` data channel, the SDP
 * offer through main (`talkie.voiceOffer`: the client secret stays in main; this side only ever sees
 * a callId), the provider's audio through an <audio> element, a level meter, and the clock.
 *
 * Every decision is the pure controller's (`stepCall` in src/shared/talkie/voice/voice-call.ts): this
 * hook feeds it data-channel messages, IPC answers, ticks and the user's actions, and performs the
 * effects it returns. What goes on the data channel is only what the controller let through its gate.
 * Hang-up (also leaving the screen) closes the connection, stops the tracks and sends the final usage.
 */
export function useVoiceCall(api: AgentDeskApi, agentId: string, locale: string, handlers: VoiceCallHandlers): VoiceCall {
  const [starting, setStarting] = useState(false);
  const [view, setView] = useState<CallView | undefined>();
  const [startError, setStartError] = useState<StartError | undefined>();
  const [level, setLevel] = useState(0);
  const [deviceId, setDeviceId] = useState<string | undefined>(() => remembered(microphoneStorageKey));
  const [shortcut, setShortcut] = useState<CallShortcutState | undefined>();
  const [unencrypted, setUnencrypted] = useState(false);
  // The device policy's voice.mode is the mode, whatever was remembered; setMode cannot change it.
  const forcedMode = usePolicyView().voiceMode;
  const [mode, setModeState] = useState<CallMode>(() => forcedMode ?? (remembered(modeStorageKey) === 'push-to-talk' ? 'push-to-talk' : 'hands-free'));
  const audioRef = useRef<HTMLAudioElement | null>(null);
  const audioElement = useCallback((element: HTMLAudioElement | null) => {
    audioRef.current = element;
  }, []);
  const session = useRef<Session | undefined>(undefined);
  const handlersRef = useRef(handlers);
  const mounted = useRef(true);
  const deviceRef = useRef(deviceId);
  const modeRef = useRef(mode);
  useEffect(() => {
    handlersRef.current = handlers;
  }, [handlers]);

  const ui = useCallback((act: (h: VoiceCallHandlers) => void) => {
    if (mounted.current) act(handlersRef.current);
  }, []);

  const teardown = useCallback(
    (s: Session) => {
      s.closed = true;
      for (const timer of s.timers.splice(0)) clearInterval(timer);
      try {
        s.dc?.close();
      } catch {
        // already closed
      }
      try {
        s.pc?.close();
      } catch {
        // already closed
      }
      stopTracks(s.stream);
      s.meter.close();
      const audio = audioRef.current;
      if (audio) {
        audio.pause?.();
        audio.srcObject = null;
      }
      if (s.armed) {
        s.armed = false;
        void call(() => api.media.disarm({ kinds: ['microphone'] }));
      }
      if (mounted.current) {
        setLevel(0);
        setShortcut(undefined);
      }
    },
    [api],
  );

  const dispatch = useRef<(s: Session, input: CallInput) => void>(() => undefined);

  const perform = useCallback(
    (s: Session, effect: CallEffect) => {
      const callId = s.callId;
      if (callId === undefined) return;
      const enqueue = (task: () => Promise<unknown>) => {
        s.queue = s.queue.then(task, task);
      };
      switch (effect.type) {
        case 'send':
          if (s.dc?.readyState === 'open') s.dc.send(JSON.stringify(effect.event));
          return;
        case 'refused':
          // Never sent: the controller's gate stopped it (its tests say this does not happen).
          return;
        case 'provider-error': {
          // Main writes it to the log; what the user must know is already in the view.
          const { error } = effect;
          void call(() => api.talkie.voiceProviderError({ callId, ...error }));
          return;
        }
        case 'tool': {
          const { providerCallId } = effect;
          void call(() => api.talkie.voiceTool({ callId, providerCallId, name: effect.name, arguments: effect.arguments })).then((result) =>
            dispatch.current(
              s,
              result.ok ? { type: 'tool.result', providerCallId, result: result.value } : { type: 'tool.error', providerCallId, message: result.error.message },
            ),
          );
          return;
        }
        case 'show':
          ui((h) => h.onUpdates(effect.updates));
          return;
        case 'spoken': {
          // Main shows it in the conversation of the call's thread (added once, then updated in place).
          const { item } = effect;
          void call(() => api.talkie.voiceLine({ callId, itemId: item.itemId, role: item.role, text: item.text.slice(0, 20_000), state: item.state }));
          return;
        }
        case 'transcript':
          enqueue(() => call(() => api.talkie.voiceTranscript({ callId, role: effect.role, itemId: effect.itemId, text: effect.text.slice(0, 20_000) })));
          return;
        case 'usage':
          if (effect.final) {
            enqueue(async () => {
              const result = await call(() => api.talkie.voiceEnd({ callId, seconds: effect.seconds }));
              if (result.ok && result.value.ended) ui((h) => h.onUsageCounted());
            });
          } else {
            enqueue(async () => {
              const result = await call(() => api.talkie.voiceUsage({ callId, seconds: effect.seconds }));
              if (!result.ok) return;
              dispatch.current(s, { type: 'usage.reply', seconds: effect.seconds, remainingSeconds: result.value.remainingSeconds });
              ui((h) => h.onUsageCounted());
            });
          }
          return;
        case 'decide': {
          const { actionId } = effect;
          void call(() => api.talkie.voiceDecide({ callId, actionId, paramsHash: effect.paramsHash, decision: effect.decision })).then((result) => {
            if (!result.ok) return dispatch.current(s, { type: 'decision.result', actionId, outcome: 'failed' });
            // Main answers 409/410 with a note and the authoritative action (like talkie.decide).
            const outcome = result.value.note === undefined ? 'ok' : result.value.action.status === 'expired' ? 'expired' : 'conflict';
            dispatch.current(s, { type: 'decision.result', actionId, outcome });
          });
          return;
        }
        case 'reload-action':
          // Main shows the action as the server has it now (the button decides).
          void call(() => api.talkie.action({ agentId, actionId: effect.actionId }));
          return;
        case 'playback': {
          // Barge-in: the assistant's voice stops here at once; the next answer plays again.
          const audio = audioRef.current;
          if (!audio) return;
          audio.muted = !effect.playing;
          if (effect.playing) void Promise.resolve(audio.play?.()).catch(() => undefined);
          return;
        }
        case 'microphone':
          // Muted (or push to talk let go): the track sends nothing at all.
          for (const track of s.stream?.getAudioTracks() ?? []) track.enabled = effect.open;
          return;
        case 'hangup':
          teardown(s);
          return;
        case 'announce':
          ui((h) => h.onAnnounce(effect.announcement));
          return;
      }
    },
    [api, agentId, teardown, ui],
  );

  useEffect(() => {
    dispatch.current = (s: Session, input: CallInput) => {
      if (!s.state) return;
      const next = stepCall(s.state, input);
      s.state = next.state;
      if (session.current === s && mounted.current) setView(callView(next.state));
      for (const effect of next.effects) perform(s, effect);
    };
  }, [perform]);

  const connect = useCallback(
    async (s: Session, callId: string) => {
      const devices = mediaDevices();
      if (!devices || typeof RTCPeerConnection === 'undefined') throw new MicrophoneError('unavailable');
      s.armed = true;
      const arm = await call(() => api.media.arm({ kinds: ['microphone'] }));
      if (!arm.ok) throw new MicrophoneError('denied');
      if (s.closed) return;
      const opened = await openMicrophone(devices, deviceRef.current).catch((error: unknown) => {
        throw new MicrophoneError(classify(error));
      });
      if (s.closed) return stopTracks(opened.stream);
      s.stream = opened.stream;
      if (opened.forgotten) {
        remember(microphoneStorageKey, undefined);
        deviceRef.current = undefined;
        if (mounted.current) setDeviceId(undefined);
      }
      const track = opened.stream.getAudioTracks()[0];
      if (!track) throw new MicrophoneError('noMicrophone');
      // Closed until the controller opens it (the data channel is up, not muted).
      track.enabled = false;
      s.meter.attach(opened.stream);

      // Loopback and the provider's own candidates: no STUN or TURN servers.
      const pc = new RTCPeerConnection({ iceServers: [] });
      s.pc = pc;
      s.sender = pc.addTransceiver(track, { direction: 'sendrecv', streams: [opened.stream] }).sender;
      pc.addEventListener('track', (event) => {
        const audio = audioRef.current;
        if (!audio) return;
        // Played through an <audio> element: Chromium decodes a remote track only when something plays it.
        audio.srcObject = event.streams[0] ?? new MediaStream([event.track]);
        void Promise.resolve(audio.play?.()).catch(() => undefined);
      });
      pc.addEventListener('connectionstatechange', () => {
        if (pc.connectionState === 'failed') dispatch.current(s, { type: 'dc.close', now: now() });
      });
      const dc = pc.createDataChannel(voiceDataChannelLabel);
      s.dc = dc;
      dc.addEventListener('open', () => dispatch.current(s, { type: 'dc.open', now: now() }));
      dc.addEventListener('message', (event: MessageEvent) => dispatch.current(s, { type: 'dc.message', data: event.data }));
      dc.addEventListener('close', () => dispatch.current(s, { type: 'dc.close', now: now() }));

      await pc.setLocalDescription(await pc.createOffer());
      await iceGathered(pc, iceGatheringMs);
      if (s.closed) return;
      const sdp = pc.localDescription?.sdp ?? '';
      const answer = await call(() => api.talkie.voiceOffer({ callId, sdp }));
      if (!answer.ok) throw new OfferRefused(answer.error);
      if (s.closed) return;
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.value.sdp });
      // Connected in main's eyes: the call's global shortcut (Electron) is taken for it, given back at its end.
      void call(() => api.talkie.voiceShortcut({ callId, armed: true })).then((result) => {
        if (result.ok && !s.closed && mounted.current && session.current === s) setShortcut(result.value);
      });
      s.timers.push(window.setInterval(() => dispatch.current(s, { type: 'tick', now: now() }), 1000));
      s.timers.push(
        window.setInterval(() => {
          const live = s.state !== undefined && microphoneOpen(s.state);
          const value = live ? s.meter.read() : 0;
          if (mounted.current) setLevel((before) => (Math.abs(before - value) < 0.02 ? before : value));
        }, 100),
      );
    },
    [api],
  );

  const start = useCallback(
    (threadId: string | undefined) => {
      const running = session.current;
      if (running && !running.closed) return;
      const s: Session = { timers: [], queue: Promise.resolve(), closed: false, armed: false, meter: new LevelMeter() };
      session.current = s;
      setStarting(true);
      setStartError(undefined);
      setView(undefined);
      setUnencrypted(false);
      // First, still inside the click: voiceStart is a gesture method.
      const started = call(() => api.talkie.voiceStart({ agentId, ...(threadId === undefined ? {} : { threadId }), locale }));
      void (async () => {
        const result = await started;
        if (mounted.current && session.current === s) setStarting(false);
        if (!result.ok) {
          s.closed = true;
          if (mounted.current && session.current === s) setStartError({ kind: 'ipc', error: result.error });
          return;
        }
        const callId = result.value.callId;
        s.callId = callId;
        if (s.closed) {
          // Hung up (or left) before the session came: it ends at once.
          void call(() => api.talkie.voiceEnd({ callId, seconds: 0 }));
          return;
        }
        ui((h) => h.onThread(result.value.threadId));
        if (mounted.current && session.current === s) setUnencrypted(result.value.unencrypted === true);
        const { maxSeconds, warnSeconds, voiceConfirm, consent, labels } = result.value;
        s.state = startCall({ maxSeconds, warnSeconds, voiceConfirm, consent, labels, locale: result.value.locale }, { mode: modeRef.current, now: now() });
        if (mounted.current) setView(callView(s.state));
        try {
          await connect(s, callId);
        } catch (error) {
          if (s.closed) return;
          const problem: StartError =
            error instanceof OfferRefused
              ? { kind: 'ipc', error: error.error }
              : error instanceof MicrophoneError
                ? { kind: 'microphone', problem: error.problem }
                : { kind: 'connection' };
          if (mounted.current && session.current === s) setStartError(problem);
          dispatch.current(s, { type: 'hangup', now: now(), reason: 'error' });
          if (!s.closed) teardown(s);
        }
      })();
    },
    [agentId, api, connect, locale, teardown, ui],
  );

  const current = () => {
    const s = session.current;
    return s && !s.closed ? s : undefined;
  };

  const hangUp = useCallback(() => {
    const s = current();
    if (!s) return;
    if (s.state) dispatch.current(s, { type: 'hangup', now: now(), reason: 'user' });
    else s.closed = true;
    if (mounted.current && !s.state) setStarting(false);
  }, []);

  const setMuted = useCallback((muted: boolean) => {
    const s = current();
    if (s) dispatch.current(s, { type: muted ? 'mute' : 'unmute' });
  }, []);

  const setMode = useCallback(
    (wanted: CallMode) => {
      const next = forcedMode ?? wanted;
      modeRef.current = next;
      remember(modeStorageKey, next);
      setModeState(next);
      const s = current();
      if (s) dispatch.current(s, { type: 'mode', mode: next });
    },
    [forcedMode],
  );

  const talk = useCallback((down: boolean) => {
    const s = current();
    if (s) dispatch.current(s, { type: 'ptt', down });
  }, []);

  const settled = useCallback((actionId: string) => {
    const s = current();
    if (s) dispatch.current(s, { type: 'action.settled', actionId });
  }, []);

  const selectMicrophone = useCallback((id: string) => {
    remember(microphoneStorageKey, id);
    deviceRef.current = id;
    setDeviceId(id);
    const s = current();
    const devices = mediaDevices();
    if (!s?.sender || !devices) return;
    void openMicrophone(devices, id).then(
      async ({ stream }) => {
        const track = stream.getAudioTracks()[0];
        if (s.closed || !track || !s.sender) return stopTracks(stream);
        track.enabled = s.state !== undefined && microphoneOpen(s.state);
        // The same sender, another source: no new offer, the provider hears the new microphone.
        await s.sender.replaceTrack(track);
        const old = s.stream;
        s.stream = stream;
        stopTracks(old);
        s.meter.attach(stream);
      },
      (error: unknown) => {
        if (mounted.current) setStartError({ kind: 'microphone', problem: classify(error) });
      },
    );
  }, []);

  // The global shortcut's presses (main hears them while another window has the focus) for this call.
  useEffect(
    () =>
      api.talkie.onVoiceShortcutPressed(({ callId }) => {
        const s = current();
        if (s?.state && s.callId === callId) dispatch.current(s, { type: 'shortcut' });
      }),
    [api],
  );

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      // Leaving the screen hangs up: the connection closes, the tracks stop, the final usage goes out.
      const s = session.current;
      if (!s || s.closed) return;
      if (s.state) dispatch.current(s, { type: 'hangup', now: now(), reason: 'left' });
      else s.closed = true;
    };
  }, []);

  return {
    starting,
    view,
    startError,
    level,
    deviceId,
    unencrypted,
    mode,
    shortcut,
    audioElement,
    start,
    hangUp,
    setMuted,
    setMode,
    talk,
    selectMicrophone,
    settled,
  };
}
