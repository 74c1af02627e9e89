import { randomBytes } from 'node:crypto';
import {
  limits,
  observationModalities,
  parseClientFrame,
  type ClientMessage,
  type InteractionKind,
  type Modality,
  type ServerEvent,
  type UserObservation,
  type UserTurn,
} from '../../../shared/agentcall/protocol';
import type { Logger } from '../../platform/logger';
import { verifyObservationImage, type ImageCheck } from './verify-observation-image';

/**
 * The built-in demo agent's AgentCall side: the protocol behaviour of one WebSocket connection, no I/O (frames in through
 * `receive`, out through `io.send`; agentcall-demo-server.ts does the sockets). Fixed rules, no model; each message's type
 * is logged, never its content. Decision: docs/architecture.md#agentcall-demo-agent
 */

export interface AgentCallModalities {
  /** What the card's physicalObservations.accepted declares. */
  accepted: readonly Modality[];
  /** What the agent may ask for (physicalObservations.agentRequests); each must be accepted too. */
  agentRequests: readonly Modality[];
}

export const defaultDemoModalities: AgentCallModalities = { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] };

/** At most 32 session-local object labels (the reference proof's bound). */
export const maxTaughtLabels = 32;

export const agentCallCloseCodes = { normal: 1000, goingAway: 1001, unsupportedData: 1003, policy: 1008 } as const;

export const demoCommands = {
  scan: 'scan an object',
  photo: 'take a photo',
  teachPrefix: 'teach object',
  confirm: 'confirm object',
  cancel: 'cancel teaching',
  story: 'tell me a story',
} as const;

/** The story, one sentence a part (each its own speech.segment). */
export const demoStory = [
  'Once upon a time, in a workshop full of cables, there lived a small router.',
  'Every morning it blinked its green lights and counted the packets that passed by.',
  'One day a packet arrived that nobody could read, wrapped in a label of strange letters.',
  'The router asked the switch, the switch asked the printer, and the printer only hummed.',
  'So the router kept the packet safe until the engineer came back from lunch.',
  'And the engineer read the label, smiled, and sent it on its way. The end.',
] as const;

export interface AgentCallEnvelope {
  sequence: number;
  event: ServerEvent;
}

export interface AgentCallDemoIo {
  send(envelope: AgentCallEnvelope): void;
  close(code: number, reason: string): void;
}

export interface AgentCallDemoSessionOptions {
  modalities?: AgentCallModalities;
  io: AgentCallDemoIo;
  log?: Logger;
  /**
   * The agent-owned voice of an agentcall-webrtc-0.1 call (agentcall-webrtc-endpoint.ts): audio turns
   * are accepted only with it (a WebSocket session refuses them), and it turns an audio turn's audio
   * into words.
   */
  voice?: DemoSessionVoice;
  /** The pause between the parts of "tell me a story" (ms). Default 1 500. */
  storyPartMs?: number;
  /** The photo check; default verifyObservationImage (sharp, bounded). */
  verifyImage?: (image: NonNullable<UserObservation['observation']['image']>) => Promise<ImageCheck>;
}

export interface DemoSessionVoice {
  /** An explicit audio turn opened: collect what the microphone sends from now on. */
  turnStarted(turn: number): void;
  /** The audio turn ended: on commit, the words heard in it ('' when nothing was understood); on cancel, drop the audio. */
  turnEnded(turn: number, outcome: 'commit' | 'cancel'): Promise<string>;
}

/** A turn's key in run and segment ids: the client's turn number, or `v<n>` for a turn the agent's own VAD found. */
type TurnKey = number | string;

interface PendingInteraction {
  interactionId: string;
  kind: InteractionKind;
  modality: Modality;
}

interface Proposal {
  proposalId: string;
  objectRef: string;
  label: string;
}

const kindFor: Record<Modality, InteractionKind> = { nfc: 'physical.nfc.scan', photo: 'physical.photo.capture' };
const modalityName: Record<Modality, string> = { nfc: 'NFC scans', photo: 'photos' };
/** How many answered/cancelled interaction ids are remembered for a clearer failure message. */
const retiredIdsKept = 64;

// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

/** One AgentCall session (one connection). Everything it knows is gone when it is disposed. */
export class AgentCallDemoSession {
  private readonly modalities: AgentCallModalities;
  private readonly io: AgentCallDemoIo;
  private readonly log: Logger | undefined;
  private readonly verifyImage: NonNullable<AgentCallDemoSessionOptions['verifyImage']>;
  private queue: Promise<void> = Promise.resolve();
  private started = false;
  private ended = false;
  private sequence = 0;
  private lastTurn = 0;
  private negotiated = new Set<Modality>();
  /** The object the last processed scan was about: what `teach object` refers to. */
  private focus: string | undefined;
  private proposal: Proposal | undefined;
  /** Session-local memory, keyed by the exact objectRef. */
  private labels = new Map<string, string>();
  private pending: PendingInteraction | undefined;
  private retired: string[] = [];
  private readonly voice: DemoSessionVoice | undefined;
  /** The client asked for explicit audio turns in session.start (WebRTC with voice only). */
  private explicitTurns = false;
  private openAudioTurn: number | undefined;
  private spokenTurns = 0;
  private readonly storyPartMs: number;
  /** The story being told: its run is open until the last part, a cancel or the next input. */
  private story: { runId: string; told: number; timer: ReturnType<typeof setTimeout> | undefined } | undefined;

  constructor(options: AgentCallDemoSessionOptions) {
    this.modalities = options.modalities ?? defaultDemoModalities;
    this.io = options.io;
    this.log = options.log;
    this.voice = options.voice;
    this.verifyImage = options.verifyImage ?? verifyObservationImage;
    this.storyPartMs = options.storyPartMs ?? 1_500;
  }

  /** The client asked for explicit audio turns (the voice then ignores audio outside them). */
  get explicitAudioTurns(): boolean {
    return this.explicitTurns;
  }

  /**
   * Words the agent's own turn detection heard outside explicit turns (agent-owned voice without
   * audioTurnControl): handled like a typed turn, in order with the frames.
   */
  heard(text: string): Promise<void> {
    const next = this.queue.then(() => {
      if (this.ended || !this.started || this.explicitTurns) return;
      this.endStory();
      this.spokenTurns += 1;
      const key = `v${this.spokenTurns}`;
      if (text.trim() === '') return this.answer(key, ['Sorry, I did not catch that.']);
      this.onText({ type: 'user.turn', turn: 1, text }, key);
    });
    this.queue = next.catch((error: unknown) => {
      this.log?.error('demo', 'the AgentCall demo agent failed on a spoken turn', error);
    });
    return this.queue;
  }

  /** True once `session.start` was accepted (the server's start timer reads it). */
  get isStarted(): boolean {
    return this.started;
  }

  /** The modalities this session may use (card's accepted ∩ client's). */
  get negotiatedModalities(): Modality[] {
    return [...this.negotiated];
  }

  /** How many labels are stored (for the status page; never the labels themselves). */
  get taughtCount(): number {
    return this.labels.size;
  }

  /** Handles one text frame. Frames are processed strictly in order; the promise settles when this one is done. */
  receive(frame: string): Promise<void> {
    const next = this.queue.then(() => this.process(frame));
    this.queue = next.catch((error: unknown) => {
      this.log?.error('demo', 'the AgentCall demo agent failed on a message', error);
      this.fail('internal', 'The demo agent could not handle that message.');
    });
    return this.queue;
  }

  /** The connection is gone: forget images, proposals, requests and labels. */
  dispose(): void {
    this.ended = true;
    if (this.story?.timer !== undefined) clearTimeout(this.story.timer);
    this.story = undefined;
    this.clear();
  }

  private clear(): void {
    this.pending = undefined;
    this.proposal = undefined;
    this.focus = undefined;
    this.labels.clear();
    this.retired = [];
  }

