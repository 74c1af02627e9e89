import { EventType } from '@ag-ui/core';
import { z } from 'zod';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import { nextOrder, UserSpace, type ActionRecord, type AnswerState, type ThreadRecord } from './demo-store';
import type { TalkieUser, ThreadMessage } from './talkie-types';

/**
 * The demo's state on disk (`TalkieDemoOptions.persistPath`), so "restart the app → the thread is
 * still there". Written through JsonFileStore (atomic, schema-checked; a bad file is moved aside).
 *
 * Only complete stored data is saved: threads with their messages and cards, answer states, actions
 * with their decision and decision events, and the usage counter. Never tokens, never runs in flight:
 * an answer still `running` is saved as `failed`, so a retry of that message is answered again.
 * Sizes are bounded: the newest threads and messages are kept when there are more.
 */

/**
 * `demo-agent.json`: a schema change adds a version and its migration here.
 * - 1: threads, messages, actions, the day's run count.
 * - 2 (voice, #16): each thread's `channel` ("chat" | "voice"), messages said in a voice session
 *   (`channel: "voice"`), and the day's voice seconds (`usage.voiceSeconds`).
 */
export const demoStateVersion = 2;
export const demoStateFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: demoStateVersion, migrations: { 1: addVoice } };

/** 1 → 2: every thread and message so far was a chat one, and no voice was used. */
function addVoice(document: Record<string, unknown>): Record<string, unknown> {
  const users = document.users;
  if (!Array.isArray(users)) return document; // the schema check refuses it
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  return {
    ...document,
    users: users.map((user: unknown) => {
      if (!isObject(user)) return user;
      return {
        ...user,
        ...(isObject(user.usage) ? { usage: { ...user.usage, voiceSeconds: 0 } } : {}),
        ...(Array.isArray(user.threads)
          ? { threads: user.threads.map((thread: unknown) => (isObject(thread) ? { ...thread, channel: 'chat' } : thread)) }
          : {}),
      };
    }),
  };
}

export const demoStateLimits = {
  users: 100,
  threadsPerUser: 500,
  messagesPerThread: 5000,
  actionsPerUser: 5000,
  cardsPerMessage: 100,
  blocksPerCard: 100,
  decisionEvents: 20,
} as const;

const id = z.string().min(1).max(200);
const timestamp = z.iso.datetime();
const short = z.string().max(2000);
const long = z.string().max(100_000);
const url = z.string().max(4096);

const cardBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('heading'), text: short }),
  z.object({ type: z.literal('text'), text: long }),
  z.object({ type: z.literal('fields'), fields: z.array(z.object({ label: short, value: long })).max(200) }),
  z.object({
    type: z.literal('list'),
    items: z.array(z.object({ title: short, subtitle: short.optional(), url: url.optional() })).max(200),
    more: z.number().int().nonnegative().optional(),
  }),
  z.object({ type: z.literal('link'), label: short, url }),
  z.object({ type: z.literal('file'), name: short, mime: short.optional(), size: z.number().int().nonnegative().optional(), url }),
  z.object({ type: z.literal('badge'), text: short, tone: z.enum(['neutral', 'positive', 'warning', 'negative']).optional() }),
]);

const cardSchema = z.object({
  id,
  version: z.literal(1),
  title: short.optional(),
  subtitle: short.optional(),
  url: url.optional(),
  blocks: z.array(cardBlockSchema).max(demoStateLimits.blocksPerCard),
  fallbackText: long,
  a11yLabel: short.optional(),
});

const messageSchema = z.object({
  id,
  role: z.enum(['user', 'assistant']),
  content: long,
  createdAt: timestamp,
  cards: z.array(cardSchema).max(demoStateLimits.cardsPerMessage),
  channel: z.enum(['chat', 'voice']),
});

const threadSchema = z.object({
  id,
  title: short,
  channel: z.enum(['chat', 'voice']),
  createdAt: timestamp,
  updatedAt: timestamp,
  messages: z.array(messageSchema).max(demoStateLimits.messagesPerThread),
  /** Where each user message stands; a run in flight is saved as `failed`. */
  answers: z.array(z.object({ messageId: id, state: z.enum(['answered', 'failed']) })).max(demoStateLimits.messagesPerThread),
  actionIds: z.array(id).max(demoStateLimits.actionsPerUser),
});

