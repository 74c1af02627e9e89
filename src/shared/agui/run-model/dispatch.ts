import type { EventType, Message } from '@ag-ui/core';
import { EventSchemas, EventTypeSchema } from '@ag-ui/core/schemas';
import { knownCustomNamespaces, type CustomNamespace } from '../custom-events';
import type { PatchOperation } from '../json-patch';
import { isPlainObject, truncate } from '../json-values';
import { activityDelta, activitySnapshot, custom, stateDelta, stateSnapshot } from './activity-and-state';
import { Draft } from './draft';
import { encryptedValue } from './encrypted';
import { runError, runFinished, runStarted } from './lifecycle';
import { appendText, closeAllChunks, closeLane, endText, handleChunk, messagesSnapshot, startText } from './messages-and-chunks';
import { appendReasoning, endReasoningMessage, endSpan, legacyThinkingTypes, startReasoningMessage, startSpan, translateThinking } from './reasoning';
import { stepFinished, stepStarted, subagentEnded, subagentStarted } from './subagents';
import { appendArgs, endTool, startTool, toolResult } from './tools';
import { aguiLimits, type AguiEvent, type AguiOpenChunk, type AguiThreadView, type ApplyOptions, type EventOf } from './types';

type Handler<T extends AguiEvent['type']> = (draft: Draft, event: EventOf<T>, namespaces: readonly CustomNamespace[]) => void;

/** A handler that first closes the event's lane's open chunk stream (every event but the chunks themselves and a few lane-free ones does). */
function inLane<T extends AguiEvent['type']>(handler: Handler<T>): Handler<T> {
  return (draft, event, namespaces) => {
    closeLane(draft, (event as { subagentRunId?: string }).subagentRunId);
    handler(draft, event, namespaces);
  };
}

type ChunkType = EventType.TEXT_MESSAGE_CHUNK | EventType.TOOL_CALL_CHUNK | EventType.REASONING_MESSAGE_CHUNK;

/** A *_CHUNK handler: `open` starts the stream a chunk opens, `append` adds its delta to the lane's stream. */
function chunk<T extends ChunkType>(
  kind: AguiOpenChunk['kind'],
  idOf: (event: EventOf<T>) => string | undefined,
  open: (draft: Draft, event: EventOf<T>, id: string, lane: string | undefined) => boolean,
  append: (draft: Draft, id: string, delta: string, subagentRunId: undefined) => void,
): Handler<T> {
  return (draft, event) => {
    const { subagentRunId, delta } = event as { subagentRunId?: string; delta?: string };
    handleChunk(
      draft,
      kind,
      idOf(event),
      subagentRunId,
      (id, lane) => open(draft, event, id, lane),
      (id) => {
        if (delta !== undefined) append(draft, id, delta, undefined);
      },
    );
  };
}

