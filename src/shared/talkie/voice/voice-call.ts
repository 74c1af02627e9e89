import type { z } from 'zod';
import type { Action } from '../content';
import type { RunUpdate } from '../conversation';
import type { talkieVoiceMethods } from '../ipc-schemas';
import {
  initialWindow,
  stepWindow,
  windowView,
  type CloseReason,
  type VoiceProposal,
  type WindowConfig,
  type WindowEffect,
  type WindowInput,
  type WindowState,
} from './confirmation-window';
import {
  allowedClientEvent,
  defaultTurnDetection,
  functionCallOutput,
  parseRealtimeMessage,
  sessionTurnDetection,
  updatedCreateResponse,
  type ClientEvent,
  type RealtimeEvent,
  type TurnDetection,
} from './realtime-events';
import {
  addTranscript,
  emptyTranscriptLog,
  flushTranscripts,
  noteItem,
  remainingSeconds,
  startUsageClock,
  stepUsage,
  type TranscriptLog,
  type TranscriptPost,
  type UsageClock,
  type UsageEffect,
} from './usage-clock';

/**
 * One Talkie 1 voice call on the client (§10), as a pure controller: `stepCall(state, input)` returns
 * the next state and the effects to perform, in order. It composes the event parser, the one send
 * gate (`allowedClientEvent`), the Talkie 1 §10.4 confirmation window, the usage clock and the transcript log;
 * the caller (the renderer's useVoiceCall) owns the RTCPeerConnection, the data channel, the timers
 * and the IPC calls, and feeds their outcomes back in. Nothing here touches the DOM or Node.
 *
 * - Every `send` effect has passed `allowedClientEvent` here, in `stepCall` (the only place a client
 *   event is produced), and none leaves before the data channel is open or after the call ended.
 * - A tool runs only for a `function_call` item the provider finished as `completed`
 *   (`response.output_item.done`): the arguments of a call cut off by an interruption are never used.
 * - Each provider `call_id` reaches `voiceTool` once; its output goes back unchanged, and every call
 *   that ran gets exactly one `function_call_output` (a failure, a refusal or a 409 says the tool failed).
 * - Each `session.update` carries an `event_id`, so a provider `error` answering it is recognised.
 * - The phase comes from provider events: speech_started → listening (the user speaks),
 *   response.created → thinking, output_audio_buffer.started → speaking, stopped → listening.
 */

export type CallMode = 'hands-free' | 'push-to-talk';
export type CallPhase = 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended';
/** Why a call ended: the user hung up or left the screen, the limits, or the connection. */
export type CallEndReason = 'user' | 'left' | 'time_limit' | 'quota' | 'connection_lost' | 'error';

/** What `talkie.voiceStart` told the renderer about the session (no secret). */
export interface CallSetup {
  maxSeconds: number;
  warnSeconds: number;
  /** `capabilities.actions.voiceConfirm` (C1). */
  voiceConfirm: boolean;
  locale?: string | undefined;
  consent: { confirm: readonly string[]; refuse: readonly string[] };
  /** Tool name → status text while that tool runs. */
  labels: Readonly<Record<string, string>>;
}

export type VoiceToolResult = z.output<(typeof talkieVoiceMethods)['talkie.voiceTool']['response']>;

/** One line of the live transcript, in the provider's item order. */
export interface LiveTranscriptItem {
  itemId: string;
  role: 'user' | 'assistant';
  /** `hearing`: the item exists, its transcript has not come; `unavailable`: transcription failed or was empty. */
  state: 'hearing' | 'final' | 'unavailable';
  text: string;
}

export interface CallState {
  setup: CallSetup;
  link: 'connecting' | 'open' | 'ended';
  ended?: CallEndReason;
  mode: CallMode;
  muted: boolean;
  /** Push to talk: the key is held. */
  talking: boolean;
  /** Between the provider's speech_started and speech_stopped. */
  userSpeaking: boolean;
  /** Responses created and not yet done. */
  responses: readonly string[];
  /** The response whose audio plays now (output_audio_buffer.started … stopped/cleared). */
  playing?: string;
  /** The server's turn detection (session.created); only `create_response` is ever changed (Talkie 1 §10.1). */
  turnDetection: TurnDetection;
  window: WindowState;
  usage: UsageClock;
  log: TranscriptLog;
  live: readonly LiveTranscriptItem[];
  /** Every provider call id already handed to voiceTool (each exactly once). */
  toolCalls: readonly string[];
  /** Tools running now, with their status text. */
  running: readonly { callId: string; label: string }[];
  /** The last `now` seen (ticks, open, close): the time left is computed from it. */
  now: number;
  /** Function-call arguments the provider finished, waiting for their item to be done. */
  pendingCalls: readonly PendingCall[];
  /** Client events given an `event_id` so far. */
  eventCount: number;
  /** The last `session.update`s sent, by event id: what they set, and for which proposal. */
  updates: readonly SentUpdate[];
  /** A provider `error` the user must know about; `lasting` ones stay until another replaces them. */
  providerError?: { message: string; lasting: boolean };
}

