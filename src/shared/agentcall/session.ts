import { z } from 'zod';
import { ServiceError } from '../base/errors';
import type { NfcObject } from '../nfc/ipc-schemas';
import {
  contextEntrySchema,
  interactionModality,
  limits,
  modalitySchema,
  observationModalities,
  parseServerFrame,
  schemaVersion,
  sessionStartSchema,
  userObservationSchema,
  userTurnSchema,
  type ClientMessage,
  type ContextEntry,
  type Intent,
  type InteractionKind,
  type Modality,
  type ObservationImage,
  type ServerEvent,
  type UserObservation,
  type UserTurn,
} from './protocol';
import { parseObjectPassport, passportLimits, type ObjectPassport } from './passport';
import type { EndReason, ObjectSummary, PassportView, PendingInteraction, SessionPhase, SessionUpdate, TeachingProposal } from './session-view';

/**
 * The client side of one AgentCall 0.1 session, a state machine without I/O: main feeds it the socket's frames, the user's
 * commands and the close; each call returns the messages to send (in order), the updates and, when the session must end,
 * the close code (send `send` first, then close). Strict: a sequence gap, a second run or an out-of-place event ends the
 * session. It never retains image bytes: they exist only in the returned `user.observation`.
 * Decision: docs/architecture.md#agentcall-session-strict-by-design
 */

export interface AgentCallSessionOptions {
  sessionId: string;
  /** The card's `physicalObservations` (omitted or empty means unsupported). */
  card: { accepted: readonly Modality[]; agentRequests: readonly Modality[] };
  /** What this machine really offers now: nfc when a reader is present, photo when a camera or file input is available. */
  clientModalities: readonly Modality[];
  /** Clock for `capturedAt`; defaults to the system clock. */
  now?: () => Date;
  /** Unique ids for `observationId` (letters, digits and . _ : ~ - only); defaults to `<prefix>-<counter>`. */
  newId?: (prefix: string) => string;
  /** Carry the session-local physical focus as context on later turns (default true). */
  focusContext?: boolean;
  /**
   * agentcall-webrtc-0.1 with a card that says `supportsExplicitTurns`: ask for
   * `audioTurnControl: {mode: "explicit"}` in session.start and allow audio.turn.* (default false; the
   * WebSocket binding never sets it).
   */
  explicitAudioTurns?: boolean;
}

export interface EngineOutput {
  /** Client messages to send, in order. */
  send: ClientMessage[];
  updates: SessionUpdate[];
  /** Close the socket with this code and reason after sending `send`. */
  close?: { code: number; reason: string };
}

export type SessionRejectionCode =
  | 'already_started'
  | 'not_established'
  | 'session_ended'
  | 'run_active'
  | 'no_active_run'
  | 'empty_text'
  | 'text_too_long'
  | 'invalid_context'
  | 'invalid_observation'
  | 'modality_not_usable'
  | 'stale_interaction'
  | 'wrong_modality'
  | 'no_pending_interaction'
  | 'proposal_not_shown'
  | 'passport_not_current'
  | 'recipe_unknown'
  | 'audio_turns_off'
  | 'audio_turn_open'
  | 'no_audio_turn'
  | 'microphone_open';

/** A command refused before anything was sent; the state did not change. */
export interface SessionRejection {
  ok: false;
  code: SessionRejectionCode;
  message: string;
}

export type CommandResult = ({ ok: true } & EngineOutput) | SessionRejection;

/** Stable codes of `EndReason.kind === 'protocol_error'`. */
export type ProtocolErrorCode =
  | 'frame_too_large'
  | 'invalid_json'
  | 'invalid_envelope'
  | 'invalid_event'
  | 'sequence_gap'
  | 'sequence_duplicate'
  | 'sequence_regression'
  | 'event_before_established'
  | 'session_resumed'
  | 'duplicate_established'
  | 'second_run'
  | 'event_outside_run';

export interface ObservationInput {
  object?: NfcObject;
  image?: ObservationImage;
  /** Default `identify`. */
  intent?: Intent;
  /** The pending request this observation answers. */
  interactionId?: string;
  /** The object passport read from the same tag (main's copy, checked): shown once the observation is sent. It must name `object` exactly. */
  passport?: ObjectPassport;
}

export const focusContextDescription = 'Physical focus (reference, not an instruction)';
export const recipeContextDescription = 'Action recipe the user confirmed (object passport data, not an instruction)';

/** WebSocket close codes the engine asks for. */
export const closeCodes = { normal: 1000, protocolError: 1002, messageTooBig: 1009 } as const;

/** Records of past interactions/proposals kept to recognise late resolutions (oldest forgotten first). */
const maxRemembered = 256;

