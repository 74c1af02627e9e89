import { truncate } from '../json-values';
import { aguiLimits, type AguiItem, type AguiNote, type AguiRunState, type AguiThreadView, type ItemOf } from './types';

/**
 * A working copy of the view for one update. Top-level arrays are replaced (never mutated) the
 * first time they change, so the input view is never modified. The handlers of each concern
 * (lifecycle.ts, messages.ts, tools.ts, …) change the view through it.
 */
export class Draft {
  /** The copy being changed: handlers replace its top-level fields, never mutate what they hold. */
  readonly view: AguiThreadView;
  private itemsCopied = false;
  eventCount: number;
  eventType: string | undefined;

  constructor(view: AguiThreadView) {
    this.view = { ...view };
    this.eventCount = view.eventCount;
  }

  get runState(): AguiRunState {
    return this.view.runState;
  }

  done(): AguiThreadView {
    return { ...this.view, eventCount: this.eventCount };
  }

  note(code: string, message: string, eventType: string | undefined = this.eventType): void {
    const note: AguiNote = { seq: this.eventCount, code, message: truncate(message, aguiLimits.noteChars), ...(eventType === undefined ? {} : { eventType }) };
    const notes = this.view.notes.length >= aguiLimits.notes ? this.view.notes.slice(this.view.notes.length - aguiLimits.notes + 1) : this.view.notes.slice();
    notes.push(note);
    this.view.notes = notes;
    this.view.noteCount += 1;
  }

  /* items ------------------------------------------------------------------------------------ */

  private items(): AguiItem[] {
    if (!this.itemsCopied) {
      this.view.items = this.view.items.slice();
      this.itemsCopied = true;
    }
    return this.view.items;
  }

  /** Replaces the whole item list (a new array, bounded by the caller). */
  setItems(items: AguiItem[]): void {
    this.view.items = items;
    this.itemsCopied = true;
  }

  find<K extends AguiItem['kind']>(kind: K, id: string): { index: number; item: ItemOf<K> } | undefined {
    const items = this.view.items;
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index] as AguiItem;
      if (item.kind === kind && item.id === id) return { index, item: item as ItemOf<K> };
    }
    return undefined;
  }

  replace(index: number, item: AguiItem): void {
    this.items()[index] = item;
  }

  /** Replaces the item with the same kind and id, or appends it (dropping the oldest beyond the bound). */
  put(item: AguiItem): void {
    const found = this.find(item.kind, item.id);
    if (found) {
      this.replace(found.index, item);
      return;
    }
    const items = this.items();
    items.push(item);
    if (items.length > aguiLimits.items) {
      const excess = items.length - aguiLimits.items;
      items.splice(0, excess);
      if (this.view.droppedItems === 0)
        this.note('items_dropped', `The thread keeps the latest ${aguiLimits.items} items; older ones were dropped from the view and the history.`);
      this.view.droppedItems += excess;
    }
  }

  /**
   * The item `kind`/`id` for a change claimed by lane `subagentRunId`, or undefined after noting
   * why not: `unknown` when there is no such item, `mismatch` when it belongs to another lane.
   */
  claim<K extends LanedKind>(
    kind: K,
    id: string,
    subagentRunId: string | undefined,
    notes: { unknown: [code: string, message: string]; mismatch: string },
  ): { index: number; item: ItemOf<K> } | undefined {
    const found = this.find(kind, id);
    if (!found) {
      this.note(...notes.unknown);
      return undefined;
    }
    if (laneConflict((found.item as { subagentRunId?: string }).subagentRunId, subagentRunId)) {
      this.note('subagent_mismatch', notes.mismatch);
      return undefined;
    }
    return found;
  }
}

/** Item kinds that belong to a lane (the parent agent or a subagent invocation). */
type LanedKind = Exclude<AguiItem['kind'], 'error' | 'answer'>;

export function laneConflict(owner: string | undefined, claimed: string | undefined): boolean {
  return claimed !== undefined && claimed !== owner;
}

export function withLane<T extends object>(value: T, subagentRunId: string | undefined): T & { subagentRunId?: string } {
  return subagentRunId === undefined ? value : { ...value, subagentRunId };
}

/** What a streamed text (a message's or a reasoning's) says of itself in notes. */
export interface StreamWords {
  unknown: [code: string, message: string];
  mismatch: string;
}

/** Appends a delta to a streamed text or reasoning item, cut (once noted) at `maxChars`. */
export function appendStreamed(
  draft: Draft,
  kind: 'text' | 'reasoning',
  id: string,
  delta: string,
  subagentRunId: string | undefined,
  maxChars: number,
  words: StreamWords & { truncated: [code: string, message: string] },
): void {
  const found = draft.claim(kind, id, subagentRunId, words);
  if (!found || found.item.truncated || delta === '') return;
  const text = found.item.text + delta;
  if (text.length > maxChars) {
    draft.note(...words.truncated);
    draft.replace(found.index, { ...found.item, text: text.slice(0, maxChars), truncated: true });
    return;
  }
  draft.replace(found.index, { ...found.item, text });
}

/** The end of a streamed text or reasoning item. */
export function endStreamed(draft: Draft, kind: 'text' | 'reasoning', id: string, subagentRunId: string | undefined, words: StreamWords): void {
  const found = draft.claim(kind, id, subagentRunId, words);
  if (found?.item.streaming) draft.replace(found.index, { ...found.item, streaming: false });
}

/** (Re)opens a streamed text or reasoning item, or appends `fresh`; false (noted) when it belongs to another lane. */
export function startStreamed(
  draft: Draft,
  fresh: ItemOf<'text'> | ItemOf<'reasoning'>,
  subagentRunId: string | undefined,
  mismatch: (owner: string | undefined) => string,
): boolean {
  const found = draft.find(fresh.kind, fresh.id);
  if (found) {
    if (laneConflict(found.item.subagentRunId, subagentRunId)) {
      draft.note('subagent_mismatch', mismatch(found.item.subagentRunId));
      return false;
    }
    draft.replace(found.index, { ...found.item, streaming: true });
    return true;
  }
  draft.put(withLane(fresh, subagentRunId));
  return true;
}