interface PendingCall {
  callId: string;
  itemId?: string;
  responseId?: string;
  name?: string;
  arguments: string;
}

interface SentUpdate {
  eventId: string;
  createResponse: boolean | undefined;
  /** The proposal a `create_response: false` update was sent for (C2). */
  actionId?: string;
}

/** A provider `error` event, as the log gets it. */
export interface ProviderErrorReport {
  type?: string;
  code?: string;
  message: string;
  param?: string;
  /** The client event it answers. */
  eventId?: string;
  /** It answers one of this call's turn-detection updates. */
  answersUpdate: boolean;
}

export type CallInput =
  | { type: 'dc.open'; now: number }
  /** One data-channel message, as received (text; anything else is ignored). */
  | { type: 'dc.message'; data: unknown }
  /** The data channel or the peer connection closed without the user hanging up. */
  | { type: 'dc.close'; now: number }
  /** The `talkie.voiceTool` answer for one provider call. */
  | { type: 'tool.result'; providerCallId: string; result: VoiceToolResult }
  /** The `talkie.voiceTool` call itself failed (the call ended in main, the network, …). */
  | { type: 'tool.error'; providerCallId: string; message: string }
  /** The `talkie.voiceDecide` answer: done, 409 conflict/stale, 410 expired, or another failure. */
  | { type: 'decision.result'; actionId: string; outcome: 'ok' | 'conflict' | 'stale' | 'expired' | 'failed' }
  /** The action was decided by its button (or changed elsewhere): the voice window gives way. */
  | { type: 'action.settled'; actionId: string }
  | { type: 'usage.reply'; seconds: number; remainingSeconds: number }
  | { type: 'tick'; now: number }
  | { type: 'mute' }
  | { type: 'unmute' }
  /** Push to talk: the key went down (`down: true`) or up. */
  | { type: 'ptt'; down: boolean }
  /**
   * The call's global shortcut was pressed (main hears it while the window is in the background, and
   * only a press, never a release): with push to talk it starts talking or, pressed again, stops; hands
   * free it mutes or unmutes.
   */
  | { type: 'shortcut' }
  | { type: 'mode'; mode: CallMode }
  | { type: 'hangup'; now: number; reason: 'user' | 'left' | 'error' };

export type CallAnnouncement =
  | { kind: 'connected' }
  | { kind: 'muted' }
  | { kind: 'unmuted' }
  | { kind: 'mode'; mode: CallMode }
  | { kind: 'warning'; remainingSeconds: number }
  /** The confirmation window opened: say "yes, <keyword>" now. */
  | { kind: 'confirm-open'; actionId: string; keyword?: string | undefined }
  /** The window closed without a voice decision: the button decides. */
  | { kind: 'confirm-closed'; actionId: string; reason: CloseReason }
  | { kind: 'ended'; reason: CallEndReason };

