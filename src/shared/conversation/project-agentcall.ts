import type { AgentTextState, SessionItem, SessionView } from '../agentcall/session-view';
import { itemId, type ConversationItem, type ItemOfKind, type MessageState } from './items';
import type { ConversationStatus } from './view';

/**
 * An AgentCall session (main's engine view, src/shared/agentcall/session-view.ts) as conversation
 * items. Pure; unchanged source items keep their projected object (see project-agui.ts).
 *
 * What it decides:
 * - an object is named by the label the agent gave it (a teaching proposal for its reference), never
 *   by its reference; the transcript says "Unknown object" where no label is known;
 * - speech segments repeat the answer's text for the voice: not shown;
 * - an answer that came back empty and finished says nothing; an answer that only repeats a request's
 *   prompt is not shown twice;
 * - the end of a session is said once;
 * - a spoken turn (push to talk in a call) shows that the user spoke, and how long: the protocol gives no transcript.
 */
export interface AgentCallProjection {
  items: ConversationItem[];
  status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped: number };
}

const messageStates: Record<AgentTextState, MessageState> = {
  streaming: 'streaming',
  completed: 'done',
  cancelled: 'stopped',
  failed: 'failed',
  interrupted: 'interrupted',
};

/** How the last answer ended, for the status line (a failed one too: the run stopped with an error). */
const outcomes: Record<AgentTextState, ConversationStatus['outcome']> = {
  streaming: undefined,
  completed: 'done',
  cancelled: 'stopped',
  failed: 'failed',
  interrupted: 'interrupted',
};

export function createAgentCallProjector(): (view: SessionView) => AgentCallProjection {
  const cache = new WeakMap<SessionItem, { label: string | undefined; projected: ConversationItem | undefined }>();
  return (view) => {
    const labels = objectLabels(view);
    const prompts = new Set(view.items.flatMap((item) => (item.kind === 'interaction' ? [item.request.prompt.trim()] : [])));
    const items: ConversationItem[] = [];
    let ended = false;
    for (const item of view.items) {
      if (item.kind === 'speech') continue;
      if (item.kind === 'agentText' && item.state === 'completed' && (item.text === '' || prompts.has(item.text.trim()))) continue;
      if (item.kind === 'ended') {
        if (ended) continue;
        ended = true;
      }
      const label = item.kind === 'userObservation' && item.object !== undefined ? labels.get(item.object.objectRef) : undefined;
      let entry = cache.get(item);
      if (entry === undefined || entry.label !== label) {
        entry = { label, projected: projectItem(item, label) };
        cache.set(item, entry);
      }
      if (entry.projected !== undefined) items.push(entry.projected);
    }
    return { items, status: statusOf(view) };
  };
}

/** The labels the agent gave objects in this session (its teaching proposals, the passports it showed), by reference. */
export function objectLabels(view: SessionView): Map<string, string> {
  const labels = new Map<string, string>();
  for (const item of view.items) {
    if (item.kind === 'teaching' && item.state !== 'cancelled' && item.proposal.label.trim() !== '')
      labels.set(item.proposal.objectRef, item.proposal.label.trim());
    if (item.kind === 'passport' && item.passport.label.trim() !== '') labels.set(item.passport.objectRef, item.passport.label.trim());
  }
  return labels;
}

function statusOf(view: SessionView): AgentCallProjection['status'] {
  const phase = view.phase === 'ended' ? 'ended' : view.phase === 'established' ? 'ready' : 'connecting';
  const run = view.runActive ? (view.runCancelling ? 'cancelling' : 'running') : 'idle';
  const lastAnswer = view.items.findLast((item) => item.kind === 'agentText');
  const answered = lastAnswer?.kind === 'agentText' ? outcomes[lastAnswer.state] : undefined;
  const outcome = view.pendingInteraction !== undefined ? 'waiting' : answered;
  return {
    phase,
    run,
    ...(outcome === undefined || view.runActive ? {} : { outcome }),
    ...(view.phase === 'ended' ? {} : { accepts: [...view.usableModalities] }),
    dropped: view.removedItems,
  };
}

function projectItem(item: SessionItem, label: string | undefined): ConversationItem | undefined {
  const id = itemId(item.kind, item.id);
  switch (item.kind) {
    case 'userText':
      return { kind: 'message', id, role: 'user', text: item.text, format: 'plain', state: 'sent' };
    case 'userSpeech':
      return { kind: 'speech', id, role: 'user', state: item.state, ...(item.durationMs === undefined ? {} : { durationMs: item.durationMs }) };
    case 'userObservation': {
      const observation: ItemOfKind<'observation'> = { kind: 'observation', id, intent: item.intent };
      if (item.object !== undefined) observation.object = { objectRef: item.object.objectRef, ...(label === undefined ? {} : { label }) };
      if (item.image !== undefined) observation.image = item.image;
      if (item.interactionId !== undefined) observation.interactionId = item.interactionId;
      return observation;
    }
    case 'agentText':
      return { kind: 'message', id, role: 'agent', text: item.text, format: 'markdown', state: messageStates[item.state] };
    case 'speech':
      return undefined;
    case 'failure':
      return { kind: 'notice', id, tone: 'error', code: item.code, message: item.message };
    case 'notice':
      return { kind: 'notice', id, tone: 'info', code: item.code, message: item.message };
    case 'interaction':
      return { kind: 'request', id, request: item.request, state: item.state };
    case 'teaching':
      return { kind: 'teaching', id, proposal: item.proposal, state: item.endedWithSession === true ? 'ended' : item.state };
    case 'ended':
      return { kind: 'ended', id, reason: item.reason };
    case 'passport':
      return { kind: 'passport', id, passport: item.passport, state: item.state };
  }
}
