import { conversationBounds, itemsChars, windowStart } from '../../shared/conversation/bounds';
import type { ConversationItem } from '../../shared/conversation/items';
import { diffConversation, type ConversationOp } from '../../shared/conversation/update';
import type { ConversationStatus, ConversationView } from '../../shared/conversation/view';
import { ServiceError } from '../../shared/base/errors';
import type { ConversationAdapter, ConversationSource } from './conversation-source';

/*
 * The window the page holds (src/shared/conversation/bounds.ts, the one rule): main keeps the whole
 * conversation within the budget and sends the page its newest items only — the first window when it
 * opens, the window before it on "Show earlier", no message over `windowChars` — so a long or hostile
 * thread never reaches the page whole.
 */
/** Messages typed while the agent answers wait here, sent one by one when each answer ends. */
export const maxQueuedMessages = 5;

export interface ConversationServiceDeps {
  adapters: Readonly<Record<ConversationSource['protocol'], ConversationAdapter>>;
  /** What the agent speaks (the registry's protocol, or main's identification). */
  protocolOf(agentId: string): Promise<ConversationSource['protocol']>;
  emit(payload: { agentId: string; conversationId: string; ops: ConversationOp[] }): void;
  /** Where a failure nobody waits for is written (main's logger). */
  log: { warn(area: string, message: string, error?: unknown): void };
  /** How changes are batched into one update (default: one per turn of the event loop). */
  schedule?: (run: () => void) => void;
}

interface Queued {
  messageId: string;
  text: string;
}

interface Open {
  agentId: string;
  conversationId: string;
  source: ConversationSource;
  unsubscribe: () => void;
  /** What the page has now (main's copy of the page's view). */
  sent: ConversationView;
  /** The absolute position (items removed for good + index) of the page's first item. */
  windowFrom: number;
  /** The source's thread the window is of: another thread opens on its own newest window. */
  threadId: string | undefined;
  queue: Queued[];
  /** A queued message is being handed to the source. */
  sending: boolean;
  scheduled: boolean;
  closed: boolean;
}

/**
 * Every open conversation, whatever its protocol: one per agent. It opens the agent's protocol
 * source, sends the page the projected view and then only what changed (one `conversation.update` per
 * tick), keeps the window the page holds, queues messages typed while the agent answers, and ends
 * conversations — one at a time, or all of them for the kiosk's reset and at quit.
 */
export class ConversationService {
  private readonly open = new Map<string, Open>();
  /** An open in progress per agent: the next waits for it (two at once would open two sources, one never ended). */
  private readonly opening = new Map<string, Promise<unknown>>();
  private counter = 0;
  private lastActivityAt: number | undefined;

  constructor(private readonly deps: ConversationServiceDeps) {}

  /**
   * Whether a conversation is going on now (an answer coming, a message queued or being sent) and
   * when anything last happened in one: the updater installs only when nothing is (issue #28).
   */
  activity(): { busy: boolean; lastActivityAt: number | undefined } {
    const busy = [...this.open.values()].some((entry) => entry.sending || entry.queue.length > 0 || entry.source.snapshot().status.run !== 'idle');
    return { busy, lastActivityAt: this.lastActivityAt };
  }

  /**
   * The agent's conversation for a page that opens it: the one already open (a reloaded page, a screen
   * shown again) unless another thread is asked for, or a new one (`renew`: an AgentCall session
   * after its end); else a new one (ending the one it had). Answers the page's first view: the newest
   * window of items.
   */
  async openConversation(agentId: string, options: { threadId?: string; renew?: boolean } = {}): Promise<ConversationView> {
    const run = (this.opening.get(agentId) ?? Promise.resolve()).catch(() => undefined).then(() => this.openNow(agentId, options));
    this.opening.set(agentId, run);
    try {
      return await run;
    } finally {
      if (this.opening.get(agentId) === run) this.opening.delete(agentId);
    }
  }

