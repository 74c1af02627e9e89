import { z } from 'zod';
import { newestWindowStart } from '../conversation/bounds';
import { shownThread, type AguiThreadView } from './run-model';
import { aguiThreadViewSchema } from './thread-persistence';

/**
 * What `agui.open` shows the page of a plain AG-UI thread (its steps and state behind Details): the
 * newest window of main's thread under the conversation bounds (src/shared/conversation/bounds.ts;
 * main's thread itself stays within them by `boundThread`), never its encrypted values. The
 * conversation itself reaches the page through the conversation service, which windows it.
 */

/** A window of a thread: its items from some position on, `earlierItems` before it in main (none when absent). */
export type AguiThreadWindow = AguiThreadView & { earlierItems?: number };

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const aguiThreadWindowSchema = aguiThreadViewSchema.omit({ encryptedValues: true }).extend({ earlierItems: count.optional() });

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