const actionSchema = z.object({
  id,
  version: z.literal(1),
  threadId: id,
  toolCallId: id,
  summary: short,
  riskLevel: z.enum(['low', 'medium', 'high']),
  status: z.enum(['pending', 'running', 'done', 'failed', 'cancelled', 'expired']),
  paramsHash: z.string().min(1).max(200),
  createdAt: timestamp,
  expiresAt: timestamp,
  undoUntil: timestamp.optional(),
  confirm: z.object({ methods: z.array(z.enum(['button', 'voice'])).max(2), voice: z.object({ keyword: short }).optional() }),
});

const actionRecordSchema = z.object({
  action: actionSchema,
  kind: z.enum(['test-note', 'send-offer']),
  params: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,99}$/), z.json()),
  decision: z.object({ decision: z.enum(['confirm', 'cancel']), method: z.enum(['button', 'voice', 'system']), at: timestamp }).optional(),
  /** The events a repeated decision returns again: the demo's decisions only ever return cards. */
  decisionEvents: z
    .array(z.object({ type: z.literal(EventType.CUSTOM), name: z.literal('talkie.card'), value: cardSchema, timestamp: z.number().optional() }))
    .max(demoStateLimits.decisionEvents),
});

const userStateSchema = z.object({
  user: z.object({ id: z.string().min(1).max(500), name: z.string().max(500), email: z.string().max(500).optional() }),
  usage: z.object({
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    runs: z.number().int().nonnegative().max(1_000_000),
    voiceSeconds: z.number().nonnegative().max(1_000_000_000),
  }),
  /** Newest first. */
  threads: z.array(threadSchema).max(demoStateLimits.threadsPerUser),
  actions: z.array(actionRecordSchema).max(demoStateLimits.actionsPerUser),
});

export const demoStateSchema = z.object({
  schemaVersion: z.literal(demoStateVersion),
  savedAt: timestamp,
  users: z.array(userStateSchema).max(demoStateLimits.users),
});

export type DemoState = z.output<typeof demoStateSchema>;
type UserState = DemoState['users'][number];

export const emptyDemoState = (): DemoState => ({ schemaVersion: demoStateVersion, savedAt: new Date().toISOString(), users: [] });

const lastActivity = (space: UserSpace): number => Math.max(0, ...[...space.threads.values()].map((thread) => thread.order));

/**
 * The state to save: plain data, trimmed to the limits (newest kept). A user whose data does not fit
 * the schema (say, a `verifyToken` user id longer than 500 characters) is left out and reported
 * through `onSkip`, so one odd user never stops everyone else's state from being saved.
 */
export function snapshotDemoState(spaces: Iterable<UserSpace>, onSkip?: (userId: string, problem: string) => void): DemoState {
  const users: UserState[] = [];
  const ranked = [...spaces].sort((a, b) => lastActivity(b) - lastActivity(a));
  for (const space of ranked) {
    const usage = space.usageState();
    if (space.threads.size === 0 && space.actions.size === 0 && usage.runs === 0 && usage.voiceSeconds === 0) continue;
    if (users.length >= demoStateLimits.users) break;
    const user = snapshotUser(space, usage);
    const checked = userStateSchema.safeParse(user);
    if (checked.success) users.push(user);
    else
      onSkip?.(
        space.user.id,
        checked.error.issues
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .slice(0, 3)
          .join('; '),
      );
  }
  return { schemaVersion: demoStateVersion, savedAt: new Date().toISOString(), users };
}

