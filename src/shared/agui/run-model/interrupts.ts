import type { EventType } from '@ag-ui/core';
import { interruptLimits, toAguiInterrupt, type AguiInterrupt } from '../interrupts';
import { truncate } from '../json-values';
import type { Draft } from './draft';
import { aguiLimits, type AguiThreadView, type EventOf } from './types';

/* interrupts: raised by RUN_FINISHED, answered by the next run's resume[] ------------------------------ */

export function openInterrupts(view: AguiThreadView): AguiInterrupt[] {
  return view.interrupts.filter((interrupt) => interrupt.status === 'open');
}

/** RUN_STARTED of a run that carries answers (`pendingResume`): those interrupts close and the thread records each answer. */
export function applyPendingAnswers(draft: Draft): void {
  const pending = draft.view.pendingResume;
  if (pending === undefined) return;
  const answered = new Map(pending.map((entry) => [entry.interruptId, entry]));
  draft.view.interrupts = draft.view.interrupts.map((interrupt) => {
    const answer = interrupt.status === 'open' ? answered.get(interrupt.id) : undefined;
    if (answer === undefined) return interrupt;
    draft.put({
      kind: 'answer',
      id: truncate(`answer:${interrupt.id}`, aguiLimits.idChars + 10),
      interruptId: interrupt.id,
      question: interrupt.message ?? interrupt.detail ?? interrupt.reason,
      status: answer.status,
      fields: answer.fields ?? [],
    });
    return { ...interrupt, status: answer.status };
  });
  delete draft.view.pendingResume;
}

/**
 * RUN_FINISHED: interrupts of earlier runs are superseded, an interrupt outcome raises new ones
 * (bounded, duplicates and overlong ids noted) and sets the run state; the list keeps every open
 * interrupt and the most recent answered ones.
 */
export function settleInterrupts(draft: Draft, event: EventOf<EventType.RUN_FINISHED>): void {
  const outcome = event.outcome;
  // Interrupts of earlier runs can no longer be answered once a run on the thread has finished.
  let interrupts = draft.view.interrupts.map((interrupt) => (interrupt.status === 'open' ? { ...interrupt, status: 'superseded' as const } : interrupt));
  if (outcome?.type === 'interrupt') {
    const fresh: AguiInterrupt[] = [];
    for (const raw of outcome.interrupts) {
      if (fresh.some((interrupt) => interrupt.id === raw.id)) {
        draft.note('interrupt_duplicate_id', `Interrupt "${truncate(raw.id, 80)}" appears twice; the first is kept.`);
        continue;
      }
      if (raw.id.length > interruptLimits.idChars) {
        draft.note('interrupt_id_too_long', `An interrupt id longer than ${interruptLimits.idChars} characters was ignored.`);
        continue;
      }
      if (fresh.length >= interruptLimits.perRun) {
        draft.note('interrupt_too_many', `A run may raise at most ${interruptLimits.perRun} interrupts; the rest cannot be answered.`);
        break;
      }
      const interrupt = toAguiInterrupt(raw as Parameters<typeof toAguiInterrupt>[0], event.runId);
      if (interrupt.schemaProblem !== undefined) draft.note('interrupt_schema_dropped', `Interrupt "${truncate(raw.id, 80)}": ${interrupt.schemaProblem}`);
      fresh.push(interrupt);
    }
    const freshIds = new Set(fresh.map((interrupt) => interrupt.id));
    interrupts = [...interrupts.filter((interrupt) => !freshIds.has(interrupt.id)), ...fresh];
    draft.view.runState = fresh.length > 0 ? 'awaitingInput' : 'finished';
  } else {
    draft.view.runState = outcome?.type === 'cancelled' ? 'cancelled' : 'finished';
  }
  if (interrupts.length > interruptLimits.kept) {
    const open = interrupts.filter((interrupt) => interrupt.status === 'open');
    const closed = interrupts.filter((interrupt) => interrupt.status !== 'open');
    interrupts = [...closed.slice(Math.max(0, closed.length - (interruptLimits.kept - open.length))), ...open];
  }
  draft.view.interrupts = interrupts;
}
