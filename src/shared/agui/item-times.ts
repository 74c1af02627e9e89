import type { AguiItem, AguiThreadView } from './run-model';

/**
 * `next` (folded from `prev`) with a time on its items: an item that had one keeps it (by kind and
 * id, also when the fold built it anew; one that had none keeps none), an item new since `prev` gets `now`; with `now` undefined
 * (a MESSAGES_SNAPSHOT's history) new items stay without one. Unchanged items stay the very same
 * objects (the thread's updates tell changes by identity), so a streamed delta costs a pass of
 * identity checks, and the whole thread only when the fold rebuilt items.
 */
export function stampNewItems(prev: AguiThreadView, next: AguiThreadView, now: number | undefined): AguiThreadView {
  if (next.items === prev.items) return next;
  let before: Map<string, number | undefined> | undefined;
  let items: AguiItem[] | undefined;
  next.items.forEach((item, index) => {
    if (item.at !== undefined || prev.items[index] === item) return;
    before ??= new Map(prev.items.map((old) => [`${old.kind}:${old.id}`, old.at] as const));
    const key = `${item.kind}:${item.id}`;
    // An item that was there before keeps what it had (no time stays no time); only a new one is "now".
    const at = before.has(key) ? before.get(key) : now;
    if (at === undefined) return;
    items ??= next.items.slice();
    items[index] = { ...item, at };
  });
  return items ? { ...next, items } : next;
}
