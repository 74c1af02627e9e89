import { z } from 'zod';
import { iso, newId, type ActionRecord, type UserSpace } from './demo-store';
import { cardEvent } from './demo-run';
import { httpErrors } from './http-util';
import type { TalkieAction, TalkieCard } from './talkie-types';

/**
 * Talkie 1 §8 decisions. Only the HTTP decision endpoint imports this module: the demo agent (demo-agent.ts,
 * demo-run.ts) has no path to it, as Talkie 1 §8 requires.
 */

export const decisionBodySchema = z.object({
  decision: z.enum(['confirm', 'cancel']),
  paramsHash: z.string().min(1),
  method: z.enum(['button', 'voice']),
});
export type DecisionBody = z.infer<typeof decisionBodySchema>;

export interface DecisionEnv {
  space: UserSpace;
  timeScale: number;
  /** Timers still pending when the server closes are cleared through the space. */
  log: { info(area: string, message: string): void };
}

/** The undo window of "send the offer" (before timeScale). */
export const undoWindowMs = 10_000;

/**
 * Brings the action up to date with the clock: pending past `expiresAt` → expired; running past
 * `undoUntil` → done (the timer may not have fired yet). Call before reading or deciding.
 */
export function settle(record: ActionRecord, env: DecisionEnv, now = Date.now()): void {
  const action = record.action;
  if (action.status === 'pending' && now >= Date.parse(action.expiresAt)) {
    action.status = 'expired';
    env.space.changed();
  }
  if (action.status === 'running' && action.undoUntil && now >= Date.parse(action.undoUntil)) complete(record, env);
}

export function decide(record: ActionRecord, body: DecisionBody, env: DecisionEnv): { action: TalkieAction; events: unknown[] } {
  const now = Date.now();
  settle(record, env, now);
  const action = record.action;
  const snapshot = () => ({ action: structuredClone(action), events: record.decisionEvents });

  if (record.decision) {
    // Repeating the decision in force is idempotent: 200, current state, the same events again.
    if (record.decision.decision === body.decision) return snapshot();
    // Cancelling a confirmed action during its undo window is the undo, not a conflict.
    if (body.decision === 'cancel' && action.status === 'running') {
      if (record.undoTimer) clearTimeout(record.undoTimer);
      record.undoTimer = undefined;
      action.status = 'cancelled';
      delete action.undoUntil;
      record.decision = { decision: 'cancel', method: body.method, at: iso(now) };
      const card = undoneCard(record);
      record.decisionEvents = [cardEvent(card)];
      env.space.addCardMessage(action.threadId, card);
      env.space.changed();
      env.log.info('demo', `action ${action.id} undone`);
      return snapshot();
    }
    throw httpErrors.conflict(`This action was already ${record.decision.decision === 'confirm' ? 'confirmed' : 'cancelled'}.`);
  }
  if (action.status === 'expired') throw httpErrors.expired('This action has expired.');
  if (action.status !== 'pending') throw httpErrors.conflict(`This action is already ${action.status}.`);
  if (body.paramsHash !== action.paramsHash) throw httpErrors.stale('The action changed since it was shown; look at it again.');

  record.decision = { decision: body.decision, method: body.method, at: iso(now) };
  if (body.decision === 'cancel') {
    action.status = 'cancelled';
    record.decisionEvents = [];
    env.space.changed();
    return snapshot();
  }
  if (record.kind === 'send-offer') {
    // An outbound e-mail: delayed so the user can still undo it (Talkie 1 §8 "SHOULD delay … allow cancel").
    const delay = undoWindowMs * env.timeScale;
    action.status = 'running';
    action.undoUntil = iso(now + delay);
    armUndoTimer(record, env, delay);
    record.decisionEvents = [cardEvent(sendingCard(record))];
    env.space.changed();
    return snapshot();
  }
  complete(record, env);
  return snapshot();
}

/** setTimeout's limit; only a hand-edited saved state could ask for more. */
const maxTimerMs = 2 ** 31 - 1;

function armUndoTimer(record: ActionRecord, env: DecisionEnv, delayMs: number): void {
  if (record.undoTimer) clearTimeout(record.undoTimer);
  record.undoTimer = setTimeout(
    () => {
      record.undoTimer = undefined;
      if (record.action.status === 'running') complete(record, env);
    },
    Math.min(Math.max(0, delayMs), maxTimerMs),
  );
}

