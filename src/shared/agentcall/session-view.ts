import { z } from 'zod';
import { boundItems } from '../conversation/bounds';
import { passportLimits } from './passport';
import { intentSchema, interactionKindSchema, limits, maxFrameBytes, modalitySchema, type Intent, type InteractionKind, type Modality } from './protocol';

/**
 * What an AgentCall session means to the UI. The session engine (src/shared/agentcall/session.ts)
 * runs in main and emits `SessionUpdate`s; they cross IPC (validate them with
 * `sessionUpdateSchema`) and the renderer folds them into a `SessionView` with
 * `applySessionUpdate`, so the view never depends on wire details.
 *
 * Everything here is plain data: agent text, prompts, labels and references are strings for the
 * renderer to show as text, never HTML. No image bytes ever appear here: an observation carries
 * its photo's byte count, pixel size and SHA-256 only (the thumbnail is the renderer's business,
 * and the renderer drops it when the session ends).
 */

export type SessionPhase = 'connecting' | 'awaitingEstablished' | 'established' | 'ended';

/** The object of a sent observation, as shown (never the tag's hardware ID; the engine never had it). */
export interface ObjectSummary {
  objectRef: string;
  carrier: string;
  assurance: string;
}

/** A sent photo, as shown: never its bytes. */
export interface ImageSummary {
  byteCount: number;
  pixelWidth: number;
  pixelHeight: number;
  sha256: string;
}

export interface PendingInteraction {
  interactionId: string;
  kind: InteractionKind;
  modality: Modality;
  prompt: string;
  spokenPrompt?: string;
}

export type InteractionState = 'pending' | 'answered' | 'cancelled' | 'declined' | 'superseded';
export type ProposalState = 'shown' | 'confirmed' | 'cancelled' | 'invalidated';
export type AgentTextState = 'streaming' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

export interface TeachingProposal {
  proposalId: string;
  objectRef: string;
  label: string;
  /** The text the Confirm button sends as an ordinary user.turn (through `AgentCallSession.answerProposal`). */
  confirmText: string;
  /** The text the Cancel button sends. */
  cancelText: string;
}

/**
 * An object passport as shown (src/shared/agentcall/passport.ts): untrusted data from the agent or
 * from the tag, its text already free of control characters and bounded. `passportId` is the
 * engine's own (`passport-N`); the renderer names a recipe by it and the recipe's id, and main asks
 * the agent with its own copy.
 */
export interface PassportView {
  passportId: string;
  source: 'agent' | 'tag';
  objectRef: string;
  label: string;
  summary?: string;
  facts: { name: string; value: string }[];
  /** https links without credentials, opened only by the user's click (external.open). */
  links: { title: string; url: string }[];
  actions: { recipeId: string; title: string; description?: string }[];
}

/**
 * `current`: its recipes can be asked for; `replaced`: a newer passport came; `otherObject`: another
 * object was scanned since; `ended`: the session ended.
 */
export type PassportState = 'current' | 'replaced' | 'otherObject' | 'ended';

/**
 * Why the session ended.
 * - `client_end`: the user ended it (`session.end` was sent).
 * - `protocol_error`: the agent broke the protocol; `code` is stable (see `ProtocolErrorCode` in session.ts).
 * - `transport_closed`: the connection closed; `closeCode`/`closeReason` are the WebSocket's, `message` explains them.
 */
export type EndReason =
  | { kind: 'client_end'; message: string }
  | { kind: 'protocol_error'; code: string; message: string }
  | { kind: 'transport_closed'; closeCode: number; closeReason: string; message: string };