  private async process(frame: string): Promise<void> {
    if (this.ended) return;
    const parsed = parseClientFrame(frame);
    if (!this.started) {
      if (!parsed.ok || parsed.message.type !== 'session.start') {
        this.fail('session_not_started', 'The first message must be session.start.');
        this.end(agentCallCloseCodes.policy, 'session.start expected');
        return;
      }
      this.start(parsed.message.clientCapabilities?.physicalObservations?.modalities ?? []);
      if (parsed.message.clientCapabilities?.audioTurnControl?.mode === 'explicit' && this.voice) this.explicitTurns = true;
      return;
    }
    if (!parsed.ok) return this.fail(parsed.code, `That message was not understood: ${parsed.message}`);
    await this.dispatch(parsed.message);
  }

  private start(clientModalities: readonly Modality[]): void {
    this.started = true;
    this.negotiated = new Set(this.modalities.accepted.filter((modality) => clientModalities.includes(modality)));
    this.emit({ type: 'session.established', resumed: false });
  }

  private async dispatch(message: ClientMessage): Promise<void> {
    if (message.type !== 'ack')
      this.log?.info(
        'demo',
        `AgentCall demo received ${message.type}${'turn' in message ? ` (turn ${message.turn})` : ''}${message.type === 'response.cancel' && this.story ? ` during ${this.story.runId} after ${this.story.told} of ${demoStory.length} parts` : ''}`,
      );
    // One run at a time: new input ends a story still being told.
    if (message.type === 'user.turn' || message.type === 'user.observation' || message.type === 'audio.turn.commit') this.endStory();
    switch (message.type) {
      case 'session.start':
        return this.fail('session_already_started', 'This session has already started.');
      case 'ack':
        if (message.sequence > this.sequence) this.fail('invalid_ack', `Sequence ${message.sequence} has not been sent yet.`);
        return;
      case 'user.turn':
        if (this.freshTurn(message.turn)) this.onText(message);
        return;
      case 'user.observation':
        if (this.freshTurn(message.turn)) await this.onObservation(message);
        return;
      case 'response.cancel':
        return this.cancel();
      case 'session.end':
        this.end(agentCallCloseCodes.normal, 'session ended');
        return;
      case 'audio.turn.start':
      case 'audio.turn.commit':
      case 'audio.turn.cancel':
        return this.audioTurn(message.type, message.turn);
    }
  }

  // ---- explicit audio turns (agentcall-webrtc-0.1) ---------------------------------------------------

  private async audioTurn(type: 'audio.turn.start' | 'audio.turn.commit' | 'audio.turn.cancel', turn: number): Promise<void> {
    if (!this.voice) return this.fail('audio_turns_unsupported', 'Audio turns exist only in a WebRTC call; this session carries text.');
    if (!this.explicitTurns)
      return this.fail('audio_turns_not_negotiated', 'This session did not ask for explicit audio turns (audioTurnControl) in session.start.');
    if (type === 'audio.turn.start') {
      if (this.openAudioTurn !== undefined)
        return this.fail('audio_turn_open', `Audio turn ${this.openAudioTurn} is still open; only one audio turn is open at a time.`);
      if (!this.freshTurn(turn)) return;
      this.openAudioTurn = turn;
      this.voice.turnStarted(turn);
      return;
    }
    if (this.openAudioTurn !== turn) {
      return this.fail(
        'audio_turn_mismatch',
        this.openAudioTurn === undefined
          ? `No audio turn is open; ${type} for turn ${turn} was ignored.`
          : `The open audio turn is ${this.openAudioTurn}, not ${turn}.`,
      );
    }
    this.openAudioTurn = undefined;
    const words = await this.voice.turnEnded(turn, type === 'audio.turn.commit' ? 'commit' : 'cancel');
    if (this.ended || type === 'audio.turn.cancel') return;
    if (words.trim() === '') return this.answer(turn, ['Sorry, I did not catch that.']);
    this.onText({ type: 'user.turn', turn, text: words });
  }

