import { z } from 'zod';
import { conversationBounds, earlierJoins, earlierResponseSchema, earlierWindowOf, itemsChars, newestWindowStart, windowStart, type EarlierItems } from '../conversation/bounds';
import { shownThread, type AguiItem, type AguiThreadView } from './run-model';
import { aguiItemSchema, aguiThreadViewSchema } from './thread-persistence';
import { diffThread, firstItemOf, type AguiThreadUpdate, type WindowView } from './thread-update';

/**
 * The window of a plain AG-UI thread the page holds, under the conversation bounds
 * (src/shared/conversation/bounds.ts; main's thread itself stays within them by `boundThread`).
 * Pure: main calls these, and the fuzz target drives them the same way.
 *
 * The page holds a window: the items from an absolute position `from` (see bounds.ts) to the end,
 * with `earlierItems`, how many items main still holds before it. Main remembers `from` and diffs
 * that window (`windowUpdate`), so an update only ever carries items the page holds; opening a
 * thread sends its newest window (`openWindow`), "Show earlier" the window before the page's first
 * item (`earlierWindow`), and a run's end the page's window again, cut to `windowChars` (`endWindow`).
 */

/** A window of a thread: its items from some position on, `earlierItems` before it in main (none when absent). */
export type AguiThreadWindow = WindowView;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const aguiThreadWindowSchema = aguiThreadViewSchema.omit({ encryptedValues: true }).extend({ earlierItems: count.optional() });
export const aguiEarlierItemsSchema = earlierResponseSchema(aguiItemSchema);
export type AguiEarlierItems = EarlierItems<AguiItem>;

/** The window of `view` from the absolute position `from` (clamped to the items main holds). */
export function threadWindow(view: AguiThreadView, from: number): AguiThreadWindow & { earlierItems: number } {
  const start = Math.max(0, Math.min(view.items.length, from - view.droppedItems));
  // The encrypted values never leave main: a window never carries them.
  return { ...shownThread(view), items: start === 0 ? view.items : view.items.slice(start), earlierItems: start };
}

/** A thread opened (or the page reloaded): its newest window, and where it begins. */
export function openWindow(view: AguiThreadView): { from: number; window: AguiThreadWindow } {
  const from = view.droppedItems + newestWindowStart(view.items);
  return { from, window: threadWindow(view, from) };
}

/** The window from `from`, its head cut so that its items fit in one message (`windowChars`). */
function cutWindow(view: AguiThreadView, from: number): number {
  return Math.max(from, view.droppedItems + windowStart(view.items, view.items.length, Number.MAX_SAFE_INTEGER));
}

/**
 * What changed in the page's window between `sent` (main's thread at the last update) and `next`.
 * When the change would carry more than `windowChars` of items (a messages snapshot rebuilding
 * them all), the window's head moves forward until it does not: those items go back behind "Show earlier".
 */
export function windowUpdate(sent: AguiThreadView, next: AguiThreadView, from: number): { from: number; update: AguiThreadUpdate | undefined } {
  const update = diffThread(threadWindow(sent, from), threadWindow(next, from));
  if (update?.items === undefined || changedChars(update) <= conversationBounds.windowChars) return { from, update };
  const cut = cutWindow(next, from);
  return { from: cut, update: diffThread(threadWindow(sent, from), threadWindow(next, cut)) };
}

function changedChars(update: AguiThreadUpdate): number {
  let total = 0;
  for (const change of update.items?.changed ?? []) total += 'item' in change ? itemsChars([change.item]) : change.append.length;
  return total;
}

/** A run ended: the page's window again (it may have missed updates), cut to one message. */
export function endWindow(view: AguiThreadView, from: number): { from: number; window: AguiThreadWindow } {
  const cut = cutWindow(view, from);
  return { from: cut, window: threadWindow(view, cut) };
}

/**
 * "Show earlier": the items before the absolute position `before` (the page's first item), at most
 * `earlierItems` of them and `windowChars` of text; the page's window then begins at the returned `from`.
 */
export function earlierWindow(view: AguiThreadView, before: number): { from: number; answer: AguiEarlierItems } {
  return earlierWindowOf({ items: view.items, removed: view.droppedItems }, before);
}

/** The page's side of "Show earlier": the items put before its window, or undefined when they no longer join it. */
export function prependEarlier<V extends AguiThreadWindow>(view: V, answer: AguiEarlierItems): V | undefined {
  if (!earlierJoins(firstItemOf(view), view.earlierItems ?? 0, answer)) return undefined;
  return { ...view, items: [...answer.items, ...view.items], earlierItems: answer.earlierItems };
}
