import type { AguiThreadView } from '../../shared/agui/run-model';
import { createAguiProjector } from '../../shared/conversation/project-agui';
import type { ConversationAdapter, ConversationSource } from './conversation-source';

/**
 * A plain AG-UI agent's conversation: the thread main keeps (AguiService: its fold, its files, its
 * runs), projected. Sending is `agui.send`; answering the agent's questions stays `agui.resume`, and a
 * new or earlier thread `agui.newThread`/`agui.openThread`: each change reaches the page through
 * the thread's watcher like a run's.
 */
/** What a conversation needs of main's AG-UI service (AguiService). */
export interface AguiThreads {
  /** Makes an earlier thread the open one. */
  openThread(agentId: string, threadId: string): Promise<{ thread: AguiThreadView }>;
  /** The open thread as main holds it (restored from disk at first use). */
  held(agentId: string): Promise<AguiThreadView>;
  /** Follows the agent's thread: `changed` gets it after each change; returns the unsubscribe. */
  watch(agentId: string, changed: (thread: AguiThreadView) => void): () => void;
  send(agentId: string, message: { messageId: string; text: string }): Promise<unknown>;
  cancel(agentId: string): Promise<{ cancelled: boolean }>;
  resetAll(): Promise<{ runs: number; files: number }>;
}

export function aguiAdapter(agui: AguiThreads): ConversationAdapter {
  return {
    protocol: 'agui',
    async reset() {
      const { runs, files } = await agui.resetAll();
      return { ended: runs, removedFiles: files };
    },
    async open(agentId, options) {
      if (options.threadId !== undefined) await agui.openThread(agentId, options.threadId);
      // The whole thread within the bounds: the conversation service sends the page its window.
      let thread: AguiThreadView = await agui.held(agentId);
      const project = createAguiProjector();
      const listeners = new Set<() => void>();
      const stop = agui.watch(agentId, (next) => {
        thread = next;
        for (const listener of listeners) listener();
      });
      const source: ConversationSource = {
        protocol: 'agui',
        snapshot: () => project(thread),
        subscribe(changed) {
          listeners.add(changed);
          return () => listeners.delete(changed);
        },
        async send(message) {
          await agui.send(agentId, message);
        },
        async cancel() {
          return (await agui.cancel(agentId)).cancelled;
        },
        async end() {
          stop();
          listeners.clear();
        },
      };
      return source;
    },
  };
}
