import { classifyUtterance, type ConsentVocabulary } from './confirm-words';
import {
  functionCallOutput,
  responseCreate,
  sessionTurnDetection,
  turnDetectionUpdate,
  type ClientEvent,
  type RealtimeEvent,
  type TurnDetection,
} from './realtime-events';

/**
 * Talkie 1 §10.4 (brief rules C1–C15) as a pure state machine:
 * idle → proposing → open(misses 0..1) → deciding → closed.
 * `stepWindow(state, input)` returns the next state and the effects to perform, in order. The caller
 * sends every `send` through `allowedClientEvent`, calls `POST decision` for `decide`, and feeds back
 * provider events and app inputs. The window closes synchronously when it decides (C10), so a
 * duplicated transcript can never produce a second `decide`.
 */
export interface VoiceProposal {
  actionId: string;
  paramsHash: string;
  /** The action's `confirm.methods` (C1). */
  methods: readonly string[];
  /** `confirm.voice.keyword` (C7). */
  keyword?: string;
  /** `expiresAt` (C14). */
  expiresAt?: string;
}

export interface WindowConfig {
  /** `capabilities.actions.voiceConfirm` (C1). */
  voiceConfirm: boolean;
  /** The server's turn detection from `session.created`, so only `create_response` changes (C2, C13). */
  turnDetection: TurnDetection;
  /** `consent` of the voice session and its locale (C7, C8). */
  vocabulary: ConsentVocabulary;
}

/** `setting_refused`: the provider refused (or never applied) turning automatic responses off (C2). */
export type CloseReason =
  'decided' | 'refused' | 'two_misses' | 'conflict' | 'expired' | 'new_proposal' | 'hangup' | 'settled' | 'decision_failed' | 'interrupted' | 'setting_refused';

export type WindowState =
  | { phase: 'idle' }
  /** `turnsOff`: the provider said (`session.updated`) that automatic responses are off, C2's precondition. */
  | { phase: 'proposing'; proposal: VoiceProposal; turnsOff: boolean; responseId?: string }
  | {
      phase: 'open';
      proposal: VoiceProposal;
      misses: 0 | 1;
      /** speech_started item ids seen while open (C5). */ heard: readonly string[];
      handled: readonly string[];
    }
  | { phase: 'deciding'; proposal: VoiceProposal; decision: 'confirm' | 'cancel' }
  | { phase: 'closed'; actionId: string; reason: CloseReason };

export type WindowInput =
  /** A voiceTool result (Talkie 1 §10.2); `proposal` when its events carry a pending `talkie.action`. */
  | { type: 'tool.result'; callId: string; output: string; proposal?: VoiceProposal }
  | { type: 'provider'; event: RealtimeEvent }
  /** The provider refused the `session.update` that turned automatic responses off for this action. */
  | { type: 'turn-detection.refused'; actionId: string }
  /** The `POST decision` answer: 200, 409 conflict/stale, 410 expired, or anything else. */
  | { type: 'decision.result'; actionId: string; outcome: 'ok' | 'conflict' | 'stale' | 'expired' | 'failed' }
  /** The action was decided elsewhere (button, another device) or left `pending`. */
  | { type: 'action.settled'; actionId: string }
  | { type: 'clock'; now: number }
  | { type: 'hangup' };

export type WindowEffect =
  | { type: 'send'; event: ClientEvent }
  | { type: 'decide'; actionId: string; paramsHash: string; decision: 'confirm' | 'cancel'; method: 'voice' }
  /** C12: 409 → reload the action (`GET action`); the button decides. */
  | { type: 'reload-action'; actionId: string };

export interface WindowStep {
  state: WindowState;
  effects: WindowEffect[];
}

export const initialWindow: WindowState = { phase: 'idle' };
const maxRemembered = 64;

/** C1: voice may decide only actions whose policy lists voice, on servers that allow it. */
export function voiceMayConfirm(config: Pick<WindowConfig, 'voiceConfirm'>, proposal: Pick<VoiceProposal, 'methods'>): boolean {
  return config.voiceConfirm && proposal.methods.includes('voice');
}

const send = (event: ClientEvent): WindowEffect => ({ type: 'send', event });

