import { EventType, type Event } from '@ag-ui/core';
import { iso, newId, type ActionProposal, type ThreadRecord, type UserSpace } from './demo-store';
import type { TalkieAction, TalkieCard, UsageEntry } from './talkie-types';

/**
 * One chat run (Talkie 1 §5). The run lives on its own, independent of any HTTP response:
 * - **Disconnect is not cancel.** Streams are sinks that attach and detach; when the last one goes
 *   away the run goes on and stores its result in the thread.
 * - A retried request for a message whose run is still going attaches another sink: it gets the
 *   events so far, then the rest live (its own runId in RUN_STARTED / RUN_FINISHED).
 * - Messages are stored when they are complete (TEXT_MESSAGE_END), so a thread never shows half an
 *   answer of a running run. A cancelled or failed run stores the text it had streamed so far.
 * - Cards are attached to the next assistant text message of the run; cards left over at the end
 *   become an assistant message with empty content.
 */

/** What the agent can do. Deliberately nothing that decides an action (Talkie 1 §8: the decision endpoint is HTTP-only). */
export interface AgentContext {
  readonly testMode: boolean;
  /**
   * This run answers a message whose earlier run failed or was cancelled: the client retried it
   * with the same message id (Talkie 1 §5). `talkie-test:error-once` fails only when this is false.
   */
  readonly retry: boolean;
  /** Streams Markdown as one assistant text message in several deltas that concatenate to exactly `text`. */
  say(text: string, options?: { deltas?: readonly string[]; delayMs?: number }): Promise<void>;
  /** TOOL_CALL_START (metadata.label) → work → TOOL_CALL_END (metadata.ok). */
  tool<T>(name: string, label: string, work: (toolCallId: string) => T | Promise<T>, durationMs?: number): Promise<T>;
  card(card: TalkieCard): Promise<void>;
  propose(proposal: ActionProposal, toolCallId?: string): Promise<TalkieAction>;
  custom(name: string, value: unknown): Promise<void>;
  usage(): UsageEntry[];
  /** Waits `ms` × timeScale; throws when the run is cancelled meanwhile. */
  sleep(ms: number): Promise<void>;
}

export type DemoAgent = (text: string, context: AgentContext) => Promise<void>;

/** Thrown by the agent to end the run with RUN_ERROR and a Talkie 1 §3 code. */
export class AgentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'AgentFailure';
  }
}

export type AbortReason = 'cancelled' | 'shutdown';

class RunAborted extends Error {
  constructor(readonly reason: AbortReason) {
    super(reason);
    this.name = 'RunAborted';
  }
}

export type RunEnd = { kind: 'finished' } | { kind: 'error'; message: string; code: string; retryable: boolean };

/** One stream the run writes to, with the ids that stream's client knows the run by. */
export interface RunSink {
  runId: string;
  threadId: string;
  write(event: Event): void;
  end(): void;
}

export interface DemoRunOptions {
  runId: string;
  space: UserSpace;
  thread: ThreadRecord;
  userMessageId: string;
  userText: string;
  timeScale: number;
  testMode: boolean;
  log: { error(area: string, message: string, error?: unknown): void };
}

export class DemoRun {
  readonly runIds = new Set<string>();
  readonly thread: ThreadRecord;
  private readonly sinks = new Set<RunSink>();
  private readonly log: Event[] = [];
  private readonly abort = new AbortController();
  private openText: { messageId: string; content: string; createdAt: string } | undefined;
  private readonly openToolCalls = new Set<string>();
  private pendingCards: TalkieCard[] = [];
  private ended: RunEnd | undefined;
  private finishedPromise: Promise<void> = Promise.resolve();
  /** Set at start: the message's earlier run failed or was cancelled. */
  private retried = false;

  constructor(private readonly options: DemoRunOptions) {
    this.runIds.add(options.runId);
    this.thread = options.thread;
  }

  get active(): boolean {
    return this.ended === undefined;
  }

  get done(): Promise<void> {
    return this.finishedPromise;
  }

  /** Sends RUN_STARTED with the sink's ids and the events so far; the sink then gets the rest live. */
  attach(sink: RunSink): void {
    this.runIds.add(sink.runId);
    sink.write(stamp({ type: EventType.RUN_STARTED, threadId: sink.threadId, runId: sink.runId }));
    for (const event of this.log) sink.write(event);
    if (this.ended) {
      sink.write(this.terminalEvent(sink, this.ended));
      sink.end();
      return;
    }
    this.sinks.add(sink);
  }

  /** The client went away: the run goes on. */
  detach(sink: RunSink): void {
    this.sinks.delete(sink);
  }

  start(agent: DemoAgent, onEnd: (run: DemoRun) => void): void {
    this.retried = this.options.thread.answers.get(this.options.userMessageId)?.state === 'failed';
    this.options.thread.answers.set(this.options.userMessageId, { state: 'running', runId: this.options.runId });
    this.finishedPromise = this.execute(agent).finally(() => onEnd(this));
  }

  cancel(reason: AbortReason): void {
    if (this.active && !this.abort.signal.aborted) this.abort.abort(reason);
  }

  private async execute(agent: DemoAgent): Promise<void> {
    try {
      await agent(this.options.userText, this.context());
      this.finish({ kind: 'finished' });
    } catch (error) {
      if (error instanceof RunAborted) {
        // Cancelling is not in the spec's event table. AG-UI 1.0 would also allow RUN_FINISHED with
        // outcome "cancelled"; the demo ends a cancelled run with RUN_ERROR code "cancelled" (not
        // retryable), which every client already treats as terminal, and keeps the partial text.
        this.finish(
          error.reason === 'cancelled'
            ? { kind: 'error', code: 'cancelled', message: 'Cancelled', retryable: false }
            : { kind: 'error', code: 'upstream_unavailable', message: 'The demo server stopped.', retryable: true },
        );
      } else if (error instanceof AgentFailure) {
        this.finish({ kind: 'error', code: error.code, message: error.message, retryable: error.retryable });
      } else {
        this.options.log.error('demo', 'the demo agent failed', error);
        this.finish({ kind: 'error', code: 'internal', message: 'Something went wrong in the demo agent.', retryable: true });
      }
    }
  }

