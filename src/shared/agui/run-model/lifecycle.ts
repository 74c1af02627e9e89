import type { EventType } from '@ag-ui/core';
import { summarizeAnswer } from '../interrupts';
import { truncate } from '../json-values';
import { Draft } from './draft';
import { applyPendingAnswers, settleInterrupts } from './interrupts';
import { closeAllChunks } from './messages-and-chunks';
import { finishArgs } from './tools';
import { aguiLimits, type AguiItem, type AguiThreadView, type EventOf } from './types';

/* what the client does between runs ----------------------------------------------------------------- */

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
export function beginRun(
  view: AguiThreadView,
  run: { runId: string; resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[] },
): AguiThreadView {
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
  endRun(draft);
  const { pendingResume: _pending, ...rest } = draft.done();
  return { ...rest, runState: 'dropped', error: { code: 'stream_dropped', message: truncate(message, aguiLimits.errorChars) } };
}

/** The request failed before any stream (HTTP 4xx/5xx, network): open interrupts stay open. */
export function markRequestFailed(view: AguiThreadView, failure: { code: string; message: string }): AguiThreadView {
  const { pendingResume: _pending, ...rest } = view;
  return {
    ...rest,
    runState: 'error',
    error: { code: truncate(failure.code, aguiLimits.codeChars), message: truncate(failure.message, aguiLimits.errorChars) },
  };
}

/* RUN_STARTED / RUN_FINISHED / RUN_ERROR ---------------------------------------------------------- */

export function runStarted(draft: Draft, event: EventOf<EventType.RUN_STARTED>): void {
  if (event.threadId !== draft.view.threadId) {
    draft.note('run_thread_mismatch', `RUN_STARTED for thread "${event.threadId}" does not belong to this thread; ignored.`);
    return;
  }
  if (draft.view.runState === 'starting' && draft.view.runId !== undefined && draft.view.runId !== event.runId) {
    draft.note('run_id_mismatch', `RUN_STARTED names run "${event.runId}" but "${draft.view.runId}" was requested.`);
  }
  closeAllChunks(draft);
  draft.view.openSpans = [];
  applyPendingAnswers(draft);
  delete draft.view.error;
  draft.view.runId = event.runId;
  draft.view.runState = 'running';
}

export function runFinished(draft: Draft, event: EventOf<EventType.RUN_FINISHED>): void {
  if (event.threadId !== draft.view.threadId || event.runId !== draft.view.runId) {
    draft.note('run_id_mismatch', `RUN_FINISHED names run "${event.runId}" but "${draft.view.runId ?? ''}" is running.`);
  }
  endRun(draft);
  settleInterrupts(draft, event);
}

export function runError(draft: Draft, event: EventOf<EventType.RUN_ERROR>): void {
  endRun(draft);
  const error = {
    message: truncate(event.message, aguiLimits.errorChars),
    ...(event.code === undefined ? {} : { code: truncate(event.code, aguiLimits.codeChars) }),
  };
  draft.view.error = error;
  draft.view.runState = 'error';
  draft.put({ kind: 'error', id: `error:${draft.view.runId ?? draft.eventCount}`, ...error });
}

/** Ends every stream of the run: open chunks and spans close, streaming items stop (tool calls as incomplete). */
function endRun(draft: Draft): void {
  closeAllChunks(draft);
  draft.view.openSpans = [];
  stopStreams(draft, () => true);
}

/** Streaming items that match stop: text and reasoning stop streaming, tool calls end as incomplete. */
export function stopStreams(draft: Draft, matches: (item: AguiItem) => boolean): void {
  const items = draft.view.items;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as AguiItem;
    if (!matches(item)) continue;
    if ((item.kind === 'text' || item.kind === 'reasoning') && item.streaming) draft.replace(index, { ...item, streaming: false });
    else if (item.kind === 'toolCall' && item.state === 'streaming') draft.replace(index, { ...finishArgs(item), state: 'incomplete' });
  }
}