export type CallEffect =
  /** Send on the data channel: already checked by `allowedClientEvent`. */
  | { type: 'send'; event: ClientEvent }
  /** A message the gate stopped (a bug, never sent): for the log. */
  | { type: 'refused'; reason: string }
  /** The provider sent an `error` event: for main's log (`talkie.voiceProviderError`). */
  | { type: 'provider-error'; error: ProviderErrorReport }
  /** `talkie.voiceTool`, once per provider call id. */
  | { type: 'tool'; providerCallId: string; name: string; arguments: string }
  /** Run updates for the thread: the tool's status line, its cards and actions. */
  | { type: 'show'; updates: RunUpdate[] }
  /** A transcript line for the thread (added, then updated in place). */
  | { type: 'spoken'; item: LiveTranscriptItem }
  /** `talkie.voiceTranscript`, once per item, in provider order. */
  | { type: 'transcript'; role: 'user' | 'assistant'; itemId: string; text: string }
  /** `talkie.voiceUsage` every 30 s; `final`: `talkie.voiceEnd` (once, after every transcript). */
  | { type: 'usage'; seconds: number; final: boolean }
  /** `talkie.voiceDecide` (C10: the window closed before this). */
  | { type: 'decide'; actionId: string; paramsHash: string; decision: 'confirm' | 'cancel' }
  /** GET the action again (C12): the button decides. */
  | { type: 'reload-action'; actionId: string }
  /** Local playback of the provider's audio: `false` stops it at once (barge-in), `true` plays again. */
  | { type: 'playback'; playing: boolean }
  /** The outgoing track: enabled only while this is true (mute, push to talk). */
  | { type: 'microphone'; open: boolean }
  /** Close the peer connection and data channel, stop the tracks. */
  | { type: 'hangup'; reason: CallEndReason }
  | { type: 'announce'; announcement: CallAnnouncement };

export interface CallStep {
  state: CallState;
  effects: CallEffect[];
}

const maxLive = 200;
const maxToolCalls = 10_000;
const maxPendingCalls = 16;
const maxUpdates = 8;
/** What the model hears instead of a tool's output when the tool could not run or answer. */
const toolFailed = (why: string) => `The tool failed: ${why}`;
/** Said to the model (and shown) when voiceTool answered that the call id was already used (409). */
export const toolAlreadyRun = 'This tool call was already made once, so it was not run again.';
/** Said to the model (and shown) when a tool's answer cannot pass the send gate (too long). */
export const toolAnswerTooLong = "The tool's answer was too long to pass on to the assistant.";

export function startCall(setup: CallSetup, options: { mode?: CallMode; now: number }): CallState {
  return {
    setup,
    link: 'connecting',
    mode: options.mode ?? 'hands-free',
    muted: false,
    talking: false,
    userSpeaking: false,
    responses: [],
    turnDetection: defaultTurnDetection,
    window: initialWindow,
    usage: startUsageClock(setup),
    log: emptyTranscriptLog,
    live: [],
    toolCalls: [],
    running: [],
    now: options.now,
    pendingCalls: [],
    eventCount: 0,
    updates: [],
  };
}

/** The outgoing track is enabled only in a live call, unmuted, and (push to talk) while the key is held. */
export function microphoneOpen(state: CallState): boolean {
  return state.link === 'open' && !state.muted && (state.mode === 'hands-free' || state.talking);
}

export function callPhase(state: CallState): CallPhase {
  if (state.link === 'ended') return 'ended';
  if (state.link === 'connecting') return 'connecting';
  if (state.playing !== undefined) return 'speaking';
  if (state.userSpeaking) return 'listening';
  if (state.responses.length > 0 || state.running.length > 0) return 'thinking';
  return 'listening';
}

/** Talkie 1 §10.4 voice confirmation rules need the action's policy as methods. */
export function proposalOf(action: Action): VoiceProposal {
  return {
    actionId: action.id,
    paramsHash: action.paramsHash,
    methods: [...(action.buttons ? ['button'] : []), ...(action.voice ? ['voice'] : [])],
    ...(action.voiceKeyword === undefined ? {} : { keyword: action.voiceKeyword }),
    ...(action.expiresAt === undefined ? {} : { expiresAt: action.expiresAt }),
  };
}

/**
 * The one step function. Inner steps may only propose client events; here each is checked by
 * `allowedClientEvent` (refused ones become `refused`), and none leaves unless the channel is open.
 * A change of the microphone state or of the confirmation line is added as its own effect.
 */
export function stepCall(state: CallState, input: CallInput): CallStep {
  const inner = step(state, input);
  let next = inner.state;
  const effects: CallEffect[] = [];
  for (const effect of inner.effects) {
    if (effect.type !== 'send') {
      effects.push(effect);
      continue;
    }
    if (next.link !== 'open') continue;
    let event = effect.event;
    if (event.type === 'session.update') {
      // Numbered, so that a provider `error` answering it names it (its `event_id`).
      const eventId = `agentdesk_${(next.eventCount + 1).toString()}`;
      event = { ...event, event_id: eventId };
      const createResponse = updatedCreateResponse(event);
      const forProposal = createResponse === false && next.window.phase === 'proposing' ? { actionId: next.window.proposal.actionId } : {};
      next = { ...next, eventCount: next.eventCount + 1, updates: [...next.updates, { eventId, createResponse, ...forProposal }].slice(-maxUpdates) };
    }
    const check = allowedClientEvent(event);
    effects.push(check.ok ? { type: 'send', event: check.event } : { type: 'refused', reason: check.reason });
  }
  const wasOpen = microphoneOpen(state);
  const isOpen = microphoneOpen(next);
  if (wasOpen !== isOpen) effects.push({ type: 'microphone', open: isOpen });
  if (next.link !== 'ended') effects.push(...windowAnnouncements(state.window, next.window));
  return { state: next, effects };
}