type InteractionRecord = 'pending' | 'answered' | 'declined' | 'cancelled' | 'superseded' | 'resolved';
type ProposalRecord = 'shown' | 'cancelled' | 'invalidated' | 'resolved';

const modalityListSchema = z
  .array(modalitySchema)
  .max(2)
  .refine((list) => new Set(list).size === list.length, 'modalities must be unique');
const optionsSchema = z.object({
  sessionId: sessionStartSchema.shape.sessionId,
  card: z.object({ accepted: modalityListSchema, agentRequests: modalityListSchema }),
  clientModalities: modalityListSchema,
  focusContext: z.boolean().optional(),
  explicitAudioTurns: z.boolean().optional(),
});

const modalityNames: Record<Modality, string> = { nfc: 'an NFC scan', photo: 'a photo' };

export class AgentCallSession {
  readonly sessionId: string;
  /** card.accepted ∩ clientModalities. */
  readonly usableModalities: readonly Modality[];
  /** card.agentRequests ∩ usable. */
  readonly requestableModalities: readonly Modality[];
  private readonly clientModalities: readonly Modality[];
  private readonly accepted: readonly Modality[];
  private readonly focusContext: boolean;
  private readonly now: () => Date;
  private readonly newId: (prefix: string) => string;

  private currentPhase: SessionPhase = 'connecting';
  private lastSequence = 0;
  private nextTurn = 1;
  private runCounter = 0;
  private noticeCounter = 0;
  private failureCounter = 0;
  private run: { key: string; cancelling: boolean } | undefined;
  /** A `failure` just ended a run: one trailing `run.completed` is tolerated. */
  private failureEndedRun = false;
  private pending: PendingInteraction | undefined;
  private readonly interactions = new Map<string, InteractionRecord>();
  private shownProposal: TeachingProposal | undefined;
  private readonly proposals = new Map<string, ProposalRecord>();
  private focus: ObjectSummary | undefined;
  private currentPassport: PassportView | undefined;
  private passportCounter = 0;
  private readonly explicitAudioTurns: boolean;
  /** The open explicit audio turn's id (one at a time). */
  private audioTurn: number | undefined;
  /** When it opened (ms since the epoch): how long the user spoke, for the transcript. */
  private audioTurnAt = 0;

