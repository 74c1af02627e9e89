import { z } from 'zod';

/**
 * How large one conversation may grow, and how much of it the page gets at a time: one rule for
 * every protocol (a plain AG-UI thread, an AgentCall session, a Talkie conversation), each of which
 * keeps its own per-item limits (a message's text, a tool's arguments …) beside it.
 *
 * - **The budget** (`chars`): the items of one conversation hold at most this many characters in
 *   all, measured as their JSON (`itemChars`). Beyond it the oldest items are removed (`excessOldest`)
 *   and the conversation counts them, so the screen can say that earlier messages were removed. Every
 *   per-item limit is far below it, so the newest item always stays.
 * - **The window**: the page is never sent a whole conversation. Opening one sends its newest
 *   `firstWindowItems` items, "Show earlier" asks for the `earlierItems` before those, and no message
 *   carries more than `windowChars` characters of items (at least one item, whatever its size):
 *   `windowStart` says where such a window begins.
 *
 * Items are counted by their absolute position in the conversation (items removed so far plus their
 * index), so a window stays meaningful while the oldest items go.
 */
export const conversationBounds = {
  /** Characters of items one conversation keeps in all (about 4 MB of text). */
  chars: 4_000_000,
  /** The newest items the page gets when a conversation opens. */
  firstWindowItems: 50,
  /** What one "Show earlier" adds. */
  earlierItems: 200,
  /** Characters of items one message to the page carries at most (a window, an earlier window, one update). */
  windowChars: 1_000_000,
} as const;

const measured = new WeakMap<object, number>();

/**
 * An item's size: the length of its JSON (fields left undefined left out, as JSON leaves them), but
 * for escapes, which are not counted (a string is its length plus its quotes). Walks
 * the item's fields, not its text, so a 200,000-character message costs what a short one does;
 * remembered per item object (items are replaced, never changed, when they change), so measuring a
 * conversation again costs a lookup per unchanged item.
 */
export function itemChars(item: object): number {
  let size = measured.get(item);
  if (size === undefined) {
    size = jsonChars(item);
    measured.set(item, size);
  }
  return size;
}

function jsonChars(value: unknown): number {
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') chars += current.length + 2;
    else if (typeof current === 'number' || typeof current === 'boolean' || current === null) chars += String(current).length;
    else if (Array.isArray(current)) {
      chars += 1 + Math.max(1, current.length);
      for (const entry of current) stack.push(entry);
    } else if (typeof current === 'object') {
      const entries = Object.entries(current).filter(([, entry]) => entry !== undefined);
      chars += 1 + Math.max(1, entries.length);
      for (const [key, entry] of entries) {
        chars += key.length + 3;
        stack.push(entry);
      }
    }
  }
  return chars;
}

export function itemsChars(items: readonly object[]): number {
  let total = 0;
  for (const item of items) total += itemChars(item);
  return total;
}

/** How many of the oldest items must go for the rest to fit in `chars` and `maxItems` (the newest item always stays). */
export function excessOldest(items: readonly object[], limits: { chars?: number; maxItems?: number } = {}): number {
  const chars = limits.chars ?? conversationBounds.chars;
  const maxItems = limits.maxItems ?? Number.MAX_SAFE_INTEGER;
  let total = 0;
  for (let index = items.length - 1; index >= 0; index--) {
    total += itemChars(items[index] as object);
    if (total > chars || items.length - index > maxItems) return Math.min(index + 1, items.length - 1);
  }
  return 0;
}

/**
 * Where the window that ends before `end` begins: at most `maxItems` items and `windowChars`
 * characters, but at least one item when there is one before `end`.
 */
export function windowStart(items: readonly object[], end: number, maxItems: number): number {
  let start = Math.max(0, Math.min(end, items.length));
  let total = 0;
  const last = start;
  while (start > 0 && last - start < maxItems) {
    const size = itemChars(items[start - 1] as object);
    if (start < last && total + size > conversationBounds.windowChars) break;
    total += size;
    start -= 1;
  }
  return start;
}

/** `list` in consecutive parts for the page, each at most `maxItems` long and `windowChars` in size (or one entry). */
export function windowChunks<T extends object>(list: readonly T[], maxItems: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let chars = 0;
  for (const entry of list) {
    const size = itemChars(entry);
    if (current.length > 0 && (current.length >= maxItems || chars + size > conversationBounds.windowChars)) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(entry);
    chars += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The first window of a conversation: its newest items, where it begins. */
export function newestWindowStart(items: readonly object[]): number {
  return windowStart(items, items.length, conversationBounds.firstWindowItems);
}

/** The items of a conversation main holds, and how many older ones were removed before them. */
export interface HeldItems<T> {
  items: readonly T[];
  removed: number;
}

/** `items` within the budget (and `maxItems`): the oldest beyond it removed, counted in `removed`. */
export function boundItems<T extends object>(items: readonly T[], maxItems?: number): HeldItems<T> {
  const excess = excessOldest(items, maxItems === undefined ? {} : { maxItems });
  return { items: excess === 0 ? items : items.slice(excess), removed: excess };
}

/** What the page gets of a conversation it opens: its newest window, how many items main holds before it and how many were removed. */
export function firstWindow<T extends object>(held: HeldItems<T>): { items: T[]; earlierItems: number; removedItems: number } {
  const start = newestWindowStart(held.items);
  return { items: held.items.slice(start), earlierItems: start, removedItems: held.removed };
}

/** "Show earlier", main's side: the window before the absolute position `before`, and the absolute position where the page's window now begins. */
export function earlierWindowOf<T extends object>(held: HeldItems<T>, before: number): { from: number; answer: EarlierItems<T> } {
  const end = Math.max(0, Math.min(held.items.length, before - held.removed));
  const start = windowStart(held.items, end, conversationBounds.earlierItems);
  return { from: held.removed + start, answer: { items: held.items.slice(start, end), end: held.removed + end, earlierItems: start } };
}

/** "Show earlier", the page's side: whether `answer` ends where the page's window (from absolute position `first`, `earlierItems` before it) begins. */
export function earlierJoins(first: number, earlierItems: number, answer: EarlierItems<unknown>): boolean {
  return answer.end === first && answer.earlierItems + answer.items.length === earlierItems;
}

export interface EarlierItems<T> {
  items: T[];
  /** Absolute position of the item after the last one sent (the page's first, when nothing moved). */
  end: number;
  /** Items main still holds before these. */
  earlierItems: number;
}

/**
 * "Show earlier", protocol-neutral: the page names the conversation and the absolute position of the
 * first item it holds (`before`); main answers with the items just before it (a window, see
 * `windowStart`), where they end (`before` as main read it) and how many items it still holds before them.
 */
const position = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const earlierRequestFields = { before: position };

export function earlierResponseSchema<T extends z.ZodType>(item: T) {
  return z.strictObject({ items: z.array(item).max(conversationBounds.earlierItems), end: position, earlierItems: position });
}

/** The fields beside a window's items when a conversation opens: items main holds before it, items removed before those. */
export const windowFields = { earlierItems: position.optional(), removedItems: position.optional() };