  private async openNow(agentId: string, options: { threadId?: string; renew?: boolean }): Promise<ConversationView> {
    const current = this.open.get(agentId);
    const snapshot = current?.source.snapshot();
    if (
      current !== undefined &&
      snapshot !== undefined &&
      options.renew !== true &&
      (options.threadId === undefined || options.threadId === snapshot.status.threadId)
    ) {
      current.threadId = snapshot.status.threadId;
      current.windowFrom = newestWindowFrom(snapshot, queuedItems(current.queue));
      current.sent = this.viewOf(current);
      return current.sent;
    }
    await this.close(agentId);
    const protocol = await this.deps.protocolOf(agentId);
    const source = await this.deps.adapters[protocol].open(agentId, options.threadId === undefined ? {} : { threadId: options.threadId });
    this.counter += 1;
    const conversationId = `c-${this.counter}`;
    const entry: Open = {
      agentId,
      conversationId,
      source,
      unsubscribe: () => undefined,
      sent: { conversationId, agentId, protocol, status: { phase: 'connecting', run: 'idle', earlier: 0, dropped: 0 }, items: [] },
      windowFrom: 0,
      threadId: source.snapshot().status.threadId,
      queue: [],
      sending: false,
      scheduled: false,
      closed: false,
    };
    this.open.set(agentId, entry);
    entry.unsubscribe = source.subscribe(() => this.changed(entry));
    entry.windowFrom = newestWindowFrom(source.snapshot(), []);
    entry.sent = this.viewOf(entry);
    return entry.sent;
  }

  /** The page's whole view again (it could not apply an update): what main believes the page has. */
  view(agentId: string, conversationId: string): ConversationView {
    return this.entry(agentId, conversationId).sent;
  }

  /** The user's text: sent now, or queued while the agent answers (shown as queued; `unqueue` takes it back). */
  async send(agentId: string, conversationId: string, message: Queued): Promise<{ queued: boolean }> {
    const entry = this.entry(agentId, conversationId);
    this.lastActivityAt = Date.now();
    const { status } = entry.source.snapshot();
    if (status.phase !== 'ready') throw new ServiceError('rejected', 'The conversation cannot take a message yet: it is still connecting, or it has ended.');
    if (status.run !== 'idle' || entry.queue.length > 0 || entry.sending) {
      if (entry.queue.length >= maxQueuedMessages)
        throw new ServiceError('rejected', `At most ${maxQueuedMessages} messages can wait while the agent answers.`);
      if (entry.queue.some((queued) => queued.messageId === message.messageId)) return { queued: true };
      entry.queue.push(message);
      this.changed(entry);
      return { queued: true };
    }
    await entry.source.send(message);
    return { queued: false };
  }

  /** Takes back a message that waits in the queue; false when it already went (or never waited). */
  unqueue(agentId: string, conversationId: string, messageId: string): { removed: boolean } {
    const entry = this.entry(agentId, conversationId);
    const before = entry.queue.length;
    entry.queue = entry.queue.filter((queued) => queued.messageId !== messageId);
    if (entry.queue.length !== before) this.changed(entry);
    return { removed: entry.queue.length !== before };
  }

  async cancel(agentId: string, conversationId: string): Promise<{ cancelled: boolean }> {
    const entry = this.entry(agentId, conversationId);
    return { cancelled: await entry.source.cancel() };
  }

  /** Older items for "Show earlier": they join the page's window. */
  earlier(agentId: string, conversationId: string): { items: ConversationItem[]; earlier: number } {
    const entry = this.entry(agentId, conversationId);
    const { items, status } = entry.source.snapshot();
    const dropped = status.dropped ?? 0;
    const end = Math.max(0, Math.min(items.length, entry.windowFrom - dropped));
    const start = windowStart(items, end, conversationBounds.earlierItems);
    const older = items.slice(start, end);
    entry.windowFrom = dropped + start;
    entry.sent = { ...entry.sent, items: [...older, ...entry.sent.items], status: { ...entry.sent.status, earlier: start } };
    return { items: older, earlier: start };
  }

  /** Ends the agent's conversation, if one is open: whether one was. */
  async close(agentId: string): Promise<boolean> {
    const entry = this.open.get(agentId);
    if (entry === undefined) return false;
    this.open.delete(agentId);
    entry.closed = true;
    entry.unsubscribe();
    try {
      await entry.source.end();
    } catch (error) {
      this.deps.log.warn('conversation', `ending a ${entry.source.protocol} conversation failed`, error);
    }
    return true;
  }

  /** Ends every open conversation (quitting): how many there were. */
  async closeAll(): Promise<number> {
    const agents = [...this.open.keys()];
    await Promise.all(agents.map((agentId) => this.close(agentId)));
    return agents.length;
  }

  /**
   * The kiosk's reset, for every protocol alike: the open conversations end, then each protocol ends
   * what else it had going and forgets what it kept. Each part's failure is reported after the others ran.
   */
  async resetAll(): Promise<{ ended: number; removedFiles: number; failures: unknown[] }> {
    const closed = await this.closeAll();
    const settled = await Promise.allSettled(Object.values(this.deps.adapters).map((adapter) => adapter.reset()));
    let ended = 0;
    let removedFiles = 0;
    const failures: unknown[] = [];
    for (const result of settled) {
      if (result.status === 'rejected') failures.push(result.reason);
      else {
        ended += result.value.ended;
        removedFiles += result.value.removedFiles;
      }
    }
    return { ended: Math.max(ended, closed), removedFiles, failures };
  }