function snapshotUser(space: UserSpace, usage: UserState['usage']): UserState {
  const threads = [...space.threads.values()].sort((a, b) => b.order - a.order).slice(0, demoStateLimits.threadsPerUser);
  const kept = new Set(threads.map((thread) => thread.id));
  // Actions of threads dropped for size go with them; those of deleted threads stay readable, as in memory.
  const actions = [...space.actions.values()]
    .filter((record) => kept.has(record.action.threadId) || !space.threads.has(record.action.threadId))
    .sort((a, b) => (a.action.createdAt < b.action.createdAt ? 1 : a.action.createdAt > b.action.createdAt ? -1 : 0))
    .slice(0, demoStateLimits.actionsPerUser);
  const actionIds = new Set(actions.map((record) => record.action.id));
  return {
    user: { id: space.user.id, name: space.user.name, ...(space.user.email === undefined ? {} : { email: space.user.email }) },
    usage,
    threads: threads.map((thread) => {
      const messages = thread.messages.slice(-demoStateLimits.messagesPerThread);
      const messageIds = new Set(messages.map((message) => message.id));
      return {
        id: thread.id,
        title: thread.title,
        channel: thread.channel,
        createdAt: thread.createdAt,
        updatedAt: thread.updatedAt,
        messages: messages.map((message) => ({ ...message, cards: message.cards.map((card) => structuredClone(card)) })),
        answers: [...thread.answers]
          .filter(([messageId]) => messageIds.has(messageId))
          .map(([messageId, answer]) => ({ messageId, state: answer.state === 'answered' ? ('answered' as const) : ('failed' as const) })),
        actionIds: thread.actionIds.filter((actionId) => actionIds.has(actionId)),
      };
    }),
    actions: actions.map((record) => ({
      action: structuredClone(record.action),
      kind: record.kind,
      params: structuredClone(record.params) as Record<string, z.core.util.JSONType>,
      ...(record.decision ? { decision: { ...record.decision } } : {}),
      decisionEvents: structuredClone(record.decisionEvents) as UserState['actions'][number]['decisionEvents'],
    })),
  };
}

/**
 * Rebuilds the user spaces from a saved state. Threads get fresh ordering keys in their saved order;
 * references to missing actions are dropped. Actions still need `resumeAction` (undo timers, expiry).
 */
export function restoreDemoState(state: DemoState): UserSpace[] {
  const spaces = new Map<string, UserSpace>();
  for (const saved of state.users) {
    const user: TalkieUser = { id: saved.user.id, name: saved.user.name, ...(saved.user.email === undefined ? {} : { email: saved.user.email }) };
    const space = new UserSpace(user);
    space.restoreUsage(saved.usage);
    for (const savedAction of saved.actions) {
      const record: ActionRecord = {
        action: savedAction.action,
        kind: savedAction.kind,
        params: savedAction.params,
        decisionEvents: savedAction.decisionEvents,
        ...(savedAction.decision ? { decision: savedAction.decision } : {}),
      };
      space.actions.set(record.action.id, record);
    }
    // Saved newest first: restore oldest first so the newest gets the highest ordering key.
    for (const savedThread of [...saved.threads].reverse()) {
      const messages: ThreadMessage[] = savedThread.messages;
      const thread: ThreadRecord = {
        id: savedThread.id,
        title: savedThread.title,
        channel: savedThread.channel,
        createdAt: savedThread.createdAt,
        updatedAt: savedThread.updatedAt,
        order: nextOrder(),
        messages,
        answers: new Map<string, AnswerState>(savedThread.answers.map((answer) => [answer.messageId, { state: answer.state }])),
        actionIds: [...new Set(savedThread.actionIds)].filter((actionId) => space.actions.get(actionId)?.action.threadId === savedThread.id),
        deleted: false,
      };
      space.threads.set(thread.id, thread);
    }
    spaces.set(user.id, space);
  }
  return [...spaces.values()];
}

export interface DemoStateStore {
  save(value: DemoState): Promise<void>;
}

/**
 * Coalesces saves: the first change starts a short timer and one write takes every change made
 * until it fires; never two writes at once (a change during a write schedules one more afterwards).
 * `close()` writes what is still unsaved and stops.
 */
export class DemoStatePersister {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;

  constructor(
    private readonly store: DemoStateStore,
    private readonly snapshot: () => DemoState,
    private readonly log: { error(area: string, message: string, error?: unknown): void },
    private readonly delayMs = 50,
    /** A save failed (after the log line): the state stays in memory and later changes try again. */
    private readonly onSaveFailed?: (error: unknown) => void,
  ) {}

  /** Something worth saving changed. */
  schedule(): void {
    this.dirty = true;
    if (this.stopped || this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, this.delayMs);
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.dirty) await this.write();
  }

  private write(): Promise<void> {
    this.dirty = false;
    let pending: Promise<void>;
    try {
      pending = this.store.save(this.snapshot());
    } catch (error) {
      pending = Promise.reject(error);
    }
    const writing = pending
      .catch((error: unknown) => {
        this.log.error('demo', 'the demo state could not be saved', error);
        this.onSaveFailed?.(error);
      })
      .finally(() => {
        this.writing = undefined;
        if (this.dirty) this.schedule();
      });
    this.writing = writing;
    return writing;
  }
}