function windowAnnouncements(before: WindowState, after: WindowState): CallEffect[] {
  const was = windowView(before);
  const now = windowView(after);
  if (now.line === 'listening' && was.line !== 'listening' && after.phase === 'open') {
    return [{ type: 'announce', announcement: { kind: 'confirm-open', actionId: now.actionId, keyword: after.proposal.keyword } }];
  }
  if (now.line === 'use-button' && was.line !== 'use-button')
    return [{ type: 'announce', announcement: { kind: 'confirm-closed', actionId: now.actionId, reason: now.reason } }];
  return [];
}

function windowConfig(state: CallState): WindowConfig {
  const { consent, locale, voiceConfirm } = state.setup;
  return {
    voiceConfirm,
    turnDetection: state.turnDetection,
    vocabulary: { confirm: consent.confirm, refuse: consent.refuse, ...(locale === undefined ? {} : { locale }) },
  };
}

function fromWindow(effects: WindowEffect[]): CallEffect[] {
  return effects.map((effect): CallEffect => {
    switch (effect.type) {
      case 'send':
        return effect;
      case 'decide':
        return { type: 'decide', actionId: effect.actionId, paramsHash: effect.paramsHash, decision: effect.decision };
      case 'reload-action':
        return effect;
    }
  });
}

function stepWindowOf(state: CallState, input: WindowInput): CallStep {
  const next = stepWindow(state.window, input, windowConfig(state));
  return { state: { ...state, window: next.state }, effects: fromWindow(next.effects) };
}

function fromUsage(state: CallState, effects: UsageEffect[]): CallStep {
  let next = state;
  const out: CallEffect[] = [];
  for (const effect of effects) {
    if (effect.type === 'warn') out.push({ type: 'announce', announcement: { kind: 'warning', remainingSeconds: effect.remainingSeconds } });
    else if (effect.type === 'report' && !effect.final) out.push({ type: 'usage', seconds: effect.seconds, final: false });
    else if (effect.type === 'hangup') {
      const finish = finishCall(
        next,
        effect.reason,
        effects.find((e) => e.type === 'report' && e.final),
      );
      next = finish.state;
      out.push(...finish.effects);
      break;
    }
  }
  return { state: next, effects: out };
}

