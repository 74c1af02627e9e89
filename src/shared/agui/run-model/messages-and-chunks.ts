import type { Message } from '@ag-ui/core';
import { isPlainObject, measureJson, truncate, type JsonObject } from '../json-values';
import { appendStreamed, endStreamed, laneConflict, startStreamed, withLane, type Draft } from './draft';
import { snapshotEncryptedValues } from './encrypted';
import { endReasoningMessage } from './reasoning';
import { endTool, finishArgs, toolResultView, unannouncedToolName } from './tools';
import { aguiLimits, type AguiItem, type AguiOpenChunk, type ItemOf, type TextRole } from './types';

/* text messages ------------------------------------------------------------------------------- */

export function startText(draft: Draft, id: string, role: TextRole, name: string | undefined, subagentRunId: string | undefined): boolean {
  return startStreamed(
    draft,
    { kind: 'text', id, role, ...(name === undefined ? {} : { name: truncate(name, aguiLimits.nameChars) }), text: '', streaming: true },
    subagentRunId,
    (owner) => `Message "${id}" belongs to ${owner === undefined ? 'the parent agent' : `subagent "${owner}"`}; a start from another subagent was ignored.`,
  );
}

export function appendText(draft: Draft, id: string, delta: string, subagentRunId: string | undefined): void {
  appendStreamed(draft, 'text', id, delta, subagentRunId, aguiLimits.textChars, {
    unknown: ['text_unknown_message', `Text for unknown message "${id}" was ignored.`],
    mismatch: `Text for message "${id}" from another subagent was ignored.`,
    truncated: ['text_truncated', `Message "${id}" is longer than ${aguiLimits.textChars} characters; the rest is not shown.`],
  });
}

export function endText(draft: Draft, id: string, subagentRunId?: string): void {
  endStreamed(draft, 'text', id, subagentRunId, {
    unknown: ['text_unknown_message', `The end of unknown message "${id}" was ignored.`],
    mismatch: `The end of message "${id}" from another subagent was ignored.`,
  });
}

/* chunks (*_CHUNK events: at most one open chunk stream per lane) ------------------------------- */

export function closeLane(draft: Draft, subagentRunId: string | undefined): void {
  const open = draft.view.openChunks.find((chunk) => chunk.subagentRunId === subagentRunId);
  if (!open) return;
  draft.view.openChunks = draft.view.openChunks.filter((chunk) => chunk !== open);
  if (open.kind === 'text') endText(draft, open.id);
  else if (open.kind === 'reasoning') endReasoningMessage(draft, open.id);
  else endTool(draft, open.id);
}

export function closeAllChunks(draft: Draft): void {
  for (const chunk of [...draft.view.openChunks]) closeLane(draft, chunk.subagentRunId);
  draft.view.openChunks = [];
}

