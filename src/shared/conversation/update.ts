import { z } from 'zod';
import { conversationItemSchema, itemLimits, textKinds, type ConversationItem } from './items';
import { conversationStatusSchema, conversationViewSchema, type ConversationStatus, type ConversationView } from './view';

/**
 * What main sends the renderer when a conversation changes: the ops that turn the view the renderer
 * has into the one main has (`diffConversation` makes them, `applyConversationUpdate` applies them,
 * on both sides the same pure code). A streaming answer costs one `text` op per tick with only what was
 * appended; an unchanged item costs nothing.
 */

const id = z.string().max(itemLimits.idChars);

export const conversationOpSchema = z.discriminatedUnion('op', [
  /** The whole view (an open, a thread switch, or a change the other ops cannot say). */
  z.strictObject({ op: z.literal('reset'), view: conversationViewSchema }),
  z.strictObject({ op: z.literal('status'), status: conversationStatusSchema }),
  /**
   * An item, new or changed. A changed one keeps its place. A new one goes after `after` (an id it
   * has; `null`: first), or at the end when `after` is absent.
   */
  z.strictObject({ op: z.literal('upsert'), item: conversationItemSchema, after: id.nullable().optional() }),
  /** Text appended to a streaming item (message, reasoning, speech). */
  z.strictObject({ op: z.literal('text'), id, append: z.string().min(1).max(itemLimits.textChars) }),
  z.strictObject({ op: z.literal('remove'), ids: z.array(id).min(1).max(5_000) }),
  /** Older items, asked for with "Show earlier": they go before the first one. */
  z.strictObject({ op: z.literal('earlier'), items: z.array(conversationItemSchema).max(5_000) }),
]);
export type ConversationOp = z.infer<typeof conversationOpSchema>;

/**
 * One op applied; `undefined` when it does not fit the view (an id it does not have, a text op on an
 * item whose text is not a string): the renderer then asks main for the whole view instead of guessing.
 */
export function applyConversationOp(view: ConversationView, op: ConversationOp): ConversationView | undefined {
  switch (op.op) {
    case 'reset':
      return op.view;
    case 'status':
      return { ...view, status: op.status };
    case 'upsert': {
      const index = view.items.findIndex((item) => item.id === op.item.id);
      if (index >= 0) {
        if (view.items[index]?.kind !== op.item.kind) return undefined;
        const items = view.items.slice();
        items[index] = op.item;
        return { ...view, items };
      }
      if (op.after === undefined) return { ...view, items: [...view.items, op.item] };
      const at = op.after === null ? 0 : view.items.findIndex((item) => item.id === op.after) + 1;
      if (at === 0 && op.after !== null) return undefined;
      const items = view.items.slice();
      items.splice(at, 0, op.item);
      return { ...view, items };
    }
    case 'text': {
      const index = view.items.findIndex((item) => item.id === op.id);
      const item = view.items[index];
      if (item === undefined || !hasText(item)) return undefined;
      const items = view.items.slice();
      items[index] = { ...item, text: `${item.text ?? ''}${op.append}` };
      return { ...view, items };
    }
    case 'remove': {
      const gone = new Set(op.ids);
      return { ...view, items: view.items.filter((item) => !gone.has(item.id)) };
    }
    case 'earlier': {
      const have = new Set(view.items.map((item) => item.id));
      return { ...view, items: [...op.items.filter((item) => !have.has(item.id)), ...view.items] };
    }
  }
}

/** Every op in order; `undefined` as soon as one does not fit. */
export function applyConversationOps(view: ConversationView, ops: readonly ConversationOp[]): ConversationView | undefined {
  let current: ConversationView | undefined = view;
  for (const op of ops) {
    current = applyConversationOp(current, op);
    if (current === undefined) return undefined;
  }
  return current;
}

/**
 * The ops that turn `before` into `after`. Items are compared by identity first (a projection keeps an
 * unchanged item's object), then by content; a streaming item whose text only grew becomes a `text` op.
 * A conversation that changed identity, or whose kept items changed order, is sent whole.
 */
export function diffConversation(before: ConversationView, after: ConversationView): ConversationOp[] {
  if (before.conversationId !== after.conversationId || before.agentId !== after.agentId || before.protocol !== after.protocol)
    return [{ op: 'reset', view: after }];
  const ops: ConversationOp[] = [];
  if (!sameStatus(before.status, after.status)) ops.push({ op: 'status', status: after.status });
  if (before.items === after.items) return ops;

  const afterIds = new Set(after.items.map((item) => item.id));
  if (afterIds.size !== after.items.length) return [{ op: 'reset', view: after }];
  const removed = before.items.filter((item) => !afterIds.has(item.id)).map((item) => item.id);
  const kept = new Map<string, ConversationItem>();
  for (const item of before.items) if (afterIds.has(item.id)) kept.set(item.id, item);

  // The kept items must come in the same order on both sides; a reorder is sent whole.
  const keptOrder = [...kept.keys()];
  let next = 0;
  for (const item of after.items) {
    if (!kept.has(item.id)) continue;
    if (keptOrder[next] !== item.id) return [{ op: 'reset', view: after }];
    next += 1;
  }

  if (removed.length > 0) ops.push({ op: 'remove', ids: removed });
  const lastKept = keptOrder.at(-1);
  let seenLastKept = lastKept === undefined;
  let previous: string | null = null;
  for (const item of after.items) {
    const old = kept.get(item.id);
    if (old === undefined) {
      // New items after the last kept one are appended; others are placed after their neighbour.
      ops.push(seenLastKept ? { op: 'upsert', item } : { op: 'upsert', item, after: previous });
    } else {
      if (old !== item && !sameJson(old, item)) {
        const append = appendedText(old, item);
        ops.push(append === undefined ? { op: 'upsert', item } : { op: 'text', id: item.id, append });
      }
      if (item.id === lastKept) seenLastKept = true;
    }
    previous = item.id;
  }
  return ops;
}

function hasText(item: ConversationItem): item is Extract<ConversationItem, { kind: (typeof textKinds)[number] }> {
  return (textKinds as readonly string[]).includes(item.kind);
}

/** What was appended to `before`'s text when that is the only change, else undefined. */
function appendedText(before: ConversationItem, after: ConversationItem): string | undefined {
  if (!hasText(before) || !hasText(after) || before.kind !== after.kind) return undefined;
  const oldText = before.text ?? '';
  const newText = after.text ?? '';
  if (newText.length <= oldText.length || !newText.startsWith(oldText)) return undefined;
  const { text: _oldText, ...oldRest } = before;
  const { text: _newText, ...newRest } = after;
  return sameJson(oldRest, newRest) ? newText.slice(oldText.length) : undefined;
}

function sameStatus(a: ConversationStatus, b: ConversationStatus): boolean {
  return a === b || sameJson(a, b);
}

/** Structural equality of plain JSON data (key order as the projections write it). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const bKeys = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