function step(state: CallState, input: CallInput): CallStep {
  const same: CallStep = { state, effects: [] };
  if (state.link === 'ended') {
    // After the end only results of calls already made arrive: their cards still belong in the thread.
    if (input.type === 'tool.result' || input.type === 'tool.error') return toolOutcome(state, input);
    return same;
  }
  switch (input.type) {
    case 'dc.open': {
      if (state.link === 'open') return same;
      const usage = stepUsage(state.usage, { type: 'connected', now: input.now }).clock;
      return { state: { ...state, link: 'open', usage, now: input.now }, effects: [{ type: 'announce', announcement: { kind: 'connected' } }] };
    }
    case 'dc.close':
      return end({ ...state, now: input.now }, 'connection_lost', input.now);
    case 'hangup':
      return end({ ...state, now: input.now }, input.reason, input.now);
    case 'dc.message': {
      if (typeof input.data !== 'string') return same;
      const parsed = parseRealtimeMessage(input.data);
      return parsed.kind === 'event' ? onProvider(state, parsed.event) : same;
    }
    case 'tool.result':
    case 'tool.error':
      return toolOutcome(state, input);
    case 'decision.result':
      return stepWindowOf(state, { type: 'decision.result', actionId: input.actionId, outcome: input.outcome });
    case 'action.settled':
      return stepWindowOf(state, { type: 'action.settled', actionId: input.actionId });
    case 'usage.reply':
      return { state: { ...state, usage: stepUsage(state.usage, input).clock }, effects: [] };
    case 'tick': {
      const ticked = { ...state, now: input.now };
      const windowStep = stepWindowOf(ticked, { type: 'clock', now: input.now });
      const usage = stepUsage(windowStep.state.usage, { type: 'tick', now: input.now });
      const usageStep = fromUsage({ ...windowStep.state, usage: usage.clock }, usage.effects);
      return { state: usageStep.state, effects: [...windowStep.effects, ...usageStep.effects] };
    }
    case 'mute':
      // Mute really stops: the track is disabled and what the provider buffered is dropped.
      return state.muted
        ? same
        : {
            state: { ...state, muted: true },
            effects: [
              { type: 'send', event: { type: 'input_audio_buffer.clear' } },
              { type: 'announce', announcement: { kind: 'muted' } },
            ],
          };
    case 'unmute':
      return state.muted ? { state: { ...state, muted: false }, effects: [{ type: 'announce', announcement: { kind: 'unmuted' } }] } : same;
    case 'ptt':
      return state.mode === 'push-to-talk' && state.talking !== input.down ? { state: { ...state, talking: input.down }, effects: [] } : same;
    case 'shortcut':
      if (state.link !== 'open') return same;
      if (state.mode === 'push-to-talk') return step(state, { type: 'ptt', down: !state.talking });
      return step(state, { type: state.muted ? 'unmute' : 'mute' });
    case 'mode':
      return state.mode === input.mode
        ? same
        : { state: { ...state, mode: input.mode, talking: false }, effects: [{ type: 'announce', announcement: { kind: 'mode', mode: input.mode } }] };
  }
}

function onProvider(state: CallState, event: RealtimeEvent): CallStep {
  const toWindow = (next: CallState, effects: CallEffect[] = []): CallStep => {
    const windowStep = stepWindowOf(next, { type: 'provider', event });
    return { state: windowStep.state, effects: [...effects, ...windowStep.effects] };
  };
  switch (event.type) {
    case 'session.created':
      return { state: { ...state, turnDetection: sessionTurnDetection(event) ?? defaultTurnDetection }, effects: [] };
    case 'input_audio_buffer.speech_started': {
      // Barge-in: the user talks over the assistant, so its audio stops here at once (the provider
      // cancels the response itself), unless the server's turn detection says not to interrupt.
      const bargeIn = state.playing !== undefined && state.turnDetection.interrupt_response !== false;
      const next: CallState = { ...state, userSpeaking: true, ...(bargeIn ? { playing: undefined } : {}) };
      return toWindow(next, bargeIn ? [{ type: 'playback', playing: false }] : []);
    }
    case 'input_audio_buffer.speech_stopped':
      return toWindow({ ...state, userSpeaking: false });
    case 'conversation.item.added': {
      const { item } = event;
      const log = noteItem(state.log, item, event.previous_item_id);
      const role = item.role === 'user' || item.role === 'assistant' ? item.role : undefined;
      if (item.type !== 'message' || role === undefined || state.live.some((line) => line.itemId === item.id)) return { state: { ...state, log }, effects: [] };
      const line: LiveTranscriptItem = { itemId: item.id, role, state: 'hearing', text: '' };
      return { state: { ...state, log, live: [...state.live, line].slice(-maxLive) }, effects: [{ type: 'spoken', item: line }] };
    }
    case 'conversation.item.input_audio_transcription.completed':
      return toWindow(...transcribed(state, 'user', event.item_id, event.transcript));
    case 'conversation.item.input_audio_transcription.failed':
      return toWindow(...transcribed(state, 'user', event.item_id, undefined));
    case 'response.output_audio_transcript.done': {
      const [next, effects] = transcribed(state, 'assistant', event.item_id, event.transcript);
      return { state: next, effects };
    }
    case 'session.updated':
      return toWindow(state);
    case 'response.created': {
      // A passing problem is not shown past the next answer; a refused setting stays said.
      const { providerError, ...rest } = state;
      const kept = providerError?.lasting ? { providerError } : {};
      return toWindow({ ...rest, ...kept, responses: [...state.responses.filter((id) => id !== event.response.id), event.response.id].slice(-16) });
    }
    case 'response.done': {
      // Arguments of that response whose item never finished are forgotten (they never run).
      const pendingCalls = state.pendingCalls.filter((call) => call.responseId !== event.response.id);
      return toWindow({ ...state, pendingCalls, responses: state.responses.filter((id) => id !== event.response.id) });
    }
    case 'output_audio_buffer.started':
      return toWindow({ ...state, playing: event.response_id }, [{ type: 'playback', playing: true }]);
    case 'output_audio_buffer.stopped':
    case 'output_audio_buffer.cleared':
      return toWindow(state.playing === event.response_id ? { ...state, playing: undefined } : state);
    case 'response.function_call_arguments.done': {
      // Only remembered: it is also sent for a call cut off by an interruption (its item then ends
      // `incomplete`), so the call runs when its item is done and completed.
      if (state.toolCalls.includes(event.call_id)) return { state, effects: [] };
      const call: PendingCall = {
        callId: event.call_id,
        arguments: event.arguments,
        ...(event.item_id === undefined ? {} : { itemId: event.item_id }),
        ...(event.response_id === undefined ? {} : { responseId: event.response_id }),
        ...(event.name === undefined ? {} : { name: event.name }),
      };
      return {
        state: { ...state, pendingCalls: [...state.pendingCalls.filter((known) => known.callId !== call.callId), call].slice(-maxPendingCalls) },
        effects: [],
      };
    }
    case 'response.output_item.done':
      return event.item.type === 'function_call' ? functionCallDone(state, event.item) : { state, effects: [] };
    case 'error':
      return providerError(state, event.error);
  }
}

