import type { ConversationItem } from '../../shared/conversation/items';
import type { ConversationStatus, ConversationProtocol } from '../../shared/conversation/view';

/**
 * One protocol's side of an open conversation: what the conversation service asks of Talkie, plain
 * AG-UI and AgentCall alike. Each protocol folds its own events into its own view (as it always did)
 * and answers `snapshot()` with that view projected into conversation items
 * (src/shared/conversation/project-*.ts). A fourth protocol writes one of these.
 */
export interface ConversationSource {
  readonly protocol: ConversationProtocol;
  /**
   * The whole conversation as items, oldest first (within the conversation bounds: `dropped` counts
   * the oldest items the budget removed for good), and how it goes. Called once per tick at most.
   */
  snapshot(): { items: readonly ConversationItem[]; status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped?: number } };
  /** Calls `changed` whenever `snapshot()` may answer differently; returns the unsubscribe. */
  subscribe(changed: () => void): () => void;
  /** Sends the user's text; resolves once the protocol took it (its answer streams as changes). Throws a ServiceError when refused. */
  send(message: { messageId: string; text: string }): Promise<void>;
  /** Stops the answer under way; false when there was none. */
  cancel(): Promise<boolean>;
  /** Ends the conversation (a session is ended, a stream is stopped); the source is not used afterwards. */
  end(): Promise<void>;
}

/** How an agent's conversation is opened: the protocol's adapter, by what the agent speaks. */
export interface ConversationAdapter {
  readonly protocol: ConversationProtocol;
  open(agentId: string, options: { threadId?: string }): Promise<ConversationSource>;
  /**
   * The kiosk's reset: every conversation of this protocol ends (runs stopped, sessions ended) and what
   * main kept of them goes (thread files, texts kept for search). How many it ended, and files removed.
   */
  reset(): Promise<{ ended: number; removedFiles: number }>;
}
