import { boundItems } from '../../conversation/bounds';
import type { AguiThreadView } from './types';

/**
 * The thread within the conversation budget (src/shared/conversation/bounds.ts): the oldest items
 * beyond it removed and counted in `droppedItems`, as the 2,000-item bound already was, so the history
 * sent with the next run and the saved file shrink with them, and the screen says that earlier
 * messages were removed. Main applies it at each tick of a run and before each save.
 */
export function boundThread<V extends AguiThreadView>(view: V): V {
  const { items, removed } = boundItems(view.items);
  return removed === 0 ? view : { ...view, items: [...items], droppedItems: view.droppedItems + removed };
}
