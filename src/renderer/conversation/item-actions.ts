import { createContext, useContext } from 'react';
import type { ConversationItem } from '../../shared/conversation/items';
import type { AgentCallItemActions } from './protocols/agentcall/actions';

/**
 * What the user can do with an item, given by the screen for the agent's protocol. An action a
 * protocol does not offer is absent, and the item shows no control for it.
 */
export interface ItemActions {
  /** Send a failed message again (Talkie: the same message id), or retry after an error notice. */
  retry?: (item: ConversationItem) => void;
  /** The user's last message may be edited: its id, and what Edit does. */
  editableId?: string;
  edit?: () => void;
  /** Take back a message that waits until the agent has answered. */
  unqueue?: (itemId: string) => void;
  /** A run may be retried now (nothing else is going). */
  canRetry?: boolean;
  /** AgentCall: what its requests, proposals, passports and the end of a session can do. */
  agentCall?: AgentCallItemActions;
}

export const ItemActionsContext = createContext<ItemActions>({});

export function useItemActions(): ItemActions {
  return useContext(ItemActionsContext);
}