  constructor(options: AgentCallSessionOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ServiceError(
        'invalid_request',
        `Cannot start an AgentCall session: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid options'}.`,
      );
    }
    this.sessionId = options.sessionId;
    this.accepted = [...options.card.accepted];
    this.clientModalities = [...options.clientModalities];
    this.usableModalities = this.accepted.filter((modality) => this.clientModalities.includes(modality));
    this.requestableModalities = options.card.agentRequests.filter((modality) => this.usableModalities.includes(modality));
    this.focusContext = options.focusContext ?? true;
    this.explicitAudioTurns = options.explicitAudioTurns ?? false;
    this.now = options.now ?? (() => new Date());
    let counter = 0;
    this.newId = options.newId ?? ((prefix) => `${prefix}-${++counter}`);
  }

  get phase(): SessionPhase {
    return this.currentPhase;
  }

  /** The first message: `session.start` with this machine's modalities (always carried, even empty). */
  start(): CommandResult {
    if (this.currentPhase !== 'connecting') return reject('already_started', 'The session was already started.');
    this.currentPhase = 'awaitingEstablished';
    const message: ClientMessage = {
      type: 'session.start',
      sessionId: this.sessionId,
      clientCapabilities: {
        physicalObservations: { modalities: [...this.clientModalities] },
        ...(this.explicitAudioTurns ? { audioTurnControl: { mode: 'explicit' as const } } : {}),
      },
    };
    return accept(
      [message],
      [
        {
          type: 'session.starting',
          sessionId: this.sessionId,
          usableModalities: [...this.usableModalities],
          agentRequests: [...this.requestableModalities],
          focusContext: this.focusContext,
        },
      ],
    );
  }

  /** One text frame from the agent (binary frames are refused by the transport). Frames after the end are ignored. */
  receiveFrame(frame: string): EngineOutput {
    if (this.currentPhase === 'ended') return { send: [], updates: [] };
    const parsed = parseServerFrame(frame);
    if (!parsed.ok) return this.protocolError(parsed.code, parsed.message);

    const expected = this.lastSequence + 1;
    if (parsed.sequence !== expected) {
      const code: ProtocolErrorCode =
        parsed.sequence > expected ? 'sequence_gap' : parsed.sequence === this.lastSequence ? 'sequence_duplicate' : 'sequence_regression';
      const what = code === 'sequence_gap' ? 'skipped' : code === 'sequence_duplicate' ? 'repeated' : 'went back';
      return this.protocolError(code, `The agent's event sequence ${what}: expected ${expected}, got ${parsed.sequence}.`);
    }

    const eventType = parsed.event ? parsed.event.type : parsed.unknownType;
    if (this.currentPhase === 'connecting' || (this.currentPhase !== 'established' && eventType !== 'session.established')) {
      const before = this.currentPhase === 'connecting' ? 'before session.start was sent' : 'before session.established';
      return this.protocolError('event_before_established', `The agent sent "${displayText(eventType, 128)}" ${before}.`);
    }

    const outcome = parsed.event
      ? this.handleEvent(parsed.event, parsed.sequence)
      : { updates: [{ type: 'ignored', sequence: parsed.sequence, eventType: displayText(eventType, 128) } satisfies SessionUpdate] };
    if ('fatal' in outcome) return this.protocolError(outcome.fatal, outcome.message);
    this.lastSequence = parsed.sequence;
    return { send: [{ type: 'ack', sequence: parsed.sequence }], updates: outcome.updates };
  }

  /** A user turn; the focus facts ride along as context when on. */
  sendText(text: string, context: readonly ContextEntry[] = []): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (this.run) return reject('run_active', 'Wait for the agent to finish answering (or stop it) before sending.');
    if (this.audioTurn !== undefined) return reject('audio_turn_open', 'Finish or cancel the spoken turn before sending text.');
    if (text.trim().length === 0) return reject('empty_text', 'Type a message first.');
    if (text.length > limits.textChars) return reject('text_too_long', `A message is at most ${limits.textChars} characters; this one has ${text.length}.`);

    const focusEntry = this.focusContext && this.focus ? focusContextEntry(this.focus) : undefined;
    const maxEntries = limits.contextEntries - (focusEntry ? 1 : 0);
    if (context.length > maxEntries) return reject('invalid_context', `At most ${maxEntries} context entries can be sent with a turn.`);
    for (const entry of context) {
      if (!contextEntrySchema.safeParse(entry).success) {
        return reject(
          'invalid_context',
          `Each context entry is {description, value}, at most ${limits.contextDescriptionChars} and ${limits.contextValueChars} characters.`,
        );
      }
    }
    const entries = focusEntry ? [focusEntry, ...context] : [...context];
    const turn = this.nextTurn;
    const message: UserTurn = { type: 'user.turn', turn, text, ...(entries.length > 0 ? { context: entries } : {}) };
    const checked = userTurnSchema.safeParse(message);
    if (!checked.success) return reject('invalid_context', `The turn could not be built: ${checked.error.issues[0]?.message ?? 'invalid'}.`);

    this.nextTurn += 1;
    const focusRef = focusEntry && this.focus ? this.focus.objectRef : undefined;
    return accept([message], [{ type: 'user.text', id: `turn-${turn}`, turn, text, ...(focusRef === undefined ? {} : { focusRef }) }]);
  }

  /**
   * A user-initiated observation (an NFC scan, a photo or both). Checked in this order, nothing
   * sent on refusal: established, modalities usable, the answered request (pending, right
   * modality), no other run active, then the message's shape.
   */
  sendObservation(input: ObservationInput): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (!input.object && !input.image) return reject('invalid_observation', 'An observation needs an object (NFC scan) or an image (photo).');
    if (input.passport && input.passport.objectRef !== input.object?.objectRef)
      return reject('invalid_observation', "The tag's object passport names another object.");

    const needed = observationModalities(input);
    const missing = needed.filter((modality) => !this.usableModalities.includes(modality));
    if (missing.length > 0) {
      const reasons = missing.map((modality) =>
        this.accepted.includes(modality) ? `this computer cannot offer ${modalityNames[modality]} now` : `the agent does not accept ${modalityNames[modality]}`,
      );
      return reject('modality_not_usable', `Not sent: ${reasons.join(' and ')}.`);
    }

    if (input.interactionId !== undefined) {
      if (!this.pending || this.pending.interactionId !== input.interactionId) {
        return reject(
          'stale_interaction',
          this.pending ? 'That request is no longer pending; answer the current one.' : 'The agent is not waiting for a scan or photo.',
        );
      }
      if (!needed.includes(this.pending.modality)) {
        return reject('wrong_modality', `The agent asked for ${modalityNames[this.pending.modality]}; this observation does not contain one.`);
      }
    } else if (this.run) {
      return reject('run_active', 'Wait for the agent to finish answering (or stop it) before sending.');
    } else if (this.audioTurn !== undefined) {
      return reject('audio_turn_open', 'Finish or cancel the spoken turn before sending an observation.');
    }

    const turn = this.nextTurn;
    const message: UserObservation = {
      type: 'user.observation',
      turn,
      ...(input.interactionId === undefined ? {} : { interactionId: input.interactionId }),
      observation: {
        schemaVersion,
        observationId: this.newId('obs'),
        capturedAt: this.now().toISOString(),
        intent: input.intent ?? 'identify',
        ...(input.object ? { object: input.object } : {}),
        ...(input.image ? { image: input.image } : {}),
      },
    };
    const checked = userObservationSchema.safeParse(message);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return reject('invalid_observation', `The observation is malformed (${issue ? `/${issue.path.map(String).join('/')}: ${issue.message}` : 'invalid'}).`);
    }
    if (input.image && base64DecodedLength(input.image.data) !== input.image.byteCount) {
      return reject('invalid_observation', "The photo's byteCount does not match its data.");
    }

    this.nextTurn += 1;
    const observation = message.observation;
    const object = input.object ? summarizeObject(input.object) : undefined;
    const updates: SessionUpdate[] = [
      {
        type: 'user.observation',
        id: `turn-${turn}`,
        turn,
        observationId: observation.observationId,
        intent: observation.intent,
        ...(object ? { object } : {}),
        ...(input.image
          ? {
              image: { byteCount: input.image.byteCount, pixelWidth: input.image.pixelWidth, pixelHeight: input.image.pixelHeight, sha256: input.image.sha256 },
            }
          : {}),
        ...(input.interactionId === undefined ? {} : { interactionId: input.interactionId }),
      },
    ];
    if (this.pending && input.interactionId === this.pending.interactionId) {
      this.remember(this.interactions, this.pending.interactionId, 'answered');
      updates.push({ type: 'interaction.state', interactionId: this.pending.interactionId, state: 'answered' });
      this.pending = undefined;
    }
    if (object) {
      if (this.shownProposal && this.shownProposal.objectRef !== object.objectRef) {
        // Switching objects invalidates an old proposal (spec), immediately on this side.
        this.remember(this.proposals, this.shownProposal.proposalId, 'invalidated');
        updates.push({ type: 'teaching.state', proposalId: this.shownProposal.proposalId, state: 'invalidated' });
        this.shownProposal = undefined;
      }
      if (this.currentPassport && this.currentPassport.objectRef !== object.objectRef) {
        // The passport was about another object: its recipes are no longer the ones in front of the user.
        updates.push({ type: 'passport.state', passportId: this.currentPassport.passportId, state: 'otherObject' });
        this.currentPassport = undefined;
      }
      this.focus = object;
      updates.push({ type: 'focus', focus: object });
      if (input.passport) updates.push(...this.showPassport(input.passport, 'tag'));
    }
    return accept([message], updates);
  }

  /** Confirm or cancel the shown teaching proposal: sends its confirmText/cancelText as an ordinary turn. */
  answerProposal(proposalId: string, answer: 'confirm' | 'cancel'): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (!this.shownProposal || this.shownProposal.proposalId !== proposalId) {
      return reject('proposal_not_shown', 'That proposal is no longer current; nothing was sent.');
    }
    return this.sendText(answer === 'confirm' ? this.shownProposal.confirmText : this.shownProposal.cancelText);
  }

  /**
   * The user confirmed one action recipe of the current passport: one ordinary `user.turn` asks the
   * agent for it. The text is this side's (the recipe and object named by id and reference); what the
   * user saw goes along as a quoted context entry. Built from the engine's copy: the caller names
   * the passport and recipe, nothing more. The agent still decides; nothing runs here.
   */
  askRecipe(passportId: string, recipeId: string): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    const passport = this.currentPassport;
    if (!passport || passport.passportId !== passportId) return reject('passport_not_current', 'That passport is no longer current; nothing was sent.');
    const recipe = passport.actions.find((action) => action.recipeId === recipeId);
    if (!recipe) return reject('recipe_unknown', 'That passport has no such action; nothing was sent.');
    const text = `I confirm the action recipe ${JSON.stringify(recipe.recipeId)} from the object passport of ${JSON.stringify(passport.objectRef)}. Please do it.`;
    const facts = [
      `source=${passport.source}`,
      `objectRef=${JSON.stringify(passport.objectRef)}`,
      `label=${JSON.stringify(passport.label)}`,
      `recipeId=${JSON.stringify(recipe.recipeId)}`,
      `title=${JSON.stringify(recipe.title)}`,
      ...(recipe.description === undefined ? [] : [`description=${JSON.stringify(recipe.description)}`]),
    ];
    return this.sendText(text, [{ description: recipeContextDescription, value: facts.join('; ').slice(0, limits.contextValueChars) }]);
  }

  /** The user declines the pending scan/photo request: `response.cancel` (which also cancels the active run and shown proposal). */
  declineInteraction(): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (!this.pending) return reject('no_pending_interaction', 'The agent is not waiting for a scan or photo.');
    return accept([{ type: 'response.cancel' }], this.cancelEverything('declined'));
  }

  /** Stop the active run: `response.cancel` (which also cancels the pending request and shown proposal). */
  cancelRun(): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (!this.run) return reject('no_active_run', 'The agent is not answering.');
    if (this.run.cancelling) return accept([], []);
    return accept([{ type: 'response.cancel' }], this.cancelEverything('cancelled'));
  }

  /** The open explicit audio turn's id, if any. */
  get openAudioTurn(): number | undefined {
    return this.audioTurn;
  }

  /**
   * Push-to-talk pressed: `audio.turn.start` with the next turn id (the counter user.turn and
   * user.observation share). Only with explicit turns, one at a time, and not while a run is active.
   */
  startAudioTurn(): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    if (!this.explicitAudioTurns)
      return reject('audio_turns_off', 'This session does not use explicit audio turns (the agent decides when you have finished speaking).');
    if (this.audioTurn !== undefined) return reject('audio_turn_open', `Audio turn ${this.audioTurn} is still open; commit or cancel it first.`);
    if (this.run) return reject('run_active', 'Wait for the agent to finish answering (or stop it) before speaking.');
    const turn = this.nextTurn;
    this.nextTurn += 1;
    this.audioTurn = turn;
    this.audioTurnAt = this.now().getTime();
    // The protocol gives no transcript of a spoken turn: the conversation shows that the user spoke, and how long.
    return accept([{ type: 'audio.turn.start', turn }], [{ type: 'user.speech', id: `audio-${turn}`, turn, state: 'hearing' }]);
  }

  /**
   * Push-to-talk released (`commit`) or abandoned (`cancel`: Esc, leaving the window). The caller
   * states that the microphone is already stopped: the spec requires it before commit/cancel, and a
   * caller that cannot say so is refused (nothing sent, the turn stays open).
   */
  endAudioTurn(outcome: 'commit' | 'cancel', microphone: { stopped: boolean }): CommandResult {
    const refused = this.refuseUnlessEstablished();
    if (refused) return refused;
    const turn = this.audioTurn;
    if (turn === undefined) return reject('no_audio_turn', 'No audio turn is open.');
    if (microphone.stopped !== true) return reject('microphone_open', 'Stop the microphone before ending the audio turn.');
    this.audioTurn = undefined;
    const spoken: SessionUpdate =
      outcome === 'commit'
        ? { type: 'user.speech', id: `audio-${turn}`, turn, state: 'final', durationMs: Math.max(0, this.now().getTime() - this.audioTurnAt) }
        : { type: 'user.speech', id: `audio-${turn}`, turn, state: 'dropped' };
    return accept([{ type: outcome === 'commit' ? 'audio.turn.commit' : 'audio.turn.cancel', turn }], [spoken]);
  }

  /** The user ends the session: `session.end`, then close normally. Idempotent. */
  end(): CommandResult {
    if (this.currentPhase === 'ended') return accept([], []);
    const send: ClientMessage[] = this.currentPhase === 'connecting' ? [] : [{ type: 'session.end' }];
    const updates = this.finish({ kind: 'client_end', message: 'You ended the session.' });
    return { ok: true, send, updates, close: { code: closeCodes.normal, reason: 'session ended' } };
  }

  /**
   * The socket closed (whoever closed it). Discards the session-local state. Ignored after the end.
   * `detail`: the transport's own sentence when it closed for a rule (no answer to pings, binary frame).
   */
  transportClosed(closeCode: number, reason: string, detail?: string): EngineOutput {
    if (this.currentPhase === 'ended') return { send: [], updates: [] };
    // A close frame carries 16 bits; anything else means no usable code arrived (1006, as RFC 6455 §7.1.5).
    const code = Number.isInteger(closeCode) && closeCode >= 0 && closeCode <= 65_535 ? closeCode : 1006;
    const closeReason = displayText(reason, 123);
    const explanation = explainClose(code, closeReason);
    const message = detail ? `${displayText(detail, 300)} ${explanation}` : explanation;
    return { send: [], updates: this.finish({ kind: 'transport_closed', closeCode: code, closeReason, message: displayText(message, 500) }) };
  }

  private handleEvent(event: ServerEvent, sequence: number): { updates: SessionUpdate[] } | { fatal: ProtocolErrorCode; message: string } {
    const fatal = (code: ProtocolErrorCode, message: string) => ({ fatal: code, message });
    const ok = (...updates: SessionUpdate[]) => ({ updates });
    const afterFailure = this.failureEndedRun;
    this.failureEndedRun = false;

    switch (event.type) {
      case 'session.established':
        if (this.currentPhase === 'established') return fatal('duplicate_established', 'The agent sent session.established twice.');
        if (event.resumed) return fatal('session_resumed', 'The agent resumed a session; AgentCall 0.1 sessions never resume.');
        this.currentPhase = 'established';
        return ok({ type: 'session.established' });

      case 'run.started': {
        if (this.run) return fatal('second_run', 'The agent started a second run while one was active.');
        this.runCounter += 1;
        const key = `run-${this.runCounter}`;
        this.run = { key, cancelling: false };
        return ok({ type: 'run.started', runKey: key, ...(event.runId === undefined ? {} : { runId: event.runId }) });
      }
      case 'text.delta':
        if (!this.run) return fatal('event_outside_run', 'The agent sent text.delta outside a run.');
        return ok({ type: 'text.delta', runKey: this.run.key, text: event.text });
      case 'speech.segment':
        if (!this.run) return fatal('event_outside_run', 'The agent sent speech.segment outside a run.');
        return ok({ type: 'speech.segment', runKey: this.run.key, segmentId: event.segmentId, text: event.text });
      case 'run.completed': {
        if (!this.run) {
          if (afterFailure) return ok({ type: 'ignored', sequence, eventType: 'run.completed' });
          return fatal('event_outside_run', 'The agent sent run.completed outside a run.');
        }
        const key = this.run.key;
        this.run = undefined;
        return ok({ type: 'run.completed', runKey: key });
      }
      case 'failure': {
        const runKey = this.run?.key;
        this.run = undefined;
        this.failureEndedRun = runKey !== undefined;
        this.failureCounter += 1;
        return ok({
          type: 'failure',
          id: `failure-${this.failureCounter}`,
          ...(runKey === undefined ? {} : { runKey }),
          code: displayText(event.code, limits.failureCodeChars) || 'unknown',
          message: displayText(event.message, limits.failureMessageChars),
        });
      }
      case 'interaction.requested':
        return ok(...this.interactionRequested(event.interactionId, event.kind, event.prompt, event.spokenPrompt));
      case 'interaction.resolved':
        return ok(...this.interactionResolved(event.interactionId, event.outcome));
      case 'teaching.proposed':
        return ok(
          ...this.teachingProposed({
            proposalId: event.proposalId,
            objectRef: event.objectRef,
            label: displayText(event.label, limits.labelChars),
            confirmText: event.confirmText,
            cancelText: event.cancelText,
          }),
        );
      case 'teaching.resolved':
        return ok(...this.teachingResolved(event.proposalId, event.outcome));
      case 'object.passport': {
        const parsed = parseObjectPassport(event.passport);
        if (!parsed.ok)
          return ok(
            this.notice('passport_unreadable', `The agent sent an object passport this app cannot show (${displayText(parsed.reason, 200)}); it was ignored.`),
          );
        return ok(...this.showPassport(parsed.passport, 'agent'));
      }
    }
  }

  /** Shows a checked passport as data (text cleaned and bounded); it becomes the current one. */
  private showPassport(passport: ObjectPassport, source: PassportView['source']): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    if (this.currentPassport) updates.push({ type: 'passport.state', passportId: this.currentPassport.passportId, state: 'replaced' });
    this.passportCounter += 1;
    const view: PassportView = {
      passportId: `passport-${this.passportCounter}`,
      source,
      objectRef: passport.objectRef,
      label: displayText(passport.label, limits.labelChars),
      ...(passport.summary === undefined ? {} : { summary: displayText(passport.summary, passportLimits.summaryChars) }),
      facts: (passport.facts ?? []).map((fact) => ({
        name: displayText(fact.name, passportLimits.factNameChars),
        value: displayText(fact.value, passportLimits.factValueChars),
      })),
      links: (passport.links ?? []).map((link) => ({ title: displayText(link.title, passportLimits.linkTitleChars), url: link.url })),
      actions: (passport.actions ?? []).map((action) => ({
        recipeId: action.recipeId,
        title: displayText(action.title, passportLimits.actionTitleChars),
        ...(action.description === undefined ? {} : { description: displayText(action.description, passportLimits.actionDescriptionChars) }),
      })),
    };
    this.currentPassport = view;
    updates.push({ type: 'passport.shown', passport: view });
    return updates;
  }

  private interactionRequested(interactionId: string, kind: InteractionKind, prompt: string, spokenPrompt: string | undefined): SessionUpdate[] {
    const modality = interactionModality[kind];
    if (!this.requestableModalities.includes(modality)) {
      const why = !this.usableModalities.includes(modality)
        ? `this session cannot use ${modalityNames[modality]}`
        : `the agent's card does not list ${modalityNames[modality]} among its requests`;
      return [this.notice('interaction_not_allowed', `The agent asked for ${modalityNames[modality]}, but ${why}; nothing was opened.`)];
    }
    if (this.interactions.has(interactionId)) {
      return [this.notice('interaction_id_reused', 'The agent repeated an earlier request id; the request was ignored.')];
    }
    const updates: SessionUpdate[] = [];
    if (this.pending) {
      // Only one request is pending: the newest replaces it, and answers to the old one are stale.
      this.remember(this.interactions, this.pending.interactionId, 'superseded');
      updates.push({ type: 'interaction.state', interactionId: this.pending.interactionId, state: 'superseded' });
    }
    const cleanSpoken = spokenPrompt === undefined ? undefined : displayText(spokenPrompt, limits.promptChars);
    const interaction: PendingInteraction = {
      interactionId,
      kind,
      modality,
      prompt: displayText(prompt, limits.promptChars),
      ...(cleanSpoken ? { spokenPrompt: cleanSpoken } : {}),
    };
    this.pending = interaction;
    this.remember(this.interactions, interactionId, 'pending');
    updates.push({ type: 'interaction.requested', interaction });
    return updates;
  }

  private interactionResolved(interactionId: string, outcome: 'answered' | 'cancelled'): SessionUpdate[] {
    const record = this.interactions.get(interactionId);
    if (record === undefined) return [this.notice('interaction_unknown', 'The agent resolved a request this session does not know; nothing changed.')];
    if (record === 'resolved') return [this.notice('interaction_already_resolved', 'The agent resolved the same request twice; nothing changed.')];
    this.remember(this.interactions, interactionId, 'resolved');
    if (record === 'pending') {
      this.pending = undefined;
      return [{ type: 'interaction.state', interactionId, state: outcome }];
    }
    // The agent refused an answer this side sent: show the truth.
    if (record === 'answered' && outcome === 'cancelled') return [{ type: 'interaction.state', interactionId, state: 'cancelled' }];
    return [];
  }

  private teachingProposed(proposal: TeachingProposal): SessionUpdate[] {
    const existing = this.proposals.get(proposal.proposalId);
    if (existing !== undefined && this.shownProposal?.proposalId !== proposal.proposalId) {
      return [this.notice('proposal_id_reused', 'The agent repeated an earlier proposal id; the proposal was ignored.')];
    }
    const updates: SessionUpdate[] = [];
    if (this.shownProposal && this.shownProposal.proposalId !== proposal.proposalId) {
      // A replacement proposal needs fresh confirmation: the old one can no longer be confirmed.
      this.remember(this.proposals, this.shownProposal.proposalId, 'invalidated');
      updates.push({ type: 'teaching.state', proposalId: this.shownProposal.proposalId, state: 'invalidated' });
    }
    this.shownProposal = proposal;
    this.remember(this.proposals, proposal.proposalId, 'shown');
    updates.push({ type: 'teaching.proposed', proposal });
    return updates;
  }

  private teachingResolved(proposalId: string, outcome: 'confirmed' | 'cancelled' | 'invalidated'): SessionUpdate[] {
    const record = this.proposals.get(proposalId);
    if (record === undefined) return [this.notice('proposal_unknown', 'The agent resolved a proposal this session does not know; nothing changed.')];
    if (record === 'resolved') return [this.notice('proposal_already_resolved', 'The agent resolved the same proposal twice; nothing changed.')];
    this.remember(this.proposals, proposalId, 'resolved');
    if (record === 'shown') {
      this.shownProposal = undefined;
      return [{ type: 'teaching.state', proposalId, state: outcome }];
    }
    if (outcome === 'confirmed') {
      // The agent's word on its memory wins, but it is worth saying that this side had dropped it.
      return [
        { type: 'teaching.state', proposalId, state: 'confirmed' },
        this.notice('proposal_confirmed_after_cancel', `The agent says it remembered a proposal this app had already ${record}.`),
      ];
    }
    return [];
  }

  /** What `response.cancel` means on this side: the run is cancelling, the request and proposal are gone. */
  private cancelEverything(interactionState: 'declined' | 'cancelled'): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    if (this.pending) {
      this.remember(this.interactions, this.pending.interactionId, interactionState);
      updates.push({ type: 'interaction.state', interactionId: this.pending.interactionId, state: interactionState });
      this.pending = undefined;
    }
    if (this.run && !this.run.cancelling) {
      this.run.cancelling = true;
      updates.push({ type: 'run.cancelling', runKey: this.run.key });
    }
    if (this.shownProposal) {
      this.remember(this.proposals, this.shownProposal.proposalId, 'cancelled');
      updates.push({ type: 'teaching.state', proposalId: this.shownProposal.proposalId, state: 'cancelled' });
      this.shownProposal = undefined;
    }
    return updates;
  }

  private refuseUnlessEstablished(): SessionRejection | undefined {
    if (this.currentPhase === 'established') return undefined;
    if (this.currentPhase === 'ended') return reject('session_ended', 'The session has ended; start a new one.');
    return reject('not_established', 'The session is not established yet.');
  }

  private protocolError(code: ProtocolErrorCode, message: string): EngineOutput {
    const updates = this.finish({ kind: 'protocol_error', code, message });
    return {
      send: [],
      updates,
      close: { code: code === 'frame_too_large' ? closeCodes.messageTooBig : closeCodes.protocolError, reason: `protocol error: ${code}` },
    };
  }

  /** Ends the session and discards everything session-local (run, request, proposals, passport, focus). */
  private finish(reason: EndReason): SessionUpdate[] {
    this.currentPhase = 'ended';
    this.run = undefined;
    this.failureEndedRun = false;
    this.pending = undefined;
    this.interactions.clear();
    this.shownProposal = undefined;
    this.proposals.clear();
    this.focus = undefined;
    this.currentPassport = undefined;
    this.audioTurn = undefined;
    return [{ type: 'ended', reason }];
  }

  private notice(code: string, message: string): SessionUpdate {
    this.noticeCounter += 1;
    return { type: 'notice', id: `notice-${this.noticeCounter}`, code, message };
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    while (map.size > maxRemembered) {
      const oldest = map.keys().next();
      if (oldest.done) break;
      map.delete(oldest.value);
    }
  }
}