  private freshTurn(turn: number): boolean {
    if (turn <= this.lastTurn) {
      this.fail('turn_replayed', `Turn ${turn} was already used; each turn must be higher than ${this.lastTurn}.`);
      return false;
    }
    this.lastTurn = turn;
    return true;
  }

  // ---- text turns ------------------------------------------------------------------------------

  private onText(message: UserTurn, key: TurnKey = message.turn): void {
    const text = message.text.trim();
    const command = text.toLowerCase();
    if (command === demoCommands.scan) return this.request(key, 'nfc');
    if (command === demoCommands.photo) return this.request(key, 'photo');
    if (command === demoCommands.confirm) return this.confirm(key);
    if (command === demoCommands.cancel) return this.cancelTeaching(key);
    if (command === demoCommands.story || command === 'story') return this.tellStory(key);
    const teach = /^teach object(?:\s+([\s\S]*))?$/i.exec(text);
    if (teach) return this.teach(key, (teach[1] ?? '').trim());
    this.answer(key, [this.helpText()]);
  }

  private helpText(): string {
    const commands = `"${demoCommands.scan}", "${demoCommands.photo}", "${demoCommands.teachPrefix} <name>" (after a scan), "${demoCommands.confirm}", "${demoCommands.cancel}" and "${demoCommands.story}" (a long spoken answer)`;
    const physical = this.negotiated.size === 0 ? ' This session did not enable NFC or photos, so scans and photos are not available.' : '';
    return `I'm the AgentDesk demo agent. I understand ${commands}.${physical}`;
  }

  private request(turn: TurnKey, modality: Modality): void {
    if (!this.negotiated.has(modality)) {
      return this.answer(turn, [`This session did not enable ${modalityName[modality]}, so I can't ask for one.`]);
    }
    if (!this.modalities.agentRequests.includes(modality)) {
      return this.answer(turn, [`I'm not set up to ask for ${modalityName[modality]}; you can still send one yourself.`]);
    }
    if (this.pending) {
      const waiting = this.pending.modality === 'nfc' ? 'a scan' : 'a photo';
      return this.answer(turn, [`I'm already waiting for ${waiting}. Answer that request or cancel it first.`]);
    }
    const pending: PendingInteraction = { interactionId: `ia-${randomBytes(16).toString('base64url')}`, kind: kindFor[modality], modality };
    this.pending = pending;
    const prompt = modality === 'nfc' ? 'Scan the object: press Scan and hold the tag to the reader.' : 'Take a photo of the object: press Capture.';
    const spokenPrompt = modality === 'nfc' ? 'Please scan the object.' : 'Please take a photo.';
    this.answer(
      turn,
      [prompt],
      [{ type: 'interaction.requested', interactionId: pending.interactionId, kind: pending.kind, prompt, spokenPrompt, options: [], allowsFreeform: false }],
    );
  }

  private teach(turn: TurnKey, label: string): void {
    if (label === '') return this.answer(turn, [`Tell me the name too: "${demoCommands.teachPrefix} <name>".`]);
    if (label.length > limits.labelChars) return this.answer(turn, [`A name can have at most ${limits.labelChars} characters.`]);
    if (controlCharacters.test(label)) return this.answer(turn, ['A name cannot contain control characters.']);
    const objectRef = this.focus;
    if (objectRef === undefined) {
      return this.answer(turn, [`Scan an object first, then say "${demoCommands.teachPrefix} <name>".`]);
    }
    const current = this.labels.get(objectRef);
    if (current === undefined && this.labels.size >= maxTaughtLabels) {
      return this.answer(turn, [
        `Sorry, I can remember at most ${maxTaughtLabels} objects in one session and I already know ${this.labels.size}, so I can't learn this one.`,
      ]);
    }
    const events: ServerEvent[] = [];
    if (this.proposal) events.push(this.resolveProposal('invalidated'));
    const proposal: Proposal = { proposalId: `tp-${randomBytes(16).toString('base64url')}`, objectRef, label };
    this.proposal = proposal;
    events.push({
      type: 'teaching.proposed',
      proposalId: proposal.proposalId,
      objectRef,
      label,
      confirmText: demoCommands.confirm,
      cancelText: demoCommands.cancel,
    });
    const what =
      current === undefined
        ? `I will remember the object ${objectRef} as "${label}" for this session.`
        : `I will rename the object ${objectRef} from "${current}" to "${label}" for this session.`;
    const spoken = current === undefined ? `I will remember this object as "${label}".` : `I will rename this object to "${label}".`;
    const how = `Nothing is saved yet: say "${demoCommands.confirm}" to save it, or "${demoCommands.cancel}" to drop it.`;
    this.answer(turn, [what, how], events, `${spoken} ${how}`);
  }