/**
 * A `function_call` item is done: it runs only when `completed` (OpenAI's own Agents SDK runs tools on
 * this event, not on the arguments). The call id, name and arguments come from the item, else from its
 * `response.function_call_arguments.done` (older providers leave `name` off that event).
 */
function functionCallDone(state: CallState, item: Extract<RealtimeEvent, { type: 'response.output_item.done' }>['item']): CallStep {
  // Its arguments event: by call id, or (an item without one) by item id.
  const known = state.pendingCalls.find((call) =>
    item.call_id === undefined ? item.id !== undefined && call.itemId === item.id : call.callId === item.call_id,
  );
  const callId = item.call_id ?? known?.callId;
  const next: CallState = { ...state, pendingCalls: state.pendingCalls.filter((call) => call !== known) };
  if (item.status !== 'completed' || callId === undefined || state.toolCalls.includes(callId)) return { state: next, effects: [] };
  const toolCalls = [...state.toolCalls, callId].slice(-maxToolCalls);
  const name = item.name ?? known?.name;
  const args = item.arguments ?? known?.arguments;
  if (name === undefined || args === undefined) {
    // The model waits for an answer to this call: it is told that the tool could not run.
    return stepWindowOf(
      { ...next, toolCalls },
      { type: 'tool.result', callId, output: toolFailed('the speech provider did not say which tool to run or with what.') },
    );
  }
  const started = toolStarted(state.setup.labels, callId, name);
  return {
    state: { ...next, toolCalls, running: [...state.running, { callId, label: started.label }] },
    effects: [
      { type: 'show', updates: [started] },
      { type: 'tool', providerCallId: callId, name, arguments: args },
    ],
  };
}

/**
 * Every provider `error` goes to the log. The user is told about the ones that matter to the call:
 * a refused turn-detection update (automatic answers are not as the app believes; the confirmation
 * window of that proposal closes, C2) and the provider's own failures (`server_error`).
 */
function providerError(state: CallState, error: Extract<RealtimeEvent, { type: 'error' }>['error']): CallStep {
  const update = error.event_id ? state.updates.find((sent) => sent.eventId === error.event_id) : undefined;
  const report: ProviderErrorReport = {
    message: error.message,
    answersUpdate: update !== undefined,
    ...(error.type === undefined ? {} : { type: error.type }),
    ...(error.code === undefined || error.code === null ? {} : { code: error.code }),
    ...(error.param === undefined || error.param === null ? {} : { param: error.param }),
    ...(error.event_id === undefined || error.event_id === null ? {} : { eventId: error.event_id }),
  };
  const effects: CallEffect[] = [{ type: 'provider-error', error: report }];
  if (update === undefined && error.type !== 'server_error') return { state, effects };
  const shown: CallState = { ...state, providerError: { message: error.message, lasting: update !== undefined } };
  if (update?.actionId === undefined) return { state: shown, effects };
  const windowStep = stepWindowOf(shown, { type: 'turn-detection.refused', actionId: update.actionId });
  return { state: windowStep.state, effects: [...effects, ...windowStep.effects] };
}

