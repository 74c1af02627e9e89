import type { EventType } from '@ag-ui/core';
import { metadataWords } from '../interrupts';
import { cloneJson, isJsonObject, isPlainObject, prettyJson, truncate, type JsonObject } from '../json-values';
import { laneConflict, withLane, type Draft } from './draft';
import { aguiLimits, type AguiThreadView, type EventOf, type ItemOf, type ToolResultView } from './types';

/* tool calls -------------------------------------------------------------------------------------- */

export function startTool(draft: Draft, id: string, name: string, parentMessageId: string | undefined, claimed: string | undefined): boolean {
  // A call without its own attribution inherits its parent message's (AG-UI: a tool call belongs to the message that carries it).
  const parentLane = parentMessageId === undefined ? undefined : draft.find('text', parentMessageId)?.item.subagentRunId;
  const subagentRunId = claimed ?? parentLane;
  const found = draft.find('toolCall', id);
  if (found) {
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      draft.note('subagent_mismatch', `Tool call "${id}" belongs to another subagent; the start was ignored.`);
      return false;
    }
    draft.replace(found.index, {
      ...found.item,
      name: truncate(name, aguiLimits.nameChars),
      started: true,
      ...(parentMessageId === undefined ? {} : { parentMessageId }),
    });
    return true;
  }
  draft.put(
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

export function appendArgs(draft: Draft, id: string, delta: string, subagentRunId: string | undefined): void {
  const found = draft.claim('toolCall', id, subagentRunId, {
    unknown: ['tool_unknown_call', `Arguments for unknown tool call "${id}" were ignored.`],
    mismatch: `Arguments for tool call "${id}" from another subagent were ignored.`,
  });
  if (!found) return;
  if (found.item.argsStatus !== 'streaming') {
    draft.note('tool_args_after_end', `Arguments for tool call "${id}" after its end were ignored.`);
    return;
  }
  if (delta === '' || found.item.argsText.length >= aguiLimits.toolArgsChars) return;
  const text = found.item.argsText + delta;
  if (text.length >= aguiLimits.toolArgsChars)
    draft.note('tool_args_truncated', `The arguments of tool call "${id}" are longer than ${aguiLimits.toolArgsChars} characters; the rest is not kept.`);
  draft.replace(found.index, { ...found.item, argsText: text.length > aguiLimits.toolArgsChars ? text.slice(0, aguiLimits.toolArgsChars) : text });
}

export function endTool(draft: Draft, id: string, subagentRunId?: string): void {
  const found = draft.claim('toolCall', id, subagentRunId, {
    unknown: ['tool_unknown_call', `The end of unknown tool call "${id}" was ignored.`],
    mismatch: `The end of tool call "${id}" from another subagent was ignored.`,
  });
  if (!found) return;
  const finished = finishArgs(found.item);
  draft.replace(found.index, finished.state === 'streaming' ? { ...finished, state: 'called' } : finished);
}

export function toolResult(draft: Draft, event: EventOf<EventType.TOOL_CALL_RESULT>): void {
  const result = toolResultView(event.messageId, event.content as string | unknown[]);
  const found = draft.find('toolCall', event.toolCallId);
  if (!found) {
    draft.note('tool_result_without_call', `A result for tool call "${event.toolCallId}", which never started, is shown on its own.`);
    const name = unannouncedToolName(draft.view, event.toolCallId, event.metadata);
    draft.put(
      withLane(
        {
          kind: 'toolCall' as const,
          id: event.toolCallId,
          name,
          started: false,
          argsText: '',
          argsStatus: 'empty' as const,
          state: 'completed' as const,
          result,
        },
        event.subagentRunId,
      ),
    );
    return;
  }
  if (laneConflict(found.item.subagentRunId, event.subagentRunId)) {
    draft.note('subagent_mismatch', `A result for tool call "${event.toolCallId}" from another subagent was ignored.`);
    return;
  }
  draft.replace(found.index, { ...finishArgs(found.item), state: 'completed', result });
}

/**
 * The name of a tool whose call was never announced (only its result arrived): what the result's own
 * metadata names, else what an interrupt for the same call named (a Mastra tool suspends before its
 * call is announced, and its result comes in the resume run); '' when nothing says.
 */
export function unannouncedToolName(view: AguiThreadView, toolCallId: string, metadata?: unknown): string {
  const named =
    metadataWords(metadata).toolName ??
    view.interrupts.findLast((interrupt) => interrupt.toolCallId === toolCallId && interrupt.toolName !== undefined)?.toolName;
  return named === undefined ? '' : truncate(named, aguiLimits.nameChars);
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

export function toolResultView(messageId: string, content: string | readonly unknown[], error?: string): ToolResultView {
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
      } else if (
        (part.type === 'image' || part.type === 'audio' || part.type === 'video' || part.type === 'document') &&
        media.length < aguiLimits.mediaParts
      ) {
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