export type SessionUpdate =
  | { type: 'session.starting'; sessionId: string; usableModalities: Modality[]; agentRequests: Modality[]; focusContext: boolean }
  | { type: 'session.established' }
  /**
   * An explicit audio turn (push to talk on a call): opened (`hearing`), committed (`final`, how long
   * it was open) or cancelled (`dropped`: nothing was sent, the entry goes).
   */
  | { type: 'user.speech'; id: string; turn: number; state: 'hearing' | 'final' | 'dropped'; durationMs?: number }
  /** `focusRef`: the objectRef whose focus facts rode along as context, if any. */
  | { type: 'user.text'; id: string; turn: number; text: string; focusRef?: string }
  | {
      type: 'user.observation';
      id: string;
      turn: number;
      observationId: string;
      intent: Intent;
      object?: ObjectSummary;
      image?: ImageSummary;
      interactionId?: string;
    }
  | { type: 'run.started'; runKey: string; runId?: string }
  | { type: 'text.delta'; runKey: string; text: string }
  /** Stable speech for voice output; the latest text per segmentId wins. */
  | { type: 'speech.segment'; runKey: string; segmentId: string; text: string }
  /** `response.cancel` was sent; the run stays active until the agent ends it. */
  | { type: 'run.cancelling'; runKey: string }
  | { type: 'run.completed'; runKey: string }
  /** An agent `failure`: ends `runKey`'s run when one was active. Code and message are already bounded and free of control characters. */
  | { type: 'failure'; id: string; runKey?: string; code: string; message: string }
  | { type: 'interaction.requested'; interaction: PendingInteraction }
  | { type: 'interaction.state'; interactionId: string; state: Exclude<InteractionState, 'pending'> }
  | { type: 'teaching.proposed'; proposal: TeachingProposal }
  | { type: 'teaching.state'; proposalId: string; state: Exclude<ProposalState, 'shown'> }
  /** An object passport, shown; it is the current one (the one whose recipes can be asked for). */
  | { type: 'passport.shown'; passport: PassportView }
  | { type: 'passport.state'; passportId: string; state: 'replaced' | 'otherObject' }
  /** The session-local physical focus (the last scanned object), or undefined when cleared. */
  | { type: 'focus'; focus?: ObjectSummary }
  /** Something the user may want to know (an ignored request, an unknown resolution). */
  | { type: 'notice'; id: string; code: string; message: string }
  /** An event of an unknown type was acknowledged and ignored (for a debug log; it grants nothing). */
  | { type: 'ignored'; sequence: number; eventType: string }
  | { type: 'ended'; reason: EndReason };

/** A session that opened in main: its key, its agent and its first updates (what `agentcall.open` answers). */
export interface SessionOpened {
  sessionKey: string;
  agentId: string;
  updates: readonly SessionUpdate[];
}

export type SessionItem =
  | { kind: 'userText'; id: string; turn: number; text: string; focusRef?: string }
  | {
      kind: 'userObservation';
      id: string;
      turn: number;
      observationId: string;
      intent: Intent;
      object?: ObjectSummary;
      image?: ImageSummary;
      interactionId?: string;
    }
  | { kind: 'userSpeech'; id: string; turn: number; state: 'hearing' | 'final'; durationMs?: number }
  | { kind: 'agentText'; id: string; runId?: string; text: string; state: AgentTextState }
  | { kind: 'speech'; id: string; runKey: string; segmentId: string; text: string }
  | { kind: 'failure'; id: string; code: string; message: string }
  | { kind: 'notice'; id: string; code: string; message: string }
  | { kind: 'interaction'; id: string; state: InteractionState; request: PendingInteraction }
  /** `endedWithSession`: invalidated because the session ended while it was shown (not by another object). */
  | { kind: 'teaching'; id: string; state: ProposalState; proposal: TeachingProposal; endedWithSession?: true }
  | { kind: 'passport'; id: string; state: PassportState; passport: PassportView }
  | { kind: 'ended'; id: string; reason: EndReason };

export interface SessionView {
  phase: SessionPhase;
  sessionId?: string;
  /** card.accepted ∩ this machine's modalities: what the user may send. */
  usableModalities: Modality[];
  /** card.agentRequests ∩ usable: what the agent may ask for in this session. */
  agentRequests: Modality[];
  /** Whether later turns carry the focus facts as context. */
  focusContext: boolean;
  runActive: boolean;
  /** `response.cancel` was sent for the active run. */
  runCancelling: boolean;
  /** The run's item id (`agentText` item) while a run is active. */
  activeRunKey?: string;
  pendingInteraction?: PendingInteraction;
  /** The proposal that the Confirm/Cancel buttons act on. */
  shownProposalId?: string;
  /** The passport whose action recipes can be asked for. */
  currentPassportId?: string;
  focus?: ObjectSummary;
  items: SessionItem[];
  /** The oldest items removed to keep the session within its bounds (the screen says so). */
  removedItems: number;
  /** Unknown events acknowledged and ignored so far. */
  ignoredEvents: number;
  endReason?: EndReason;
}

export const emptySessionView: SessionView = {
  phase: 'connecting',
  usableModalities: [],
  agentRequests: [],
  focusContext: true,
  runActive: false,
  runCancelling: false,
  items: [],
  removedItems: 0,
  ignoredEvents: 0,
};

