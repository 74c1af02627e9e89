import fc from 'fast-check';
import { aguiLimits, boundThread, createThread, type AguiItem, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { aguiEarlierItemsSchema, aguiThreadWindowSchema, earlierWindow, endWindow, openWindow, prependEarlier, windowUpdate, type AguiThreadWindow } from '../../../src/shared/agui/thread-window';
import { aguiThreadUpdateSchema, applyThreadUpdate, firstItemOf, type AguiThreadUpdate } from '../../../src/shared/agui/thread-update';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import { check, target, viaJson } from '../kit';

/**
 * The conversation bounds and the page's window (src/shared/conversation/bounds.ts, the AG-UI side in
 * thread-window.ts), driven as main drives them: random sequences of items added, grown and rebuilt
 * (a messages snapshot), ticks (each sends the page an update), threads opened, "Show earlier" and run
 * ends. After every step: main's thread is within the budget; every message to the page is valid
 * for its contract schema, within one window's characters (or one item) and applies to what the page
 * holds; and the page holds exactly main's items from its window's first position on.
 */

type Step =
  | { kind: 'add'; chars: number; count: number }
  | { kind: 'grow'; pick: number; chars: number }
  | { kind: 'rebuild' }
  | { kind: 'tick' }
  | { kind: 'open' }
  | { kind: 'earlier' }
  | { kind: 'end' };

const size = fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 50_000, max: aguiLimits.textChars }), fc.constant(aguiLimits.textChars));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), chars: size, count: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('grow' as const), pick: fc.nat(), chars: size }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rebuild' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'tick' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'open' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'earlier' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'end' as const }) },
);

const texts = new Map<number, string>();
const text = (chars: number) => {
  let made = texts.get(chars);
  if (made === undefined) {
    if (texts.size > 2_000) texts.clear();
    made = 'x'.repeat(chars);
    texts.set(chars, made);
  }
  return made;
};

/** One message's items fit one window: at most `windowChars`, or a single item. */
function checkWindowItems(items: readonly AguiItem[], what: string): void {
  check(items.length <= 1 || itemsChars(items) <= conversationBounds.windowChars, () => `${what} carries ${items.length} items of ${itemsChars(items)} characters`);
}

export const conversationWindowTarget = target<Step[]>({
  name: 'conversation.window',
  weight: 1,
  quickRuns: 30,
  hangMs: 10_000,
  arbitrary: fc.array(step, { minLength: 1, maxLength: 60 }),
  property: (steps) => {
    let main: AguiThreadView = createThread('t1');
    let next = 0;
    let opened = openWindow(main);
    let from = opened.from;
    let page: AguiThreadWindow = viaJson(opened.window);
    let sent = main;

    const change = (items: AguiItem[]) => {
      main = { ...main, items, eventCount: main.eventCount + 1 };
    };
    const mirrors = (when: string) => {
      check(page.droppedItems === main.droppedItems, () => `${when}: the page counts ${page.droppedItems} removed items, main ${main.droppedItems}`);
      const start = firstItemOf(page) - main.droppedItems;
      check(start >= 0 && start <= main.items.length, () => `${when}: the page's window begins at ${start} of ${main.items.length}`);
      const shown = main.items.slice(start);
      const same = (a: AguiItem, b: AguiItem) => a.kind === b.kind && a.id === b.id && (a.kind !== 'text' || (b.kind === 'text' && a.text.length === b.text.length));
      check(page.items.length === shown.length && page.items.every((item, index) => same(item, shown[index]!)), () => `${when}: the page's items are not main's from ${start} on`);
    };
    const tick = () => {
      main = boundThread(main);
      check(itemsChars(main.items) <= conversationBounds.chars, () => `main keeps ${itemsChars(main.items)} characters`);
      const result = windowUpdate(sent, main, from);
      from = result.from;
      sent = main;
      if (result.update === undefined) return;
      const update: AguiThreadUpdate = aguiThreadUpdateSchema.parse(viaJson(result.update));
      checkWindowItems(update.items?.changed.flatMap((entry) => ('item' in entry ? [entry.item as AguiItem] : [])) ?? [], 'an update');
      const applied = applyThreadUpdate(page, update);
      check(applied !== undefined, 'the page refused an update of its own window');
      page = applied;
      mirrors('after an update');
    };
    const replace = (window: AguiThreadWindow, what: string) => {
      checkWindowItems(window.items, what);
      page = aguiThreadWindowSchema.parse(viaJson(window)) as AguiThreadWindow;
      mirrors(what);
    };

    for (const current of steps) {
      switch (current.kind) {
        case 'add':
          change([...main.items, ...Array.from({ length: current.count }, (): AguiItem => ({ kind: 'text', id: `m${next++}`, role: 'assistant', text: text(current.chars), streaming: false }))].slice(-aguiLimits.items));
          break;
        case 'grow': {
          if (main.items.length === 0) break;
          const index = current.pick % main.items.length;
          const item = main.items[index]!;
          if (item.kind !== 'text') break;
          const items = main.items.slice();
          items[index] = { ...item, text: (item.text + text(current.chars)).slice(0, aguiLimits.textChars) };
          change(items);
          break;
        }
        case 'rebuild':
          change(main.items.map((item) => ({ ...item })));
          break;
        case 'tick':
          tick();
          break;
        case 'open':
          tick();
          opened = openWindow(main);
          from = opened.from;
          check(opened.window.items.length <= conversationBounds.firstWindowItems, 'an opened window is longer than the first window');
          replace(opened.window, 'an opened thread');
          break;
        case 'earlier': {
          tick();
          const { from: earlierFrom, answer } = earlierWindow(main, firstItemOf(page));
          const wire = aguiEarlierItemsSchema.parse(viaJson(answer));
          checkWindowItems(wire.items as AguiItem[], 'an earlier window');
          const joined = prependEarlier(page, wire);
          check(joined !== undefined, 'the earlier items do not join the page’s window');
          check((page.earlierItems ?? 0) === 0 || wire.items.length > 0, '"Show earlier" brought nothing while main holds earlier items');
          from = earlierFrom;
          page = joined;
          mirrors('after "Show earlier"');
          break;
        }
        case 'end': {
          tick();
          main = boundThread(main);
          const ended = endWindow(main, from);
          from = ended.from;
          sent = main;
          replace(ended.window, 'a run’s end');
          break;
        }
      }
    }
  },
});