/**
 * An action loaded from the saved state (the server restarted): brought up to date with the clock
 * like on a read – a `running` one whose undo window closed meanwhile is completed as if the window
 * had closed normally (result card in its thread) – and a window still open gets its timer again.
 */
export function resumeAction(record: ActionRecord, env: DecisionEnv, now = Date.now()): void {
  settle(record, env, now);
  const action = record.action;
  if (action.status === 'running' && action.undoUntil) armUndoTimer(record, env, Date.parse(action.undoUntil) - now);
}

/** The operation happened: status done, the result card in the thread (and in the decision's events). */
function complete(record: ActionRecord, env: DecisionEnv): void {
  const action = record.action;
  if (record.undoTimer) clearTimeout(record.undoTimer);
  record.undoTimer = undefined;
  action.status = 'done';
  delete action.undoUntil;
  const card = doneCard(record);
  if (record.kind === 'test-note') record.decisionEvents = [cardEvent(card)];
  env.space.addCardMessage(action.threadId, card);
  env.space.changed();
  env.log.info('demo', `action ${action.id} done`);
}

/** DELETE thread (Talkie 1 §9): its pending actions are cancelled. A running (already confirmed) one goes on. */
export function cancelForDeletedThread(record: ActionRecord, env: DecisionEnv): void {
  settle(record, env);
  if (record.action.status !== 'pending') return;
  record.action.status = 'cancelled';
  record.decision = { decision: 'cancel', method: 'system', at: iso() };
  record.decisionEvents = [];
  env.space.changed();
}

/**
 * The one card telling how a send-offer action went: sending, then sent or not sent. Talkie replaces
 * a card with the same id, so the result replaces "Sending… you can still cancel it" instead of
 * standing beside it.
 */
function statusCardId(record: ActionRecord): string {
  return `card_status_${record.action.id}`;
}

function doneCard(record: ActionRecord): TalkieCard {
  if (record.kind === 'send-offer') {
    const to = String(record.params.to);
    return {
      id: statusCardId(record),
      version: 1,
      title: `Offer ${String(record.params.offerId)} sent`,
      subtitle: to,
      blocks: [
        { type: 'badge', text: 'Sent', tone: 'positive' },
        {
          type: 'fields',
          fields: [
            { label: 'To', value: to },
            { label: 'Subject', value: String(record.params.subject) },
          ],
        },
      ],
      fallbackText: `Offer ${String(record.params.offerId)} was sent to ${to}.`,
      a11yLabel: `Offer ${String(record.params.offerId)} sent`,
    };
  }
  return {
    id: newId('card'),
    version: 1,
    title: 'Test action done',
    blocks: [
      { type: 'badge', text: 'Done', tone: 'positive' },
      {
        type: 'fields',
        fields: [
          { label: 'Action', value: record.action.summary },
          { label: 'Confirmed by', value: record.decision?.method ?? 'button' },
        ],
      },
    ],
    fallbackText: `Done: ${record.action.summary}`,
    a11yLabel: 'Test action done',
  };
}

function sendingCard(record: ActionRecord): TalkieCard {
  const seconds = Math.max(0, Math.round((Date.parse(record.action.undoUntil ?? '') - Date.now()) / 1000));
  return {
    id: statusCardId(record),
    version: 1,
    title: `Sending offer ${String(record.params.offerId)}`,
    blocks: [
      { type: 'badge', text: 'Sending', tone: 'warning' },
      { type: 'text', text: `The offer goes out in about **${seconds} s**. Until then you can still cancel it.` },
    ],
    fallbackText: `Sending offer ${String(record.params.offerId)}; you can cancel it for ${seconds} s.`,
  };
}

function undoneCard(record: ActionRecord): TalkieCard {
  return {
    id: statusCardId(record),
    version: 1,
    title: `Offer ${String(record.params.offerId)} not sent`,
    blocks: [{ type: 'badge', text: 'Cancelled', tone: 'neutral' }],
    fallbackText: `Offer ${String(record.params.offerId)} was not sent.`,
  };
}
