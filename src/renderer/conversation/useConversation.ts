import { useEffect, useState, useSyncExternalStore } from 'react';
import { ConversationStore, type ConversationPort, type ConversationState } from './conversation-store';

/**
 * The one load-and-subscribe hook of an agent's conversation: a store for this agent (made once per
 * mount), attached and opened while mounted, its state rendered at most once per frame. The store is the screen's handle
 * for sending, cancelling, earlier items and closing.
 */
export function useConversation(port: ConversationPort, agentId: string, threadId?: string): { state: ConversationState; store: ConversationStore } {
  const [store] = useState(() => new ConversationStore(port, agentId));
  useEffect(() => store.attach(threadId), [store, threadId]);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  return { state, store };
}
