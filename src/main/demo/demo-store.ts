import { createHash, randomBytes } from 'node:crypto';
import type { Channel, ConfirmMethod, RiskLevel, TalkieAction, TalkieCard, TalkieUser, ThreadMessage, ThreadSummary, UsageEntry } from './talkie-types';

/**
 * The demo's in-memory state, one space per user (static tokens all act as the demo user; users from
 * `verifyToken` get their own spaces, so one user never sees another's threads or actions).
 * Kept in memory; with `persistPath` (demo-persistence.ts) every change is reported through
 * `UserSpace.onChange` and the state is saved to, and loaded from, a JSON file.
 */

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}

export const iso = (ms: number = Date.now()): string => new Date(ms).toISOString();

/** JSON with object keys sorted at every level and no whitespace: the input of `paramsHash`. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function paramsHash(params: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(params)).digest('hex')}`;
}

/** Talkie 1 §9 thread title: the first user message on one line, at most 60 characters. */
export function threadTitle(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return 'New conversation';
  const chars = [...line];
  return chars.length <= 60 ? line : `${chars.slice(0, 59).join('').trimEnd()}…`;
}

/** Where a user message stands: answered once a run for it ended with RUN_FINISHED. */
export type AnswerState = { state: 'running'; runId: string } | { state: 'answered' } | { state: 'failed' };

export interface ThreadRecord {
  id: string;
  title: string;
  /** Where it was started: a chat run, or a voice session (Talkie 1 §9). */
  channel: Channel;
  createdAt: string;
  updatedAt: string;
  /** Ordering key for "newest first" (timestamps can tie within a millisecond). */
  order: number;
  messages: ThreadMessage[];
  answers: Map<string, AnswerState>;
  actionIds: string[];
  deleted: boolean;
}

export type ActionKind = 'test-note' | 'send-offer';

export interface ActionProposal {
  kind: ActionKind;
  summary: string;
  riskLevel: RiskLevel;
  params: Record<string, unknown>;
  confirm: TalkieAction['confirm'];
  /** Before timeScale. */
  expiresInMs: number;
}

export interface ActionRecord {
  action: TalkieAction;
  kind: ActionKind;
  params: Record<string, unknown>;
  /** The decision in force (the latest). `system` = cancelled because its thread was deleted. */
  decision?: { decision: 'confirm' | 'cancel'; method: ConfirmMethod | 'system'; at: string };
  /** The events the decision in force returned, returned again when it is repeated. */
  decisionEvents: unknown[];
  undoTimer?: NodeJS.Timeout;
}

export const demoUser: TalkieUser = { id: 'demo', name: 'Demo user', email: 'demo@agentdesk.invalid' };
export const dailyRunLimit = 200;
/** Voice minutes a user may talk per day (seconds; a server option may change it). */
export const defaultDailyVoiceSeconds = 30 * 60;

let orderCounter = 0;

/** The next "newest first" ordering key (shared by all spaces). */
export function nextOrder(): number {
  return ++orderCounter;
}

export class UserSpace {
  readonly threads = new Map<string, ThreadRecord>();
  readonly actions = new Map<string, ActionRecord>();
  private usageDay = '';
  private runsToday = 0;
  private voiceSecondsToday = 0;
  /** The daily voice quota in seconds (set by the server from its options). */
  voiceLimitSeconds = defaultDailyVoiceSeconds;
  /** Called after every change worth saving (set by the server when the state is persisted). */
  onChange: (() => void) | undefined;

  constructor(readonly user: TalkieUser) {}

  /** Reports a change of stored data (threads, messages, answers, actions, usage). */
  changed(): void {
    this.onChange?.();
  }

  createThread(id: string, firstUserText: string, channel: Channel = 'chat', title = threadTitle(firstUserText)): ThreadRecord {
    const now = iso();
    const thread: ThreadRecord = {
      id,
      title,
      channel,
      createdAt: now,
      updatedAt: now,
      order: ++orderCounter,
      messages: [],
      answers: new Map(),
      actionIds: [],
      deleted: false,
    };
    this.threads.set(id, thread);
    this.changed();
    return thread;
  }

  touch(thread: ThreadRecord): void {
    thread.updatedAt = iso();
    thread.order = ++orderCounter;
    this.changed();
  }