/** Which lane a chunk belongs to (the @ag-ui/client chunk rules), or undefined after noting why it cannot be placed. */
function chunkLane(
  draft: Draft,
  kind: AguiOpenChunk['kind'],
  id: string | undefined,
  subagentRunId: string | undefined,
): { lane: string | undefined } | undefined {
  const chunks = draft.view.openChunks;
  if (id !== undefined) {
    const open = chunks.find((chunk) => chunk.kind === kind && chunk.id === id);
    if (open) {
      if (laneConflict(open.subagentRunId, subagentRunId)) {
        draft.note(
          'subagent_mismatch',
          `A chunk for "${id}" claims subagent "${subagentRunId ?? ''}" but the stream belongs to ${open.subagentRunId === undefined ? 'the parent agent' : `subagent "${open.subagentRunId}"`}; ignored.`,
        );
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
    draft.note('chunk_ambiguous', 'A chunk without an id or subagentRunId could continue several open streams; ignored.');
    return undefined;
  }
  return { lane: undefined };
}

/** A chunk: continues its lane's open stream, or closes it and opens a new one with `open`; then `append`s. */
export function handleChunk(
  draft: Draft,
  kind: AguiOpenChunk['kind'],
  id: string | undefined,
  subagentRunId: string | undefined,
  open: (id: string, lane: string | undefined) => boolean,
  append: (id: string) => void,
): void {
  const placed = chunkLane(draft, kind, id, subagentRunId);
  if (!placed) return;
  const lane = placed.lane;
  const current = draft.view.openChunks.find((chunk) => chunk.subagentRunId === lane);
  let targetId: string;
  if (current && current.kind === kind && (id === undefined || id === current.id)) targetId = current.id;
  else {
    closeLane(draft, lane);
    if (id === undefined) {
      draft.note('chunk_no_open_stream', 'A chunk without an id continues nothing; ignored.');
      return;
    }
    if (!open(id, lane)) return;
    if (draft.view.openChunks.length >= aguiLimits.openChunks) {
      draft.note('chunk_too_many_streams', `At most ${aguiLimits.openChunks} chunk streams may be open at once.`);
      return;
    }
    draft.view.openChunks = [...draft.view.openChunks, { kind, id, ...(lane === undefined ? {} : { subagentRunId: lane }) }];
    targetId = id;
  }
  append(targetId);
}

/* messages snapshot --------------------------------------------------------------------------------- */

/**
 * MESSAGES_SNAPSHOT replaces the message history: messages it names replace ours (by id), ours
 * that it does not name are dropped — except what no producer tracks (custom and error items),
 * and activity/reasoning when the snapshot carries none of that role (as @ag-ui/client
 * reconciles) — and new ones are appended in order. The encrypted values its messages carry are
 * kept for the history (`snapshotEncryptedValues`).
 */
export function messagesSnapshot(draft: Draft, messages: readonly Message[]): void {
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
                {
                  kind: 'toolCall' as const,
                  id: call.id,
                  name: truncate(call.function.name, aguiLimits.nameChars),
                  started: true,
                  parentMessageId: message.id,
                  argsText,
                  argsStatus: 'streaming' as const,
                  state: 'called' as const,
                },
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
          incoming.push(
            withLane(
              {
                kind: 'toolCall' as const,
                id: message.toolCallId,
                name: unannouncedToolName(draft.view, message.toolCallId),
                started: false,
                argsText: '',
                argsStatus: 'empty' as const,
                state: message.error === undefined ? ('completed' as const) : ('failed' as const),
                result,
              },
              lane,
            ),
          );
        }
        break;
      }
      case 'reasoning':
        incoming.push(
          withLane(
            {
              kind: 'reasoning' as const,
              id: message.id,
              text: truncate(message.content, aguiLimits.reasoningChars),
              streaming: false,
              ...(message.encryptedValue === undefined ? {} : { encryptedHidden: true as const }),
            },
            lane,
          ),
        );
        break;
      case 'activity': {
        const measure = measureJson(message.content, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.activityChars });
        if (!measure.ok) {
          draft.note('activity_too_large', `Activity "${message.id}" in a messages snapshot is ${measure.message}; not shown.`);
          break;
        }
        incoming.push(
          withLane(
            {
              kind: 'activity' as const,
              id: message.id,
              activityType: truncate(message.activityType, aguiLimits.nameChars),
              content: message.content as JsonObject,
            },
            lane,
          ),
        );
        break;
      }
    }
  }
  if (truncated) draft.note('snapshot_truncated', `A messages snapshot had more than ${aguiLimits.items} entries; the rest were ignored.`);
  const byKey = new Map(incoming.map((item) => [key(item), item]));
  const hasActivity = incoming.some((item) => item.kind === 'activity');
  const hasReasoning = incoming.some((item) => item.kind === 'reasoning');
  const kept: AguiItem[] = [];
  const placed = new Set<string>();
  for (const item of draft.view.items) {
    const replacement = byKey.get(key(item));
    if (replacement) {
      kept.push(replacement);
      placed.add(key(item));
    } else if (
      item.kind === 'custom' ||
      item.kind === 'error' ||
      item.kind === 'answer' ||
      (item.kind === 'activity' && !hasActivity) ||
      (item.kind === 'reasoning' && !hasReasoning)
    ) {
      kept.push(item);
    }
  }
  for (const item of incoming) if (!placed.has(key(item))) kept.push(item);
  draft.setItems(kept.length > aguiLimits.items ? kept.slice(kept.length - aguiLimits.items) : kept);
  snapshotEncryptedValues(draft, messages);
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
