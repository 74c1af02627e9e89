import { describe, expect, it } from 'vitest';
import { conversationBounds, excessOldest, itemChars, itemsChars, newestWindowStart, windowChunks, windowStart } from '../../../src/shared/conversation/bounds';

const item = (chars: number, id = 'm') => ({ kind: 'text', id, text: 'x'.repeat(chars) });

describe('conversation bounds (one rule for every protocol)', () => {
  it('measures an item as its JSON (escapes aside), without reading its text', () => {
    const one = { kind: 'text', id: 'm1', text: 'hello', streaming: false, at: 1_700_000_000_000, nested: { a: [1, 'b', null, true, [], {}] }, none: [] };
    expect(itemChars(one)).toBe(JSON.stringify(one).length);
    expect(itemChars({ kind: 'x', gone: undefined })).toBe(JSON.stringify({ kind: 'x' }).length);
    expect(itemChars(item(200_000))).toBeGreaterThanOrEqual(200_000);
  });

  it('removes the oldest items beyond the budget (or the item count), never the newest', () => {
    const items = Array.from({ length: 30 }, (_, index) => item(190_000, `m${index}`));
    const excess = excessOldest(items);
    expect(itemsChars(items.slice(excess))).toBeLessThanOrEqual(conversationBounds.chars);
    expect(itemsChars(items.slice(excess - 1))).toBeGreaterThan(conversationBounds.chars);
    expect(excessOldest(items, { maxItems: 5 })).toBe(25);
    expect(excessOldest([item(conversationBounds.chars + 10)])).toBe(0);
    expect(excessOldest([item(10), item(conversationBounds.chars + 10)])).toBe(1);
    expect(excessOldest([])).toBe(0);
  });

  it('a window: the newest items, at most so many and one message’s characters, at least one item', () => {
    const small = Array.from({ length: 120 }, (_, index) => item(10, `m${index}`));
    expect(newestWindowStart(small)).toBe(120 - conversationBounds.firstWindowItems);
    expect(windowStart(small, 70, conversationBounds.earlierItems)).toBe(0);
    const large = Array.from({ length: 20 }, (_, index) => item(300_000, `m${index}`));
    const start = newestWindowStart(large);
    expect(itemsChars(large.slice(start))).toBeLessThanOrEqual(conversationBounds.windowChars);
    expect(itemsChars(large.slice(start - 1))).toBeGreaterThan(conversationBounds.windowChars);
    const huge = [item(10), item(conversationBounds.windowChars * 2)];
    expect(newestWindowStart(huge)).toBe(1);
    expect(windowStart(huge, 0, 10)).toBe(0);
  });

  it('splits a burst into parts for the page: at most so many entries and one window’s characters each', () => {
    const burst = [item(600_000), item(600_000), item(10), item(10), item(conversationBounds.windowChars * 2), item(1)];
    const chunks = windowChunks(burst, 2);
    expect(chunks.flat()).toEqual(burst);
    expect(chunks.map((chunk) => chunk.length)).toEqual([1, 2, 1, 1, 1]);
    for (const chunk of chunks) expect(chunk.length === 1 || itemsChars(chunk) <= conversationBounds.windowChars).toBe(true);
  });
});
