import type { EventType } from '@ag-ui/core';
import { interruptLimits } from '../interrupts';
import { truncate } from '../json-values';
import type { Draft } from './draft';
import { stopStreams } from './lifecycle';
import { aguiLimits, type AguiItem, type AguiStep, type AguiSubagent, type AguiThreadView, type EventOf } from './types';

/* steps ------------------------------------------------------------------------------------------- */

export function stepStarted(draft: Draft, name: string, subagentRunId: string | undefined): void {
  if (draft.view.steps.some((step) => step.state === 'running' && step.name === name && step.subagentRunId === subagentRunId)) {
    draft.note('step_already_running', `Step "${name}" is already running; the second start was ignored.`);
    return;
  }
  const step: AguiStep = {
    id: `step:${draft.eventCount}`,
    name: truncate(name, aguiLimits.nameChars),
    ...(draft.view.runId === undefined ? {} : { runId: draft.view.runId }),
    ...(subagentRunId === undefined ? {} : { subagentRunId }),
    state: 'running',
  };
  const steps = [...draft.view.steps, step];
  draft.view.steps = steps.length > aguiLimits.steps ? steps.slice(steps.length - aguiLimits.steps) : steps;
}

export function stepFinished(draft: Draft, name: string, subagentRunId: string | undefined): void {
  const steps = draft.view.steps;
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index] as AguiStep;
    if (step.state === 'running' && step.name === truncate(name, aguiLimits.nameChars) && step.subagentRunId === subagentRunId) {
      const next = steps.slice();
      next[index] = { ...step, state: 'finished' };
      draft.view.steps = next;
      return;
    }
  }
  draft.note('step_not_started', `Step "${name}" finished without having started; ignored.`);
}

/* subagents --------------------------------------------------------------------------------------- */

export function subagentStarted(draft: Draft, event: EventOf<EventType.SUBAGENT_STARTED>): void {
  if (draft.view.subagents.some((subagent) => subagent.id === event.subagentRunId)) {
    draft.note('subagent_duplicate', `Subagent invocation "${event.subagentRunId}" was already started; ids are per invocation.`);
    return;
  }
  if (draft.view.subagents.length >= aguiLimits.subagents) {
    draft.note('subagent_too_many', `The thread shows at most ${aguiLimits.subagents} subagent invocations.`);
    return;
  }
  const subagent: AguiSubagent = {
    id: event.subagentRunId,
    name: truncate(event.name, aguiLimits.nameChars),
    ...(event.description === undefined ? {} : { description: truncate(event.description, aguiLimits.errorChars) }),
    ...(event.parentSubagentRunId === undefined ? {} : { parentSubagentRunId: event.parentSubagentRunId }),
    ...(event.parentToolCallId === undefined ? {} : { parentToolCallId: event.parentToolCallId }),
    ...(event.parentMessageId === undefined ? {} : { parentMessageId: event.parentMessageId }),
    ...(draft.view.runId === undefined ? {} : { runId: draft.view.runId }),
    state: 'running',
  };
  draft.view.subagents = [...draft.view.subagents, subagent];
}

export function subagentEnded(
  draft: Draft,
  id: string,
  state: 'finished' | 'suspended' | 'failed',
  error?: { message: string; code?: string },
  interruptIds?: string[],
): void {
  const index = draft.view.subagents.findIndex((subagent) => subagent.id === id);
  if (index === -1) {
    draft.note('subagent_unknown', `Subagent invocation "${id}" ended without having started.`);
    return;
  }
  endLaneStreams(draft, id);
  const subagents = draft.view.subagents.slice();
  subagents[index] = {
    ...(subagents[index] as AguiSubagent),
    state,
    ...(error === undefined ? {} : { error }),
    ...(interruptIds === undefined
      ? {}
      : { interruptIds: interruptIds.slice(0, interruptLimits.perRun).map((entry) => truncate(entry, interruptLimits.idChars)) }),
  };
  draft.view.subagents = subagents;
}

/** A subagent invocation ended: its streaming items stop and its spans close. */
function endLaneStreams(draft: Draft, subagentRunId: string): void {
  stopStreams(draft, (item) => 'subagentRunId' in item && item.subagentRunId === subagentRunId);
  draft.view.openSpans = draft.view.openSpans.filter((span) => span.subagentRunId !== subagentRunId);
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
