import type { EventType, Message, ToolCall } from '@ag-ui/core';
import { EventSchemas, EventTypeSchema } from '@ag-ui/core/schemas';
import type { z } from 'zod';
import { customLimits, findCustomNamespace, knownCustomNamespaces, type CustomNamespace } from './custom-events';
import { interruptLimits, summarizeAnswer, toAguiInterrupt, type AguiInterrupt, type AnswerField } from './interrupts';
import { applyJsonPatch, type PatchOperation } from './json-patch';
import { cloneJson, isJsonObject, isPlainObject, measureJson, prettyJson, truncate, type JsonObject, type JsonValue } from './json-values';

/**
 * The plain AG-UI 1.0 run model: a thread's view, folded from the server's events with
 * `applyAguiEvent`. Pure and plain JSON (no Dates, Maps or class instances), so it crosses IPC as
 * is and is persisted with `serializeThread` (thread-persistence.ts) — open interrupts survive a
 * restart.
 *
 * Every event is validated with @ag-ui/core's own zod schemas. An invalid, unknown or out-of-place
 * event never throws: it becomes a protocol note (`view.notes`, stable `code`) and the view is
 * otherwise unchanged. Everything is bounded (`aguiLimits`): a hostile stream cannot grow the
 * view, its text, its state or its patches without end.
 *
 * Unlike Talkie (a stateful server), a plain AG-UI server is stateless: the client keeps the
 * history. `historyMessages(view)` is the `messages` of the next RunAgentInput.
 */

export type AguiRunState =
  /** No run yet on this thread. */
  | 'idle'
  /** The request was sent (`beginRun`); RUN_STARTED has not arrived. */
  | 'starting'
  | 'running'
  | 'finished'
  /** RUN_FINISHED with an interrupt outcome: open interrupts wait for answers. */
  | 'awaitingInput'
  | 'cancelled'
  /** RUN_ERROR, or the request failed before the stream began (`markRequestFailed`). */
  | 'error'
  /** The stream ended without RUN_FINISHED/RUN_ERROR (`markStreamDropped`): shown as interrupted, with Retry. */
  | 'dropped';

export type TextRole = 'developer' | 'system' | 'assistant' | 'user';
export type ToolCallState = 'streaming' | 'called' | 'completed' | 'failed' | 'incomplete';
/** `json`: the arguments parse (see `argsPretty`); `invalid`: they do not; `truncated`: too long to keep whole. */
export type ArgsStatus = 'streaming' | 'empty' | 'json' | 'invalid' | 'truncated';

export interface ToolResultView {
  /** The tool message's id (TOOL_CALL_RESULT mints a message). */
  messageId: string;
  /** The result's text (text parts joined); media parts are listed in `media`, never fetched or kept. */
  text: string;
  truncated?: true;
  error?: string;
  media?: { type: 'image' | 'audio' | 'video' | 'document'; mimeType?: string }[];
}

export type AguiItem =
  /** A message the user typed here (`addUserMessage`), or a user message from MESSAGES_SNAPSHOT. */
  | { kind: 'user'; id: string; text: string; subagentRunId?: string }
  | { kind: 'text'; id: string; role: TextRole; name?: string; text: string; streaming: boolean; truncated?: true; subagentRunId?: string }
  /** One reasoning message, shown in a collapsible "thinking" section; `spanId` groups a REASONING_START…END span. */
  | { kind: 'reasoning'; id: string; spanId?: string; text: string; streaming: boolean; truncated?: true; encryptedHidden?: true; subagentRunId?: string }
  | {
      kind: 'toolCall';
      /** The toolCallId. */
      id: string;
      name: string;
      /** False when only a result was seen (no TOOL_CALL_START): the history then carries just the tool message. */
      started: boolean;
      parentMessageId?: string;
      argsText: string;
      argsStatus: ArgsStatus;
      argsPretty?: string;
      state: ToolCallState;
      result?: ToolResultView;
      subagentRunId?: string;
    }
  | { kind: 'activity'; id: string; activityType: string; content: JsonObject; subagentRunId?: string }
  /** A CUSTOM event of a known namespace (custom-events.ts), as plain strings. */
  | { kind: 'custom'; id: string; namespace: string; label: string; name: string; title: string; text?: string; json?: string; subagentRunId?: string }
  | { kind: 'error'; id: string; message: string; code?: string }
  /**
   * The user's answer to an interrupt, recorded when the run that carries it starts (so the thread
   * shows what was approved or declined); never sent back to the agent as a message.
   */
  | { kind: 'answer'; id: string; interruptId: string; question: string; status: 'resolved' | 'cancelled'; fields: AnswerField[] };

/** A resume[] entry on its way, with what the transcript will record of it. */
export interface PendingAnswer {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  fields?: AnswerField[];
}

export interface AguiStep {
  /** Unique within the view (`step:<n>`). */
  id: string;
  name: string;
  runId?: string;
  subagentRunId?: string;
  state: 'running' | 'finished';
}

export interface AguiSubagent {
  id: string;
  name: string;
  description?: string;
  parentSubagentRunId?: string;
  parentToolCallId?: string;
  parentMessageId?: string;
  runId?: string;
  state: 'running' | 'finished' | 'suspended' | 'failed';
  error?: { message: string; code?: string };
  interruptIds?: string[];
}

export interface AguiNote {
  /** The event's ordinal in this view (`eventCount` when it was noted). */
  seq: number;
  code: string;
  message: string;
  eventType?: string;
}

/** Internal streaming bookkeeping for *_CHUNK events: at most one open chunk stream per lane (parent or subagent). */
export interface AguiOpenChunk {
  kind: 'text' | 'tool' | 'reasoning';
  id: string;
  subagentRunId?: string;
}

export interface AguiThreadView {
  version: 1;
  threadId: string;
  /** The current (or last) run. */
  runId?: string;
  runState: AguiRunState;
  items: AguiItem[];
  steps: AguiStep[];
  subagents: AguiSubagent[];
  /** Open interrupts (status `open`) and the most recent answered ones. */
  interrupts: AguiInterrupt[];
  /** The agent state (STATE_SNAPSHOT/STATE_DELTA), inspectable; sent back as RunAgentInput.state. */
  state?: JsonValue;
  /** RUN_ERROR, a failed request or a dropped stream. */
  error?: { message: string; code?: string };
  notes: AguiNote[];
  /** Notes ever made (the list keeps the latest `aguiLimits.notes`). */
  noteCount: number;
  eventCount: number;
  /** Items dropped (oldest first) to stay within `aguiLimits.items`. */
  droppedItems: number;
  openChunks: AguiOpenChunk[];
  openSpans: { id: string; subagentRunId?: string }[];
  /** The resume[] sent with the run being started; applied to `interrupts` (and recorded as `answer` items) when its RUN_STARTED arrives. */
  pendingResume?: PendingAnswer[];
  /**
   * Deprecated THINKING_* events of the run `runId` (read as REASONING_*, as @ag-ui/client does):
   * the ids minted for the open span and message. Its presence for the current run means the
   * deprecation was noted (once per run).
   */
  legacyThinking?: { runId: string; spanId?: string; messageId?: string };
}

export const aguiLimits = {
  items: 2_000,
  textChars: 200_000,
  reasoningChars: 100_000,
  toolArgsChars: 100_000,
  toolPrettyChars: 100_000,
  toolResultChars: 100_000,
  userTextChars: 100_000,
  idChars: 300,
  nameChars: 200,
  notes: 200,
  noteChars: 500,
  steps: 500,
  subagents: 200,
  errorChars: 2_000,
  codeChars: 64,
  patchOperations: 1_000,
  jsonDepth: 32,
  stateChars: 262_144,
  activityChars: 65_536,
  mediaParts: 20,
  openChunks: 50,
  openSpans: 50,
} as const;

