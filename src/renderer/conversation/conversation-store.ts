import type { ConversationItem } from '../../shared/conversation/items';
import { applyConversationOps, type ConversationOp } from '../../shared/conversation/update';
import type { ConversationView } from '../../shared/conversation/view';
import type { Unsubscribe } from '../../shared/ipc/api';
import type { IpcError, IpcResult } from '../../shared/base/errors';
import { FrameBatch } from '../hooks/useFrameState';

/** What the store needs of main: the `conversation.*` methods and event of the API. */
export interface ConversationPort {
  open(request: { agentId: string; threadId?: string; renew?: boolean }): Promise<IpcResult<ConversationView>>;
  view(request: { agentId: string; conversationId: string }): Promise<IpcResult<ConversationView>>;
  send(request: { agentId: string; conversationId: string; messageId: string; text: string }): Promise<IpcResult<{ queued: boolean }>>;
  unqueue(request: { agentId: string; conversationId: string; messageId: string }): Promise<IpcResult<{ removed: boolean }>>;
  cancel(request: { agentId: string; conversationId: string }): Promise<IpcResult<{ cancelled: boolean }>>;
  earlier(request: { agentId: string; conversationId: string }): Promise<IpcResult<{ items: ConversationItem[]; earlier: number }>>;
  close(request: { agentId: string }): Promise<IpcResult<{ closed: boolean }>>;
  onUpdate(listener: (payload: { agentId: string; conversationId: string; ops: ConversationOp[] }) => void): Unsubscribe;
}

export type ConversationState = { status: 'opening' } | { status: 'failed'; error: IpcError } | { status: 'open'; view: ConversationView };

/**
 * One open conversation in the page: the view main sent, kept current by `conversation.update`. The
 * one place that drops a late answer: an update of another conversation (an earlier open, thread or
 * chat) is ignored, an open answered after a newer one is ignored, and an update that does not fit
 * the view makes the store ask main for the whole view instead of guessing.
 *
 * The newest state is read by the logic at once; React is told at most once per animation frame, so
 * an answer streaming many deltas a second costs one render per frame.
 */
export class ConversationStore {
  private latest: ConversationState = { status: 'opening' };
  private shown: ConversationState = this.latest;
  private readonly listeners = new Set<() => void>();
  private readonly frame = new FrameBatch(() => this.show());
  /** Numbers each open: the answer of an earlier one is dropped. */
  private opens = 0;
  private resyncing = false;
  private detached = true;

  constructor(
    private readonly port: ConversationPort,
    readonly agentId: string,
  ) {}

  /**
   * Listens to main and opens the conversation (main answers the one already open, so attaching again
   * — a screen shown again, React's development double effects — finds the same conversation).
   * Returns the detach: updates are no longer applied and no frame is pending.
   */
  attach(threadId?: string): () => void {
    this.detached = false;
    const unsubscribe = this.port.onUpdate((payload) => this.receive(payload));
    void this.open(threadId);
    return () => {
      this.detached = true;
      this.opens += 1;
      unsubscribe();
      this.frame.cancel();
    };
  }

  /** What React renders (see useConversation). */
  readonly getSnapshot = (): ConversationState => this.shown;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The newest state, for event handlers (React's copy may be a frame behind). */
  current(): ConversationState {
    return this.latest;
  }

  view(): ConversationView | undefined {
    return this.latest.status === 'open' ? this.latest.view : undefined;
  }

  async open(threadId?: string, options: { renew?: boolean } = {}): Promise<void> {
    const attempt = ++this.opens;
    if (this.latest.status !== 'open' || options.renew === true) this.set({ status: 'opening' }, true);
    const result = await this.port.open({
      agentId: this.agentId,
      ...(threadId === undefined ? {} : { threadId }),
      ...(options.renew === true ? { renew: true } : {}),
    });
    if (attempt !== this.opens || this.detached) return;
    this.set(result.ok ? { status: 'open', view: result.value } : { status: 'failed', error: result.error }, true);
  }

  /** A new conversation in place of the open one (Start a new session after an AgentCall session ended): the old view goes at once. */
  renew(): Promise<void> {
    return this.open(undefined, { renew: true });
  }

  /** The user's text; answers main's refusal, if any (the composer keeps the text then). */
  async send(text: string): Promise<IpcError | undefined> {
    const view = this.view();
    if (view === undefined) return { code: 'session_ended', message: 'The conversation is not open.' };
    const result = await this.port.send({ agentId: this.agentId, conversationId: view.conversationId, messageId: newMessageId(), text });
    return result.ok ? undefined : result.error;
  }

  async cancel(): Promise<IpcError | undefined> {
    const view = this.view();
    if (view === undefined) return undefined;
    const result = await this.port.cancel({ agentId: this.agentId, conversationId: view.conversationId });
    return result.ok ? undefined : result.error;
  }

  async unqueue(itemId: string): Promise<void> {
    const view = this.view();
    if (view === undefined || !itemId.startsWith('queued:')) return;
    await this.port.unqueue({ agentId: this.agentId, conversationId: view.conversationId, messageId: itemId.slice('queued:'.length) });
  }

  /** "Show earlier": main adds older items to the window. */
  async earlier(): Promise<IpcError | undefined> {
    const view = this.view();
    if (view === undefined || view.status.earlier === 0) return undefined;
    const result = await this.port.earlier({ agentId: this.agentId, conversationId: view.conversationId });
    if (!result.ok) return result.error;
    this.change(view.conversationId, [
      { op: 'earlier', items: result.value.items },
      { op: 'status', status: { ...this.viewStatus(), earlier: result.value.earlier } },
    ]);
    return undefined;
  }

  async close(): Promise<void> {
    await this.port.close({ agentId: this.agentId });
  }

  private viewStatus() {
    const view = this.view();
    if (view === undefined) throw new Error('no view');
    return view.status;
  }

  private receive(payload: { agentId: string; conversationId: string; ops: ConversationOp[] }): void {
    if (payload.agentId !== this.agentId) return;
    this.change(payload.conversationId, payload.ops);
  }

  private change(conversationId: string, ops: ConversationOp[]): void {
    const view = this.view();
    // Another conversation's update (or one sent before this page's open was answered): not this view's.
    if (view === undefined || view.conversationId !== conversationId || this.resyncing) return;
    const next = applyConversationOps(view, ops);
    if (next !== undefined) return this.set({ status: 'open', view: next }, false);
    void this.resync(view.conversationId);
  }

  /** An update did not fit: the whole view again from main. */
  private async resync(conversationId: string): Promise<void> {
    this.resyncing = true;
    const result = await this.port.view({ agentId: this.agentId, conversationId });
    this.resyncing = false;
    if (this.detached || this.view()?.conversationId !== conversationId) return;
    if (result.ok) this.set({ status: 'open', view: result.value }, true);
    else this.set({ status: 'failed', error: result.error }, true);
  }

  private set(state: ConversationState, now: boolean): void {
    this.latest = state;
    if (now) {
      this.frame.cancel();
      this.show();
    } else this.frame.request();
  }

  private show(): void {
    if (this.shown === this.latest) return;
    this.shown = this.latest;
    for (const listener of this.listeners) listener();
  }
}

function newMessageId(): string {
  return `msg-${crypto.randomUUID()}`;
}
