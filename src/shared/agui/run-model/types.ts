import type { EventSchemas } from '@ag-ui/core/schemas';
import type { z } from 'zod';
import type { CustomNamespace } from '../custom-events';
import type { AguiInterrupt, AnswerField } from '../interrupts';
import type { JsonObject, JsonValue } from '../json-values';

/** The run model's types and bounds (the view that crosses IPC and is saved). */

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

/**
 * `at` (ms since the epoch): when main received the item (`stampNewItems`). AG-UI events carry no
 * time main keeps, and main folds them as they stream, so the moment of arrival is when the item was
 * said, to the minute. Items a MESSAGES_SNAPSHOT brings back (history) get none: it is not known.
 */
export type AguiItem =
  /** A message the user typed here (`addUserMessage`), or a user message from MESSAGES_SNAPSHOT. */
  (
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
    | { kind: 'answer'; id: string; interruptId: string; question: string; status: 'resolved' | 'cancelled'; fields: AnswerField[] }
  ) & { at?: number };

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

/**
 * A provider's opaque value (REASONING_ENCRYPTED_VALUE, or `encryptedValue` in a messages snapshot)
 * for a message or a tool call: never readable, returned with the history where @ag-ui/client puts
 * it (`historyMessages`). Main keeps it and saves it with the thread; it never reaches the renderer
 * (`shownThread`).
 */
export interface AguiEncryptedValue {
  subtype: 'message' | 'tool-call';
  /** The message's or tool call's id. */
  entityId: string;
  value: string;
}

export interface AguiThreadView {
  version: 3;
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
  /** Main's only: the encrypted values of the thread's messages and tool calls, oldest first (see AguiEncryptedValue). */
  encryptedValues?: AguiEncryptedValue[];
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
  /** One encrypted value (a larger one is not kept: half of it is of no use to the provider). */
  encryptedValueChars: 262_144,
  /** All encrypted values of a thread; beyond it the oldest go. */
  encryptedTotalChars: 2_097_152,
} as const;

export function createThread(threadId: string): AguiThreadView {
  return {
    version: 3,
    threadId,
    runState: 'idle',
    items: [],
    steps: [],
    subagents: [],
    interrupts: [],
    notes: [],
    noteCount: 0,
    eventCount: 0,
    droppedItems: 0,
    openChunks: [],
    openSpans: [],
  };
}

export interface ApplyOptions {
  /** CUSTOM namespaces rendered (others are ignored); defaults to `knownCustomNamespaces`. */
  customNamespaces?: readonly CustomNamespace[];
}

export type ItemOf<K extends AguiItem['kind']> = Extract<AguiItem, { kind: K }>;
export type AguiEvent = z.infer<typeof EventSchemas>;
export type EventOf<T extends AguiEvent['type']> = Extract<AguiEvent, { type: T }>;