/**
 * Bounds that keep a hostile agent from growing the view without end: each item's own, at most
 * 2,000 items, and the conversation bounds' budget for all of them (src/shared/conversation/bounds.ts);
 * the oldest items go first, counted in `removedItems`.
 */
export const sessionViewLimits = { items: 2_000, textChars: 200_000, speechChars: 20_000 } as const;

export function applySessionUpdate(view: SessionView, update: SessionUpdate): SessionView {
  switch (update.type) {
    case 'session.starting':
      return {
        ...view,
        phase: 'awaitingEstablished',
        sessionId: update.sessionId,
        usableModalities: [...update.usableModalities],
        agentRequests: [...update.agentRequests],
        focusContext: update.focusContext,
      };
    case 'session.established':
      return view.phase === 'ended' ? view : { ...view, phase: 'established' };
    case 'user.text':
      return append(view, {
        kind: 'userText',
        id: update.id,
        turn: update.turn,
        text: bound(update.text, limits.textChars),
        ...(update.focusRef === undefined ? {} : { focusRef: update.focusRef }),
      });
    case 'user.speech': {
      if (update.state === 'dropped') return { ...view, items: view.items.filter((item) => !(item.kind === 'userSpeech' && item.id === update.id)) };
      return append(view, {
        kind: 'userSpeech',
        id: update.id,
        turn: update.turn,
        state: update.state,
        ...(update.durationMs === undefined ? {} : { durationMs: update.durationMs }),
      });
    }
    case 'user.observation': {
      const { type: _type, ...rest } = update;
      return append(view, { kind: 'userObservation', ...rest });
    }
    case 'run.started':
      return append(
        { ...view, runActive: true, runCancelling: false, activeRunKey: update.runKey },
        { kind: 'agentText', id: update.runKey, text: '', state: 'streaming', ...(update.runId === undefined ? {} : { runId: update.runId }) },
      );
    case 'text.delta':
      return updateItem(view, 'agentText', update.runKey, (item) => ({ ...item, text: bound(`${item.text}${update.text}`, sessionViewLimits.textChars) }));
    case 'speech.segment': {
      const id = `${update.runKey}:${update.segmentId}`;
      return append(view, { kind: 'speech', id, runKey: update.runKey, segmentId: update.segmentId, text: bound(update.text, sessionViewLimits.speechChars) });
    }
    case 'run.cancelling':
      return view.activeRunKey === update.runKey ? { ...view, runCancelling: true } : view;
    case 'run.completed': {
      const state: AgentTextState = view.runCancelling && view.activeRunKey === update.runKey ? 'cancelled' : 'completed';
      return endRun(
        updateItem(view, 'agentText', update.runKey, (item) => ({ ...item, state })),
        update.runKey,
      );
    }
    case 'failure': {
      let next = view;
      if (update.runKey !== undefined) {
        const runKey = update.runKey;
        next = endRun(
          updateItem(next, 'agentText', runKey, (item) => ({ ...item, state: 'failed' })),
          runKey,
        );
      }
      return append(next, {
        kind: 'failure',
        id: update.id,
        code: bound(update.code, limits.failureCodeChars),
        message: bound(update.message, limits.failureMessageChars),
      });
    }
    case 'interaction.requested': {
      const interaction = update.interaction;
      return append(
        { ...view, pendingInteraction: interaction },
        { kind: 'interaction', id: interaction.interactionId, state: 'pending', request: interaction },
      );
    }
    case 'interaction.state': {
      const next = updateItem(view, 'interaction', update.interactionId, (item) => ({ ...item, state: update.state }));
      return next.pendingInteraction?.interactionId === update.interactionId ? withoutKey(next, 'pendingInteraction') : next;
    }
    case 'teaching.proposed':
      return append(
        { ...view, shownProposalId: update.proposal.proposalId },
        { kind: 'teaching', id: update.proposal.proposalId, state: 'shown', proposal: update.proposal },
      );
    case 'teaching.state': {
      const next = updateItem(view, 'teaching', update.proposalId, (item) => ({ ...item, state: update.state }));
      return next.shownProposalId === update.proposalId ? withoutKey(next, 'shownProposalId') : next;
    }
    case 'passport.shown':
      return append(
        { ...view, currentPassportId: update.passport.passportId },
        { kind: 'passport', id: update.passport.passportId, state: 'current', passport: update.passport },
      );
    case 'passport.state': {
      const next = updateItem(view, 'passport', update.passportId, (item) => ({ ...item, state: update.state }));
      return next.currentPassportId === update.passportId ? withoutKey(next, 'currentPassportId') : next;
    }
    case 'focus':
      return update.focus === undefined ? withoutKey(view, 'focus') : { ...view, focus: update.focus };
    case 'notice':
      return append(view, { kind: 'notice', id: update.id, code: update.code, message: bound(update.message, 1_000) });
    case 'ignored':
      return { ...view, ignoredEvents: view.ignoredEvents + 1 };
    case 'ended': {
      // Session-local state is gone: the pending request and shown proposal can no longer be
      // answered, the focus is forgotten, a streaming answer stops where it was, and a spoken turn
      // still open (never sent) goes.
      const items = view.items.flatMap((item): SessionItem[] => {
        if (item.kind === 'userSpeech' && item.state === 'hearing') return [];
        if (item.kind === 'interaction' && item.state === 'pending') return [{ ...item, state: 'cancelled' }];
        if (item.kind === 'teaching' && item.state === 'shown') return [{ ...item, state: 'invalidated', endedWithSession: true }];
        if (item.kind === 'passport' && item.state === 'current') return [{ ...item, state: 'ended' }];
        if (item.kind === 'agentText' && item.state === 'streaming') return [{ ...item, state: 'interrupted' }];
        return [item];
      });
      const { pendingInteraction: _pending, shownProposalId: _proposal, currentPassportId: _passport, focus: _focus, activeRunKey: _run, ...rest } = view;
      return append(
        { ...rest, phase: 'ended', runActive: false, runCancelling: false, endReason: update.reason, items },
        { kind: 'ended', id: 'ended', reason: update.reason },
      );
    }
  }
}