/** A final transcript (or a failed one: `text` undefined): the live line, then the posts now due (rules 19–20). */
function transcribed(state: CallState, role: 'user' | 'assistant', itemId: string, text: string | undefined): [CallState, CallEffect[]] {
  const added = addTranscript(state.log, role, itemId, text);
  const known = state.live.find((line) => line.itemId === itemId);
  const heard = text !== undefined && text.trim() !== '';
  const line: LiveTranscriptItem = { itemId, role, state: heard ? 'final' : 'unavailable', text: heard ? text : '' };
  const effects: CallEffect[] = [];
  let live = state.live;
  // A duplicated transcript event changes nothing; a failure never replaces a transcript already shown.
  if (!known || (known.state !== 'final' && (known.state !== line.state || known.text !== line.text))) {
    live = known ? state.live.map((entry) => (entry.itemId === itemId ? line : entry)) : [...state.live, line].slice(-maxLive);
    effects.push({ type: 'spoken', item: line });
  }
  effects.push(...added.posts.map(postEffect));
  return [{ ...state, log: added.log, live }, effects];
}

const postEffect = (post: TranscriptPost): CallEffect => ({ type: 'transcript', role: post.role, itemId: post.itemId, text: post.text });

/** A voice tool's line as it starts: the session's status text for the tool (Talkie 1 §10.1 `labels`), else its name. */
export function toolStarted(labels: Readonly<Record<string, string>>, callId: string, name: string): Extract<RunUpdate, { type: 'tool.start' }> {
  return { type: 'tool.start', toolCallId: callId, label: labels[name] ?? name };
}

/**
 * A voice tool's answer (`talkie.voiceTool`'s, or why that call failed): what the thread shows (its
 * cards and actions, then its line done or failed), what the model hears, and the pending proposal
 * it carries. The one rule for both sides: the call controller (what goes back on the data channel)
 * and main, which shows the lines in the conversation.
 */
export function toolAnswer(
  callId: string,
  answer: { result: VoiceToolResult } | { error: string },
): { shown: RunUpdate[]; output: string; proposal?: VoiceProposal } {
  let output: string;
  let proposal: VoiceProposal | undefined;
  const shown: RunUpdate[] = [];
  if ('error' in answer) {
    output = toolFailed(answer.error.slice(0, 2000));
    shown.push({ type: 'tool.end', toolCallId: callId, ok: false, error: answer.error.slice(0, 500) });
  } else if (answer.result.outcome === 'ok') {
    output = answer.result.output;
    shown.push(...answer.result.updates, { type: 'tool.end', toolCallId: callId, ok: true });
    const pending = answer.result.updates.filter((update) => update.type === 'action' && update.action.status === 'pending').at(-1);
    if (pending?.type === 'action') proposal = proposalOf(pending.action);
  } else if (answer.result.outcome === 'failed') {
    output = answer.result.output;
    shown.push({ type: 'tool.end', toolCallId: callId, ok: false, error: answer.result.message.slice(0, 500) });
  } else {
    // The server already had this call id (409): the tool did not run now, and the model, which still
    // waits for this call's output (none was sent from here), is told so.
    output = toolFailed(toolAlreadyRun);
    shown.push({ type: 'tool.end', toolCallId: callId, ok: false, error: toolAlreadyRun });
  }
  if (!allowedClientEvent(functionCallOutput(callId, output)).ok) {
    // An answer the send gate refuses (too long) would leave the model waiting: it hears of a failure instead.
    output = toolFailed(toolAnswerTooLong);
    shown.splice(-1, 1, { type: 'tool.end', toolCallId: callId, ok: false, error: toolAnswerTooLong });
    proposal = undefined;
  }
  return { shown, output, ...(proposal === undefined ? {} : { proposal }) };
}

/** Talkie 1 §10.2: the tool's output goes back unchanged; a pending action it carries may open the voice window. */
function toolOutcome(state: CallState, input: Extract<CallInput, { type: 'tool.result' | 'tool.error' }>): CallStep {
  const callId = input.providerCallId;
  if (!state.running.some((tool) => tool.callId === callId)) return { state, effects: [] };
  const next: CallState = { ...state, running: state.running.filter((tool) => tool.callId !== callId) };
  const { shown, output, proposal } = toolAnswer(callId, input.type === 'tool.error' ? { error: input.message } : { result: input.result });
  const effects: CallEffect[] = [{ type: 'show', updates: shown }];
  if (next.link !== 'open') return { state: next, effects };
  const windowStep = stepWindowOf(next, { type: 'tool.result', callId, output, ...(proposal ? { proposal } : {}) });
  return { state: windowStep.state, effects: [...effects, ...windowStep.effects] };
}