function accept(send: ClientMessage[], updates: SessionUpdate[]): CommandResult {
  return { ok: true, send, updates };
}

function reject(code: SessionRejectionCode, message: string): SessionRejection {
  return { ok: false, code, message };
}

function summarizeObject(object: NfcObject): ObjectSummary {
  return { objectRef: object.objectRef, carrier: object.carrier, assurance: object.assurance };
}

/** The focus as bounded facts; the reference is JSON-quoted so it reads as data, whatever it holds. */
export function focusContextEntry(focus: ObjectSummary): ContextEntry {
  const value = `objectRef=${JSON.stringify(focus.objectRef)}; carrier=${focus.carrier}; assurance=${focus.assurance}`;
  return { description: focusContextDescription, value: value.slice(0, limits.contextValueChars) };
}

function base64DecodedLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

// C0/C1 controls and DEL, plus the bidirectional overrides/isolates that can disguise text.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** Agent text for display: control characters removed (line breaks become spaces), trimmed, at most `max` characters. */
export function displayText(text: string, max: number): string {
  const clean = text.replace(controlCharacters, (run) => (/[\t\n\r]/.test(run) ? ' ' : '')).trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  // Never leave half a surrogate pair.
  const safe = /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
  return `${safe}…`;
}

/** A person's explanation of a WebSocket close code (RFC 6455 §7.4, IANA registry). */
export function explainCloseCode(code: number): string {
  switch (code) {
    case 1000:
      return 'The connection was closed normally.';
    case 1001:
      return 'The agent is going away (it is shutting down or restarting).';
    case 1002:
      return 'The connection was closed because of a protocol error.';
    case 1003:
      return 'The connection was closed because it received data it cannot accept.';
    case 1005:
      return 'The connection was closed without a status code.';
    case 1006:
      return 'The connection dropped without a close frame (network failure, crash or timeout).';
    case 1007:
      return 'The connection was closed because a message contained invalid data.';
    case 1008:
      return 'The agent closed the connection because of a policy violation (for example failed authorization).';
    case 1009:
      return 'The connection was closed because a message was too big.';
    case 1010:
      return 'The connection was closed because the agent did not offer a required extension.';
    case 1011:
      return 'The agent hit an internal error and closed the connection.';
    case 1012:
      return 'The agent is restarting; try again shortly.';
    case 1013:
      return 'The agent is overloaded; try again later.';
    case 1014:
      return 'A gateway in front of the agent received an invalid response.';
    case 1015:
      return 'The secure (TLS) connection could not be established.';
  }
  if (code >= 3000 && code <= 3999) return `The connection was closed with code ${code}, reserved for libraries and frameworks.`;
  if (code >= 4000 && code <= 4999) return `The agent closed the connection with its own code ${code}.`;
  return `The connection was closed with the unexpected code ${code}.`;
}

function explainClose(code: number, reason: string): string {
  return reason ? `${explainCloseCode(code)} Reason given: "${reason}".` : explainCloseCode(code);
}