  private confirm(turn: TurnKey): void {
    const proposal = this.proposal;
    if (!proposal) {
      return this.answer(turn, [`There is nothing to confirm. Scan an object and say "${demoCommands.teachPrefix} <name>" first.`]);
    }
    // teach() refused the 33rd object, and only confirm() adds labels: there is room.
    const event = this.resolveProposal('confirmed');
    this.labels.set(proposal.objectRef, proposal.label);
    this.answer(turn, [`Saved: this object is "${proposal.label}". I keep it only for this session; scan it again and I'll recognise it.`], [event]);
  }

  private cancelTeaching(turn: TurnKey): void {
    if (!this.proposal) return this.answer(turn, ['There is no teaching proposal to cancel.']);
    const { label } = this.proposal;
    this.answer(turn, [`OK, I won't remember "${label}".`], [this.resolveProposal('cancelled')]);
  }

  /** Ends the current proposal; returns its teaching.resolved event. */
  private resolveProposal(outcome: 'confirmed' | 'cancelled' | 'invalidated'): ServerEvent {
    const proposal = this.proposal!;
    this.proposal = undefined;
    return { type: 'teaching.resolved', proposalId: proposal.proposalId, outcome };
  }

  // ---- observations ----------------------------------------------------------------------------

  private async onObservation(message: UserObservation): Promise<void> {
    const { observation } = message;
    const needed = observationModalities(observation);
    const missing = needed.filter((modality) => !this.negotiated.has(modality));
    if (missing.length > 0) {
      return this.fail('modality_not_negotiated', `This session did not negotiate ${missing.join(' and ')}; the observation was ignored.`);
    }
    let answers: PendingInteraction | undefined;
    if (message.interactionId !== undefined) {
      const pending = this.pending;
      if (!pending || pending.interactionId !== message.interactionId) {
        const why = this.retired.includes(message.interactionId) ? 'was already answered or cancelled' : 'does not match the pending request';
        return this.fail('interaction_mismatch', `That interactionId ${why}; the observation was ignored.`);
      }
      if (!needed.includes(pending.modality)) {
        const wanted = pending.modality === 'nfc' ? 'an NFC scan' : 'a photo';
        return this.fail('interaction_mismatch', `The pending request asks for ${wanted}; this observation has none, so it was ignored.`);
      }
      answers = pending;
    }
    let photo: Extract<ImageCheck, { ok: true }> | undefined;
    if (observation.image) {
      const checked = await this.verifyImage(observation.image);
      if (this.ended) return;
      if (!checked.ok) return this.fail('image_invalid', `The photo was rejected: ${checked.reason}.`);
      photo = checked;
    }

    const events: ServerEvent[] = [];
    const sentences: string[] = [];
    if (answers) {
      this.pending = undefined;
      this.retire(answers.interactionId);
      events.push({ type: 'interaction.resolved', interactionId: answers.interactionId, outcome: 'answered' });
    }
    const object = observation.object;
    if (object) {
      const objectRef = object.objectRef;
      if (this.proposal && this.proposal.objectRef !== objectRef) {
        const dropped = this.proposal.label;
        events.push(this.resolveProposal('invalidated'));
        sentences.push(`That's a different object, so I dropped the unconfirmed name "${dropped}".`);
      }
      this.focus = objectRef;
      // Exact objectRef equality: no prefix, case-folding or fuzzy matching.
      const label = this.labels.get(objectRef);
      if (this.proposal) {
        // No label before confirmation: nothing about the object is remembered yet (the proposal card shows what would be).
        sentences.push(
          `I'm still waiting for your confirmation before I remember anything about this object: say "${demoCommands.confirm}" or "${demoCommands.cancel}".`,
        );
      } else if (label !== undefined) {
        sentences.push(`This is "${label}".`);
      } else {
        sentences.push(`I don't know this object yet. Say "${demoCommands.teachPrefix} <name>" to teach me what it is.`);
      }
    }
    if (photo) {
      sentences.push(`I received a ${photo.pixelWidth}×${photo.pixelHeight} photo (${photo.byteCount.toLocaleString('en-US')} bytes). I don't keep it.`);
    }
    this.answer(message.turn, sentences, events);
  }

