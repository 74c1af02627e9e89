import { appendStreamed, endStreamed, laneConflict, startStreamed, type Draft } from './draft';
import { aguiLimits, type AguiItem } from './types';

/* reasoning spans (REASONING_START…END) and messages -------------------------------------------- */

export function startSpan(draft: Draft, id: string, subagentRunId: string | undefined): void {
  if (draft.view.openSpans.some((span) => span.id === id)) return;
  if (draft.view.openSpans.length >= aguiLimits.openSpans) {
    draft.note('reasoning_too_many_spans', `At most ${aguiLimits.openSpans} reasoning spans may be open at once.`);
    return;
  }
  draft.view.openSpans = [...draft.view.openSpans, { id, ...(subagentRunId === undefined ? {} : { subagentRunId }) }];
}

export function endSpan(draft: Draft, id: string, subagentRunId: string | undefined): void {
  const span = draft.view.openSpans.find((entry) => entry.id === id);
  if (!span) {
    draft.note('reasoning_unknown_span', `The end of unknown reasoning span "${id}" was ignored.`);
    return;
  }
  if (laneConflict(span.subagentRunId, subagentRunId)) {
    draft.note('subagent_mismatch', `The end of reasoning span "${id}" from another subagent was ignored.`);
    return;
  }
  draft.view.openSpans = draft.view.openSpans.filter((entry) => entry !== span);
  const items = draft.view.items;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as AguiItem;
    if (item.kind === 'reasoning' && item.spanId === id && item.streaming) draft.replace(index, { ...item, streaming: false });
  }
}

export function startReasoningMessage(draft: Draft, id: string, subagentRunId: string | undefined): boolean {
  const span = [...draft.view.openSpans].reverse().find((entry) => entry.subagentRunId === subagentRunId);
  return startStreamed(
    draft,
    { kind: 'reasoning', id, ...(span === undefined ? {} : { spanId: span.id }), text: '', streaming: true },
    subagentRunId,
    () => `Reasoning "${id}" belongs to another subagent; the start was ignored.`,
  );
}

export function appendReasoning(draft: Draft, id: string, delta: string, subagentRunId: string | undefined): void {
  appendStreamed(draft, 'reasoning', id, delta, subagentRunId, aguiLimits.reasoningChars, {
    unknown: ['reasoning_unknown_message', `Reasoning for unknown message "${id}" was ignored.`],
    mismatch: `Reasoning for "${id}" from another subagent was ignored.`,
    truncated: ['reasoning_truncated', `Reasoning "${id}" is longer than ${aguiLimits.reasoningChars} characters; the rest is not shown.`],
  });
}

export function endReasoningMessage(draft: Draft, id: string, subagentRunId?: string): void {
  endStreamed(draft, 'reasoning', id, subagentRunId, {
    unknown: ['reasoning_unknown_message', `The end of unknown reasoning message "${id}" was ignored.`],
    mismatch: `The end of reasoning "${id}" from another subagent was ignored.`,
  });
}

/**
 * The deprecated THINKING_* events (AG-UI before 0.0.45; the official Python SDK still sends them)
 * and the REASONING_* event each is read as. They carry no ids: as in @ag-ui/client's
 * compatibility layer, the span and message ids are minted here (and THINKING_START's `title` is
 * dropped, REASONING_START has none).
 */
export const legacyThinkingTypes = {
  THINKING_START: 'REASONING_START',
  THINKING_TEXT_MESSAGE_START: 'REASONING_MESSAGE_START',
  THINKING_TEXT_MESSAGE_CONTENT: 'REASONING_MESSAGE_CONTENT',
  THINKING_TEXT_MESSAGE_END: 'REASONING_MESSAGE_END',
  THINKING_END: 'REASONING_END',
} as const;

/** A THINKING_* event as its REASONING_* equivalent (legacyThinkingTypes); the first of a run adds the deprecation note. */
export function translateThinking(draft: Draft, input: Record<string, unknown>, typeLabel: string): Record<string, unknown> {
  const runId = draft.view.runId ?? '';
  const live = draft.view.runState === 'running';
  let state = live ? draft.view.legacyThinking : { runId };
  if (state === undefined || state.runId !== runId) {
    draft.note(
      'event_deprecated_thinking',
      `This agent sends the deprecated THINKING_* events (first: ${typeLabel}); they are shown as reasoning (REASONING_* since AG-UI 0.0.45).`,
      typeLabel,
    );
    state = { runId };
  }
  const minted = `agentdesk-thinking-${draft.eventCount}`;
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
  if (live) draft.view.legacyThinking = state;
  return out;
}