function bound(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

function endRun(view: SessionView, runKey: string): SessionView {
  if (view.activeRunKey !== runKey) return view;
  const { activeRunKey: _run, ...rest } = view;
  return { ...rest, runActive: false, runCancelling: false };
}

function withoutKey<K extends 'pendingInteraction' | 'shownProposalId' | 'currentPassportId' | 'focus'>(view: SessionView, key: K): SessionView {
  const next = { ...view };
  delete next[key];
  return next;
}

/** Adds an item, or replaces the one with the same kind and id; the oldest go beyond the bounds. */
function append(view: SessionView, item: SessionItem): SessionView {
  const index = view.items.findIndex((entry) => entry.kind === item.kind && entry.id === item.id);
  if (index !== -1) {
    const items = view.items.slice();
    items[index] = item;
    return bounded({ ...view, items });
  }
  return bounded({ ...view, items: [...view.items, item] });
}

function updateItem<K extends SessionItem['kind']>(
  view: SessionView,
  kind: K,
  id: string,
  change: (item: Extract<SessionItem, { kind: K }>) => SessionItem,
): SessionView {
  const index = view.items.findIndex((entry) => entry.kind === kind && entry.id === id);
  if (index === -1) return view;
  const items = view.items.slice();
  items[index] = change(items[index] as Extract<SessionItem, { kind: K }>);
  return bounded({ ...view, items });
}

/** The view within its bounds: the oldest items beyond them removed and counted. */
function bounded(view: SessionView): SessionView {
  const { items, removed } = boundItems(view.items, sessionViewLimits.items);
  return removed === 0 ? view : { ...view, items: [...items], removedItems: view.removedItems + removed };
}

/*
 * zod schemas for the values that cross IPC, matching the types above (`satisfies` fails the
 * typecheck if they drift). Main validates nothing it built itself; the contract uses these for
 * the `agentcall.update` event.
 */
const s = (max: number) => z.string().max(max);
const id = s(300);
const modalities = z.array(modalitySchema).max(2);
const objectSummarySchema = z.strictObject({ objectRef: s(limits.labelChars), carrier: s(64), assurance: s(64) }) satisfies z.ZodType<ObjectSummary>;
export const imageSummarySchema = z.strictObject({
  byteCount: z.number().int().min(1).max(limits.imageBytes),
  pixelWidth: z.number().int().min(1).max(limits.imageSide),
  pixelHeight: z.number().int().min(1).max(limits.imageSide),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
}) satisfies z.ZodType<ImageSummary>;
export const pendingInteractionSchema = z.strictObject({
  interactionId: s(limits.interactionIdChars),
  kind: interactionKindSchema,
  modality: modalitySchema,
  prompt: s(limits.promptChars),
  spokenPrompt: s(limits.promptChars).optional(),
}) satisfies z.ZodType<PendingInteraction>;
export const teachingProposalSchema = z.strictObject({
  proposalId: s(limits.interactionIdChars),
  objectRef: s(limits.labelChars),
  label: s(limits.labelChars),
  confirmText: s(200),
  cancelText: s(200),
}) satisfies z.ZodType<TeachingProposal>;
export const passportViewSchema = z.strictObject({
  passportId: s(64),
  source: z.enum(['agent', 'tag']),
  objectRef: s(limits.labelChars),
  label: s(limits.labelChars),
  summary: s(passportLimits.summaryChars).optional(),
  facts: z.array(z.strictObject({ name: s(passportLimits.factNameChars), value: s(passportLimits.factValueChars) })).max(passportLimits.facts),
  links: z.array(z.strictObject({ title: s(passportLimits.linkTitleChars), url: s(passportLimits.urlChars) })).max(passportLimits.links),
  actions: z
    .array(
      z.strictObject({
        recipeId: s(passportLimits.recipeIdChars),
        title: s(passportLimits.actionTitleChars),
        description: s(passportLimits.actionDescriptionChars).optional(),
      }),
    )
    .max(passportLimits.actions),
}) satisfies z.ZodType<PassportView>;
export const endReasonSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('client_end'), message: s(500) }),
  z.strictObject({ kind: z.literal('protocol_error'), code: s(64), message: s(500) }),
  z.strictObject({ kind: z.literal('transport_closed'), closeCode: z.number().int().min(0).max(65_535), closeReason: s(123), message: s(500) }),
]) satisfies z.ZodType<EndReason>;