  private retire(interactionId: string): void {
    this.retired.push(interactionId);
    if (this.retired.length > retiredIdsKept) this.retired.shift();
  }

  // ---- cancel and end --------------------------------------------------------------------------

  /** `response.cancel`: the story being told (the only run that lasts), then a pending request and a proposal. */
  private cancel(): void {
    this.endStory();
    if (this.pending) {
      const { interactionId } = this.pending;
      this.pending = undefined;
      this.retire(interactionId);
      this.emit({ type: 'interaction.resolved', interactionId, outcome: 'cancelled' });
    }
    if (this.proposal) this.emit(this.resolveProposal('cancelled'));
  }

  private end(code: number, reason: string): void {
    this.dispose();
    this.io.close(code, reason);
  }

  // ---- the long answer ---------------------------------------------------------------------------

  /** "tell me a story": run.started now, a part (text.delta + speech.segment) every storyPartMs, run.completed after the last. */
  private tellStory(turn: TurnKey): void {
    const runId = `run-${turn}`;
    this.emit({ type: 'run.started', runId });
    const story = { runId, told: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined };
    this.story = story;
    const tell = () => {
      story.timer = undefined;
      if (this.story !== story || this.ended) return;
      const sentence = demoStory[story.told]!;
      this.emit({ type: 'text.delta', text: story.told === 0 ? sentence : ` ${sentence}` });
      this.emit({ type: 'speech.segment', segmentId: `story-${turn}-${story.told + 1}`, text: sentence, stable: true });
      story.told += 1;
      if (story.told < demoStory.length) story.timer = setTimeout(tell, this.storyPartMs);
      else {
        this.story = undefined;
        this.emit({ type: 'run.completed', runId });
      }
    };
    tell();
  }

  /** Ends the story still being told (cancelled, or new input): no further part, and its run completes. */
  private endStory(): void {
    const story = this.story;
    if (!story) return;
    this.story = undefined;
    if (story.timer !== undefined) clearTimeout(story.timer);
    this.emit({ type: 'run.completed', runId: story.runId });
  }

  // ---- output ----------------------------------------------------------------------------------

  /** One processed turn: run.started, `events`, a text.delta per sentence, one stable speech.segment, run.completed. */
  private answer(turn: TurnKey, sentences: string[], events: ServerEvent[] = [], spoken?: string): void {
    const runId = `run-${turn}`;
    this.emit({ type: 'run.started', runId });
    for (const event of events) this.emit(event);
    sentences.forEach((sentence, index) => this.emit({ type: 'text.delta', text: index === 0 ? sentence : ` ${sentence}` }));
    this.emit({ type: 'speech.segment', segmentId: `speech-${turn}`, text: spoken ?? sentences.join(' '), stable: true });
    this.emit({ type: 'run.completed', runId });
  }

  /** A bounded failure: code ≤ 64 and message ≤ 500 characters; callers never put image bytes or tokens in it. */
  private fail(code: string, message: string): void {
    this.emit({ type: 'failure', code: code.slice(0, limits.failureCodeChars), message: message.slice(0, limits.failureMessageChars) });
  }

  private emit(event: ServerEvent): void {
    if (this.ended) return;
    this.sequence += 1;
    this.io.send({ sequence: this.sequence, event });
  }
}