export function createThread(threadId: string): AguiThreadView {
  return { version: 1, threadId, runState: 'idle', items: [], steps: [], subagents: [], interrupts: [], notes: [], noteCount: 0, eventCount: 0, droppedItems: 0, openChunks: [], openSpans: [] };
}

export function openInterrupts(view: AguiThreadView): AguiInterrupt[] {
  return view.interrupts.filter((interrupt) => interrupt.status === 'open');
}

/** The user's message, shown at once and sent in the next run's history. */
export function addUserMessage(view: AguiThreadView, message: { id: string; text: string }): AguiThreadView {
  const draft = new Draft(view);
  draft.put({ kind: 'user', id: truncate(message.id, aguiLimits.idChars), text: truncate(message.text, aguiLimits.userTextChars) });
  return draft.done();
}

/**
 * The request for a new run was sent. `resume` (when answering interrupts) is remembered and
 * closes those interrupts when the run's RUN_STARTED arrives — if the request fails first
 * (`markRequestFailed`/`markStreamDropped`), they stay open.
 */
export function beginRun(view: AguiThreadView, run: { runId: string; resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[] }): AguiThreadView {
  const { error: _error, pendingResume: _pending, ...rest } = view;
  const next: AguiThreadView = { ...rest, runId: run.runId, runState: 'starting' };
  if (run.resume !== undefined && run.resume.length > 0) {
    next.pendingResume = run.resume.map((entry) => {
      const interrupt = view.interrupts.find((candidate) => candidate.id === entry.interruptId);
      const fields = entry.status === 'resolved' && interrupt ? summarizeAnswer(interrupt, entry.payload) : [];
      return { interruptId: entry.interruptId, status: entry.status, ...(fields.length > 0 ? { fields } : {}) };
    });
  }
  return next;
}

/** The SSE stream ended (or broke) before RUN_FINISHED/RUN_ERROR: shown as interrupted, with Retry. */
export function markStreamDropped(view: AguiThreadView, message: string): AguiThreadView {
  const draft = new Draft(view);
  draft.endRun('incomplete');
  const { pendingResume: _pending, ...rest } = draft.done();
  return { ...rest, runState: 'dropped', error: { code: 'stream_dropped', message: truncate(message, aguiLimits.errorChars) } };
}

/** The request failed before any stream (HTTP 4xx/5xx, network): open interrupts stay open. */
export function markRequestFailed(view: AguiThreadView, failure: { code: string; message: string }): AguiThreadView {
  const { pendingResume: _pending, ...rest } = view;
  return { ...rest, runState: 'error', error: { code: truncate(failure.code, aguiLimits.codeChars), message: truncate(failure.message, aguiLimits.errorChars) } };
}

export interface ApplyOptions {
  /** CUSTOM namespaces rendered (others are ignored); defaults to `knownCustomNamespaces`. */
  customNamespaces?: readonly CustomNamespace[];
}

type AguiEvent = z.infer<typeof EventSchemas>;
type EventOf<T extends AguiEvent['type']> = Extract<AguiEvent, { type: T }>;

const idFields = ['threadId', 'runId', 'parentRunId', 'messageId', 'toolCallId', 'parentMessageId', 'subagentRunId', 'parentSubagentRunId', 'parentToolCallId', 'stepName', 'entityId', 'activityType'] as const;

/**
 * The deprecated THINKING_* events (AG-UI before 0.0.45; the official Python SDK still sends them)
 * and the REASONING_* event each is read as. They carry no ids: as in @ag-ui/client's
 * compatibility layer, the span and message ids are minted here (and THINKING_START's `title` is
 * dropped, REASONING_START has none).
 */
const legacyThinkingTypes = {
  THINKING_START: 'REASONING_START',
  THINKING_TEXT_MESSAGE_START: 'REASONING_MESSAGE_START',
  THINKING_TEXT_MESSAGE_CONTENT: 'REASONING_MESSAGE_CONTENT',
  THINKING_TEXT_MESSAGE_END: 'REASONING_MESSAGE_END',
  THINKING_END: 'REASONING_END',
} as const;

/** Folds one AG-UI event (already JSON-parsed, otherwise unknown) into the view. Never throws on bad input. */
export function applyAguiEvent(view: AguiThreadView, input: unknown, options: ApplyOptions = {}): AguiThreadView {
  const draft = new Draft(view);
  draft.eventCount += 1;
  if (!isPlainObject(input)) {
    draft.note('event_not_object', 'An event that is not a JSON object was ignored.');
    return draft.done();
  }
  const typeLabel = typeof input.type === 'string' ? truncate(input.type, 60) : String(input.type).slice(0, 60);
  const legacy = typeof input.type === 'string' && Object.hasOwn(legacyThinkingTypes, input.type);
  const received: Record<string, unknown> = legacy ? draft.translateThinking(input, typeLabel) : input;
  const type = received.type;
  if (!EventTypeSchema.safeParse(type).success) {
    draft.note('event_unknown_type', `An event of unknown type "${typeLabel}" was ignored.`, typeLabel);
    return draft.done();
  }
  const parsed = EventSchemas.safeParse(received);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
    draft.note('event_invalid', `An invalid ${typeLabel} event was ignored: ${issue?.message ?? 'invalid'}${where}.`, typeLabel);
    return draft.done();
  }
  const event = parsed.data;
  for (const field of idFields) {
    const value = (event as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.length > aguiLimits.idChars) {
      draft.note('event_id_too_long', `A ${typeLabel} event with a ${field} longer than ${aguiLimits.idChars} characters was ignored.`, typeLabel);
      return draft.done();
    }
  }
  const live = draft.runState === 'running' || (event.type === 'RUN_ERROR' && draft.runState === 'starting');
  if (event.type !== 'RUN_STARTED' && !live) {
    draft.note('run_not_active', `A ${typeLabel} event outside a running run was ignored.`, typeLabel);
    return draft.done();
  }
  draft.eventType = typeLabel;
  draft.dispatch(event, options.customNamespaces ?? knownCustomNamespaces);
  return draft.done();
}

