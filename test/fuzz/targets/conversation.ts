import fc from 'fast-check';
import { aguiLimits } from '../../../src/shared/agui/run-model';
import { conversationBounds, itemsChars } from '../../../src/shared/conversation/bounds';
import type { ConversationItem } from '../../../src/shared/conversation/items';
import { applyConversationOps, conversationOpSchema, type ConversationOp } from '../../../src/shared/conversation/update';
import { conversationViewSchema, type ConversationStatus } from '../../../src/shared/conversation/view';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationAdapter, ConversationSource } from '../../../src/main/conversation/conversation-source';
import { check, target, viaJson } from '../kit';

const size = fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 50_000, max: aguiLimits.textChars }), fc.constant(aguiLimits.textChars));

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

/**
 * The one conversation (src/main/conversation/conversation-service.ts): what main sends the page for
 * any protocol. Random steps drive a protocol source (items added, grown, rebuilt, the oldest
 * removed by the budget, the answer starting and ending), the page (messages sent while answering —
 * queued —, taken back, Show earlier, a reload) and the ticks. After every tick: each op is valid for
 * the contract, one update's items fit one window (or are a single item), the page's view after
 * applying everything equals main's copy of it, and the page holds exactly the source's items from
 * its window's first position on, then the queued messages.
 */
type ServiceStep =
  | { kind: 'add'; chars: number; count: number }
  | { kind: 'grow'; pick: number; chars: number }
  | { kind: 'rebuild' }
  | { kind: 'drop'; count: number }
  | { kind: 'run'; on: boolean }
  | { kind: 'send' }
  | { kind: 'unqueue'; pick: number }
  | { kind: 'earlier' }
  | { kind: 'reopen' }
  | { kind: 'tick' };

const serviceStep: fc.Arbitrary<ServiceStep> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), chars: size, count: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('grow' as const), pick: fc.nat(), chars: fc.integer({ min: 1, max: 3_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rebuild' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), count: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('run' as const), on: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'send' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unqueue' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'earlier' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'tick' as const }) },
);