/** What each AG-UI 1.0 event does to the view (one entry per event type: the compiler checks none is missing). */
const handlers: { [T in AguiEvent['type']]: Handler<T> } = {
  RUN_STARTED: (draft, event) => runStarted(draft, event),
  RUN_FINISHED: (draft, event) => runFinished(draft, event),
  RUN_ERROR: (draft, event) => runError(draft, event),

  TEXT_MESSAGE_START: inLane((draft, event) => void startText(draft, event.messageId, event.role ?? 'assistant', event.name, event.subagentRunId)),
  TEXT_MESSAGE_CONTENT: inLane((draft, event) => appendText(draft, event.messageId, event.delta, event.subagentRunId)),
  TEXT_MESSAGE_END: inLane((draft, event) => endText(draft, event.messageId, event.subagentRunId)),
  TEXT_MESSAGE_CHUNK: chunk(
    'text',
    (event) => event.messageId,
    (draft, event, id, lane) => startText(draft, id, event.role ?? 'assistant', event.name, lane),
    appendText,
  ),

  TOOL_CALL_START: inLane((draft, event) => void startTool(draft, event.toolCallId, event.toolCallName, event.parentMessageId, event.subagentRunId)),
  TOOL_CALL_ARGS: inLane((draft, event) => appendArgs(draft, event.toolCallId, event.delta, event.subagentRunId)),
  TOOL_CALL_END: inLane((draft, event) => endTool(draft, event.toolCallId, event.subagentRunId)),
  TOOL_CALL_CHUNK: chunk(
    'tool',
    (event) => event.toolCallId,
    (draft, event, id, lane) => {
      if (event.toolCallName === undefined) {
        draft.note('chunk_missing_name', `The first TOOL_CALL_CHUNK of "${id}" has no toolCallName; ignored.`);
        return false;
      }
      return startTool(draft, id, event.toolCallName, event.parentMessageId, lane);
    },
    appendArgs,
  ),
  TOOL_CALL_RESULT: inLane((draft, event) => toolResult(draft, event)),

  REASONING_START: inLane((draft, event) => startSpan(draft, event.messageId, event.subagentRunId)),
  REASONING_MESSAGE_START: inLane((draft, event) => void startReasoningMessage(draft, event.messageId, event.subagentRunId)),
  REASONING_MESSAGE_CONTENT: inLane((draft, event) => appendReasoning(draft, event.messageId, event.delta, event.subagentRunId)),
  REASONING_MESSAGE_END: inLane((draft, event) => endReasoningMessage(draft, event.messageId, event.subagentRunId)),
  REASONING_MESSAGE_CHUNK: chunk(
    'reasoning',
    (event) => event.messageId,
    (draft, _event, id, lane) => startReasoningMessage(draft, id, lane),
    appendReasoning,
  ),
  REASONING_END: inLane((draft, event) => endSpan(draft, event.messageId, event.subagentRunId)),
  REASONING_ENCRYPTED_VALUE: (draft, event) => encryptedValue(draft, event),

  STEP_STARTED: inLane((draft, event) => stepStarted(draft, event.stepName, event.subagentRunId)),
  STEP_FINISHED: inLane((draft, event) => stepFinished(draft, event.stepName, event.subagentRunId)),
  STATE_SNAPSHOT: inLane((draft, event) => stateSnapshot(draft, event.snapshot)),
  STATE_DELTA: inLane((draft, event) => stateDelta(draft, event.delta as PatchOperation[])),
  ACTIVITY_SNAPSHOT: (draft, event) => activitySnapshot(draft, event),
  ACTIVITY_DELTA: (draft, event) => activityDelta(draft, event),
  MESSAGES_SNAPSHOT: (draft, event) => {
    closeAllChunks(draft);
    messagesSnapshot(draft, event.messages as Message[]);
  },

  SUBAGENT_STARTED: (draft, event) => subagentStarted(draft, event),
  SUBAGENT_FINISHED: inLane((draft, event) => {
    const suspended = event.outcome?.type === 'suspended' ? event.outcome : undefined;
    subagentEnded(draft, event.subagentRunId, suspended ? 'suspended' : 'finished', undefined, suspended?.interruptIds);
  }),
  SUBAGENT_ERROR: inLane((draft, event) =>
    subagentEnded(draft, event.subagentRunId, 'failed', {
      message: truncate(event.message, aguiLimits.errorChars),
      ...(event.code === undefined ? {} : { code: truncate(event.code, aguiLimits.codeChars) }),
    }),
  ),

  CUSTOM: inLane((draft, event, namespaces) => custom(draft, event, namespaces)),
  // RAW carries provider-native detail; a generic client ignores it.
  RAW: () => undefined,
};

const idFields = [
  'threadId',
  'runId',
  'parentRunId',
  'messageId',
  'toolCallId',
  'parentMessageId',
  'subagentRunId',
  'parentSubagentRunId',
  'parentToolCallId',
  'stepName',
  'entityId',
  'activityType',
] as const;

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
  const received: Record<string, unknown> = legacy ? translateThinking(draft, input, typeLabel) : input;
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
  (handlers[event.type] as Handler<AguiEvent['type']>)(draft, event, options.customNamespaces ?? knownCustomNamespaces);
  return draft.done();
}