/** A tool call's arguments as the view holds them, when they are a whole JSON object (what an approval's `editedArgs` starts from). */
export function toolCallArgs(view: AguiThreadView, toolCallId: string): JsonObject | undefined {
  const call = view.items.find((entry): entry is ItemOf<'toolCall'> => entry.kind === 'toolCall' && entry.id === toolCallId);
  if (call === undefined || call.argsStatus === 'truncated' || call.argsStatus === 'invalid' || call.argsText.trim() === '') return undefined;
  try {
    const parsed = cloneJson(JSON.parse(call.argsText) as unknown);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The AG-UI message history to send as the next RunAgentInput.messages: user, assistant (with
 * their tool calls), tool results, system/developer and reasoning messages, in order. Activity
 * messages stay local (as @ag-ui/client does); encrypted values were never kept.
 */
export function historyMessages(view: AguiThreadView): Message[] {
  const out: Message[] = [];
  const assistants = new Map<string, Extract<Message, { role: 'assistant' }>>();
  const attribution = (item: { subagentRunId?: string }) => (item.subagentRunId === undefined ? {} : { subagentRunId: item.subagentRunId });
  for (const item of view.items) {
    switch (item.kind) {
      case 'user':
        out.push({ id: item.id, role: 'user', content: item.text, ...attribution(item) });
        break;
      case 'text': {
        if (item.role === 'assistant') {
          const existing = assistants.get(item.id);
          if (existing) existing.content = item.text;
          else {
            const message: Extract<Message, { role: 'assistant' }> = { id: item.id, role: 'assistant', content: item.text, ...(item.name === undefined ? {} : { name: item.name }), ...attribution(item) };
            assistants.set(item.id, message);
            out.push(message);
          }
        } else {
          out.push({ id: item.id, role: item.role, content: item.text, ...(item.name === undefined ? {} : { name: item.name }), ...attribution(item) });
        }
        break;
      }
      case 'reasoning':
        out.push({ id: item.id, role: 'reasoning', content: item.text, ...attribution(item) });
        break;
      case 'toolCall': {
        if (item.started) {
          const parentId = item.parentMessageId ?? item.id;
          let parent = assistants.get(parentId);
          if (!parent) {
            parent = { id: parentId, role: 'assistant', ...attribution(item) };
            assistants.set(parentId, parent);
            out.push(parent);
          }
          const call: ToolCall = { id: item.id, type: 'function', function: { name: item.name, arguments: item.argsText } };
          parent.toolCalls = [...(parent.toolCalls ?? []), call];
        }
        if (item.result) {
          out.push({ id: item.result.messageId, role: 'tool', toolCallId: item.id, content: item.result.text, ...(item.result.error === undefined ? {} : { error: item.result.error }), ...attribution(item) });
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}

export interface SubagentGroup {
  subagentRunId: string;
  /** Undefined when items carried a subagentRunId that no SUBAGENT_STARTED announced. */
  subagent?: AguiSubagent;
  items: AguiItem[];
}

/** The parent agent's items, and each subagent invocation's own (distinct ids never merge), in first-seen order. */
export function groupBySubagent(view: AguiThreadView): { main: AguiItem[]; subagents: SubagentGroup[] } {
  const main: AguiItem[] = [];
  const groups = new Map<string, SubagentGroup>();
  for (const subagent of view.subagents) groups.set(subagent.id, { subagentRunId: subagent.id, subagent, items: [] });
  for (const item of view.items) {
    const id = 'subagentRunId' in item ? item.subagentRunId : undefined;
    if (id === undefined) {
      main.push(item);
      continue;
    }
    let group = groups.get(id);
    if (!group) {
      group = { subagentRunId: id, items: [] };
      groups.set(id, group);
    }
    group.items.push(item);
  }
  return { main, subagents: [...groups.values()] };
}

/* ------------------------------------------------------------------------------------------ */

type ItemOf<K extends AguiItem['kind']> = Extract<AguiItem, { kind: K }>;

function laneConflict(owner: string | undefined, claimed: string | undefined): boolean {
  return claimed !== undefined && claimed !== owner;
}

function withLane<T extends object>(value: T, subagentRunId: string | undefined): T & { subagentRunId?: string } {
  return subagentRunId === undefined ? value : { ...value, subagentRunId };
}

/** Finishes streamed tool arguments: pretty JSON when they parse (a no-op once finished). */
export function finishArgs(item: ItemOf<'toolCall'>): ItemOf<'toolCall'> {
  if (item.argsStatus !== 'streaming') return item;
  const { argsPretty: _pretty, ...rest } = item;
  if (item.argsText.length >= aguiLimits.toolArgsChars) return { ...rest, argsStatus: 'truncated' };
  if (item.argsText.trim() === '') return { ...rest, argsStatus: 'empty' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(item.argsText);
  } catch {
    return { ...rest, argsStatus: 'invalid' };
  }
  const pretty = prettyJson(parsed, aguiLimits.toolPrettyChars);
  return pretty === undefined ? { ...rest, argsStatus: 'json' } : { ...rest, argsStatus: 'json', argsPretty: pretty };
}

function toolResultView(messageId: string, content: string | readonly unknown[], error?: string): ToolResultView {
  let text: string;
  const media: NonNullable<ToolResultView['media']> = [];
  if (typeof content === 'string') text = content;
  else {
    const texts: string[] = [];
    let length = 0;
    for (const part of content) {
      if (!isPlainObject(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') {
        if (length < aguiLimits.toolResultChars) texts.push(part.text);
        length += part.text.length;
      } else if ((part.type === 'image' || part.type === 'audio' || part.type === 'video' || part.type === 'document') && media.length < aguiLimits.mediaParts) {
        const source = isPlainObject(part.source) ? part.source : undefined;
        const mimeType = typeof source?.mimeType === 'string' ? truncate(source.mimeType, 100) : undefined;
        media.push({ type: part.type, ...(mimeType === undefined ? {} : { mimeType }) });
      }
    }
    text = texts.join('\n');
  }
  return {
    messageId,
    text: truncate(text, aguiLimits.toolResultChars),
    ...(text.length > aguiLimits.toolResultChars ? { truncated: true as const } : {}),
    ...(error === undefined ? {} : { error: truncate(error, aguiLimits.errorChars) }),
    ...(media.length > 0 ? { media } : {}),
  };
}

function contentText(content: string | readonly unknown[]): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const part of content) {
    if (!isPlainObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else if (typeof part.type === 'string') parts.push(`[${part.type}]`);
  }
  return parts.join('\n');
}

/**
 * A working copy of the view for one update. Top-level arrays are replaced (never mutated) the
 * first time they change, so the input view is never modified.
 */
class Draft {
  private view: AguiThreadView;
  private itemsCopied = false;
  eventCount: number;
  eventType: string | undefined;

  constructor(view: AguiThreadView) {
    this.view = { ...view };
    this.eventCount = view.eventCount;
  }

  get runState(): AguiRunState {
    return this.view.runState;
  }

  done(): AguiThreadView {
    return { ...this.view, eventCount: this.eventCount };
  }

  note(code: string, message: string, eventType: string | undefined = this.eventType): void {
    const note: AguiNote = { seq: this.eventCount, code, message: truncate(message, aguiLimits.noteChars), ...(eventType === undefined ? {} : { eventType }) };
    const notes = this.view.notes.length >= aguiLimits.notes ? this.view.notes.slice(this.view.notes.length - aguiLimits.notes + 1) : this.view.notes.slice();
    notes.push(note);
    this.view.notes = notes;
    this.view.noteCount += 1;
  }

  /** A THINKING_* event as its REASONING_* equivalent (legacyThinkingTypes); the first of a run adds the deprecation note. */
  translateThinking(input: Record<string, unknown>, typeLabel: string): Record<string, unknown> {
    const runId = this.view.runId ?? '';
    const live = this.view.runState === 'running';
    let state = live ? this.view.legacyThinking : { runId };
    if (state === undefined || state.runId !== runId) {
      this.note('event_deprecated_thinking', `This agent sends the deprecated THINKING_* events (first: ${typeLabel}); they are shown as reasoning (REASONING_* since AG-UI 0.0.45).`, typeLabel);
      state = { runId };
    }
    const minted = `agentdesk-thinking-${this.eventCount}`;
    const type = input.type as keyof typeof legacyThinkingTypes;
    const as = legacyThinkingTypes[type];
    let out: Record<string, unknown>;
    if (type === 'THINKING_START') {
      const { title: _title, ...rest } = input;
      state = { ...state, spanId: minted };
      out = { ...rest, type: as, messageId: minted };
    } else if (type === 'THINKING_TEXT_MESSAGE_START') {
      state = { ...state, messageId: minted };
      out = { ...input, type: as, messageId: minted, role: 'reasoning' };
    } else if (type === 'THINKING_TEXT_MESSAGE_CONTENT') {
      out = { ...input, type: as, messageId: state.messageId ?? minted };
    } else if (type === 'THINKING_TEXT_MESSAGE_END') {
      out = { ...input, type: as, messageId: state.messageId ?? minted };
      state = { runId: state.runId, ...(state.spanId === undefined ? {} : { spanId: state.spanId }) };
    } else {
      out = { ...input, type: as, messageId: state.spanId ?? minted };
      state = { runId: state.runId, ...(state.messageId === undefined ? {} : { messageId: state.messageId }) };
    }
    // Outside a run the event is refused as any other would be (run_not_active); nothing is kept.
    if (live) this.view.legacyThinking = state;
    return out;
  }

  /* items ------------------------------------------------------------------------------------ */

  private items(): AguiItem[] {
    if (!this.itemsCopied) {
      this.view.items = this.view.items.slice();
      this.itemsCopied = true;
    }
    return this.view.items;
  }

  find<K extends AguiItem['kind']>(kind: K, id: string): { index: number; item: ItemOf<K> } | undefined {
    const items = this.view.items;
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index] as AguiItem;
      if (item.kind === kind && item.id === id) return { index, item: item as ItemOf<K> };
    }
    return undefined;
  }

  replace(index: number, item: AguiItem): void {
    this.items()[index] = item;
  }

  /** Replaces the item with the same kind and id, or appends it (dropping the oldest beyond the bound). */
  put(item: AguiItem): void {
    const found = this.find(item.kind, item.id);
    if (found) {
      this.replace(found.index, item);
      return;
    }
    const items = this.items();
    items.push(item);
    if (items.length > aguiLimits.items) {
      const excess = items.length - aguiLimits.items;
      items.splice(0, excess);
      if (this.view.droppedItems === 0) this.note('items_dropped', `The thread keeps the latest ${aguiLimits.items} items; older ones were dropped from the view and the history.`);
      this.view.droppedItems += excess;
    }
  }

  /* lifecycle --------------------------------------------------------------------------------- */

  /** Ends every stream of the run: open chunks and spans close, streaming items stop. */
  endRun(toolState: 'incomplete'): void {
    this.closeAllChunks();
    this.view.openSpans = [];
    const items = this.view.items;
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as AguiItem;
      if ((item.kind === 'text' || item.kind === 'reasoning') && item.streaming) this.replace(index, { ...item, streaming: false });
      else if (item.kind === 'toolCall' && item.state === 'streaming') this.replace(index, { ...finishArgs(item), state: toolState });
    }
  }

  private endLaneStreams(subagentRunId: string): void {
    const items = this.view.items;
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as AguiItem;
      if (!('subagentRunId' in item) || item.subagentRunId !== subagentRunId) continue;
      if ((item.kind === 'text' || item.kind === 'reasoning') && item.streaming) this.replace(index, { ...item, streaming: false });
      else if (item.kind === 'toolCall' && item.state === 'streaming') this.replace(index, { ...finishArgs(item), state: 'incomplete' });
    }
    this.view.openSpans = this.view.openSpans.filter((span) => span.subagentRunId !== subagentRunId);
  }

  /* chunks ------------------------------------------------------------------------------------ */

  closeLane(subagentRunId: string | undefined): void {
    const open = this.view.openChunks.find((chunk) => chunk.subagentRunId === subagentRunId);
    if (!open) return;
    this.view.openChunks = this.view.openChunks.filter((chunk) => chunk !== open);
    if (open.kind === 'text') this.endText(open.id);
    else if (open.kind === 'reasoning') this.endReasoningMessage(open.id);
    else this.endTool(open.id);
  }

  closeAllChunks(): void {
    for (const chunk of [...this.view.openChunks]) this.closeLane(chunk.subagentRunId);
    this.view.openChunks = [];
  }

  /** Which lane a chunk belongs to (the @ag-ui/client chunk rules), or undefined after noting why it cannot be placed. */
  private chunkLane(kind: AguiOpenChunk['kind'], id: string | undefined, subagentRunId: string | undefined): { lane: string | undefined } | undefined {
    const chunks = this.view.openChunks;
    if (id !== undefined) {
      const open = chunks.find((chunk) => chunk.kind === kind && chunk.id === id);
      if (open) {
        if (laneConflict(open.subagentRunId, subagentRunId)) {
          this.note('subagent_mismatch', `A chunk for "${id}" claims subagent "${subagentRunId ?? ''}" but the stream belongs to ${open.subagentRunId === undefined ? 'the parent agent' : `subagent "${open.subagentRunId}"`}; ignored.`);
          return undefined;
        }
        return { lane: open.subagentRunId };
      }
      return { lane: subagentRunId };
    }
    if (subagentRunId !== undefined) return { lane: subagentRunId };
    if (chunks.find((chunk) => chunk.subagentRunId === undefined)?.kind === kind) return { lane: undefined };
    const same = chunks.filter((chunk) => chunk.kind === kind);
    if (same.length === 1) return { lane: (same[0] as AguiOpenChunk).subagentRunId };
    if (same.length > 1) {
      this.note('chunk_ambiguous', 'A chunk without an id or subagentRunId could continue several open streams; ignored.');
      return undefined;
    }
    return { lane: undefined };
  }

  private handleChunk(kind: AguiOpenChunk['kind'], id: string | undefined, subagentRunId: string | undefined, open: (id: string, lane: string | undefined) => boolean, append: (id: string) => void): void {
    const placed = this.chunkLane(kind, id, subagentRunId);
    if (!placed) return;
    const lane = placed.lane;
    const current = this.view.openChunks.find((chunk) => chunk.subagentRunId === lane);
    let targetId: string;
    if (current && current.kind === kind && (id === undefined || id === current.id)) targetId = current.id;
    else {
      this.closeLane(lane);
      if (id === undefined) {
        this.note('chunk_no_open_stream', 'A chunk without an id continues nothing; ignored.');
        return;
      }
      if (!open(id, lane)) return;
      if (this.view.openChunks.length >= aguiLimits.openChunks) {
        this.note('chunk_too_many_streams', `At most ${aguiLimits.openChunks} chunk streams may be open at once.`);
        return;
      }
      this.view.openChunks = [...this.view.openChunks, { kind, id, ...(lane === undefined ? {} : { subagentRunId: lane }) }];
      targetId = id;
    }
    append(targetId);
  }

  /* dispatch ---------------------------------------------------------------------------------- */

  dispatch(event: AguiEvent, namespaces: readonly CustomNamespace[]): void {
    switch (event.type) {
      case 'RUN_STARTED':
        return this.runStarted(event);
      case 'RUN_FINISHED':
        return this.runFinished(event);
      case 'RUN_ERROR':
        return this.runError(event);
      case 'TEXT_MESSAGE_START':
        this.closeLane(event.subagentRunId);
        this.startText(event.messageId, event.role ?? 'assistant', event.name, event.subagentRunId);
        return;
      case 'TEXT_MESSAGE_CONTENT':
        this.closeLane(event.subagentRunId);
        return this.appendText(event.messageId, event.delta, event.subagentRunId);
      case 'TEXT_MESSAGE_END':
        this.closeLane(event.subagentRunId);
        return this.endText(event.messageId, event.subagentRunId);
      case 'TEXT_MESSAGE_CHUNK':
        return this.handleChunk(
          'text',
          event.messageId,
          event.subagentRunId,
          (id, lane) => this.startText(id, event.role ?? 'assistant', event.name, lane),
          (id) => {
            if (event.delta !== undefined) this.appendText(id, event.delta, undefined);
          },
        );
      case 'TOOL_CALL_START':
        this.closeLane(event.subagentRunId);
        this.startTool(event.toolCallId, event.toolCallName, event.parentMessageId, event.subagentRunId);
        return;
      case 'TOOL_CALL_ARGS':
        this.closeLane(event.subagentRunId);
        return this.appendArgs(event.toolCallId, event.delta, event.subagentRunId);
      case 'TOOL_CALL_END':
        this.closeLane(event.subagentRunId);
        return this.endTool(event.toolCallId, event.subagentRunId);
      case 'TOOL_CALL_CHUNK':
        return this.handleChunk(
          'tool',
          event.toolCallId,
          event.subagentRunId,
          (id, lane) => {
            if (event.toolCallName === undefined) {
              this.note('chunk_missing_name', `The first TOOL_CALL_CHUNK of "${id}" has no toolCallName; ignored.`);
              return false;
            }
            return this.startTool(id, event.toolCallName, event.parentMessageId, lane);
          },
          (id) => {
            if (event.delta !== undefined) this.appendArgs(id, event.delta, undefined);
          },
        );
      case 'TOOL_CALL_RESULT':
        this.closeLane(event.subagentRunId);
        return this.toolResult(event);
      case 'REASONING_START':
        this.closeLane(event.subagentRunId);
        return this.startSpan(event.messageId, event.subagentRunId);
      case 'REASONING_MESSAGE_START':
        this.closeLane(event.subagentRunId);
        this.startReasoningMessage(event.messageId, event.subagentRunId);
        return;
      case 'REASONING_MESSAGE_CONTENT':
        this.closeLane(event.subagentRunId);
        return this.appendReasoning(event.messageId, event.delta, event.subagentRunId);
      case 'REASONING_MESSAGE_END':
        this.closeLane(event.subagentRunId);
        return this.endReasoningMessage(event.messageId, event.subagentRunId);
      case 'REASONING_MESSAGE_CHUNK':
        return this.handleChunk(
          'reasoning',
          event.messageId,
          event.subagentRunId,
          (id, lane) => this.startReasoningMessage(id, lane),
          (id) => {
            if (event.delta !== undefined) this.appendReasoning(id, event.delta, undefined);
          },
        );
      case 'REASONING_END':
        this.closeLane(event.subagentRunId);
        return this.endSpan(event.messageId, event.subagentRunId);
      case 'REASONING_ENCRYPTED_VALUE':
        return this.encryptedValue(event);
      case 'STEP_STARTED':
        this.closeLane(event.subagentRunId);
        return this.stepStarted(event.stepName, event.subagentRunId);
      case 'STEP_FINISHED':
        this.closeLane(event.subagentRunId);
        return this.stepFinished(event.stepName, event.subagentRunId);
      case 'STATE_SNAPSHOT':
        this.closeLane(event.subagentRunId);
        return this.stateSnapshot(event.snapshot);
      case 'STATE_DELTA':
        this.closeLane(event.subagentRunId);
        return this.stateDelta(event.delta as PatchOperation[]);
      case 'ACTIVITY_SNAPSHOT':
        return this.activitySnapshot(event);
      case 'ACTIVITY_DELTA':
        return this.activityDelta(event);
      case 'MESSAGES_SNAPSHOT':
        this.closeAllChunks();
        return this.messagesSnapshot(event.messages as Message[]);
      case 'SUBAGENT_STARTED':
        return this.subagentStarted(event);
      case 'SUBAGENT_FINISHED':
        this.closeLane(event.subagentRunId);
        return this.subagentEnded(event.subagentRunId, event.outcome?.type === 'suspended' ? 'suspended' : 'finished', undefined, event.outcome?.type === 'suspended' ? event.outcome.interruptIds : undefined);
      case 'SUBAGENT_ERROR':
        this.closeLane(event.subagentRunId);
        return this.subagentEnded(event.subagentRunId, 'failed', { message: truncate(event.message, aguiLimits.errorChars), ...(event.code === undefined ? {} : { code: truncate(event.code, aguiLimits.codeChars) }) });
      case 'CUSTOM':
        this.closeLane(event.subagentRunId);
        return this.custom(event, namespaces);
      case 'RAW':
        return; // RAW carries provider-native detail; a generic client ignores it.
      default:
        return;
    }
  }

  /* run --------------------------------------------------------------------------------------- */

  private runStarted(event: EventOf<EventType.RUN_STARTED>): void {
    if (event.threadId !== this.view.threadId) {
      this.note('run_thread_mismatch', `RUN_STARTED for thread "${event.threadId}" does not belong to this thread; ignored.`);
      return;
    }
    if (this.view.runState === 'starting' && this.view.runId !== undefined && this.view.runId !== event.runId) {
      this.note('run_id_mismatch', `RUN_STARTED names run "${event.runId}" but "${this.view.runId}" was requested.`);
    }
    this.closeAllChunks();
    this.view.openSpans = [];
    const pending = this.view.pendingResume;
    if (pending !== undefined) {
      const answered = new Map(pending.map((entry) => [entry.interruptId, entry]));
      this.view.interrupts = this.view.interrupts.map((interrupt) => {
        const answer = interrupt.status === 'open' ? answered.get(interrupt.id) : undefined;
        if (answer === undefined) return interrupt;
        this.put({
          kind: 'answer',
          id: truncate(`answer:${interrupt.id}`, aguiLimits.idChars + 10),
          interruptId: interrupt.id,
          question: interrupt.message ?? interrupt.reason,
          status: answer.status,
          fields: answer.fields ?? [],
        });
        return { ...interrupt, status: answer.status };
      });
      delete this.view.pendingResume;
    }
    delete this.view.error;
    this.view.runId = event.runId;
    this.view.runState = 'running';
  }

  private runFinished(event: EventOf<EventType.RUN_FINISHED>): void {
    if (event.threadId !== this.view.threadId || event.runId !== this.view.runId) {
      this.note('run_id_mismatch', `RUN_FINISHED names run "${event.runId}" but "${this.view.runId ?? ''}" is running.`);
    }
    this.endRun('incomplete');
    const outcome = event.outcome;
    // Interrupts of earlier runs can no longer be answered once a run on the thread has finished.
    let interrupts = this.view.interrupts.map((interrupt) => (interrupt.status === 'open' ? { ...interrupt, status: 'superseded' as const } : interrupt));
    if (outcome?.type === 'interrupt') {
      const fresh: AguiInterrupt[] = [];
      for (const raw of outcome.interrupts) {
        if (fresh.some((interrupt) => interrupt.id === raw.id)) {
          this.note('interrupt_duplicate_id', `Interrupt "${truncate(raw.id, 80)}" appears twice; the first is kept.`);
          continue;
        }
        if (raw.id.length > interruptLimits.idChars) {
          this.note('interrupt_id_too_long', `An interrupt id longer than ${interruptLimits.idChars} characters was ignored.`);
          continue;
        }
        if (fresh.length >= interruptLimits.perRun) {
          this.note('interrupt_too_many', `A run may raise at most ${interruptLimits.perRun} interrupts; the rest cannot be answered.`);
          break;
        }
        const interrupt = toAguiInterrupt(raw as Parameters<typeof toAguiInterrupt>[0], event.runId);
        if (interrupt.schemaProblem !== undefined) this.note('interrupt_schema_dropped', `Interrupt "${truncate(raw.id, 80)}": ${interrupt.schemaProblem}`);
        fresh.push(interrupt);
      }
      const freshIds = new Set(fresh.map((interrupt) => interrupt.id));
      interrupts = [...interrupts.filter((interrupt) => !freshIds.has(interrupt.id)), ...fresh];
      this.view.runState = fresh.length > 0 ? 'awaitingInput' : 'finished';
    } else {
      this.view.runState = outcome?.type === 'cancelled' ? 'cancelled' : 'finished';
    }
    if (interrupts.length > interruptLimits.kept) {
      const open = interrupts.filter((interrupt) => interrupt.status === 'open');
      const closed = interrupts.filter((interrupt) => interrupt.status !== 'open');
      interrupts = [...closed.slice(Math.max(0, closed.length - (interruptLimits.kept - open.length))), ...open];
    }
    this.view.interrupts = interrupts;
  }

  private runError(event: EventOf<EventType.RUN_ERROR>): void {
    this.endRun('incomplete');
    const error = { message: truncate(event.message, aguiLimits.errorChars), ...(event.code === undefined ? {} : { code: truncate(event.code, aguiLimits.codeChars) }) };
    this.view.error = error;
    this.view.runState = 'error';
    this.put({ kind: 'error', id: `error:${this.view.runId ?? this.eventCount}`, ...error });
  }

  /* text ---------------------------------------------------------------------------------------- */

  private startText(id: string, role: TextRole, name: string | undefined, subagentRunId: string | undefined): boolean {
    const found = this.find('text', id);
    if (found) {
      if (laneConflict(found.item.subagentRunId, subagentRunId)) {
        this.note('subagent_mismatch', `Message "${id}" belongs to ${found.item.subagentRunId === undefined ? 'the parent agent' : `subagent "${found.item.subagentRunId}"`}; a start from another subagent was ignored.`);
        return false;
      }
      this.replace(found.index, { ...found.item, streaming: true });
      return true;
    }
    this.put(withLane({ kind: 'text' as const, id, role, ...(name === undefined ? {} : { name: truncate(name, aguiLimits.nameChars) }), text: '', streaming: true }, subagentRunId));
    return true;
  }

  private appendText(id: string, delta: string, subagentRunId: string | undefined): void {
    const found = this.find('text', id);
    if (!found) {
      this.note('text_unknown_message', `Text for unknown message "${id}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `Text for message "${id}" from another subagent was ignored.`);
      return;
    }
    if (found.item.truncated || delta === '') return;
    const text = found.item.text + delta;
    if (text.length > aguiLimits.textChars) {
      this.note('text_truncated', `Message "${id}" is longer than ${aguiLimits.textChars} characters; the rest is not shown.`);
      this.replace(found.index, { ...found.item, text: text.slice(0, aguiLimits.textChars), truncated: true });
      return;
    }
    this.replace(found.index, { ...found.item, text });
  }

  private endText(id: string, subagentRunId?: string): void {
    const found = this.find('text', id);
    if (!found) {
      this.note('text_unknown_message', `The end of unknown message "${id}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `The end of message "${id}" from another subagent was ignored.`);
      return;
    }
    if (found.item.streaming) this.replace(found.index, { ...found.item, streaming: false });
  }

  /* tools --------------------------------------------------------------------------------------- */

  private startTool(id: string, name: string, parentMessageId: string | undefined, claimed: string | undefined): boolean {
    // A call without its own attribution inherits its parent message's (AG-UI: a tool call belongs to the message that carries it).
    const parentLane = parentMessageId === undefined ? undefined : this.find('text', parentMessageId)?.item.subagentRunId;
    const subagentRunId = claimed ?? parentLane;
    const found = this.find('toolCall', id);
    if (found) {
      if (laneConflict(found.item.subagentRunId, subagentRunId)) {
        this.note('subagent_mismatch', `Tool call "${id}" belongs to another subagent; the start was ignored.`);
        return false;
      }
      this.replace(found.index, { ...found.item, name: truncate(name, aguiLimits.nameChars), started: true, ...(parentMessageId === undefined ? {} : { parentMessageId }) });
      return true;
    }
    this.put(
      withLane(
        {
          kind: 'toolCall' as const,
          id,
          name: truncate(name, aguiLimits.nameChars),
          started: true,
          ...(parentMessageId === undefined ? {} : { parentMessageId }),
          argsText: '',
          argsStatus: 'streaming' as const,
          state: 'streaming' as const,
        },
        subagentRunId,
      ),
    );
    return true;
  }

  private appendArgs(id: string, delta: string, subagentRunId: string | undefined): void {
    const found = this.find('toolCall', id);
    if (!found) {
      this.note('tool_unknown_call', `Arguments for unknown tool call "${id}" were ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `Arguments for tool call "${id}" from another subagent were ignored.`);
      return;
    }
    if (found.item.argsStatus !== 'streaming') {
      this.note('tool_args_after_end', `Arguments for tool call "${id}" after its end were ignored.`);
      return;
    }
    if (delta === '' || found.item.argsText.length >= aguiLimits.toolArgsChars) return;
    const text = found.item.argsText + delta;
    if (text.length >= aguiLimits.toolArgsChars) this.note('tool_args_truncated', `The arguments of tool call "${id}" are longer than ${aguiLimits.toolArgsChars} characters; the rest is not kept.`);
    this.replace(found.index, { ...found.item, argsText: text.length > aguiLimits.toolArgsChars ? text.slice(0, aguiLimits.toolArgsChars) : text });
  }

  private endTool(id: string, subagentRunId?: string): void {
    const found = this.find('toolCall', id);
    if (!found) {
      this.note('tool_unknown_call', `The end of unknown tool call "${id}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `The end of tool call "${id}" from another subagent was ignored.`);
      return;
    }
    const finished = finishArgs(found.item);
    this.replace(found.index, finished.state === 'streaming' ? { ...finished, state: 'called' } : finished);
  }

  private toolResult(event: EventOf<EventType.TOOL_CALL_RESULT>): void {
    const result = toolResultView(event.messageId, event.content as string | unknown[]);
    const found = this.find('toolCall', event.toolCallId);
    if (!found) {
      this.note('tool_result_without_call', `A result for tool call "${event.toolCallId}", which never started, is shown on its own.`);
      this.put(withLane({ kind: 'toolCall' as const, id: event.toolCallId, name: '', started: false, argsText: '', argsStatus: 'empty' as const, state: 'completed' as const, result }, event.subagentRunId));
      return;
    }
    if (laneConflict(found.item.subagentRunId, event.subagentRunId)) {
      this.note('subagent_mismatch', `A result for tool call "${event.toolCallId}" from another subagent was ignored.`);
      return;
    }
    this.replace(found.index, { ...finishArgs(found.item), state: 'completed', result });
  }

  /* reasoning ----------------------------------------------------------------------------------- */

  private startSpan(id: string, subagentRunId: string | undefined): void {
    if (this.view.openSpans.some((span) => span.id === id)) return;
    if (this.view.openSpans.length >= aguiLimits.openSpans) {
      this.note('reasoning_too_many_spans', `At most ${aguiLimits.openSpans} reasoning spans may be open at once.`);
      return;
    }
    this.view.openSpans = [...this.view.openSpans, { id, ...(subagentRunId === undefined ? {} : { subagentRunId }) }];
  }

  private endSpan(id: string, subagentRunId: string | undefined): void {
    const span = this.view.openSpans.find((entry) => entry.id === id);
    if (!span) {
      this.note('reasoning_unknown_span', `The end of unknown reasoning span "${id}" was ignored.`);
      return;
    }
    if (laneConflict(span.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `The end of reasoning span "${id}" from another subagent was ignored.`);
      return;
    }
    this.view.openSpans = this.view.openSpans.filter((entry) => entry !== span);
    const items = this.view.items;
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as AguiItem;
      if (item.kind === 'reasoning' && item.spanId === id && item.streaming) this.replace(index, { ...item, streaming: false });
    }
  }

  private startReasoningMessage(id: string, subagentRunId: string | undefined): boolean {
    const found = this.find('reasoning', id);
    if (found) {
      if (laneConflict(found.item.subagentRunId, subagentRunId)) {
        this.note('subagent_mismatch', `Reasoning "${id}" belongs to another subagent; the start was ignored.`);
        return false;
      }
      this.replace(found.index, { ...found.item, streaming: true });
      return true;
    }
    const span = [...this.view.openSpans].reverse().find((entry) => entry.subagentRunId === subagentRunId);
    this.put(withLane({ kind: 'reasoning' as const, id, ...(span === undefined ? {} : { spanId: span.id }), text: '', streaming: true }, subagentRunId));
    return true;
  }

  private appendReasoning(id: string, delta: string, subagentRunId: string | undefined): void {
    const found = this.find('reasoning', id);
    if (!found) {
      this.note('reasoning_unknown_message', `Reasoning for unknown message "${id}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `Reasoning for "${id}" from another subagent was ignored.`);
      return;
    }
    if (found.item.truncated || delta === '') return;
    const text = found.item.text + delta;
    if (text.length > aguiLimits.reasoningChars) {
      this.note('reasoning_truncated', `Reasoning "${id}" is longer than ${aguiLimits.reasoningChars} characters; the rest is not shown.`);
      this.replace(found.index, { ...found.item, text: text.slice(0, aguiLimits.reasoningChars), truncated: true });
      return;
    }
    this.replace(found.index, { ...found.item, text });
  }

  private endReasoningMessage(id: string, subagentRunId?: string): void {
    const found = this.find('reasoning', id);
    if (!found) {
      this.note('reasoning_unknown_message', `The end of unknown reasoning message "${id}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', `The end of reasoning "${id}" from another subagent was ignored.`);
      return;
    }
    if (found.item.streaming) this.replace(found.index, { ...found.item, streaming: false });
  }

  /** The value itself is never kept or shown; the reasoning it belongs to is marked as partly hidden. */
  private encryptedValue(event: EventOf<EventType.REASONING_ENCRYPTED_VALUE>): void {
    if (event.subtype !== 'message') return;
    const found = this.find('reasoning', event.entityId);
    if (found && !found.item.encryptedHidden) this.replace(found.index, { ...found.item, encryptedHidden: true });
  }

  /* steps and subagents --------------------------------------------------------------------------- */

  private stepStarted(name: string, subagentRunId: string | undefined): void {
    if (this.view.steps.some((step) => step.state === 'running' && step.name === name && step.subagentRunId === subagentRunId)) {
      this.note('step_already_running', `Step "${name}" is already running; the second start was ignored.`);
      return;
    }
    const step: AguiStep = { id: `step:${this.eventCount}`, name: truncate(name, aguiLimits.nameChars), ...(this.view.runId === undefined ? {} : { runId: this.view.runId }), ...(subagentRunId === undefined ? {} : { subagentRunId }), state: 'running' };
    const steps = [...this.view.steps, step];
    this.view.steps = steps.length > aguiLimits.steps ? steps.slice(steps.length - aguiLimits.steps) : steps;
  }

  private stepFinished(name: string, subagentRunId: string | undefined): void {
    const steps = this.view.steps;
    for (let index = steps.length - 1; index >= 0; index--) {
      const step = steps[index] as AguiStep;
      if (step.state === 'running' && step.name === truncate(name, aguiLimits.nameChars) && step.subagentRunId === subagentRunId) {
        const next = steps.slice();
        next[index] = { ...step, state: 'finished' };
        this.view.steps = next;
        return;
      }
    }
    this.note('step_not_started', `Step "${name}" finished without having started; ignored.`);
  }

  private subagentStarted(event: EventOf<EventType.SUBAGENT_STARTED>): void {
    if (this.view.subagents.some((subagent) => subagent.id === event.subagentRunId)) {
      this.note('subagent_duplicate', `Subagent invocation "${event.subagentRunId}" was already started; ids are per invocation.`);
      return;
    }
    if (this.view.subagents.length >= aguiLimits.subagents) {
      this.note('subagent_too_many', `The thread shows at most ${aguiLimits.subagents} subagent invocations.`);
      return;
    }
    const subagent: AguiSubagent = {
      id: event.subagentRunId,
      name: truncate(event.name, aguiLimits.nameChars),
      ...(event.description === undefined ? {} : { description: truncate(event.description, aguiLimits.errorChars) }),
      ...(event.parentSubagentRunId === undefined ? {} : { parentSubagentRunId: event.parentSubagentRunId }),
      ...(event.parentToolCallId === undefined ? {} : { parentToolCallId: event.parentToolCallId }),
      ...(event.parentMessageId === undefined ? {} : { parentMessageId: event.parentMessageId }),
      ...(this.view.runId === undefined ? {} : { runId: this.view.runId }),
      state: 'running',
    };
    this.view.subagents = [...this.view.subagents, subagent];
  }

  private subagentEnded(id: string, state: 'finished' | 'suspended' | 'failed', error?: { message: string; code?: string }, interruptIds?: string[]): void {
    const index = this.view.subagents.findIndex((subagent) => subagent.id === id);
    if (index === -1) {
      this.note('subagent_unknown', `Subagent invocation "${id}" ended without having started.`);
      return;
    }
    this.endLaneStreams(id);
    const subagents = this.view.subagents.slice();
    subagents[index] = {
      ...(subagents[index] as AguiSubagent),
      state,
      ...(error === undefined ? {} : { error }),
      ...(interruptIds === undefined ? {} : { interruptIds: interruptIds.slice(0, interruptLimits.perRun).map((entry) => truncate(entry, interruptLimits.idChars)) }),
    };
    this.view.subagents = subagents;
  }

  /* state and activity ------------------------------------------------------------------------------ */

  private stateSnapshot(snapshot: unknown): void {
    const measure = measureJson(snapshot, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.stateChars });
    if (!measure.ok) {
      this.note('state_too_large', `A state snapshot that is ${measure.message} was ignored; the state is unchanged.`);
      return;
    }
    this.view.state = snapshot as JsonValue;
  }

  private stateDelta(patch: PatchOperation[]): void {
    const result = applyJsonPatch(this.view.state ?? {}, patch, { maxOperations: aguiLimits.patchOperations, maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.stateChars });
    if (!result.ok) {
      this.note(result.code, `A state patch was refused (operation ${result.operationIndex}: ${result.message}); the state is unchanged.`);
      return;
    }
    this.view.state = result.document;
  }

  private activitySnapshot(event: EventOf<EventType.ACTIVITY_SNAPSHOT>): void {
    const measure = measureJson(event.content, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.activityChars });
    if (!measure.ok) {
      this.note('activity_too_large', `An activity snapshot that is ${measure.message} was ignored.`);
      return;
    }
    const content = event.content as JsonObject;
    const activityType = truncate(event.activityType, aguiLimits.nameChars);
    const found = this.find('activity', event.messageId);
    if (found) {
      if (laneConflict(found.item.subagentRunId, event.subagentRunId)) {
        this.note('subagent_mismatch', `Activity "${event.messageId}" belongs to another subagent; the snapshot was ignored.`);
        return;
      }
      // `replace: false` asks to keep what is there (AG-UI 1.0: absent means replace).
      if (event.replace === false) return;
      this.replace(found.index, { ...found.item, activityType, content });
      return;
    }
    this.put(withLane({ kind: 'activity' as const, id: event.messageId, activityType, content }, event.subagentRunId));
  }

  private activityDelta(event: EventOf<EventType.ACTIVITY_DELTA>): void {
    const found = this.find('activity', event.messageId);
    if (!found) {
      this.note('activity_unknown_message', `A patch for unknown activity "${event.messageId}" was ignored.`);
      return;
    }
    if (laneConflict(found.item.subagentRunId, event.subagentRunId)) {
      this.note('subagent_mismatch', `A patch for activity "${event.messageId}" from another subagent was ignored.`);
      return;
    }
    const result = applyJsonPatch(found.item.content, event.patch as PatchOperation[], { maxOperations: aguiLimits.patchOperations, maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.activityChars });
    if (!result.ok) {
      this.note(result.code, `A patch for activity "${event.messageId}" was refused (operation ${result.operationIndex}: ${result.message}); it is unchanged.`);
      return;
    }
    if (!isPlainObject(result.document)) {
      this.note('activity_not_object', `A patch would make activity "${event.messageId}" something other than an object; refused.`);
      return;
    }
    this.replace(found.index, { ...found.item, activityType: truncate(event.activityType, aguiLimits.nameChars), content: result.document as JsonObject });
  }

  /* custom ------------------------------------------------------------------------------------------ */

  private custom(event: EventOf<EventType.CUSTOM>, namespaces: readonly CustomNamespace[]): void {
    const namespace = findCustomNamespace(event.name, namespaces);
    if (!namespace) return; // Unknown namespaces are ignored (AG-UI: anything done with CUSTOM is outside the protocol).
    let rendering;
    try {
      rendering = namespace.render(event.name, event.value);
    } catch {
      rendering = undefined;
    }
    if (!rendering) {
      this.note('custom_invalid', `A "${truncate(event.name, 80)}" event with an unexpected value was ignored.`);
      return;
    }
    const id = typeof rendering.key === 'string' ? `${truncate(namespace.namespace, 100)}:${truncate(rendering.key, customLimits.keyChars)}` : `${truncate(event.name, aguiLimits.nameChars)}#${this.eventCount}`;
    this.put(
      withLane(
        {
          kind: 'custom' as const,
          id,
          namespace: truncate(namespace.namespace, 100),
          label: truncate(namespace.label, 100),
          name: truncate(event.name, aguiLimits.nameChars),
          title: truncate(String(rendering.title), customLimits.titleChars),
          ...(typeof rendering.text === 'string' ? { text: truncate(rendering.text, customLimits.textChars) } : {}),
          ...(typeof rendering.json === 'string' ? { json: truncate(rendering.json, customLimits.jsonChars) } : {}),
        },
        event.subagentRunId,
      ),
    );
  }

  /* messages snapshot --------------------------------------------------------------------------------- */

  /**
   * MESSAGES_SNAPSHOT replaces the message history: messages it names replace ours (by id), ours
   * that it does not name are dropped — except what no producer tracks (custom and error items),
   * and activity/reasoning when the snapshot carries none of that role (as @ag-ui/client
   * reconciles) — and new ones are appended in order. Encrypted values are not kept.
   */
  private messagesSnapshot(messages: readonly Message[]): void {
    const incoming: AguiItem[] = [];
    const tools = new Map<string, number>();
    const key = (item: AguiItem) => `${item.kind}\u0000${item.id}`;
    let truncated = false;
    for (const message of messages) {
      if (incoming.length >= aguiLimits.items) {
        truncated = true;
        break;
      }
      if (message.id.length > aguiLimits.idChars) continue;
      const lane = message.subagentRunId ?? undefined;
      switch (message.role) {
        case 'user':
          incoming.push(withLane({ kind: 'user' as const, id: message.id, text: truncate(contentText(message.content), aguiLimits.userTextChars) }, lane));
          break;
        case 'assistant':
        case 'system':
        case 'developer': {
          const content = message.content ?? '';
          const hasCalls = message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0;
          if (content !== '' || !hasCalls) {
            incoming.push(
              withLane(
                {
                  kind: 'text' as const,
                  id: message.id,
                  role: message.role,
                  ...(message.name === undefined ? {} : { name: truncate(message.name, aguiLimits.nameChars) }),
                  text: truncate(content, aguiLimits.textChars),
                  streaming: false,
                  ...(content.length > aguiLimits.textChars ? { truncated: true as const } : {}),
                },
                lane,
              ),
            );
          }
          if (message.role === 'assistant') {
            for (const call of message.toolCalls ?? []) {
              if (call.id.length > aguiLimits.idChars) continue;
              const argsText = truncate(call.function.arguments, aguiLimits.toolArgsChars);
              const item = finishArgs(
                withLane(
                  { kind: 'toolCall' as const, id: call.id, name: truncate(call.function.name, aguiLimits.nameChars), started: true, parentMessageId: message.id, argsText, argsStatus: 'streaming' as const, state: 'called' as const },
                  lane,
                ),
              );
              tools.set(call.id, incoming.length);
              incoming.push(item);
            }
          }
          break;
        }
        case 'tool': {
          const result = toolResultView(message.id, message.content as string | unknown[], message.error);
          const index = tools.get(message.toolCallId);
          if (index !== undefined) {
            const item = incoming[index] as ItemOf<'toolCall'>;
            incoming[index] = { ...item, state: message.error === undefined ? 'completed' : 'failed', result };
          } else if (message.toolCallId.length <= aguiLimits.idChars) {
            tools.set(message.toolCallId, incoming.length);
            incoming.push(withLane({ kind: 'toolCall' as const, id: message.toolCallId, name: '', started: false, argsText: '', argsStatus: 'empty' as const, state: message.error === undefined ? ('completed' as const) : ('failed' as const), result }, lane));
          }
          break;
        }
        case 'reasoning':
          incoming.push(withLane({ kind: 'reasoning' as const, id: message.id, text: truncate(message.content, aguiLimits.reasoningChars), streaming: false, ...(message.encryptedValue === undefined ? {} : { encryptedHidden: true as const }) }, lane));
          break;
        case 'activity': {
          const measure = measureJson(message.content, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.activityChars });
          if (!measure.ok) {
            this.note('activity_too_large', `Activity "${message.id}" in a messages snapshot is ${measure.message}; not shown.`);
            break;
          }
          incoming.push(withLane({ kind: 'activity' as const, id: message.id, activityType: truncate(message.activityType, aguiLimits.nameChars), content: message.content as JsonObject }, lane));
          break;
        }
      }
    }
    if (truncated) this.note('snapshot_truncated', `A messages snapshot had more than ${aguiLimits.items} entries; the rest were ignored.`);
    const byKey = new Map(incoming.map((item) => [key(item), item]));
    const hasActivity = incoming.some((item) => item.kind === 'activity');
    const hasReasoning = incoming.some((item) => item.kind === 'reasoning');
    const kept: AguiItem[] = [];
    const placed = new Set<string>();
    for (const item of this.view.items) {
      const replacement = byKey.get(key(item));
      if (replacement) {
        kept.push(replacement);
        placed.add(key(item));
      } else if (item.kind === 'custom' || item.kind === 'error' || item.kind === 'answer' || (item.kind === 'activity' && !hasActivity) || (item.kind === 'reasoning' && !hasReasoning)) {
        kept.push(item);
      }
    }
    for (const item of incoming) if (!placed.has(key(item))) kept.push(item);
    this.view.items = kept.length > aguiLimits.items ? kept.slice(kept.length - aguiLimits.items) : kept;
    this.itemsCopied = true;
  }
}
