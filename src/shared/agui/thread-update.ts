import { z } from 'zod';
import { aguiLimits, type AguiItem, type AguiThreadView } from './run-model';
import { aguiItemSchema, aguiThreadViewSchema } from './thread-persistence';

/**
 * Main folds, the renderer shows (README, "Protocol events: main folds"): while a run streams, main
 * folds each AG-UI event into its thread and sends the renderer only what changed since its last
 * update (`agui.update`, one per tick) — never the raw events, and never the whole thread per batch.
 * The renderer holds a window of main's thread (thread-window.ts: its newest items, and earlier
 * ones it asked for); main diffs the window, so an update only ever touches items the page holds.
 *
 * An update names the thread it applies to (`base`: threadId, eventCount, the absolute position of
 * the first item and the item count of the page's window when the previous update was made);
 * `applyThreadUpdate` refuses any other (the renderer then waits for `agui.runEnded`, which carries
 * the window again). Its parts:
 * - `set`: the top-level fields (everything but `items`) whose value changed, `unset` those gone;
 * - `items`: how many items left the window's head (removed by the bounds, or no longer in the
 *   window), the new length, and each changed or new item by index — a streaming text or reasoning
 *   item as just the text appended to it, so a long message costs its delta per update, not its
 *   whole text again.
 *
 * Main tells changes by identity: the run model replaces (never mutates) what an event changes, so
 * an unchanged field or item is the very same object as before.
 */

const optionalKeys = ['runId', 'state', 'error', 'pendingResume', 'legacyThinking'] as const;
type OptionalKey = (typeof optionalKeys)[number];
/** Fields an update never sets: the view's version and thread stay those of its base; the encrypted values never leave main. */
type FieldKey = Exclude<keyof WindowView, 'items' | 'version' | 'threadId' | 'encryptedValues'>;
/** A thread as main holds it, or a window of it as the page holds it (`earlierItems`: items main holds before the window). */
export type WindowView = AguiThreadView & { earlierItems?: number };

/** The absolute position of a view's first item: items removed for good, then items main holds before the window. */
export function firstItemOf(view: WindowView): number {
  return view.droppedItems + (view.earlierItems ?? 0);
}

const id = z.string().max(aguiLimits.idChars);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const index = z
  .number()
  .int()
  .min(0)
  .max(aguiLimits.items - 1);
const itemChangeSchema = z.union([z.strictObject({ index, item: aguiItemSchema }), z.strictObject({ index, id, append: z.string().min(1).max(Math.max(aguiLimits.textChars, aguiLimits.reasoningChars)) })]);

export const aguiThreadUpdateSchema = z.strictObject({
  base: z.strictObject({ threadId: id, eventCount: count, first: count, items: z.number().int().min(0).max(aguiLimits.items) }),
  set: aguiThreadViewSchema
    .omit({ items: true, version: true, threadId: true, encryptedValues: true })
    .extend({ earlierItems: count })
    .partial(),
  unset: z.array(z.enum(optionalKeys)).max(optionalKeys.length).optional(),
  items: z
    .strictObject({
      dropped: z.number().int().min(0).max(aguiLimits.items),
      length: z.number().int().min(0).max(aguiLimits.items),
      changed: z.array(itemChangeSchema).max(aguiLimits.items),
    })
    .optional(),
});
export type AguiThreadUpdate = z.infer<typeof aguiThreadUpdateSchema>;
type ItemChange = z.infer<typeof itemChangeSchema>;

/** What changed from `prev` to `next` (both main's, `next` folded from `prev`); undefined when nothing did. */
export function diffThread(prev: WindowView, next: WindowView): AguiThreadUpdate | undefined {
  const set: Partial<Pick<WindowView, FieldKey>> = {};
  let changedFields = false;
  for (const key of Object.keys(next) as (keyof WindowView)[]) {
    if (key === 'items' || key === 'version' || key === 'threadId' || key === 'encryptedValues' || next[key] === prev[key]) continue;
    (set as Record<string, unknown>)[key] = next[key];
    changedFields = true;
  }
  const unset = optionalKeys.filter((key) => prev[key] !== undefined && next[key] === undefined);
  const items = diffItems(prev, next);
  if (!changedFields && unset.length === 0 && items === undefined) return undefined;
  return {
    base: { threadId: prev.threadId, eventCount: prev.eventCount, first: firstItemOf(prev), items: prev.items.length },
    set,
    ...(unset.length > 0 ? { unset } : {}),
    ...(items === undefined ? {} : { items }),
  };
}

function diffItems(prev: WindowView, next: WindowView): AguiThreadUpdate['items'] {
  if (prev.items === next.items) return undefined;
  const dropped = Math.min(prev.items.length, Math.max(0, firstItemOf(next) - firstItemOf(prev)));
  const changed: ItemChange[] = [];
  next.items.forEach((item, position) => {
    const before = prev.items[position + dropped];
    if (before === item) return;
    const append = before === undefined ? undefined : appendedText(before, item);
    changed.push(append === undefined ? { index: position, item } : { index: position, id: item.id, append });
  });
  if (dropped === 0 && changed.length === 0 && prev.items.length === next.items.length) return undefined;
  return { dropped, length: next.items.length, changed };
}

/** The text appended to a text or reasoning item, when that is all that changed in it. */
function appendedText(before: AguiItem, after: AguiItem): string | undefined {
  if ((after.kind !== 'text' && after.kind !== 'reasoning') || before.kind !== after.kind || before.id !== after.id) return undefined;
  if (after.text.length <= before.text.length || !after.text.startsWith(before.text)) return undefined;
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) if (key !== 'text' && (before as Record<string, unknown>)[key] !== (after as Record<string, unknown>)[key]) return undefined;
  return after.text.slice(before.text.length);
}

/** `view` with `update` applied, or undefined when the update was made for another thread (see `base`). */
export function applyThreadUpdate<V extends WindowView>(view: V, update: AguiThreadUpdate): V | undefined {
  const { base } = update;
  if (view.threadId !== base.threadId || view.eventCount !== base.eventCount || firstItemOf(view) !== base.first || view.items.length !== base.items) return undefined;
  const next = { ...view, ...(update.set as Partial<WindowView>) };
  for (const key of update.unset ?? []) delete (next as Partial<Record<OptionalKey, unknown>>)[key];
  if (update.items !== undefined) {
    const { dropped, length, changed } = update.items;
    if (dropped > view.items.length) return undefined;
    const items = view.items.slice(dropped, dropped + length);
    for (const change of changed) {
      if (change.index >= length) return undefined;
      if ('item' in change) {
        items[change.index] = change.item as AguiItem;
        continue;
      }
      const current = items[change.index];
      if (current === undefined || (current.kind !== 'text' && current.kind !== 'reasoning') || current.id !== change.id) return undefined;
      items[change.index] = { ...current, text: current.text + change.append };
    }
    // Every position is known: kept from the base or sent.
    if (items.length !== length) return undefined;
    for (let position = 0; position < length; position++) if (items[position] === undefined) return undefined;
    next.items = items;
  }
  return next;
}