/** Every close restores automatic responses (C13). */
function close(config: WindowConfig, actionId: string, reason: CloseReason, effects: WindowEffect[] = []): WindowStep {
  return { state: { phase: 'closed', actionId, reason }, effects: [...effects, send(turnDetectionUpdate(config.turnDetection, true))] };
}

const windowAction = (state: WindowState): string | undefined =>
  state.phase === 'idle' ? undefined : state.phase === 'closed' ? undefined : state.proposal.actionId;

export function stepWindow(state: WindowState, input: WindowInput, config: WindowConfig): WindowStep {
  const same = (effects: WindowEffect[] = []): WindowStep => ({ state, effects });
  const current = windowAction(state);
  switch (input.type) {
    case 'tool.result': {
      const output = [send(functionCallOutput(input.callId, input.output)), send(responseCreate)];
      if (!input.proposal) return same(output);
      // C14: any new proposal closes the old window (never silently replaced), voice or not.
      const closing = current !== undefined ? close(config, current, 'new_proposal') : { state, effects: [] };
      if (!voiceMayConfirm(config, input.proposal)) return { state: closing.state, effects: [...closing.effects, ...output] };
      // C2 before C3: automatic responses off, then the model reads the proposal.
      return {
        state: { phase: 'proposing', proposal: input.proposal, turnsOff: false },
        effects: [...closing.effects, send(turnDetectionUpdate(config.turnDetection, false)), ...output],
      };
    }
    case 'provider':
      return onProvider(state, input.event, config);
    case 'turn-detection.refused':
      // Automatic responses stayed on: a "yes" would also start an answer, so voice does not decide.
      // Nothing to restore (C13): the provider would only refuse that update too.
      return (state.phase === 'proposing' || state.phase === 'open') && state.proposal.actionId === input.actionId
        ? { state: { phase: 'closed', actionId: input.actionId, reason: 'setting_refused' }, effects: [] }
        : same();
    case 'decision.result': {
      if (state.phase !== 'deciding' || state.proposal.actionId !== input.actionId) return same();
      const reasons = {
        ok: state.decision === 'confirm' ? 'decided' : 'refused',
        conflict: 'conflict',
        stale: 'conflict',
        expired: 'expired',
        failed: 'decision_failed',
      } as const;
      const reload: WindowEffect[] = reasons[input.outcome] === 'conflict' ? [{ type: 'reload-action', actionId: input.actionId }] : [];
      // Turn detection came back on when the window closed for the decision (C10, C13).
      return { state: { phase: 'closed', actionId: input.actionId, reason: reasons[input.outcome] }, effects: reload };
    }
    case 'action.settled':
      return current === input.actionId && state.phase !== 'deciding' ? close(config, input.actionId, 'settled') : same();
    case 'clock': {
      if (state.phase !== 'proposing' && state.phase !== 'open') return same();
      const expiresAt = state.proposal.expiresAt === undefined ? Number.NaN : Date.parse(state.proposal.expiresAt);
      return input.now >= expiresAt ? close(config, state.proposal.actionId, 'expired') : same();
    }
    case 'hangup':
      return current !== undefined && state.phase !== 'deciding' ? close(config, current, 'hangup') : same();
  }
}