export const sessionUpdateSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('session.starting'),
    sessionId: s(limits.sessionIdChars),
    usableModalities: modalities,
    agentRequests: modalities,
    focusContext: z.boolean(),
  }),
  z.strictObject({ type: z.literal('session.established') }),
  z.strictObject({
    type: z.literal('user.speech'),
    id,
    turn: z.number().int().min(1),
    state: z.enum(['hearing', 'final', 'dropped']),
    durationMs: z.number().int().min(0).max(86_400_000).optional(),
  }),
  z.strictObject({ type: z.literal('user.text'), id, turn: z.number().int().min(1), text: s(limits.textChars), focusRef: s(limits.labelChars).optional() }),
  z.strictObject({
    type: z.literal('user.observation'),
    id,
    turn: z.number().int().min(1),
    observationId: s(limits.observationIdChars),
    intent: intentSchema,
    object: objectSummarySchema.optional(),
    image: imageSummarySchema.optional(),
    interactionId: s(limits.interactionIdChars).optional(),
  }),
  z.strictObject({ type: z.literal('run.started'), runKey: id, runId: s(128).optional() }),
  z.strictObject({ type: z.literal('text.delta'), runKey: id, text: s(maxFrameBytes) }),
  z.strictObject({ type: z.literal('speech.segment'), runKey: id, segmentId: s(128), text: s(maxFrameBytes) }),
  z.strictObject({ type: z.literal('run.cancelling'), runKey: id }),
  z.strictObject({ type: z.literal('run.completed'), runKey: id }),
  z.strictObject({ type: z.literal('failure'), id, runKey: id.optional(), code: s(limits.failureCodeChars), message: s(limits.failureMessageChars) }),
  z.strictObject({ type: z.literal('interaction.requested'), interaction: pendingInteractionSchema }),
  z.strictObject({
    type: z.literal('interaction.state'),
    interactionId: s(limits.interactionIdChars),
    state: z.enum(['answered', 'cancelled', 'declined', 'superseded']),
  }),
  z.strictObject({ type: z.literal('teaching.proposed'), proposal: teachingProposalSchema }),
  z.strictObject({ type: z.literal('teaching.state'), proposalId: s(limits.interactionIdChars), state: z.enum(['confirmed', 'cancelled', 'invalidated']) }),
  z.strictObject({ type: z.literal('passport.shown'), passport: passportViewSchema }),
  z.strictObject({ type: z.literal('passport.state'), passportId: s(64), state: z.enum(['replaced', 'otherObject']) }),
  z.strictObject({ type: z.literal('focus'), focus: objectSummarySchema.optional() }),
  z.strictObject({ type: z.literal('notice'), id, code: s(64), message: s(1_000) }),
  z.strictObject({ type: z.literal('ignored'), sequence: z.number().int().min(1), eventType: s(128) }),
  z.strictObject({ type: z.literal('ended'), reason: endReasonSchema }),
]) satisfies z.ZodType<SessionUpdate>;