export const conversationServiceTarget = target<ServiceStep[]>({
  name: 'conversation.service',
  weight: 1,
  quickRuns: 30,
  hangMs: 10_000,
  arbitrary: fc.array(serviceStep, { minLength: 1, maxLength: 60 }),
  property: async (steps) => {
    let items: ConversationItem[] = [];
    let status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped?: number } = { phase: 'ready', run: 'idle', dropped: 0 };
    const listeners = new Set<() => void>();
    const notify = () => listeners.forEach((listener) => listener());
    let next = 0;
    const sent: string[] = [];
    const source: ConversationSource = {
      protocol: 'agui',
      snapshot: () => ({ items, status }),
      subscribe: (changed) => {
        listeners.add(changed);
        return () => listeners.delete(changed);
      },
      send: async (message) => {
        sent.push(message.messageId);
        items = [...items, { kind: 'message', id: `user:${message.messageId}`, role: 'user', text: message.text, format: 'plain', state: 'sent' }];
        status = { ...status, run: 'running' };
        notify();
      },
      cancel: async () => false,
      end: async () => undefined,
    };
    const pending: (() => void)[] = [];
    const updates: { conversationId: string; ops: ConversationOp[] }[] = [];
    const adapter: ConversationAdapter = { protocol: 'agui', open: async () => source, reset: async () => ({ ended: 0, removedFiles: 0 }) };
    const service = new ConversationService({
      adapters: { agui: adapter, talkie: adapter, agentcall: adapter },
      protocolOf: async () => 'agui',
      emit: (payload) => updates.push(payload),
      log: { warn: () => undefined },
      schedule: (run) => pending.push(run),
    });
    let page = conversationViewSchema.parse(viaJson(await service.openConversation('a')));
    let applied = 0;
    const settle = async () => {
      // Queued sends resolve in microtasks and schedule further ticks: run until nothing is left.
      for (let round = 0; round < 20 && pending.length > 0; round++) {
        while (pending.length > 0) pending.shift()?.();
        await Promise.resolve();
      }
      for (; applied < updates.length; applied++) {
        const update = updates[applied]!;
        check(update.conversationId === page.conversationId, 'an update of another conversation');
        const ops = update.ops.map((op) => conversationOpSchema.parse(viaJson(op)));
        const carried = ops.flatMap((op) => (op.op === 'upsert' ? [op.item] : op.op === 'reset' ? op.view.items : op.op === 'earlier' ? op.items : []));
        check(
          carried.length <= 1 || itemsChars(carried) <= conversationBounds.windowChars,
          () => `an update carries ${carried.length} items of ${itemsChars(carried)} characters`,
        );
        const after = applyConversationOps(page, ops);
        check(after !== undefined, 'the page could not apply an update');
        page = after;
      }
      const mainCopy = service.view('a', page.conversationId);
      check(
        sameData(page, viaJson(mainCopy)),
        () => `the page's view is not main's copy of it: ${JSON.stringify(page).slice(0, 300)} / ${JSON.stringify(mainCopy).slice(0, 300)}`,
      );
      const dropped = status.dropped ?? 0;
      const start = page.status.earlier;
      const expected = items.slice(start).map((item) => item.id);
      const shown = page.items.filter((item) => !item.id.startsWith('queued:')).map((item) => item.id);
      check(page.status.dropped === dropped, 'the page counts other removed items than the source');
      check(JSON.stringify(shown) === JSON.stringify(expected), () => `the page shows ${shown.length} items, the source has ${expected.length} from ${start}`);
    };
    for (const current of steps) {
      switch (current.kind) {
        case 'add':
          items = [
            ...items,
            ...Array.from({ length: current.count }, (): ConversationItem => ({
              kind: 'message',
              id: `agent:${next++}`,
              role: 'agent',
              text: text(current.chars),
              format: 'markdown',
              state: 'done',
            })),
          ];
          notify();
          break;
        case 'grow': {
          const index = items.length === 0 ? -1 : current.pick % items.length;
          const item = items[index];
          if (item?.kind !== 'message') break;
          items = items.map((entry, at) => (at === index ? { ...item, text: (item.text + text(current.chars)).slice(0, 200_000) } : entry));
          notify();
          break;
        }
        case 'rebuild':
          items = items.map((item) => ({ ...item }));
          notify();
          break;
        case 'drop': {
          const count = Math.min(current.count, Math.max(0, items.length - 1));
          items = items.slice(count);
          status = { ...status, dropped: (status.dropped ?? 0) + count };
          notify();
          break;
        }
        case 'run':
          status = { ...status, run: current.on ? 'running' : 'idle' };
          notify();
          break;
        case 'send':
          await service.send('a', page.conversationId, { messageId: `m${next++}`, text: 'hello' }).catch(() => undefined);
          break;
        case 'unqueue': {
          const queued = page.items.filter((item) => item.id.startsWith('queued:'));
          const pick = queued[current.pick % Math.max(1, queued.length)];
          if (pick) service.unqueue('a', page.conversationId, pick.id.slice('queued:'.length));
          break;
        }
        case 'earlier': {
          await settle();
          const answer = service.earlier('a', page.conversationId);
          check(answer.items.length <= 1 || itemsChars(answer.items) <= conversationBounds.windowChars, 'Show earlier carries more than one window');
          const after = applyConversationOps(page, [
            { op: 'earlier', items: answer.items },
            { op: 'status', status: { ...page.status, earlier: answer.earlier } },
          ]);
          check(after !== undefined, 'the page could not add earlier items');
          page = after;
          break;
        }
        case 'reopen':
          await settle();
          page = conversationViewSchema.parse(viaJson(await service.openConversation('a')));
          applied = updates.length;
          break;
        case 'tick':
          await settle();
          break;
      }
    }
    await settle();
  },
});

/** Structural equality of JSON data, whatever the order of object keys. */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const bKeys = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return aKeys.length === bKeys.length && aKeys.every((key) => sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