  private emit(event: Event): void {
    const stamped = stamp(event);
    this.log.push(stamped);
    for (const sink of this.sinks) sink.write(stamped);
  }

  private checkAborted(): void {
    const reason = this.abort.signal.reason as AbortReason | undefined;
    if (this.abort.signal.aborted) throw new RunAborted(reason ?? 'cancelled');
  }

  private sleep(ms: number): Promise<void> {
    this.checkAborted();
    const signal = this.abort.signal;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(new RunAborted((signal.reason as AbortReason | undefined) ?? 'cancelled'));
      };
      const timer = setTimeout(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms * this.options.timeScale),
      );
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private context(): AgentContext {
    return {
      testMode: this.options.testMode,
      retry: this.retried,
      say: (text, options) => this.say(text, options),
      tool: (name, label, work, durationMs) => this.tool(name, label, work, durationMs),
      card: async (card) => {
        this.checkAborted();
        this.emit(cardEvent(card));
        this.pendingCards.push(card);
      },
      propose: async (proposal, toolCallId) => {
        this.checkAborted();
        const action = this.options.space.createAction(this.thread, proposal, toolCallId ?? newId('call'), this.options.timeScale);
        this.emit(actionEvent(action));
        return structuredClone(action);
      },
      custom: async (name, value) => {
        this.checkAborted();
        this.emit({ type: EventType.CUSTOM, name, value });
      },
      usage: () => this.options.space.usage(),
      sleep: (ms) => this.sleep(ms),
    };
  }

  private async say(text: string, options: { deltas?: readonly string[]; delayMs?: number } = {}): Promise<void> {
    this.checkAborted();
    const deltas = options.deltas ?? splitIntoDeltas(text);
    const open = { messageId: newId('msg'), content: '', createdAt: iso() };
    this.openText = open;
    this.emit({ type: EventType.TEXT_MESSAGE_START, messageId: open.messageId, role: 'assistant' });
    for (const delta of deltas) {
      if (delta === '') continue;
      await this.sleep(options.delayMs ?? 40);
      this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta });
      open.content += delta;
    }
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: open.messageId });
    this.commitOpenText();
  }

  private async tool<T>(name: string, label: string, work: (toolCallId: string) => T | Promise<T>, durationMs = 400): Promise<T> {
    this.checkAborted();
    const toolCallId = newId('call');
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name, metadata: { label } });
    this.openToolCalls.add(toolCallId);
    await this.sleep(durationMs);
    const result = await work(toolCallId);
    this.openToolCalls.delete(toolCallId);
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId, metadata: { ok: true } });
    return result;
  }

  private commitOpenText(): void {
    const open = this.openText;
    if (!open) return;
    this.openText = undefined;
    this.options.space.addMessage(this.thread, {
      id: open.messageId,
      role: 'assistant',
      content: open.content,
      createdAt: open.createdAt,
      cards: this.pendingCards,
    });
    this.pendingCards = [];
  }

  private finish(end: RunEnd): void {
    if (this.ended) return;
    const reason = end.kind === 'error' ? end.message : '';
    for (const toolCallId of this.openToolCalls) this.emit({ type: EventType.TOOL_CALL_END, toolCallId, metadata: { ok: false, error: reason } });
    this.openToolCalls.clear();
    if (this.openText) {
      this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.openText.messageId });
      if (this.openText.content === '' && this.pendingCards.length === 0) this.openText = undefined;
      else this.commitOpenText();
    }
    if (this.pendingCards.length > 0) {
      this.options.space.addMessage(this.thread, { id: newId('msg'), role: 'assistant', content: '', createdAt: iso(), cards: this.pendingCards });
      this.pendingCards = [];
    }
    this.ended = end;
    this.thread.answers.set(this.options.userMessageId, end.kind === 'finished' ? { state: 'answered' } : { state: 'failed' });
    this.options.space.changed();
    for (const sink of this.sinks) {
      sink.write(this.terminalEvent(sink, end));
      sink.end();
    }
    this.sinks.clear();
    this.log.length = 0;
  }

  private terminalEvent(sink: RunSink, end: RunEnd): Event {
    return stamp(
      end.kind === 'finished'
        ? { type: EventType.RUN_FINISHED, threadId: sink.threadId, runId: sink.runId }
        : { type: EventType.RUN_ERROR, message: end.message, code: end.code, metadata: { retryable: end.retryable } },
    );
  }
}

export function stamp<E extends Event>(event: E): E {
  return event.timestamp === undefined ? { ...event, timestamp: Date.now() } : event;
}

/** Talkie 1 §6: a result card as the CUSTOM event a run streams, a decision or a voice tool returns. */
export const cardEvent = (card: TalkieCard): Event => stamp({ type: EventType.CUSTOM, name: 'talkie.card', value: card });

/** Talkie 1 §8: an action (a copy, as it is now) as the CUSTOM event a run streams or a voice tool returns. */
export const actionEvent = (action: TalkieAction): Event => stamp({ type: EventType.CUSTOM, name: 'talkie.action', value: structuredClone(action) });

/** Splits text into deltas of about three words that concatenate to exactly `text`. */
export function splitIntoDeltas(text: string, wordsPerDelta = 3): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerDelta) deltas.push(words.slice(i, i + wordsPerDelta).join(''));
  return deltas.filter((delta) => delta !== '');
}