function onProvider(state: WindowState, event: RealtimeEvent, config: WindowConfig): WindowStep {
  const same: WindowStep = { state, effects: [] };
  switch (event.type) {
    case 'session.updated':
      // The provider applied an update; it answers a refused one with `error` and no session.updated.
      return state.phase === 'proposing' && sessionTurnDetection(event)?.create_response === false
        ? { state: { ...state, turnsOff: true }, effects: [] }
        : same;
    case 'response.created':
      // C3: the first response after our response.create reads the proposal (auto responses are off).
      return state.phase === 'proposing' && state.responseId === undefined ? { state: { ...state, responseId: event.response.id }, effects: [] } : same;
    case 'output_audio_buffer.stopped':
      // C4: open only when the proposal's audio has finished playing (not on response.done), and only
      // when the provider applied C2 (its session.updated comes before the response it reads out).
      if (state.phase !== 'proposing' || state.responseId === undefined || event.response_id !== state.responseId) return same;
      return state.turnsOff
        ? { state: { phase: 'open', proposal: state.proposal, misses: 0, heard: [], handled: [] }, effects: [] }
        : close(config, state.proposal.actionId, 'setting_refused');
    case 'output_audio_buffer.cleared':
    case 'response.done': {
      // The proposal was cut off (barge-in, cancelled, failed): it was not heard whole, so the button decides.
      const cut = event.type === 'output_audio_buffer.cleared' || (event.response.status !== undefined && event.response.status !== 'completed');
      const responseId = event.type === 'response.done' ? event.response.id : event.response_id;
      return state.phase === 'proposing' && cut && responseId === state.responseId ? close(config, state.proposal.actionId, 'interrupted') : same;
    }
    case 'input_audio_buffer.speech_started':
      // C5: only speech that starts while the window is open may count.
      return state.phase === 'open' ? { state: { ...state, heard: remember(state.heard, event.item_id) }, effects: [] } : same;
    case 'conversation.item.input_audio_transcription.failed':
      if (state.phase !== 'open' || state.handled.includes(event.item_id)) return same;
      // Nothing was understood: the model (which hears the audio) answers; not a miss.
      return { state: { ...state, handled: remember(state.handled, event.item_id) }, effects: [send(responseCreate)] };
    case 'conversation.item.input_audio_transcription.completed':
      return state.phase === 'open' ? onTranscript(state, event.item_id, event.transcript, config) : same;
    default:
      return same;
  }
}

function onTranscript(state: Extract<WindowState, { phase: 'open' }>, itemId: string, transcript: string, config: WindowConfig): WindowStep {
  if (state.handled.includes(itemId)) return { state, effects: [] };
  const handled = remember(state.handled, itemId);
  // C5: speech that started before the window opened never counts; the model still answers it.
  if (!state.heard.includes(itemId)) return { state: { ...state, handled }, effects: [send(responseCreate)] };
  const { proposal } = state;
  const meaning = classifyUtterance(transcript, config.vocabulary, proposal.keyword);
  if (meaning.kind === 'conversation') {
    // C9: auto responses are off, so the client asks for the answer; the second miss hands over to the button.
    if (state.misses === 1) return close(config, proposal.actionId, 'two_misses', [send(responseCreate)]);
    return { state: { ...state, misses: 1, handled }, effects: [send(responseCreate)] };
  }
  // C10: closed (deciding) before the decision is even requested; C13: automatic responses back on.
  const decision = meaning.kind === 'confirm' ? 'confirm' : 'cancel';
  return {
    state: { phase: 'deciding', proposal, decision },
    effects: [
      send(turnDetectionUpdate(config.turnDetection, true)),
      { type: 'decide', actionId: proposal.actionId, paramsHash: proposal.paramsHash, decision, method: 'voice' },
    ],
  };
}

function remember(list: readonly string[], itemId: string): readonly string[] {
  return list.includes(itemId) ? list : [...list, itemId].slice(-maxRemembered);
}

/** What the UI shows beside the action card (C15: the card and its buttons stay the whole time). */
export type WindowView =
  | { line: 'none' }
  /** The assistant is reading the proposal. */
  | { line: 'proposing'; actionId: string }
  /** "Listening for your confirmation" (`missesLeft` before the button takes over). */
  | { line: 'listening'; actionId: string; missesLeft: 1 | 2 }
  | { line: 'deciding'; actionId: string; decision: 'confirm' | 'cancel' }
  /** The window closed without a voice decision: the button decides. */
  | { line: 'use-button'; actionId: string; reason: CloseReason };

export function windowView(state: WindowState): WindowView {
  switch (state.phase) {
    case 'idle':
      return { line: 'none' };
    case 'proposing':
      return { line: 'proposing', actionId: state.proposal.actionId };
    case 'open':
      return { line: 'listening', actionId: state.proposal.actionId, missesLeft: state.misses === 0 ? 2 : 1 };
    case 'deciding':
      return { line: 'deciding', actionId: state.proposal.actionId, decision: state.decision };
    case 'closed':
      return ['decided', 'refused', 'settled', 'hangup', 'new_proposal'].includes(state.reason)
        ? { line: 'none' }
        : { line: 'use-button', actionId: state.actionId, reason: state.reason };
  }
}