function end(state: CallState, reason: 'user' | 'left' | 'error' | 'connection_lost', now: number): CallStep {
  const usage = stepUsage(state.usage, { type: 'end', now, reason: reason === 'user' || reason === 'left' ? 'user' : 'error' });
  return finishCall(
    { ...state, usage: usage.clock },
    reason,
    usage.effects.find((effect) => effect.type === 'report' && effect.final),
  );
}

/**
 * Rules 22 and 25: hang up first (the tracks stop), then whatever transcripts wait, in order, then the
 * one final usage report (after it main forgets the call). Lines still being heard become unavailable;
 * tools still running keep their place, so that their cards still reach the thread.
 */
function finishCall(state: CallState, reason: CallEndReason, finalReport: UsageEffect | undefined): CallStep {
  const closedWindow = stepWindow(state.window, { type: 'hangup' }, windowConfig(state)).state;
  const flushed = flushTranscripts(state.log);
  const effects: CallEffect[] = [{ type: 'hangup', reason }];
  const live = state.live.map((line): LiveTranscriptItem => (line.state === 'hearing' ? { ...line, state: 'unavailable' } : line));
  for (const line of live) if (state.live.find((before) => before.itemId === line.itemId)?.state === 'hearing') effects.push({ type: 'spoken', item: line });
  effects.push(...flushed.posts.map(postEffect));
  if (finalReport?.type === 'report') effects.push({ type: 'usage', seconds: finalReport.seconds, final: true });
  effects.push({ type: 'announce', announcement: { kind: 'ended', reason } });
  const { playing: _stopped, ...rest } = state;
  return {
    state: { ...rest, link: 'ended', ended: reason, window: closedWindow, log: flushed.log, live, userSpeaking: false, responses: [], talking: false },
    effects,
  };
}

/** What the call control and the confirmation line show. */
export type ConfirmationLine =
  | { line: 'none' }
  | { line: 'proposing'; actionId: string }
  | { line: 'listening'; actionId: string; keyword?: string | undefined; missesLeft: 1 | 2 }
  | { line: 'deciding'; actionId: string; decision: 'confirm' | 'cancel' }
  | { line: 'use-button'; actionId: string; reason: CloseReason };

export interface CallView {
  phase: CallPhase;
  userSpeaking: boolean;
  muted: boolean;
  mode: CallMode;
  talking: boolean;
  microphoneOpen: boolean;
  timeLeftSeconds: number;
  /** The time left is within the session's warnSeconds (rule 24). */
  warning: boolean;
  transcript: readonly LiveTranscriptItem[];
  confirmation: ConfirmationLine;
  /** Status texts of the tools running now. */
  tools: readonly string[];
  ended?: CallEndReason;
  providerError?: string;
}

export function callView(state: CallState): CallView {
  const timeLeftSeconds = remainingSeconds(state.usage, state.now);
  const position = new Map(state.log.items.map((item, index) => [item.id, index]));
  const transcript = [...state.live].sort((a, b) => (position.get(a.itemId) ?? Infinity) - (position.get(b.itemId) ?? Infinity));
  const line = windowView(state.window);
  const confirmation: ConfirmationLine =
    line.line === 'listening' && state.window.phase === 'open'
      ? { ...line, keyword: state.window.proposal.keyword }
      : line.line === 'listening'
        ? { line: 'none' }
        : line;
  return {
    phase: callPhase(state),
    userSpeaking: state.userSpeaking,
    muted: state.muted,
    mode: state.mode,
    talking: state.talking,
    microphoneOpen: microphoneOpen(state),
    timeLeftSeconds,
    warning: state.link === 'open' && timeLeftSeconds <= state.setup.warnSeconds,
    transcript,
    confirmation,
    tools: state.running.map((tool) => tool.label),
    ...(state.ended === undefined ? {} : { ended: state.ended }),
    ...(state.providerError === undefined ? {} : { providerError: state.providerError.message }),
  };
}