  addMessage(thread: ThreadRecord, message: Omit<ThreadMessage, 'channel'>, channel: Channel = 'chat'): void {
    if (thread.deleted) return;
    thread.messages.push({ ...message, channel });
    this.touch(thread);
  }

  /** Stores a card the user should find in the thread (decision results, voice tool results), as an assistant message. */
  addCardMessage(threadId: string, card: TalkieCard, channel: Channel = 'chat'): void {
    const thread = this.threads.get(threadId);
    if (thread) this.addMessage(thread, { id: newId('msg'), role: 'assistant', content: '', createdAt: iso(), cards: [card] }, channel);
  }

  hasMessage(thread: ThreadRecord, messageId: string): boolean {
    return thread.messages.some((message) => message.id === messageId);
  }

  /** Newest first (by last activity), at most 50. */
  listThreads(): ThreadSummary[] {
    return [...this.threads.values()]
      .sort((a, b) => b.order - a.order)
      .slice(0, 50)
      .map((thread) => summary(thread));
  }

  createAction(thread: ThreadRecord, proposal: ActionProposal, toolCallId: string, timeScale: number): TalkieAction {
    const now = Date.now();
    const action: TalkieAction = {
      id: newId('act'),
      version: 1,
      threadId: thread.id,
      toolCallId,
      summary: proposal.summary,
      riskLevel: proposal.riskLevel,
      status: 'pending',
      paramsHash: paramsHash(proposal.params),
      createdAt: iso(now),
      expiresAt: iso(now + proposal.expiresInMs * timeScale),
      confirm: proposal.confirm,
    };
    // A new proposal never replaces an older one: every proposal is a new action with its own id.
    this.actions.set(action.id, { action, kind: proposal.kind, params: proposal.params, decisionEvents: [] });
    thread.actionIds.push(action.id);
    this.touch(thread);
    return action;
  }

  /** Counts a run against today's quota; false when the quota is used up. */
  countRun(): boolean {
    this.rollDay();
    if (this.runsToday >= dailyRunLimit) return false;
    this.runsToday++;
    this.changed();
    return true;
  }

  /** Voice seconds left today (never negative). */
  voiceSecondsLeft(): number {
    this.rollDay();
    return Math.max(0, this.voiceLimitSeconds - this.voiceSecondsToday);
  }

  /** Counts talked voice seconds against today's quota (reported by the voice sessions). */
  countVoiceSeconds(seconds: number): void {
    if (!(seconds > 0)) return;
    this.rollDay();
    this.voiceSecondsToday += seconds;
    this.changed();
  }

  /** Today's run count and voice seconds, for saving. */
  usageState(): { day: string; runs: number; voiceSeconds: number } {
    this.rollDay();
    return { day: this.usageDay, runs: this.runsToday, voiceSeconds: this.voiceSecondsToday };
  }

  /** Restores saved counts; counts from another day are dropped by the next roll. */
  restoreUsage(state: { day: string; runs: number; voiceSeconds: number }): void {
    this.usageDay = state.day;
    this.runsToday = state.runs;
    this.voiceSecondsToday = state.voiceSeconds;
    this.rollDay();
  }

  usage(): UsageEntry[] {
    this.rollDay();
    const minutes = (seconds: number) => Math.round(seconds / 6) / 10;
    return [
      { label: 'Messages today', used: this.runsToday, limit: dailyRunLimit, unit: 'messages' },
      { label: 'Voice today', used: minutes(this.voiceSecondsToday), limit: minutes(this.voiceLimitSeconds), unit: 'minutes' },
    ];
  }

  private rollDay(): void {
    const day = iso().slice(0, 10);
    if (day !== this.usageDay) {
      this.usageDay = day;
      this.runsToday = 0;
      this.voiceSecondsToday = 0;
    }
  }

  clearTimers(): void {
    for (const record of this.actions.values()) {
      if (record.undoTimer) clearTimeout(record.undoTimer);
      record.undoTimer = undefined;
    }
  }
}

export function summary(thread: ThreadRecord): ThreadSummary {
  return { id: thread.id, title: thread.title, channel: thread.channel, createdAt: thread.createdAt, updatedAt: thread.updatedAt };
}