  private entry(agentId: string, conversationId: string): Open {
    const entry = this.open.get(agentId);
    if (entry === undefined || entry.conversationId !== conversationId)
      throw new ServiceError('session_ended', 'This conversation is no longer open. Open it again.');
    return entry;
  }

  private changed(entry: Open): void {
    this.lastActivityAt = Date.now();
    if (entry.scheduled || entry.closed) return;
    entry.scheduled = true;
    (this.deps.schedule ?? ((run: () => void) => setTimeout(run, 0)))(() => {
      entry.scheduled = false;
      if (entry.closed) return;
      this.flush(entry);
      this.sendQueued(entry);
    });
  }

  /**
   * One tick: the view now, the ops from what the page has to it. Another thread is sent as its newest
   * window, whole. A change larger than one message
   * may carry (a snapshot that rebuilt every item) moves the page's window to the newest items instead,
   * sent whole; the older ones are back behind "Show earlier".
   */
  private flush(entry: Open): void {
    const snapshot = entry.source.snapshot();
    if (snapshot.status.threadId !== entry.threadId) {
      // Another thread in the same conversation (AG-UI's New chat, an earlier thread): its own newest window.
      entry.threadId = snapshot.status.threadId;
      entry.windowFrom = newestWindowFrom(snapshot, queuedItems(entry.queue));
      entry.sent = this.viewOf(entry);
      this.deps.emit({ agentId: entry.agentId, conversationId: entry.conversationId, ops: [{ op: 'reset', view: entry.sent }] });
      return;
    }
    let next = this.viewOf(entry);
    let ops = diffConversation(entry.sent, next);
    if (opsChars(ops) > conversationBounds.windowChars) {
      entry.windowFrom = newestWindowFrom(entry.source.snapshot(), queuedItems(entry.queue));
      next = this.viewOf(entry);
      ops = [{ op: 'reset', view: next }];
    }
    entry.sent = next;
    if (ops.length > 0) this.deps.emit({ agentId: entry.agentId, conversationId: entry.conversationId, ops });
  }

  /** The oldest queued message goes once the agent is done answering. */
  private sendQueued(entry: Open): void {
    const next = entry.queue[0];
    if (next === undefined || entry.sending) return;
    const { status } = entry.source.snapshot();
    if (status.phase !== 'ready' || status.run !== 'idle') return;
    entry.sending = true;
    entry.queue = entry.queue.slice(1);
    entry.source.send(next).then(
      () => {
        entry.sending = false;
        this.changed(entry);
      },
      (error: unknown) => {
        entry.sending = false;
        this.deps.log.warn('conversation', 'a queued message could not be sent', error);
        this.changed(entry);
      },
    );
  }

  private viewOf(entry: Open): ConversationView {
    const { items, status } = entry.source.snapshot();
    const dropped = status.dropped ?? 0;
    // The window keeps growing with new items; items the budget removed leave it (the source drops them).
    const start = Math.max(0, Math.min(items.length, entry.windowFrom - dropped));
    entry.windowFrom = dropped + start;
    const queued = queuedItems(entry.queue);
    const fullStatus: ConversationStatus = { ...status, earlier: start, dropped };
    return { ...entry.sent, status: fullStatus, items: [...items.slice(start), ...queued] };
  }
}

/** The messages waiting to be sent, as the page shows them after the conversation's items. */
function queuedItems(queue: readonly Queued[]): ConversationItem[] {
  return queue.map((message) => ({ kind: 'message', id: `queued:${message.messageId}`, role: 'user', text: message.text, format: 'plain', state: 'queued' }));
}

/** Where the newest window of a conversation begins, as an absolute position: the queued messages after it fit in it too. */
function newestWindowFrom({ items, status }: ReturnType<ConversationSource['snapshot']>, queued: readonly ConversationItem[]): number {
  const shown = [...items, ...queued];
  return (status.dropped ?? 0) + Math.min(items.length, windowStart(shown, shown.length, conversationBounds.firstWindowItems));
}

/** The characters of items the ops carry (text appended counts as its length). */
function opsChars(ops: readonly ConversationOp[]): number {
  let total = 0;
  for (const op of ops) {
    if (op.op === 'upsert') total += itemsChars([op.item]);
    else if (op.op === 'text') total += op.append.length;
    else if (op.op === 'reset') total += itemsChars(op.view.items);
    else if (op.op === 'earlier') total += itemsChars(op.items);
  }
  return total;
}
