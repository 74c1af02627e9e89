import type { EventType, Message } from '@ag-ui/core';
import type { Draft } from './draft';
import { aguiLimits, type AguiEncryptedValue, type AguiThreadView, type EventOf } from './types';

/* encrypted values: kept for the history, never shown ------------------------------------------------ */

/**
 * Where an encrypted value may be kept, as @ag-ui/client keeps it: `message` on any message but an
 * activity (a user, text or reasoning item, the assistant message that carries a tool call, a tool
 * result), `tool-call` on a tool call the stream announced (one only seen through its result is a
 * tool message without a call entry).
 */
function holders(view: AguiThreadView): Set<string> {
  const keys = new Set<string>();
  for (const item of view.items) {
    if (item.kind === 'user' || item.kind === 'text' || item.kind === 'reasoning') keys.add(key('message', item.id));
    else if (item.kind === 'toolCall') {
      if (item.started) {
        keys.add(key('tool-call', item.id));
        keys.add(key('message', item.parentMessageId ?? item.id));
      }
      if (item.result) keys.add(key('message', item.result.messageId));
    }
  }
  return keys;
}

function key(subtype: AguiEncryptedValue['subtype'], entityId: string): string {
  return `${subtype}\u0000${entityId}`;
}

/**
 * The thread's encrypted values with `added` in place of the entries of the same key (`removed`
 * drops entries without adding any), less what has no holder any more; the oldest go beyond the
 * total bound.
 */
function keep(draft: Draft, added: readonly AguiEncryptedValue[], removed: ReadonlySet<string> = new Set()): void {
  const replaced = new Set([...removed, ...added.map((entry) => key(entry.subtype, entry.entityId))]);
  const present = holders(draft.view);
  let entries = [...(draft.view.encryptedValues ?? []).filter((entry) => !replaced.has(key(entry.subtype, entry.entityId))), ...added].filter((entry) =>
    present.has(key(entry.subtype, entry.entityId)),
  );
  let total = entries.reduce((sum, entry) => sum + entry.value.length, 0);
  while (total > aguiLimits.encryptedTotalChars && entries.length > 0) {
    total -= (entries[0] as AguiEncryptedValue).value.length;
    entries = entries.slice(1);
  }
  if (entries.length > 0) draft.view.encryptedValues = entries;
  else delete draft.view.encryptedValues;
}

/** One value, if it fits its bound (noted otherwise: a cut value is of no use). */
function bounded(draft: Draft, subtype: AguiEncryptedValue['subtype'], entityId: string, value: string): AguiEncryptedValue | undefined {
  if (value.length > aguiLimits.encryptedValueChars) {
    draft.note(
      'encrypted_value_too_large',
      `An encrypted value of "${entityId}" is longer than ${aguiLimits.encryptedValueChars} characters; it is not kept, so the next run goes without it.`,
    );
    return undefined;
  }
  return { subtype, entityId, value };
}

/** REASONING_ENCRYPTED_VALUE: kept for the history (a reasoning item says part of it is hidden); a value for nothing known is noted and dropped, as @ag-ui/client drops it. */
export function encryptedValue(draft: Draft, event: EventOf<EventType.REASONING_ENCRYPTED_VALUE>): void {
  if (!holders(draft.view).has(key(event.subtype, event.entityId))) {
    draft.note(
      'encrypted_value_unknown_entity',
      `An encrypted value for unknown ${event.subtype === 'tool-call' ? 'tool call' : 'message'} "${event.entityId}" was ignored.`,
    );
    return;
  }
  const entry = bounded(draft, event.subtype, event.entityId, event.encryptedValue);
  if (entry === undefined) return;
  keep(draft, [entry]);
  const reasoning = event.subtype === 'message' ? draft.find('reasoning', event.entityId) : undefined;
  if (reasoning && !reasoning.item.encryptedHidden) draft.replace(reasoning.index, { ...reasoning.item, encryptedHidden: true });
}

/** After MESSAGES_SNAPSHOT replaced the items: the values its messages carry replace those of the same messages (a message sent again without one loses it). */
export function snapshotEncryptedValues(draft: Draft, messages: readonly Message[]): void {
  const added: AguiEncryptedValue[] = [];
  const named = new Set<string>();
  for (const message of messages) {
    if (message.role === 'activity') continue;
    named.add(key('message', message.id));
    if (message.encryptedValue !== undefined) {
      const entry = bounded(draft, 'message', message.id, message.encryptedValue);
      if (entry) added.push(entry);
    }
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      named.add(key('tool-call', call.id));
      if (call.encryptedValue === undefined) continue;
      const entry = bounded(draft, 'tool-call', call.id, call.encryptedValue);
      if (entry) added.push(entry);
    }
  }
  keep(draft, added, named);
}

/** The value kept for a message or tool call. */
export function encryptedValueOf(view: AguiThreadView, subtype: AguiEncryptedValue['subtype'], entityId: string): string | undefined {
  return view.encryptedValues?.find((entry) => entry.subtype === subtype && entry.entityId === entityId)?.value;
}

/** The thread as the renderer gets it: everything but the encrypted values, which never leave main. */
export function shownThread(view: AguiThreadView): AguiThreadView {
  if (view.encryptedValues === undefined) return view;
  const { encryptedValues: _secret, ...shown } = view;
  return shown;
}
